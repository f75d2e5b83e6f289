import Foundation

/// Migrates many archives — files, database rows, lines of a stream, values of a key-value
/// store — on every processor, with memory that depends on the largest archive rather than on
/// how many there are; reports progress and stops when its task is cancelled. Each archive goes
/// through the ``MigrationEngine``, as `archive-migrate` takes it: the same bytes for the same
/// archive, the text rewrite of JSON archives whose old objects only move keys included.
///
/// ```swift
/// let batch = try ArchiveBatch(catalog: registry.catalog)
/// let summary = try await batch.run(urls, data: { url in try Data(contentsOf: url) }) { url, outcome in
///     if let upgraded = try outcome.get().data {
///         try upgraded.write(to: url, options: .atomic)     // only archives that changed
///     }
/// }
/// print(summary)   // 1,200 of 1,200 archives (1,180 changed, 0 failed), 1,500/s
/// ```
///
/// The archives are taken from the sequence a window at a time, migrated on every processor, and handed to `each` in the sequence's order, one at a time, while the
/// next window migrates; nothing of an archive is kept once `each` returns. Each archive is read
/// in its own format, migrated, and — only when the migration changed it — written again in the
/// same format, markup and layout (``MigrationEngine/Outcome/data``). An archive that fails is
/// handed to `each` as a failure, and the batch goes on.
///
/// A window starts at a few archives per processor and widens while they are small, up to
/// ``maximumWindowWidth`` archives and ``windowBytes`` of the largest archive read so far times
/// the width (a window of 1,000 small database rows costs one hand-over where windows of four
/// cost 250; with four, 100,000 rows of 200 bytes took 4.5 times as long as the tool). A batch
/// whose first archives are small and later ones large holds at most one window of the larger
/// ones before it narrows again.
///
/// Cancelling the task stops the batch before the next archive is handed over: every archive
/// handed to `each` before then was handled, none after, and ``run(_:total:data:each:progress:)``
/// throws `CancellationError`.
public struct ArchiveBatch: Sendable {
    /// What the batch did to one archive.
    public typealias Outcome = MigrationEngine.Outcome

    /// The engine every archive goes through: the operation, the document chain, the way down,
    /// nested archives, the report and how archives are read.
    public var engine: MigrationEngine
    /// How many threads migrate archives at once (by default, one per active processor).
    public var maximumConcurrency: Int

    /// A batch that runs every archive through `engine`.
    public init(engine: MigrationEngine) {
        self.engine = engine
        self.maximumConcurrency = Parallel.processors
    }

    /// A batch that applies `operation` with `catalog`'s chains (see ``MigrationEngine``); by
    /// default an upgrade to the current versions with no report, the fastest.
    ///
    /// - Throws: What ``MigrationEngine/init(catalog:operation:options:)`` throws.
    public init(
        catalog: MigrationCatalog, operation: MigrationEngine.Operation = .upgrade,
        options: MigrationEngine.Options = ArchiveBatch.defaultOptions
    ) throws {
        self.init(engine: try MigrationEngine(catalog: catalog, operation: operation, options: options))
    }

    /// The engine's defaults, without a report (``MigrationEngine/Reporting/none``): a batch
    /// counts archives, and JSON archives whose old objects only move keys are then upgraded by
    /// rewriting their text. Set ``MigrationEngine/Options/reporting`` to see what each
    /// migration did.
    public static var defaultOptions: MigrationEngine.Options {
        var options = MigrationEngine.Options()
        options.reporting = .none
        return options
    }

    /// The most archives a window holds.
    public static let maximumWindowWidth = 1_024
    /// What a window may hold, estimated as the largest archive read so far times its width.
    public static let windowBytes = 16 << 20

    /// The width of the next window, once the largest archive read is `largest` bytes: as many
    /// as fit ``windowBytes``, between a few per processor and ``maximumWindowWidth``.
    static func windowWidth(threads: Int, largest: Int) -> Int {
        let narrowest = max(2, threads) * 2
        return min(maximumWindowWidth, max(narrowest, windowBytes / max(1, largest)))
    }

