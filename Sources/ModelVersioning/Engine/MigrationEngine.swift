import Foundation

/// The one way archives are migrated as bytes: read in their own format, the document chain
/// chosen, upgraded or downgraded, a way down written for an older release, the archives nested
/// in their data values migrated, and written back in their own format, markup and layout. Every
/// front door takes this road — ``ArchiveUpgrader`` for one archive at a time, ``ArchiveBatch``
/// for many, and every `archive-migrate` command over files, standard input, NDJSON lines and
/// database rows — so they give the same bytes for the same archive.
///
/// ```swift
/// let engine = try MigrationEngine(catalog: registry.catalog)
/// let outcome = try engine.migrate(data)
/// if let upgraded = outcome.data { try upgraded.write(to: url, options: .atomic) }   // only when it changed
///
/// var options = MigrationEngine.Options()
/// options.readableBy = "1.1"                 // app 1.1 opens what is written, too
/// let forOldApps = try MigrationEngine(
///     catalog: registry.catalog, operation: .downgrade(to: DowngradeTarget(release: release)), options: options)
/// ```
///
/// For each archive:
///
/// 1. The bytes are read (`ArchiveDocument`): the format is detected, and whether the
///    document carries this library's markup or is a plain document with its own spellings.
/// 2. The document chain is chosen by the rule every road follows (`DocumentChoice`): the one
///    ``Options/document`` names; none for an archive (the pass follows its envelope and objects);
///    the only one for a plain document. A plain document no chain applies to is an error —
///    usually a wrong file or a forgotten document name — never "nothing to migrate"; with
///    ``Options/migratesNestedArchives`` it is a container of archives instead.
/// 3. The tree is migrated by the ``Operation``, then carries the way down to
///    ``Options/readableBy`` when set (`MigrationCatalog.writeWayDown(toRelease:into:)`, noted
///    in `MigrationReport.writtenWayDown`).
/// 4. With ``Options/migratesNestedArchives``, the archives nested in data values are migrated
///    the same way and written back into them.
/// 5. When anything changed, the document is written in its own format, markup and layout: a
///    plain document keeps its spellings, and dates and data a migration made are spelled as its
///    chain's conventions say.
///
/// A JSON archive whose old objects only move keys is upgraded by rewriting its text instead of
/// building a tree (`JSONTextRewrite`), to the very bytes the tree gives, when nothing needs
/// the tree: an upgrade to the current versions with no report asked for
/// (``Options/reporting`` `.none`), no document named, no way down to write, no nested archives,
/// markup not turned off. <doc:FastPaths> lists it with the other fast paths.
///
/// Many archives go through ``ArchiveBatch`` (async) or, for the command-line tool, a window at
/// a time on every processor (the package's `Parallel` windows).
public struct MigrationEngine: Sendable {
    /// What the engine does to each archive's tree.
    public enum Operation: Sendable, Hashable {
        /// Upgrades to the current versions of the catalog's chains, or, given a target, to the
        /// versions it names (`DowngradeTarget.truncating(_:document:)`): an upgrade that stops
        /// short of today's versions.
        case upgrade(to: DowngradeTarget? = nil)
        /// Downgrades to the versions the target names: usually a release of the catalog's
        /// `ReleaseManifest`, exactly what that release wrote.
        case downgrade(to: DowngradeTarget)

        /// Upgrades to the current versions.
        public static var upgrade: Operation { .upgrade(to: nil) }
    }

    /// How much of what the migration did each ``Outcome`` reports.
    public enum Reporting: Sendable, Hashable {
        /// No report (``Outcome/report`` is `nil`): the fastest, and JSON archives whose old
        /// objects only move keys may be upgraded by rewriting their text.
        case none
        /// Objects migrated per type and version pair, and the document's migration.
        case counts
        /// Also every migrated object with its path and steps (`MigrationReport.entries`).
        case everyObject
    }

