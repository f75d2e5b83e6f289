/// The migration chain of a whole document: its version, where that version is stored, and the
/// steps whose rules edit the document root.
///
/// Document steps run before any object is migrated. They suit changes that cross objects
/// (moving a field from a child to its parent) and documents without typed objects, such as
/// foreign JSON:
///
/// ```swift
/// // {"schema_version": 1, "people": [{"id": …, "name": "Fred Weasley"}]}
/// let people = DocumentMigrations(
///     name: "people", versionPath: "schema_version", currentVersion: 3, unversionedVersion: 1,
///     steps: [
///         MigrationStep(from: 1, to: 2, rules: [
///             .scoped("people[*]", [.split("name", into: ["first_name", "last_name"], separator: " ")]),
///         ]),
///         MigrationStep(from: 2, to: 3, rules: [
///             .scoped("people[*]", [.add("birthday", default: nil), .add("mark_as_favorite", default: false)]),
///         ]),
///     ])
/// ```
///
/// In an archive wrapped in an ``ArchiveEnvelope`` the version is the envelope's
/// `documentVersion` and the rules apply to its `root` value. In any other tree the rules apply
/// to the top-level dictionary (or object) and the version is read from and written to
/// ``versionPath`` inside it.
///
/// A document that is not an archive of this library declares so with its ``style``: a plain
/// document has no envelope, keeps its version at ``versionPath`` and spells dates and data its
/// own way, and the encoder, upgrades, downgrades and fixture goldens write it that way
/// (`.plain(DocumentConventions(dates: .secondsSince1970))`).
public struct DocumentMigrations: Sendable {
    /// The document's name, as the envelope's `document` key and ``MigrationPass`` name it.
    public var name: String
    /// Where a plain tree stores its version, relative to the top-level container
    /// (`schema_version`, `metadata.documentVersion`); keys only.
    public var versionPath: ArchivePath
    /// The version the app writes today.
    public var currentVersion: Int
    /// The version a document without a version is taken to be at (the declared
    /// pre-versioning version); `nil` makes an unversioned document a
    /// ``ArchiveError/Code/missingMigration`` error.
    public var unversionedVersion: Int?
    /// How the document is written: ``DocumentStyle/archive`` (an envelope and `$` markup, the
    /// default) or ``DocumentStyle/plain(_:)`` (its version at ``versionPath``, its own spellings
    /// of dates and data, no markup). Migrations never see it.
    public var style: DocumentStyle
    /// One step per version up to ``currentVersion``; their rules apply to the document root.
    public var steps: [MigrationStep]

    /// Creates a document chain.
    ///
    /// - Parameters:
    ///   - name: The document's name.
    ///   - versionPath: Where a plain tree stores the version (default `documentVersion`).
    ///   - currentVersion: The version the app writes today.
    ///   - unversionedVersion: The version of documents that store none.
    ///   - style: How the document is written: an archive (the default) or a plain document.
    ///   - steps: The steps, one per version up to `currentVersion`.
    public init(
        name: String, versionPath: ArchivePath = "documentVersion", currentVersion: Int,
        unversionedVersion: Int? = nil, style: DocumentStyle = .archive, steps: [MigrationStep] = []
    ) {
        self.name = name
        self.versionPath = versionPath
        self.currentVersion = currentVersion
        self.unversionedVersion = unversionedVersion
        self.style = style
        self.steps = steps
    }

    /// Checks the chain as ``TypeMigrations/validate()`` does, and that ``versionPath`` names
    /// keys only.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidChain``.
    package func validate() throws {
        _ = try CompiledChain(self)
    }

    /// Stores `version` at ``versionPath`` in the top-level dictionary (or object) of a plain
    /// tree, replacing the value there or adding the key at the end, as the migration pass does.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidValue`` when the tree is
    ///   not keyed, or a value on the way to the version is neither a dictionary, an object nor
    ///   null.
    package func storeVersion(_ version: Int, in tree: inout ArchiveValue) throws {
        guard let keys = ArchiveDictionary.keys(of: versionPath), !keys.isEmpty else {
            throw ArchiveError(
                .invalidChain, "document '\(name)': the version path '\(versionPath)' must be one or more keys")
        }
        let kind = tree.kind
        do {
            let stored: Void? = try tree.modifyKeyedEntries { top in
                try top.storeValue(.int(Int64(version)), atKeys: keys, replacing: true, base: .root)
            }
            guard stored != nil else {
                throw ArchiveError(
                    .invalidValue,
                    "the plain document \(name) keeps its version at '\(versionPath)', so its root must be a "
                        + "dictionary; it is a value of kind \(kind)")
            }
        } catch let error as ArchiveError where error.code == .migrationFailed {
            throw ArchiveError(.invalidValue, error.message, path: error.path)
        }
    }
}
