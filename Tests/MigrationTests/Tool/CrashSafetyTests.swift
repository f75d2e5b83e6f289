import Foundation
import TestSupport
import Testing

@testable import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `archive-migrate upgrade --in-place --backup`, killed with SIGKILL at random moments of a
/// batch, never leaves a torn or lost file: after every kill each archive is byte for byte either
/// its old or its new version, with the mode it had (0600 or 0640) and — for the third of them
/// that are symbolic links into `store/` — still a link to the same file; each original can be
/// recovered (the file itself, or its `.bak`), and the only other files are our own temporary
/// files. Running the command again finishes the batch and removes those temporaries.
@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    static let fileCount = 40
    static let minimumTrials = 200

    /// One Sketch v1 document as a binary property list: a few dozen shapes of old versions (so
    /// that every object has steps to run) and a 300 KB thumbnail (so that writing takes time
    /// while reading and migrating stay quick even in a debug build).
    static func oldArchive(_ number: Int, random: inout SplitMix64) throws -> Data {
        var shapes: [ArchiveValue] = []
        for index in 0..<30 {
            let x = Double(random.next() % 10_000) / 8
            if index % 3 == 0 {
                shapes.append(
                    .object(
                        ArchiveObject(
                            typeName: "Rect", version: 1,
                            fields: [
                                "x": .double(x), "y": 2.5, "w": 10, "h": 20,
                                "style": .object(
                                    ArchiveObject(typeName: "Style", version: 1, fields: ["color": "#333333"])),
                            ])))
            } else {
                shapes.append(
                    .object(ArchiveObject(typeName: "Circle", version: 1, fields: ["x": .double(x), "y": 1, "r": 5])))
            }
        }
        var thumbnail = [UInt8](repeating: 0, count: 300_000)
        for index in stride(from: 0, to: thumbnail.count, by: 8) {
            withUnsafeBytes(of: random.next()) { bytes in
                for offset in 0..<8 where index + offset < thumbnail.count { thumbnail[index + offset] = bytes[offset] }
            }
        }
        let drawing = ArchiveObject(
            typeName: "Drawing", version: 1,
            fields: [
                "title": .string("Drawing \(number)"),
                "meta": ["author": "Ada", "created": .date(Date(timeIntervalSinceReferenceDate: 300_000_000))],
                "shapes": .array(shapes), "models": [], "thumbnail": .data(Data(thumbnail)),
            ])
        let envelope = ArchiveEnvelope(root: .object(drawing), document: "Sketch", documentVersion: 1)
        return try ArchiveFormat.binaryPropertyList.write(envelope.tree)
    }

    /// A folder holding the batch and the rules file. Every third archive is a symbolic link to
    /// a file in `store/`; the archives are private (0600) or group-readable (0640).
    struct Batch {
        let folder: URL
        let names: [String]
        let old: [Data]

        func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

        /// Whether the archive at `index` is a symbolic link, and to what.
        static func linkDestination(_ index: Int, name: String) -> String? {
            index % 3 == 1 ? "store/" + name : nil
        }

        static func mode(_ index: Int) -> Int { index % 2 == 0 ? 0o600 : 0o640 }

        /// The file that holds the archive at `index`: the link's file for a link.
        func dataURL(_ index: Int) -> URL {
            url(Self.linkDestination(index, name: names[index]) ?? names[index])
        }

        /// Puts every old archive back (files, links, modes) and removes backups and temporaries.
        func reset() throws {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != "rules.json" {
                try FileManager.default.removeItem(at: url(name))
            }
            try FileManager.default.createDirectory(at: url("store"), withIntermediateDirectories: true)
            for (index, data) in old.enumerated() {
                try data.write(to: dataURL(index))
                try FileFacts.setMode(Self.mode(index), of: dataURL(index))
                if let destination = Self.linkDestination(index, name: names[index]) {
                    try FileManager.default.createSymbolicLink(
                        atPath: url(names[index]).path, withDestinationPath: destination)
                }
            }
        }

        var arguments: [String] {
            ["upgrade"] + names + ["--rules", "rules.json", "--in-place", "--backup"]
        }
    }

    static func makeBatch(in folder: URL) throws -> Batch {
        var random = SplitMix64(seed: 0xDEAD_BEEF)
        let names = (0..<fileCount).map { String(format: "drawing-%02d.plist", $0) }
        let old = try names.indices.map { try oldArchive($0, random: &random) }
        try FileManager.default.copyItem(
            at: Fixture.url("archives/rules.json"), to: folder.appendingPathComponent("rules.json"))
        let batch = Batch(folder: folder, names: names, old: old)
        try batch.reset()
        return batch
    }

    /// Starts the tool on the batch, with its output discarded.
    static func start(_ batch: Batch) throws -> Process {
        let process = Process()
        process.executableURL = ToolProcess.productsDirectory.appendingPathComponent("archive-migrate")
        process.arguments = batch.arguments
        process.currentDirectoryURL = batch.folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// What the folder holds after a kill.
    struct Inspection {
        var upgraded = 0
        var problems: [String] = []
        var temporaries = 0
    }

    /// Checks every archive, backup and stray file of the folder and of `store/`.
    static func inspect(_ batch: Batch, new: [Data]) throws -> Inspection {
        var result = Inspection()
        var expectedNames = Set(["rules.json", "store"])
        var expectedInStore: Set<String> = []
        for (index, name) in batch.names.enumerated() {
            expectedNames.insert(name)
            expectedNames.insert(name + ".bak")
            let facts = FileFacts(batch.url(name))
            if let destination = Batch.linkDestination(index, name: name) {
                expectedInStore.insert(name)
                let now = try? FileManager.default.destinationOfSymbolicLink(atPath: batch.url(name).path)
                if facts?.isSymbolicLink != true || now != destination {
                    result.problems.append("\(name) is no longer a link to \(destination)")
                }
            } else if facts?.isSymbolicLink != false {
                result.problems.append("\(name) is not a regular file")
            }
            if let mode = FileFacts(batch.dataURL(index))?.mode, mode != Batch.mode(index) {
                result.problems.append(
                    "\(name) has mode \(String(mode, radix: 8)), not \(String(Batch.mode(index), radix: 8))")
            }
            if let backup = FileFacts(batch.url(name + ".bak")),
                backup.mode != Batch.mode(index) || backup.isSymbolicLink
            {
                result.problems.append("\(name).bak has mode \(String(backup.mode, radix: 8))")
            }
            guard let data = FileManager.default.contents(atPath: batch.url(name).path) else {
                result.problems.append("\(name) is missing")
                continue
            }
            let backup = FileManager.default.contents(atPath: batch.url(name + ".bak").path)
            if let backup, backup != batch.old[index] {
                result.problems.append("\(name).bak is not the original (\(backup.count) bytes)")
            }
            if data == new[index] {
                result.upgraded += 1
                if backup == nil { result.problems.append("\(name) is upgraded but its original is lost (no .bak)") }
            } else if data != batch.old[index] {
                result.problems.append("\(name) is torn: \(data.count) bytes, neither the old nor the new archive")
            }
        }
        for (folder, expected) in [(batch.folder, expectedNames), (batch.url("store"), expectedInStore)] {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !expected.contains(name)
            {
                if let target = Self.temporaryTarget(name), expected.contains(target) {
                    result.temporaries += 1
                } else {
                    result.problems.append("unexpected file \(name) in \(folder.lastPathComponent)")
                }
            }
        }
        return result
    }

    /// For `.NAME.UUID.tmp`, the name of the file it stands in for (`NAME`).
    static func temporaryTarget(_ name: String) -> String? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let inner = name.dropFirst().dropLast(".tmp".count)
        guard let dot = inner.lastIndex(of: "."), UUID(uuidString: String(inner[inner.index(after: dot)...])) != nil
        else { return nil }
        return String(inner[..<dot])
    }

    /// How long an uninterrupted run takes, and when it starts writing.
    struct Timing: Sendable {
        var duration: TimeInterval
        var writing: TimeInterval
    }

    /// What the trials saw. `@unchecked Sendable`: `lock` guards `counts`.
    final class Tallies: @unchecked Sendable {
        struct Counts {
            var trials = 0
            var kills = 0
            var completedRuns = 0
            var partialBatches = 0
            var temporaries = 0
            /// Kills after which temporaries were left: the run was writing.
            var killsWhileWriting = 0
        }

        private let lock = NSLock()
        private var counts = Counts()

        func add(_ more: Counts) {
            lock.withLock {
                counts.trials += more.trials
                counts.kills += more.kills
                counts.completedRuns += more.completedRuns
                counts.partialBatches += more.partialBatches
                counts.temporaries += more.temporaries
                counts.killsWhileWriting += more.killsWhileWriting
            }
        }

        var total: Counts { lock.withLock { counts } }
    }

    /// Runs the tool on `batch` until it has been killed `kills` times, checking the folder after
    /// every run; starts the batch over once every file is upgraded.
    static func runTrials(
        _ batch: Batch, new: [Data], timing: Timing, kills: Int, seed: UInt64, tallies: Tallies
    ) throws {
        var random = SplitMix64(seed: seed)
        var counts = Tallies.Counts()
        defer { tallies.add(counts) }
        var upgraded = 0
        while counts.kills < kills {
            // A run spends `writing` seconds reading and migrating, then writes the files not yet
            // upgraded (the others it leaves alone).
            let fraction = Double(random.next() % 10_000) / 10_000
            let remaining = Double(fileCount - upgraded) / Double(fileCount)
            let delay =
                random.next() % 5 == 0
                ? fraction * timing.duration
                : timing.writing + fraction * (timing.duration - timing.writing) * remaining
            let process = try start(batch)
            usleep(useconds_t(delay * 1_000_000))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                counts.kills += 1
            } else {
                counts.completedRuns += 1
            }
            process.waitUntilExit()
            counts.trials += 1
            let state = try inspect(batch, new: new)
            #expect(state.problems.isEmpty, "trial \(counts.trials), killed after \(delay) s: \(state.problems)")
            if !state.problems.isEmpty { return }
            counts.temporaries += state.temporaries
            if state.temporaries > 0 { counts.killsWhileWriting += 1 }
            if state.upgraded > 0 && state.upgraded < fileCount { counts.partialBatches += 1 }
            upgraded = state.upgraded
            if state.upgraded == fileCount {
                try batch.reset()
                upgraded = 0
            }
        }
    }

    @Test("SIGKILL at random moments of an in-place upgrade with backups never tears or loses a file")
    func killedUpgrades() throws {
        let scratch = try ScratchFolder()
        func folder(_ name: String) throws -> URL {
            let url = scratch.url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        let reference = try Self.makeBatch(in: try folder("reference"))

        // The new versions, from a run that is not interrupted; how long its phases take.
        let started = Date()
        let run = try Self.start(reference)
        var firstWrite: TimeInterval?
        while run.isRunning {
            if firstWrite == nil,
                try FileManager.default.contentsOfDirectory(atPath: reference.folder.path).contains(where: {
                    $0.hasSuffix(".tmp") || $0.hasSuffix(".bak")
                })
            {
                firstWrite = Date().timeIntervalSince(started)
            }
            usleep(200)
        }
        let duration = Date().timeIntervalSince(started)
        #expect(run.terminationStatus == 0)
        let new = try reference.names.map { try Data(contentsOf: reference.url($0)) }
        for index in new.indices {
            #expect(new[index] != reference.old[index], "\(reference.names[index]) was not upgraded")
        }
        let clean = try Self.inspect(reference, new: new)
        #expect(clean.upgraded == Self.fileCount && clean.problems.isEmpty && clean.temporaries == 0)

        // Kills, in four batches at once (the tool spends most of its time waiting for fsync):
        // most of them while files are being written, the rest anywhere.
        let timing = Timing(duration: duration, writing: (firstWrite ?? 0) * 0.9)
        let workers = 4
        let tallies = Tallies()
        let done = DispatchGroup()
        let batches = try (0..<workers).map { try Self.makeBatch(in: try folder("worker-\($0)")) }
        for (worker, workerBatch) in batches.enumerated() {
            DispatchQueue.global().async(group: done) {
                do {
                    try Self.runTrials(
                        workerBatch, new: new, timing: timing, kills: Self.minimumTrials / workers,
                        seed: UInt64(42 + worker), tallies: tallies)
                } catch {
                    Issue.record("worker \(worker): \(error)")
                }
            }
        }
        done.wait()
        let total = tallies.total
        print(
            "crash safety: \(total.kills) kills in \(total.trials) runs on \(workers) batches, \(total.killsWhileWriting) "
                + "while files were being written (\(total.temporaries) temporary files left in all), "
                + "\(total.partialBatches) left a partly upgraded batch, \(total.completedRuns) runs finished before the "
                + "kill; reference run \(String(format: "%.2f", duration)) s, writing from "
                + "\(String(format: "%.2f", firstWrite ?? 0)) s")
        #expect(total.kills >= Self.minimumTrials)
        // Every file and backup is written in full before the first is moved into place, so most
        // kills that land while writing leave only temporaries; a few land among the renames.
        #expect(total.killsWhileWriting > 0, "no kill landed while files were being written")

        // Running the command again completes the batch and removes stale temporaries: its own,
        // never another file's.
        let batch = batches[0]
        let strays = [
            ".\(batch.names[0]).\(UUID().uuidString).tmp", ".\(batch.names[1]).bak.\(UUID().uuidString).tmp",
            // names[1] is a link: its file's temporaries are in store/.
            "store/.\(batch.names[1]).\(UUID().uuidString).tmp",
        ]
        let foreign = [".notes.txt.\(UUID().uuidString).tmp", ".\(batch.names[2]).tmp", "\(batch.names[3]).tmp"]
        for name in strays + foreign {
            try Data("partial".utf8).write(to: batch.url(name))
        }
        let rerun = try ToolProcess.run(batch.arguments, in: batch.folder)
        #expect(rerun.status == 0, "\(rerun.standardError)")
        for name in foreign {
            #expect(FileManager.default.fileExists(atPath: batch.url(name).path), "\(name) was removed")
            try FileManager.default.removeItem(at: batch.url(name))
        }
        let final = try Self.inspect(batch, new: new)
        #expect(final.problems.isEmpty, "\(final.problems)")
        #expect(final.upgraded == Self.fileCount)
        #expect(final.temporaries == 0)
        for (index, name) in batch.names.enumerated() {
            #expect(FileManager.default.contents(atPath: batch.url(name + ".bak").path) == batch.old[index], "\(name)")
        }
        #expect(FileFacts.temporaries(in: batch.folder).isEmpty)
    }
}
