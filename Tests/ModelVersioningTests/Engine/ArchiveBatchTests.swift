import Foundation
import ModelVersioning
import TestSupport
import Testing

/// `ArchiveBatch`: many archives migrated in parallel with memory bounded by a window, handed
/// back in order, with progress, and stopped by task cancellation.
@Suite("ArchiveBatch")
struct ArchiveBatchTests {
    static let sketches = ["empty", "floor-plan", "kyoto-trip"]

    static func batch() throws -> ArchiveBatch {
        try ArchiveBatch(catalog: try Fixture.rules("archives/rules.json"))
    }

    /// A sequence of archive numbers that records how far it has been read. `@unchecked
    /// Sendable`: `lock` guards `read`.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var read = 0
        func next() -> Int {
            lock.withLock {
                read += 1; return read
            }
        }
        var count: Int { lock.withLock { read } }
    }

    @Test(
        "every archive is handed back in order, upgraded to its golden, or as a failure; unchanged ones have no bytes")
    func inOrder() async throws {
        let batch = try Self.batch()
        let today = try Fixture.data("archives/Sketch/v4/empty.json")
        let inputs: [Data] = try (0..<40).map { index in
            if index == 7 { return Data("{\"$archive\": 1, ".utf8) }
            if index == 9 { return today }
            return try Fixture.data("archives/Sketch/v1/\(Self.sketches[index % 3]).json")
        }
        var seen: [Int] = []
        let reports = ProgressLog()
        let summary = try await batch.run(Array(inputs.indices), data: { inputs[$0] }) { index, outcome in
            seen.append(index)
            switch (index, outcome) {
            case (7, .failure(let error)):
                #expect(error.code == .malformedInput)
            case (9, .success(let result)):
                #expect(!result.changed && result.data == nil)
            case (_, .success(let result)):
                #expect(result.changed && result.format == .json)
                let differences = ArchiveDiff.differences(
                    from: try Fixture.tree("archives/Sketch/expected/v1/\(Self.sketches[index % 3]).json"),
                    to: try ArchiveFormat.read(try #require(result.data)).0,
                    options: ArchiveDiff.Options(nullMeansAbsent: true))
                #expect(differences.isEmpty, "\(index): \(differences)")
            default:
                Issue.record("archive \(index): \(outcome)")
            }
        } progress: { progress in
            reports.add(progress)
        }
        #expect(seen == Array(0..<40))
        #expect(summary.completed == 40 && summary.changed == 38 && summary.failed == 1 && summary.total == 40)
        let log = reports.all
        #expect(!log.isEmpty && log.last?.completed == 40)
        #expect(zip(log, log.dropFirst()).allSatisfy { $0.completed < $1.completed })
        #expect(log.last?.estimatedTimeRemaining == 0)
        #expect(summary.description.hasPrefix("40 of 40 archives (38 changed, 1 failed)"), "\(summary)")
    }

    @Test("archives are taken from the sequence a window at a time, at most two windows ahead, never all at once")
    func boundedWindow() async throws {
        var batch = try Self.batch()
        batch.maximumConcurrency = 2
        // Large archives (4 MiB: windowBytes holds four): windows stay at twice the concurrency.
        let large = Data(count: 4 << 20)
        var counter = Counter()
        var handled = 0
        var mostAhead = 0
        try await batch.run((0..<40).lazy.map { [counter] _ in counter.next() }, data: { _ in large }) { _, _ in
            handled += 1
            mostAhead = max(mostAhead, counter.count - handled)
        }
        #expect(handled == 40)
        // One window migrates while the one before is handed over: a window is twice the concurrency.
        #expect(mostAhead < 8, "at most two windows (twice the concurrency each) are read ahead: \(mostAhead)")

        // Small archives: windows widen, up to maximumWindowWidth, and never take the whole sequence.
        let small = Data(#"{"$type":"Tag","$version":1}"#.utf8)
        counter = Counter()
        handled = 0
        mostAhead = 0
        let count = 3 * ArchiveBatch.maximumWindowWidth
        try await batch.run((0..<count).lazy.map { [counter] _ in counter.next() }, data: { _ in small }) { _, _ in
            handled += 1
            mostAhead = max(mostAhead, counter.count - handled)
        }
        #expect(handled == count)
        #expect(mostAhead > 8, "small archives widen the window: \(mostAhead)")
        #expect(mostAhead <= 2 * ArchiveBatch.maximumWindowWidth, "\(mostAhead)")
    }

    @Test("cancelling the task stops the batch: what was handed over stays, nothing comes after")
    func cancellation() async throws {
        let batch = try Self.batch()
        let archive = try Fixture.data("archives/Sketch/v1/kyoto-trip.json")
        let handled = Counter()
        let task = Task {
            try await batch.run(0..<100_000, data: { _ in archive }) { _, _ in
                if handled.next() == 50 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(handled.count == 50)
    }

    @Test("nested archives are migrated with migratesNestedArchives; the lazy pattern knows when to save")
    func nestedAndLazy() async throws {
        var options = ArchiveBatch.defaultOptions
        options.migratesNestedArchives = true
        let batch = try ArchiveBatch(catalog: try Fixture.rules("archives/rules.json"), options: options)
        let outcome = try batch.migrate(try Fixture.data("stores/com.example.Sketch.plist"))
        #expect(outcome.changed && outcome.format == .binaryPropertyList)
        #expect(outcome.nested.filter(\.changed).map(\.locationDescription) == ["DefaultStyle", "LastDrawing"])
        #expect(try batch.migrate(try #require(outcome.data)).changed == false)

        let decoder = ArchiveDecoder(
            registry: try ModelRegistry().adding(rules: try Fixture.rules("archives/rules.json")))
        let (_, old) = try decoder.decodeWithReport(
            ArchiveValue.self, from: try Fixture.data("archives/Sketch/v1/empty.json"))
        #expect(old.changedTree)
        let (_, current) = try decoder.decodeWithReport(
            ArchiveValue.self, from: try Fixture.data("archives/Sketch/v4/empty.json"))
        #expect(!current.changedTree)
    }
}

/// Progress reports collected from the batch's tasks. `@unchecked Sendable`: `lock` guards
/// `reports`.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [ArchiveBatch.Progress] = []
    func add(_ progress: ArchiveBatch.Progress) { lock.withLock { reports.append(progress) } }
    var all: [ArchiveBatch.Progress] { lock.withLock { reports } }
}
