import Foundation
import ModelVersioning

/// What every command does to one archive, wherever it came from — a file, standard input, a
/// line of NDJSON, a database row: read it in its own format, pick the document chain
/// (``DocumentChoice``), migrate it, with `--nested` migrate the archives nested in its data
/// values, and write it back in its own format, markup and layout when it changed.
///
/// Sources and sinks (``BatchProcessor``'s files, ``NDJSONBatch``, ``SQLiteBatch``) sit beside
/// it: they hand it bytes and a name for messages, and write back what it returns.
struct ArchivePipeline: Sendable {
    /// An upgrade or a downgrade of one tree, with the document chain to follow (`nil`: the one
    /// the archive names, if any).
    typealias Transform = @Sendable (_ tree: inout ArchiveValue, _ document: String?) throws -> MigrationReport

    let transform: Transform
    /// `--document`.
    let documentName: String?
    /// The names of the chains' document chains.
    let documentChains: [String]
    /// How the plain documents of each chain that declares them spell dates and data.
    let plainConventions: [String: DocumentConventions]
    /// `--nested`.
    let migratesNested: Bool
    var readingOptions = ArchiveReadingOptions()
    /// Upgrades JSON archives whose old objects only need keys moved by rewriting their text,
    /// with the same bytes as the tree path (``JSONTextRewrite``); set by `upgrade` when it
    /// upgrades to the current versions and writes nothing else into the tree (no `--to`, no
    /// `--readable-by`). Used for archives whose migration report nobody reads.
    var textUpgrade: JSONTextRewrite?

    /// What became of one archive.
    struct Result: Sendable {
        /// The archive's format.
        var format: ArchiveFormat
        /// What the migration did to the archive itself; `nil` when only its nested archives were
        /// migrated (a plain document no chain applies to, with `--nested`).
        var report: MigrationReport? {
            get { reportBox?.report }
            set { reportBox = newValue.map(ReportBox.init) }
        }
        /// The report, out of line: a result goes from thread to thread and into the batch's
        /// report, and a report held inline made every copy of it a few hundred bytes and a dozen
        /// reference counts.
        private var reportBox: ReportBox?
        /// What it did to each nested archive (`--nested`).
        var nested: [NestedArchiveMigration] = []
        /// Whether the archive or an archive nested in it changed.
        var changed = false
        /// How the document chain was chosen, when the report should say.
        var note: String?
        /// The archive's bytes in its own format: the new ones when it changed; when it did not,
        /// written again only if asked (`writingUnchanged`).
        var output: Data?

        init(format: ArchiveFormat) {
            self.format = format
        }
    }

    /// Runs the pipeline on `bytes`.
    ///
    /// `shownAs` names the archive in messages; it is built only when one is said (a row's name,
    /// built for every one of 100,000 small rows, cost 3% of their upgrade).
    ///
    /// With `keepingReport` `false` (rows and lines in the text report, which counts them), a
    /// JSON archive may go through ``textUpgrade``: the result then has no report.
    ///
    /// - Throws: `ArchiveError` located in `shownAs` (what reading, choosing the chain,
    ///   migrating or writing threw).
    func run(_ bytes: Data, shownAs: @autoclosure () -> String, writingUnchanged: Bool, keepingReport: Bool = true)
        throws -> Result
    {
        if !keepingReport, let textUpgrade, documentName == nil, !migratesNested, readingOptions.markup != .plain,
            ArchiveFormat.detect(bytes) == .json, let outcome = textUpgrade.upgrade(bytes)
        {
            var result = Result(format: .json)
            result.changed = outcome.changed
            if outcome.changed || writingUnchanged { result.output = outcome.output }
            return result
        }
        // The readers take bytes indexed from 0 (a database row is a slice of its window's buffer).
        let bytes = bytes.startIndex == 0 ? bytes : Data(bytes)
        var document: ArchiveDocument
        do {
            document = try ArchiveDocument(data: bytes, options: readingOptions)
        } catch {
            throw Self.located(error, shownAs())
        }
        var result = Result(format: document.format)
        // The choice's errors name the input already. With --nested, a plain document is a
        // container of archives (preferences, a profile): it is migrated itself only when
        // --document names its chain, and one no chain applies to may still hold archives.
        var choice: DocumentChoice?
        var unchosen: (any Error)?
        do {
            choice = try DocumentChoice(
                for: document.tree, file: shownAs(), named: documentName, chains: documentChains)
            if migratesNested, choice?.note != nil { choice = nil }
        } catch  where migratesNested {
            unchosen = error
        }
        do {
            // Writing a way down (--readable-by) changes the tree without migrating anything.
            let wayDown = document.tree[ArchiveEnvelope.wayDownKey]
            if let choice {
                result.note = choice.note
                result.report = try transform(&document.tree, choice.name)
                // A plain document keeps its own spellings of the dates and data a migration made.
                if let name = choice.name, let conventions = plainConventions[name] {
                    document.conventions = conventions
                }
            }
            if migratesNested {
                let transform = self.transform
                result.nested = try document.migrateNestedArchives(options: readingOptions) { tree in
                    try transform(&tree, nil)
                }
            }
            result.changed =
                (result.report?.changedTree ?? false) || result.nested.contains(where: \.changed)
                || document.tree[ArchiveEnvelope.wayDownKey] != wayDown
            if result.changed || writingUnchanged {
                result.output = try document.data()
            }
        } catch {
            throw Self.located(error, shownAs())
        }
        if let unchosen, result.nested.isEmpty { throw unchosen }
        return result
    }

