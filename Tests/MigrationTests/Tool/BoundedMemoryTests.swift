import Foundation
import ModelVersioning
import TestSupport
import Testing

@testable import ArchiveMigrateKit

/// Batches over many archives run with memory that depends on the largest archive, not on how
/// many there are: files are written to their temporaries as they are migrated (never held
/// until the end), NDJSON lines and SQLite rows a window at a time. A progress line is drawn
/// only on a terminal.
@Suite("Bounded memory and progress", .serialized)
struct BoundedMemoryTests {
    /// What a batch may use beyond the largest archive alone: a window of archives in flight
    /// (twice the processors, each with its input, tree and output) and the bookkeeping of the
    /// files' paths.
    static let allowance = 48 << 20

    /// A version 1 drawing of about `size` bytes (most of it its title).
    static func drawing(_ number: Int, size: Int) throws -> Data {
        let title = String(repeating: "Kyoto \(number % 10) ", count: max(1, size / 8))
        let tree = ArchiveEnvelope(
            root: .object(
                ArchiveObject(
                    typeName: "Drawing", version: 1,
                    fields: [
                        "title": .string(title), "meta": ["author": "Ada"],
                        "shapes": [
                            .object(ArchiveObject(typeName: "Circle", version: 1, fields: ["x": 1, "y": 2, "r": 3]))
                        ],
                        "models": [],
                    ])), document: "Sketch", documentVersion: 1
        ).tree
        return try ArchiveFormat.json.write(tree, options: ArchiveWritingOptions(prettyPrinted: false))
    }

    @Test(
        "upgrading 100 files of 1 MB peaks within a window of the largest file alone, not at their sum",
        .enabled(if: ToolProcess.canMeasurePeakMemory, "on Linux the peak is measured with /usr/bin/time"))
    func manyFiles() throws {
        #if os(Linux)
            let scratch = try ScratchFolder()
            try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
            let count = 100
            for number in 0..<count {
                try scratch.write(
                    String(decoding: try Self.drawing(number, size: 1 << 20), as: UTF8.self),
                    to: String(format: "data/d%03d.json", number))
            }
            let single = try ToolProcess.measure(
                ["upgrade", "data/d000.json", "--rules", "rules.json", "-o", "single"], in: scratch.url)
            #expect(single.status == 0, "\(single.standardError)")
            let batch = try ToolProcess.measure(
                ["upgrade", "data", "--include", "*.json", "--rules", "rules.json", "-o", "out"], in: scratch.url)
            #expect(batch.status == 0, "\(batch.standardError)")
            let written = try FileManager.default.contentsOfDirectory(
                atPath: scratch.url.appendingPathComponent("out").path)
            #expect(written.count == count)
            print(
                "bounded memory, files: one 1 MB file \(single.peakBytes >> 20) MB, \(count) files \(batch.peakBytes >> 20) MB"
            )
            #expect(
                batch.peakBytes <= single.peakBytes + Self.allowance,
                "\(count) files: \(batch.peakBytes >> 20) MB; one: \(single.peakBytes >> 20) MB")
            // Not a terminal: no progress line, however long the run.
            #expect(!batch.standardError.contains("\r") && !batch.standardError.contains("\u{1B}[K"))
        #endif
    }

    @Test(
        "upgrading 20,000 NDJSON lines and one of 1 MB peaks within a window of that line alone",
        .enabled(if: ToolProcess.canMeasurePeakMemory, "on Linux the peak is measured with /usr/bin/time"))
    func manyLines() throws {
        #if os(Linux)
            let scratch = try ScratchFolder()
            try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
            let large = try Self.drawing(0, size: 1 << 20)
            try (large + Data("\n".utf8)).write(to: scratch.url.appendingPathComponent("one.ndjson"))
            var lines = Data()
            let small = try Self.drawing(1, size: 64) + Data("\n".utf8)
            for number in 0..<20_000 {
                lines.append(number == 10_000 ? large + Data("\n".utf8) : small)
            }
            try lines.write(to: scratch.url.appendingPathComponent("many.ndjson"))
            let single = try ToolProcess.measure(
                ["upgrade", "--ndjson", "--rules", "rules.json"], in: scratch.url,
                standardInput: scratch.url.appendingPathComponent("one.ndjson"))
            #expect(single.status == 0, "\(single.standardError)")
            let batch = try ToolProcess.measure(
                ["upgrade", "--ndjson", "--rules", "rules.json"], in: scratch.url,
                standardInput: scratch.url.appendingPathComponent("many.ndjson"))
            #expect(batch.status == 0, "\(batch.standardError)")
            #expect(batch.standardError.contains("upgraded 20000 of 20000 lines"), "\(batch.standardError)")
            print(
                "bounded memory, NDJSON: one 1 MB line \(single.peakBytes >> 20) MB, 20,000 lines \(batch.peakBytes >> 20) MB"
            )
            #expect(batch.peakBytes <= single.peakBytes + Self.allowance)
        #endif
    }

    @Test("the progress line shows count, rate and time left on a terminal, after the first second, ten times a second")
    func progressLine() {
        final class Clock: @unchecked Sendable {
            var now: TimeInterval = 100
        }
        let clock = Clock()
        let line = ProgressLine(total: 1_000, console: Console(), isTerminal: true, clock: { clock.now })
        for _ in 0..<100 {
            clock.now += 0.005
            line.advance(changed: true, failed: false)
        }
        #expect(line.drawn.isEmpty, "nothing in the first second")
        for index in 0..<400 {
            clock.now += 0.005
            line.advance(changed: index % 4 != 0, failed: index == 7)
        }
        #expect(line.drawn.count >= 9 && line.drawn.count <= 21, "\(line.drawn.count) redraws in 2 s")
        let last = line.drawn.last ?? ""
        #expect(last.hasPrefix("4") || last.hasPrefix("5"), "\(last)")
        #expect(last.contains(" of 1,000 archives (") && last.contains(", 1 failed), 200/s, about 3 s left"), "\(last)")
        let silent = ProgressLine(total: nil, console: Console(), isTerminal: false, clock: { clock.now })
        for _ in 0..<1_000 {
            clock.now += 0.01
            silent.advance(changed: false, failed: false)
        }
        #expect(silent.drawn.isEmpty, "nothing when standard error is not a terminal")
    }
}
