import Foundation

/// Decodes versioned archives into today's Codable models: reads any supported format, resolves
/// polymorphic values through the registry, checks allow lists before any initializer runs, and
/// restores object identity (shared instances, conditional references, weak back-references).
///
/// ```swift
/// let registry = try ModelRegistry([Contents.self, Circle.self, Rectangle.self])
/// let decoder = ArchiveDecoder(registry: registry)
/// let contents = try decoder.decode(Contents.self, from: data)
/// ```
///
/// Errors are `ArchiveError`s naming the path inside the archive, the archived type and
/// version: `ArchiveError.Code.malformedInput` for damaged bytes,
/// `ArchiveError.Code.newerVersion` for archives written by a newer app,
/// `ArchiveError.Code.unknownType` and `ArchiveError.Code.disallowedType` for objects of
/// types the app does not know or does not allow at that key, and the Codable codes
/// (`ArchiveError.Code.keyNotFound`, `ArchiveError.Code.typeMismatch`, …).
///
/// A model's key (its `CodingKey`'s `stringValue`) finds the archived key with exactly its
/// Unicode scalars, the way archives and Foundation's `NSString` identify keys, not by Swift's
/// canonical equivalence: a key spelled `"\u{E9}"` (é) does not find an archived
/// `"e\u{301}"` (e and a combining accent), which is a different key. Spell non-ASCII keys as
/// the archives do.
public struct ArchiveDecoder: Sendable {
    /// The types polymorphic values resolve to.
    public var registry: ModelRegistry
    /// Limits and leniency.
    public var options: DecodingOptions

    /// Creates a decoder.
    public init(registry: ModelRegistry = ModelRegistry(), options: DecodingOptions = .init()) {
        self.registry = registry
        self.options = options
    }

