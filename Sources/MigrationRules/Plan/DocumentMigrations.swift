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
    /// One step per version up to ``currentVersion``; their rules apply to the document root.
    public var steps: [MigrationStep]

    /// Creates a document chain.
    ///
    /// - Parameters:
    ///   - name: The document's name.
    ///   - versionPath: Where a plain tree stores the version (default `documentVersion`).
    ///   - currentVersion: The version the app writes today.
    ///   - unversionedVersion: The version of documents that store none.
    ///   - steps: The steps, one per version up to `currentVersion`.
    public init(
        name: String, versionPath: ArchivePath = "documentVersion", currentVersion: Int,
        unversionedVersion: Int? = nil, steps: [MigrationStep] = []
    ) {
        self.name = name
        self.versionPath = versionPath
        self.currentVersion = currentVersion
        self.unversionedVersion = unversionedVersion
        self.steps = steps
    }

    /// Checks the chain as ``TypeMigrations/validate()`` does, and that ``versionPath`` names
    /// keys only.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidChain``.
    package func validate() throws {
        _ = try CompiledChain(self)
    }
}