    /// How the engine reads, chooses and reports.
    public struct Options: Sendable {
        /// The document chain plain documents are migrated with (`archive-migrate --document`);
        /// `nil` for the rule of `DocumentChoice`.
        public var document: String?
        /// The older release that must still read what is written (`--readable-by`): its way
        /// down is written into every archive's envelope after it is migrated. Needs the
        /// catalog's releases.
        public var readableBy: String?
        /// Whether archives nested in data values are migrated too (`--nested`), each with the
        /// same operation, and written back into their data values.
        public var migratesNestedArchives = false
        /// Whether objects written by a newer version than the catalog knows are left as they
        /// are (`--allow-newer`) instead of failing the archive.
        public var allowsNewerVersions = false
        /// How much each outcome reports.
        public var reporting = Reporting.counts
        /// How archives are read: limits, markup. The migration pass runs within the same limits.
        public var readingOptions = ArchiveReadingOptions()

        /// The defaults: the document chain by `DocumentChoice`, no way down, no nested
        /// archives, newer versions refused, counts reported, default limits.
        public init() {}
    }

    /// The chains archives are migrated with, and the releases ``Options/readableBy`` names.
    public let catalog: MigrationCatalog
    /// What is done to each archive.
    public let operation: Operation
    /// How archives are read, chosen and reported.
    public let options: Options
    private let pass: MigrationPass
    private let downgradeTarget: DowngradeTarget?
    private let textRewrite: JSONTextRewrite?

    /// An engine that applies `operation` to archives with `catalog`'s chains.
    ///
    /// - Throws: `ArchiveError` before any archive is read: code `unknownType` for a document
    ///   name the catalog has no chain for, a ``Options/readableBy`` release the catalog does not
    ///   declare (or no releases at all), or a target type no chain has; `missingMigration` for a
    ///   target version outside its chain.
    public init(catalog: MigrationCatalog, operation: Operation = .upgrade, options: Options = .init()) throws {
        if let document = options.document, catalog.document(named: document) == nil {
            throw ArchiveError(
                .unknownType,
                "no document chain is named '\(document)'"
                    + (catalog.documents.isEmpty
                        ? "" : " (there are \(catalog.documents.map(\.name).joined(separator: ", ")))"))
        }
        if let release = options.readableBy {
            guard let releases = catalog.releases else {
                throw ArchiveError(
                    .unknownType,
                    "writing for release \(release) needs the app's releases: the catalog declares none (a rules file's "
                        + "\"releases\", or ModelRegistry(_:documents:releases:))")
            }
            guard releases.release(matching: release) != nil else {
                throw ArchiveError(
                    .unknownType,
                    "no release has the name \(release) or wrote document version \(release); the releases are "
                        + releases.releases.map(\.name).joined(separator: ", "))
            }
        }
        self.catalog = catalog
        self.operation = operation
        self.options = options
        let passOptions = MigrationOptions(
            allowsNewerVersions: options.allowsNewerVersions, recordsSteps: options.reporting == .everyObject,
            limits: options.readingOptions.limits)
        switch operation {
        case .upgrade(let target):
            let chains = try target.map { try $0.truncating(catalog, document: options.document) } ?? catalog
            pass = MigrationPass(catalog: chains, options: passOptions)
            downgradeTarget = nil
            textRewrite =
                options.reporting == .none && options.document == nil && options.readableBy == nil
                    && !options.migratesNestedArchives && options.readingOptions.markup != .plain
                ? JSONTextRewrite(catalog: chains, limits: options.readingOptions.limits) : nil
        case .downgrade(let target):
            try target.check(against: catalog, document: options.document)
            pass = MigrationPass(catalog: catalog, options: passOptions)
            downgradeTarget = target
            textRewrite = nil
        }
    }

    /// Migrates one archive (see the type's discussion).
    ///
    /// - Parameters:
    ///   - data: The archive's bytes, in any format the library reads.
    ///   - writingUnchanged: Whether ``Outcome/data`` holds the archive written again even when
    ///     nothing changed (for a destination that must receive every archive).
    /// - Throws: `ArchiveError`: what reading the archive throws (`ArchiveDocument.init(data:options:)`),
    ///   code `unknownType` for a plain document no document chain applies to, what the migration
    ///   pass throws (an object newer than its chain, a step that fails, with the type, version,
    ///   step and path), what writing the way down throws, and what the format's writer throws.
    public func migrate(_ data: Data, writingUnchanged: Bool = false) throws -> Outcome {
        // The row's bytes are opened once for both the format and the rewrite.
        if let rewritten = data.withUnsafeBytes({ raw in
            rewriteText(raw, writingUnchanged: writingUnchanged) { Data($0) }
        }) {
            return Outcome(rewrittenText: rewritten.changed, data: rewritten.output)
        }
        return try migrateTree(data, writingUnchanged: writingUnchanged)
    }

