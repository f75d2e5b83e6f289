import Foundation
import ModelVersioning
import TestSupport
import Testing

@testable import ArchiveMigrateKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `archive-migrate upgrade --sqlite`, killed with SIGKILL at random moments of a 10,000-row
/// upgrade, never leaves a torn row or a damaged database: after every kill the database passes
/// `PRAGMA integrity_check` and every row is byte for byte its old or its new archive; running
/// the command again finishes the job.
@Suite("SQLite crash safety", .serialized)
struct SQLiteCrashSafetyTests {
    static let rowCount = 10_000
    static let minimumKills = 50

    /// Small version 1 drawings, JSON and keyed archives mixed, in one BLOB column.
    static func makeDatabase(at url: URL) throws -> [Data] {
        var random = SplitMix64(seed: 0x5EED)
        var old: [Data] = []
        for index in 0..<rowCount {
            let circle = ArchiveObject(
                typeName: "Circle", version: 1, fields: ["x": .double(Double(random.next() % 1000)), "y": 1, "r": 2])
            let drawing = ArchiveObject(
                typeName: "Drawing", version: 1,
                fields: [
                    "title": .string("Drawing \(index)"), "meta": ["author": "Ada"], "shapes": [.object(circle)],
                    "models": [],
                ])
            let tree = ArchiveEnvelope(root: .object(drawing), document: "Sketch", documentVersion: 1).tree
            old.append(
                index % 3 == 0
                    ? try ArchiveFormat.keyedArchive.write(tree)
                    : try ArchiveFormat.json.write(tree, options: ArchiveWritingOptions(prettyPrinted: false)))
        }
        let database = try TestDatabase.create(
            at: url, schema: "CREATE TABLE drawings (id INTEGER PRIMARY KEY, doc BLOB)")
        try database.insert("INSERT INTO drawings (doc) VALUES (?)", rows: old.map { [.blob($0)] })
        return old
    }

    static let arguments = [
        "upgrade", "--sqlite", "sketch.sqlite", "--table", "drawings", "--column", "doc", "--rules", "rules.json",
        "--batch-size", "500",
    ]

    static func start(in folder: URL) throws -> Process {
        let process = Process()
        process.executableURL = ToolProcess.productsDirectory.appendingPathComponent("archive-migrate")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Checks the database: sound, and every row old or new. Returns how many are new.
    static func inspect(_ database: TestDatabase, old: [Data], new: [Data]) throws -> (
        upgraded: Int, problems: [String]
    ) {
        var problems: [String] = []
        let integrity = try database.integrityCheck()
        if integrity != "ok" { problems.append("integrity_check: \(integrity)") }
        let rows = try database.rows("SELECT id, typeof(doc), doc FROM drawings ORDER BY id")
        if rows.count != rowCount { problems.append("\(rows.count) rows") }
        var upgraded = 0
        for (index, row) in rows.enumerated() where index < rowCount {
            guard row[1] == .text(Data("blob".utf8)), let bytes = row[2].bytes else {
                problems.append("row \(index + 1) is \(row[1])")
                continue
            }
            if bytes == new[index] {
                upgraded += 1
            } else if bytes != old[index] {
                problems.append("row \(index + 1) is torn: neither the old nor the new archive")
            }
        }
        return (upgraded, problems)
    }

    @Test("SIGKILL at random moments of a 10,000-row upgrade leaves every row old or new and the database sound")
    func killedUpgrades() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        let file = scratch.url.appendingPathComponent("sketch.sqlite")
        let old = try Self.makeDatabase(at: file)
        let pristine = try Data(contentsOf: file)
        let database = TestDatabase(url: file)

        // The new rows, from a run that is not interrupted, and how long it takes.
        let started = Date()
        let reference = try Self.start(in: scratch.url)
        reference.waitUntilExit()
        let duration = Date().timeIntervalSince(started)
        #expect(reference.terminationStatus == 0)
        let new = try database.rows("SELECT doc FROM drawings ORDER BY id").map { $0[0].bytes ?? Data() }
        #expect(zip(old, new).allSatisfy { $0 != $1 })

        try pristine.write(to: file)
        var random = SplitMix64(seed: 42)
        var kills = 0
        var trials = 0
        var partial = 0
        var upgraded = 0
        while kills < Self.minimumKills {
            // Most kills land while the rows still old are being migrated and written.
            let remaining = Double(Self.rowCount - upgraded) / Double(Self.rowCount)
            let delay = Double(random.next() % 10_000) / 10_000 * duration * max(0.2, remaining)
            let process = try Self.start(in: scratch.url)
            usleep(useconds_t(delay * 1_000_000))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
            trials += 1
            let state = try Self.inspect(database, old: old, new: new)
            #expect(state.problems.isEmpty, "trial \(trials), killed after \(delay) s: \(state.problems.prefix(5))")
            if !state.problems.isEmpty { return }
            if state.upgraded > 0 && state.upgraded < Self.rowCount { partial += 1 }
            upgraded = state.upgraded
            if upgraded == Self.rowCount {
                try pristine.write(to: file)
                upgraded = 0
            }
        }
        print(
            "SQLite crash safety: \(kills) kills in \(trials) runs, \(partial) left a partly upgraded table; "
                + "reference run \(String(format: "%.2f", duration)) s")
        #expect(partial > 0, "no kill landed between two transactions")

        // Running again finishes the job.
        let rerun = try ToolProcess.run(Self.arguments, in: scratch.url)
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let final = try Self.inspect(database, old: old, new: new)
        #expect(final.problems.isEmpty && final.upgraded == Self.rowCount)
    }
}