    /// Migrates one archive, as the batch does each of them.
    ///
    /// - Throws: `ArchiveError`: what ``MigrationEngine/migrate(_:writingUnchanged:)`` throws.
    public func migrate(_ data: Data) throws -> Outcome {
        try engine.migrate(data)
    }

    /// Migrates every archive of `archives` (see the type's discussion) and returns the final
    /// progress.
    ///
    /// - Parameters:
    ///   - archives: What to migrate: URLs, row keys, anything `data` turns into an archive's
    ///     bytes. Taken a window at a time, so a lazy sequence is never held whole.
    ///   - total: How many there are, for ``Progress/estimatedTimeRemaining``; by default the
    ///     sequence's `underestimatedCount` when it is not zero.
    ///   - data: Reads one archive's bytes; called in parallel. What it throws is that archive's
    ///     failure (an `ArchiveError` with code `io` around any other error).
    ///   - each: Called with every archive and its outcome, in the sequence's order, one at a
    ///     time: write the new bytes back here. What it throws ends the batch.
    ///   - progress: Called after each window of archives has been handed to `each`.
    /// - Throws: `CancellationError` when the task is cancelled, or what `each` throws.
    @discardableResult
    public func run<Archives: Sequence>(
        _ archives: Archives, total: Int? = nil, data: @escaping @Sendable (Archives.Element) throws -> Data,
        each: (Archives.Element, Result<Outcome, ArchiveError>) async throws -> Void,
        progress: (@Sendable (Progress) -> Void)? = nil
    ) async throws -> Progress where Archives.Element: Sendable {
        let threads = max(1, maximumConcurrency)
        var width = Self.windowWidth(threads: threads, largest: Self.windowBytes)
        var largest = 0
        var exhausted = false
        let expected = total ?? (archives.underestimatedCount > 0 ? archives.underestimatedCount : nil)
        var state = Progress(total: expected)
        let started = ContinuousClock.now
        var iterator = archives.makeIterator()
        let engine = self.engine
        // One window migrates on `threads` helper threads while the one before is handed over;
        // this task only awaits them (it must not block its thread).
        // Each archive's outcome, and how many bytes it read.
        var inFlight: (elements: [Archives.Element], window: Parallel.Window<(Result<Outcome, ArchiveError>, Int)>)?
        defer { if let inFlight { Parallel.releaseElsewhere(inFlight.window) } }
        while true {
            try Task.checkCancellation()
            var elements: [Archives.Element] = []
            elements.reserveCapacity(width)
            // An iterator is not asked again once it has ended (some, like a SQLite statement
            // stepped again, start over).
            while !exhausted && elements.count < width {
                guard let next = iterator.next() else {
                    exhausted = true
                    break
                }
                elements.append(next)
            }
            let done = inFlight
            inFlight =
                elements.isEmpty
                ? nil
                : (
                    elements,
                    Parallel.Window(elements, threads: threads) { element in
                        let bytes: Data
                        do {
                            bytes = try Self.read(element, with: data)
                        } catch {
                            return (.failure(Self.archiveError(error)), 0)
                        }
                        return (Result { try engine.migrate(bytes) }.mapError(Self.archiveError), bytes.count)
                    }
                )
            guard let done else {
                if inFlight == nil { break }
                continue
            }
            let outcomes = await done.window.outputs()
            for (element, (outcome, count)) in zip(done.elements, outcomes) {
                // Nothing is handed over once the task is cancelled.
                try Task.checkCancellation()
                try await each(element, outcome)
                state.count(outcome)
                largest = max(largest, count)
            }
            width = Self.windowWidth(threads: threads, largest: largest)
            state.elapsed = Self.seconds(since: started)
            progress?(state)
            if inFlight == nil { break }
        }
        state.elapsed = Self.seconds(since: started)
        return state
    }

    private static func read<Element>(_ element: Element, with data: (Element) throws -> Data) throws -> Data {
        do {
            return try data(element)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(.io, "cannot read the archive", underlyingError: error)
        }
    }

    private static func archiveError(_ error: any Error) -> ArchiveError {
        (error as? ArchiveError) ?? ArchiveError(.migrationFailed, "the migration failed", underlyingError: error)
    }

    private static func seconds(since start: ContinuousClock.Instant) -> TimeInterval {
        let duration = ContinuousClock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