    /// The first half of ``migrate(_:writingUnchanged:)``, for a batch that has the archive's
    /// bytes open and keeps new bytes in memory of their own (`upgrade --sqlite`): what the text
    /// rewrite makes of them, with the new bytes when the archive changed; `nil` when the archive
    /// takes the tree path (``migrateTree(_:writingUnchanged:)``). ``migrate(_:writingUnchanged:)``
    /// is this, then that.
    package func rewriteText(_ raw: UnsafeRawBufferPointer) -> (changed: Bool, output: ArchiveBytes?)? {
        rewriteText(raw, writingUnchanged: false) { ArchiveBytes(copying: $0) }
    }

    /// The text rewrite of a JSON archive, its new bytes made by `output`: generic inside the
    /// module only, where each use is specialised (called across modules, a generic entry looked
    /// up the runtime metadata of its result on every archive).
    private func rewriteText<Output>(
        _ raw: UnsafeRawBufferPointer, writingUnchanged: Bool, output: (UnsafeRawBufferPointer) -> Output
    ) -> (changed: Bool, output: Output?)? {
        guard let textRewrite, ArchiveFormat.isJSON(raw) else { return nil }
        return textRewrite.upgrade(bytes: raw, writingUnchanged: writingUnchanged, output: output)
    }

    /// The second half of ``migrate(_:writingUnchanged:)``: the archive read, migrated and
    /// written (for an archive ``rewriteText(_:)`` did not take).
    package func migrateTree(_ data: Data, writingUnchanged: Bool = false) throws -> Outcome {
        do {
            return try readAndMigrate(data, writingUnchanged: writingUnchanged)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(.migrationFailed, "the migration failed", underlyingError: error)
        }
    }

    /// The tree path of ``migrate(_:writingUnchanged:)``.
    private func readAndMigrate(_ data: Data, writingUnchanged: Bool) throws -> Outcome {
        // The readers take bytes indexed from 0 (a database row is a slice of its window's buffer).
        let bytes = data.startIndex == 0 ? data : Data(data)
        var document = try ArchiveDocument(data: bytes, options: options.readingOptions)
        var outcome = Outcome(format: document.format, rewroteText: false)
        var choice = DocumentChoice(for: document.tree, named: options.document, in: catalog)
        // With nested archives, a plain document is a container of archives (preferences, a
        // profile): it is migrated itself only when a chain is named, and one no chain applies
        // to may still hold archives.
        if options.migratesNestedArchives, choice.reason == .onlyDocumentChain {
            choice = DocumentChoice(for: document.tree, named: nil, in: MigrationCatalog())
        }
        if !choice.isUnmatched {
            outcome.documentChoice = choice
            var report = try transform(&document.tree, document: choice.name)
            // A plain document keeps its own spellings of the dates and data a migration made.
            if let name = choice.name, let conventions = catalog.document(named: name)?.style.conventions {
                document.conventions = conventions
            }
            outcome.changed = report.changedTree
            if options.reporting != .none {
                if options.reporting == .counts { report.entries = [] }
                outcome.report = report
            }
        }
        if options.migratesNestedArchives {
            outcome.nested = try document.migrateNestedArchives(options: options.readingOptions) { tree in
                try transform(&tree, document: nil)
            }
            outcome.changed = outcome.changed || outcome.nested.contains(where: \.changed)
        }
        if choice.isUnmatched, outcome.nested.isEmpty {
            throw choice.unmatchedError ?? ArchiveError(.unknownType, "no document chain applies")
        }
        if outcome.changed || writingUnchanged {
            outcome.data = try document.data()
        }
        return outcome
    }

    /// The operation on one tree, with the way down written after it.
    private func transform(_ tree: inout ArchiveValue, document: String?) throws -> MigrationReport {
        var report: MigrationReport
        if let downgradeTarget {
            report = try pass.downgrade(&tree, to: downgradeTarget, document: document)
        } else {
            report = try pass.upgrade(&tree, document: document)
        }
        if let readableBy = options.readableBy {
            report.writtenWayDown = try catalog.writeWayDown(toRelease: readableBy, into: &tree)
        }
        return report
    }
}