    /// A report, held by reference (``Result/report``).
    private final class ReportBox: Sendable {
        let report: MigrationReport
        init(_ report: MigrationReport) { self.report = report }
    }

    private static func located(_ error: any Error, _ shownAs: String) -> ArchiveError {
        if let error = error as? ArchiveError { return error.adding(file: shownAs) }
        return ArchiveError(.migrationFailed, "\(shownAs) failed", underlyingError: error)
    }
}

/// Runs work on several inputs at once and returns the results in input order.
enum Parallel {
    /// `body` on every input, on every processor (the caller's too): a ``Window`` waited for at
    /// once.
    static func map<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], _ body: @escaping @Sendable (Input) -> Output
    ) -> [Output] {
        if inputs.count <= 1 { return inputs.map(body) }
        return Window(inputs, body).wait()
    }

    /// Work on several inputs beside the caller: a batch starts a window, reads the next one and
    /// writes the one before while other threads migrate it, then helps finish it.
    ///
    /// The thread that reads and writes is the one every other waits for, so the window starts
    /// one helper fewer than there are processors, leaving that thread a processor of its own;
    /// once it has read and written, it takes inputs itself until none is left (``wait()``).
    ///
    /// Inputs are claimed a few at a time under a lock. Each output is built in its own
    /// slot and moved into the array ``wait()`` returns: no copy of what may be a large result
    /// (a batch's outcomes were once copied three times on their way out: 15% of an upgrade of
    /// 100,000 small database rows).
    ///
    /// `@unchecked Sendable`: `next` is read and written with `lock` held; each slot is written
    /// by the one thread that claimed its index, and read only after `wait()` has seen every
    /// claim done (`group`, and its own claims).
    final class Window<Output: Sendable>: @unchecked Sendable {
        private let count: Int
        private let work: @Sendable (Int) -> Output
        private let slots: UnsafeMutablePointer<Output>
        private let lock = NSLock()
        private var next = 0
        private let group = DispatchGroup()
        private var collected = false
        /// Inputs a thread claims at once: up to 16, so that the lock is rare, and few enough
        /// that every thread gets some of a short window (of large archives: at most 16 MiB of
        /// them) and the threads finish together.
        private let claimSize: Int

        /// Starts `body` on every input, on one thread fewer than there are processors (at
        /// least one).
        init<Input: Sendable>(_ inputs: [Input], _ body: @escaping @Sendable (Input) -> Output) {
            count = inputs.count
            work = { body(inputs[$0]) }
            slots = .allocate(capacity: max(1, inputs.count))
            claimSize = max(1, min(16, inputs.count / (Parallel.processors * 4)))
            let helpers = min(Parallel.processors - 1, (inputs.count + claimSize - 1) / claimSize)
            for _ in 0..<max(1, helpers) {
                group.enter()
                DispatchQueue.global().async { [self] in
                    run()
                    group.leave()
                }
            }
        }

        deinit {
            if !collected {
                group.wait()
                slots.deinitialize(count: count)
            }
            slots.deallocate()
        }

        /// Builds the outputs of the inputs this thread claims, until none is left.
        private func run() {
            while true {
                lock.lock()
                let start = next
                next = min(count, start + claimSize)
                lock.unlock()
                guard start < count else { return }
                for index in start..<min(count, start + claimSize) {
                    (slots + index).initialize(to: work(index))
                }
            }
        }

        /// The outputs, in input order, once every input is done; the calling thread builds
        /// those no other thread has claimed yet. Called once.
        func wait() -> [Output] {
            run()
            group.wait()
            collected = true
            return [Output](unsafeUninitializedCapacity: count) { buffer, initialized in
                if let base = buffer.baseAddress { base.moveInitialize(from: slots, count: count) }
                initialized = count
            }
        }
    }

    /// The processors this process may use, read once.
    static let processors = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Lets go of `value` on another thread: a batch's thread that reads and writes hands its
    /// done window of results over, so that freeing them runs beside it instead of on it (in an
    /// upgrade of 100,000 small database rows, freeing took a fifth of that thread's time).
    ///
    /// The value goes into a box whose one reference the other thread's task holds and lets go
    /// of: a closure capturing the value itself would leave the caller a reference of its own,
    /// the last one whenever the task has already finished.
    static func releaseElsewhere<Value: Sendable>(_ value: consuming Value) {
        let box = Unmanaged.passRetained(Holder(value))
        DispatchQueue.global().async { box.release() }
    }

    /// What ``releaseElsewhere(_:)`` hands over.
    private final class Holder<Value: Sendable>: Sendable {
        let value: Value
        init(_ value: consuming Value) { self.value = value }
    }

    /// How many archives a batch reads, migrates and holds at once: a few per processor, so
    /// that memory depends on the largest archive, not on how many there are.
    static var windowWidth: Int {
        max(2, processors) * 2
    }
}