    /// Reads `data` (JSON, a property list or an NSKeyedArchiver archive, detected), upgrades it
    /// and decodes a `T` from its root.
    ///
    /// A plain document (no envelope, no typed objects) is migrated with the document chain
    /// ``DecodingOptions/document`` names or, when it names none, with the registry's only
    /// document chain (`DocumentChoice`, the rule `archive-migrate` follows too). When that
    /// chain declares `DocumentStyle.plain(_:)`, the document's dates and data are read in its
    /// spellings (milliseconds since 1970, say); other documents take ISO 8601 text or seconds
    /// since 2001 for a date and base64 text for data.
    ///
    /// A JSON archive whose objects are all at their types' current versions, or whose chains
    /// only move keys (rename, add a scalar default, remove, nest into a new container, rename
    /// the type), and which needs nothing only the archive tree offers (identities, references,
    /// polymorphic values, tagged dates and data, archived extras; see the Performance
    /// article), is decoded straight from the bytes, with the same result as through the tree.
    /// Anything else, and every error, is decoded through the tree, so a model's `init(from:)`
    /// can then run twice for one call: keep it free of side effects, as `Decodable` expects.
    ///
    /// - Throws: `ArchiveError`; see the type's discussion.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try CodingPaths.decode(T.self, from: data, with: self)
    }

    /// Upgrades an archive tree and decodes a `T` from it: the root of an envelope, or the tree
    /// itself.
    ///
    /// The migration pass edits the tree in place: pass a tree you no longer need (`consume tree`,
    /// or a temporary) and nothing is copied; a tree you keep using is copied where it changes.
    ///
    /// - Throws: `ArchiveError`; see the type's discussion.
    public func decode<T: Decodable>(_ type: T.Type, fromTree tree: consuming ArchiveValue) throws -> T {
        try migrate(&tree, recordingSteps: false)
        return try decodeMigrated(T.self, from: tree)
    }

    /// Like ``decode(_:from:)``, and also tells which migration steps ran on which objects.
    ///
    /// ```swift
    /// let (drawing, report) = try decoder.decodeWithReport(Drawing.self, from: data)
    /// print(report)   // Circle v1 → v3 at shapes[0] (2 steps) …
    /// ```
    public func decodeWithReport<T: Decodable>(_ type: T.Type, from data: Data) throws -> (
        value: T, report: MigrationReport
    ) {
        var tree = try read(data)
        let report = try migrate(&tree, recordingSteps: true)
        return (try decodeMigrated(T.self, from: tree, explainingWith: { try? self.read(data) }), report)
    }

    /// Like ``decode(_:fromTree:)``, and also tells which migration steps ran on which objects.
    ///
    /// An error decoding an upgraded object names the steps that ran on it, but not where it
    /// was in the archive (the tree was upgraded in place); ``decode(_:from:)`` and
    /// ``decodeWithReport(_:from:)`` name both.
    public func decodeWithReport<T: Decodable>(_ type: T.Type, fromTree tree: consuming ArchiveValue) throws -> (
        value: T, report: MigrationReport
    ) {
        let report = try migrate(&tree, recordingSteps: true)
        return (try decodeMigrated(T.self, from: tree), report)
    }

    /// Upgrades `tree` in place to the registry's current versions, without decoding it.
    ///
    /// - Returns: Which steps ran on which objects.
    /// - Throws: `ArchiveError` with codes `newerVersion` (unless
    ///   ``DecodingOptions/allowsNewerVersions``), `missingMigration` and `migrationFailed`.
    @discardableResult
    public func upgrade(_ tree: inout ArchiveValue) throws -> MigrationReport {
        try migrate(&tree, recordingSteps: true)
    }

    /// Decodes bytes through the tree: read, upgrade, decode; a decoding error after an upgrade
    /// is explained with the history of the object it is about (`ArchiveError.history`).
    func decodeThroughTree<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        var tree = try read(data)
        try migrate(&tree, recordingSteps: false)
        return try decodeMigrated(T.self, from: tree, explainingWith: { try? self.read(data) })
    }

    /// ``decodeMigrated(_:from:)``, explaining a decoding error with the history of the object it
    /// is about when the archive was upgraded: `archived` gives the tree as read (called only
    /// when an error needs explaining).
    package func decodeMigrated<T: Decodable>(
        _ type: T.Type, from tree: ArchiveValue, explainingWith archived: () -> ArchiveValue?
    ) throws -> T {
        do {
            return try decodeMigrated(T.self, from: tree)
        } catch let error as ArchiveError {
            let catalog = registry.catalog
            guard !catalog.isEmpty, let original = archived() else { throw error }
            let pass = MigrationPass(
                catalog: catalog,
                options: MigrationOptions(allowsNewerVersions: options.allowsNewerVersions, limits: options.limits))
            throw pass.explain(error, upgrading: original, document: document(for: original))
        }
    }

    func read(_ data: Data) throws -> ArchiveValue {
        try ArchiveFormat.read(data, options: ArchiveReadingOptions(limits: options.limits)).0
    }

    @discardableResult
    private func migrate(_ tree: inout ArchiveValue, recordingSteps: Bool) throws -> MigrationReport {
        let catalog = registry.catalog
        guard !catalog.isEmpty else { return MigrationReport(direction: .upgrade) }
        let pass = MigrationPass(
            catalog: catalog,
            options: MigrationOptions(
                allowsNewerVersions: options.allowsNewerVersions, recordsSteps: recordingSteps, limits: options.limits))
        return try pass.upgrade(&tree, document: document(for: tree))
    }

    /// The document chain of `tree`: the one ``DecodingOptions/document`` names, or for a plain
    /// document the registry's only one (`DocumentChoice`, as `archive-migrate` chooses).
    private func document(for tree: ArchiveValue) -> String? {
        DocumentChoice.name(for: tree, named: options.document, in: registry.catalog)
    }

    package func decodeMigrated<T: Decodable>(_ type: T.Type, from tree: ArchiveValue) throws -> T {
        let envelope = try ArchiveEnvelope(tree: tree)
        let root = envelope?.root ?? tree
        // A plain document's dates and data are read as its chain spells them: the chain named,
        // or the only one (the rule the migration pass followed, `DocumentChoice`).
        let conventions =
            envelope == nil
            ? DocumentChoice.name(for: tree, named: options.document, in: registry.catalog).flatMap {
                registry.catalog.document(named: $0)?.style.conventions
            } : nil
        let session = TreeDecodingSession(registry: registry, options: options, root: root, conventions: conventions)
        let decoder = TreeDecoder(session: session, value: root)
        // The makers' spare containers refer back to the run.
        defer { session.keyedContainerMakers.removeAll() }
        do {
            return try decoder.unbox(root, as: T.self)
        } catch let error as ArchiveError {
            throw error
        } catch let error as DecodingError {
            throw ArchiveError(error)
        } catch {
            throw ArchiveError(.dataCorrupted, "a model's initializer failed", underlyingError: error)
        }
    }
}
