import Foundation

/// Upgrades archives — bytes in any format the library reads — to the current versions of a
/// catalog's chains and writes them back in their own format, markup and layout: what
/// ``ArchiveDocument`` and `MigrationPass` do together, for an app that keeps archives in a
/// store of its own (a database column, a key-value store) and upgrades them in bulk.
///
/// ```swift
/// let upgrader = ArchiveUpgrader(catalog: registry.catalog)
/// for (key, archive) in archives {          // [String: Data], the rows of your own store, …
///     let result = try upgrader.upgrade(archive)
///     if result.changed { archives[key] = result.data }
/// }
/// ```
///
/// A JSON archive whose old objects only need keys moved — renamed, added with a scalar default,
/// removed, nested, or the type renamed (the rules `rename`, `add`, `remove`, `nest` and
/// `renameType`) — is upgraded by
/// rewriting its text in one pass, without building a tree: over twice as fast for small
/// archives (see <doc:Performance>). The bytes are the ones the tree gives — the same keys in the
/// same order, the same spelling of every number and string, the same layout — because every
/// value is read by the tree reader's functions and written by the tree writer's; anything
/// else (another format, references, dates, an envelope, a rule that edits values, an archive
/// that is not valid) goes through the tree, which migrates it or throws. ``Result/rewroteText``
/// says which path ran.
///
/// One upgrader serves any number of threads at once: what each archived type, version and key
/// set becomes is worked out once, by the chain's own rules, and kept (the first thousand key
/// sets or so; past that, worked out for each object, as the tree does).
public final class ArchiveUpgrader: Sendable {
    /// What became of one archive.
    public struct Result: Sendable, Hashable {
        /// The archive, upgraded, in its own format, markup and layout; the bytes given, as they
        /// were, when nothing changed.
        public var data: Data
        /// Whether any object or document was upgraded.
        public var changed: Bool
        /// Whether the JSON text was rewritten without a tree (its old objects only needed keys
        /// moved). The bytes are the same either way.
        public var rewroteText: Bool
    }

    /// The chains archives are upgraded with.
    public let catalog: MigrationCatalog
    /// The document chain plain documents (JSON or property lists without archive markup) are
    /// upgraded with; `nil` to follow each archive's envelope and objects only.
    public let document: String?
    /// How archives are read (limits, markup); the migration pass runs within the same limits.
    public let options: ArchiveReadingOptions
    private let text: JSONTextRewrite
    private let pass: MigrationPass

    /// An upgrader to the current versions of `catalog`'s chains; plain documents with the
    /// document chain `document` names (as `archive-migrate --document` does).
    public init(catalog: MigrationCatalog, document: String? = nil, options: ArchiveReadingOptions = .init()) {
        self.catalog = catalog
        self.document = document
        self.options = options
        self.text = JSONTextRewrite(catalog: catalog, limits: options.limits)
        self.pass = MigrationPass(
            catalog: catalog, options: MigrationOptions(recordsSteps: false, limits: options.limits))
    }

    /// Upgrades `data` to the current versions.
    ///
    /// - Throws: `ArchiveError`: what reading the archive throws (``ArchiveDocument/init(data:options:)``),
    ///   what the migration pass throws (an object newer than its chain, a step that fails, with
    ///   the type, version, step and path), and what writing throws.
    public func upgrade(_ data: Data) throws -> Result {
        // With a document chain named, the pass applies it: the tree's to run.
        if document == nil, options.markup != .plain, ArchiveFormat.detect(data) == .json,
            let outcome = text.upgrade(data)
        {
            return Result(data: outcome.changed ? outcome.output : data, changed: outcome.changed, rewroteText: true)
        }
        var archive = try ArchiveDocument(data: data, options: options)
        let report = try pass.upgrade(&archive.tree, document: document)
        guard report.changedTree else { return Result(data: data, changed: false, rewroteText: false) }
        return Result(data: try archive.data(), changed: true, rewroteText: false)
    }
}
