import Foundation

/// Migrates many archives — files, database rows, lines of a stream, values of a key-value
/// store — in parallel, with memory that depends on the largest archive rather than on how many
/// there are; reports progress and stops when its task is cancelled.
///
/// ```swift
/// let batch = ArchiveBatch(pass: MigrationPass(catalog: registry.catalog))
/// let summary = try await batch.run(urls, data: { url in try Data(contentsOf: url) }) { url, outcome in
///     if let upgraded = try outcome.get().data {
///         try upgraded.write(to: url, options: .atomic)     // only archives that changed
///     }
/// }
/// print(summary)   // 1,200 of 1,200 archives (1,180 changed, 0 failed), 1,500/s
/// ```
///
/// The archives are taken from the sequence a few at a time (twice
/// ``maximumConcurrency``), migrated in parallel, and handed to `each` in the sequence's
/// order, one at a time; nothing of an archive is kept once `each` returns. Each archive is read
/// in its own format, migrated, and — only when the migration changed it — written again in the
/// same format, markup and layout (``ArchiveDocument``). An archive that fails is handed to
/// `each` as a failure, and the batch goes on.
///
/// Cancelling the task stops the batch before the next archive is handed over: every archive
/// handed to `each` before then was handled, none after, and ``run(_:total:data:each:progress:)``
/// throws `CancellationError`.
public struct ArchiveBatch: Sendable {
    /// Migrates one archive's tree in place.
    public typealias Migration = @Sendable (_ tree: inout ArchiveValue) throws -> MigrationReport

    /// What the batch does to each archive's tree (and, with ``migratesNestedArchives``, to each
    /// archive nested in it).
    public var migration: Migration
    /// How archives are read: limits, markup.
    public var readingOptions: ArchiveReadingOptions
    /// Whether archives nested in data values (``NestedArchive``) are migrated too, each with
    /// ``migration``, and written back inside their archive.
    public var migratesNestedArchives: Bool
    /// How many archives are migrated at once (by default, one per active processor).
    public var maximumConcurrency: Int

    /// A batch that upgrades each archive with `pass`: plain documents with the document chain
    /// `document` names, archives by their envelopes and objects.
    public init(
        pass: MigrationPass, document: String? = nil, readingOptions: ArchiveReadingOptions = .init(),
        migratesNestedArchives: Bool = false
    ) {
        self.init(readingOptions: readingOptions, migratesNestedArchives: migratesNestedArchives) { tree in
            try pass.upgrade(&tree, document: document)
        }
    }

    /// A batch that runs `migration` on each archive's tree (a downgrade, a pass with options of
    /// your own).
    public init(
        readingOptions: ArchiveReadingOptions = .init(), migratesNestedArchives: Bool = false,
        migration: @escaping Migration
    ) {
        self.migration = migration
        self.readingOptions = readingOptions
        self.migratesNestedArchives = migratesNestedArchives
        self.maximumConcurrency = max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// What the batch did to one archive.
    public struct Outcome: Sendable {
        /// The archive's format, which it is written back in.
        public var format: ArchiveFormat
        /// What the migration did to the archive's own tree.
        public var report: MigrationReport
        /// What it did to each archive nested in it (with ``migratesNestedArchives``).
        public var nested: [NestedArchiveMigration]
        /// Whether anything changed: the archive's tree or an archive nested in it.
        public var changed: Bool
        /// The archive's new bytes when it changed; `nil` when it is already as the migration
        /// leaves it (write nothing back).
        public var data: Data?
    }

    /// Migrates one archive, as the batch does each of them.
    ///
    /// - Throws: `ArchiveError`: what ``ArchiveDocument/init(data:options:)``, the migration,
    ///   ``ArchiveDocument/migrateNestedArchives(options:_:)`` or the format's writer throws.
    public func migrate(_ data: Data) throws -> Outcome {
        var document = try ArchiveDocument(data: data, options: readingOptions)
        let report = try migration(&document.tree)
        let nested =
            migratesNestedArchives ? try document.migrateNestedArchives(options: readingOptions, migration) : []
        let changed = report.changedTree || nested.contains(where: \.changed)
        return Outcome(
            format: document.format, report: report, nested: nested, changed: changed,
            data: changed ? try document.data() : nil)
    }

    /// Migrates every archive of `archives` (see the type's discussion) and returns the final
    /// progress.
    ///
    /// - Parameters:
    ///   - archives: What to migrate: URLs, row keys, anything `data` turns into an archive's
    ///     bytes. Taken a few at a time, so a lazy sequence is never held whole.
    ///   - total: How many there are, for ``Progress/estimatedTimeRemaining``; by default the
    ///     sequence's `underestimatedCount` when it is not zero.
    ///   - data: Reads one archive's bytes; called in parallel. What it throws is that archive's
    ///     failure (an `ArchiveError` with code `io` around any other error).
    ///   - each: Called with every archive and its outcome, in the sequence's order, one at a
    ///     time: write the new bytes back here. What it throws ends the batch.
    ///   - progress: Called after each group of archives has been handed to `each`.
    /// - Throws: `CancellationError` when the task is cancelled, or what `each` throws.
    @discardableResult
    public func run<Archives: Sequence>(
        _ archives: Archives, total: Int? = nil, data: @escaping @Sendable (Archives.Element) throws -> Data,
        each: (Archives.Element, Result<Outcome, ArchiveError>) async throws -> Void,
        progress: (@Sendable (Progress) -> Void)? = nil
    ) async throws -> Progress where Archives.Element: Sendable {
        let width = max(1, maximumConcurrency) * 2
        let expected = total ?? (archives.underestimatedCount > 0 ? archives.underestimatedCount : nil)
        var state = Progress(total: expected)
        let started = ContinuousClock.now
        var iterator = archives.makeIterator()
        while true {
            try Task.checkCancellation()
            var window: [Archives.Element] = []
            window.reserveCapacity(width)
            while window.count < width, let next = iterator.next() {
                window.append(next)
            }
            if window.isEmpty { break }
            let outcomes = await withTaskGroup(of: (Int, Result<Outcome, ArchiveError>).self) { group in
                for (index, element) in window.enumerated() {
                    group.addTask {
                        guard !Task.isCancelled else {
                            return (index, .failure(ArchiveError(.io, "cancelled")))
                        }
                        return (
                            index,
                            Result { try self.migrate(Self.read(element, with: data)) }.mapError(Self.archiveError)
                        )
                    }
                }
                var results = [Result<Outcome, ArchiveError>?](repeating: nil, count: window.count)
                for await (index, result) in group {
                    results[index] = result
                }
                return results
            }
            for (element, outcome) in zip(window, outcomes) {
                // Nothing is handed over once the task is cancelled.
                try Task.checkCancellation()
                guard let outcome else { continue }
                try await each(element, outcome)
                state.count(outcome)
            }
            state.elapsed = Self.seconds(since: started)
            progress?(state)
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
