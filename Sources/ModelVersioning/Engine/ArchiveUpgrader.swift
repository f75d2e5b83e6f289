import Foundation

/// Upgrades archives one at a time — bytes in any format the library reads — to the current
/// versions of a catalog's chains, for an app that keeps archives in a store of its own (a
/// database column, a key-value store): the ``MigrationEngine``'s upgrade, with no report, so
/// that JSON archives whose old objects only move keys are upgraded by rewriting their text.
///
/// ```swift
/// let upgrader = try ArchiveUpgrader(catalog: registry.catalog)
/// for (key, archive) in archives {          // [String: Data], the rows of your own store, …
///     let upgraded = try upgrader.upgrade(archive)
///     if upgraded.changed { archives[key] = upgraded.data }
/// }
/// ```
///
/// A JSON archive whose old objects only need keys moved — renamed, added with a scalar default,
/// removed, nested, or the type renamed (the rules `rename`, `add`, `remove`, `nest` and
/// `renameType`) — is upgraded by rewriting its text in one pass, without building a tree: over
/// twice as fast for small archives (see <doc:Performance>). The bytes are the ones the tree
/// gives — the same keys in the same order, the same spelling of every number and string, the
/// same layout — because every value is read by the tree reader's functions and written by the
/// tree writer's; anything else (another format, references, dates, an envelope, a rule that
/// edits values, an archive that is not valid) goes through the tree, which migrates it or
/// throws. ``UpgradedArchive/rewroteText`` says which path ran.
///
/// One upgrader serves any number of threads at once: what each archived type, version and key
/// set becomes is worked out once, by the chain's own rules, and kept (the first thousand key
/// sets or so; past that, worked out for each object, as the tree does). For many archives at
/// once, on every processor, use ``ArchiveBatch``.
public final class ArchiveUpgrader: Sendable {
    /// What became of one archive.
    public struct UpgradedArchive: Sendable, Hashable {
        /// The archive, upgraded, in its own format, markup and layout; the bytes given, as they
        /// were, when nothing changed.
        public var data: Data
        /// Whether any object or document was upgraded.
        public var changed: Bool
        /// Whether the JSON text was rewritten without a tree (its old objects only needed keys
        /// moved). The bytes are the same either way.
        public var rewroteText: Bool
    }

    /// The engine every archive goes through.
    public let engine: MigrationEngine

    /// An upgrader to the current versions of `catalog`'s chains; plain documents with the
    /// document chain `document` names (as `archive-migrate --document` does), or by the rule of
    /// `DocumentChoice`.
    ///
    /// - Throws: `ArchiveError` with code `unknownType` when `document` names no document
    ///   chain of `catalog`.
    public init(catalog: MigrationCatalog, document: String? = nil, options: ArchiveReadingOptions = .init()) throws {
        var engineOptions = MigrationEngine.Options()
        engineOptions.document = document
        engineOptions.readingOptions = options
        engineOptions.reporting = .none
        engine = try MigrationEngine(catalog: catalog, options: engineOptions)
    }

    /// Upgrades `data` to the current versions.
    ///
    /// - Throws: `ArchiveError`: what ``MigrationEngine/migrate(_:writingUnchanged:)`` throws.
    public func upgrade(_ data: Data) throws -> UpgradedArchive {
        let outcome = try engine.migrate(data)
        return UpgradedArchive(data: outcome.data ?? data, changed: outcome.changed, rewroteText: outcome.rewroteText)
    }
}
