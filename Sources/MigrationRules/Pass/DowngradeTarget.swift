/// The versions a downgrade writes: what an older app reads.
///
/// Usually a release of the app's ``ReleaseManifest``, which takes every object to the versions
/// that release wrote in one step:
///
/// ```swift
/// let release = try #require(catalog.releases?.release(named: "1.1"))
/// let report = try pass.downgrade(&tree, to: DowngradeTarget(release: release))
/// ```
///
/// Experts can name versions type by type instead (types not listed stay at their current
/// version; type names may be any name of a chain):
///
/// ```swift
/// let target = DowngradeTarget(typeVersions: ["Circle": 1, "Drawing": 2])
/// ```
///
/// A document version always stands for the release that wrote it when the catalog declares
/// releases: an archive is never labelled with a document version its objects do not match.
public struct DowngradeTarget: Sendable, Hashable {
    /// The document version to write, or `nil` to leave the document version alone.
    public var documentVersion: Int?
    /// The version to write per type name.
    public var typeVersions: [String: Int]
    /// The release the target writes for, when it is one: the types it did not have and the
    /// names it archived types under come from it.
    public var release: AppRelease?
    /// Whether objects of a type the release did not have (and whose chain declares no
    /// ``TypeMigrations/downgradeFallback``) are left out of the archive — each one listed in
    /// ``MigrationReport/absentObjects`` — instead of failing the downgrade.
    public var dropsAbsentTypes: Bool

    /// Creates a target of explicit versions.
    public init(documentVersion: Int? = nil, typeVersions: [String: Int] = [:]) {
        self.documentVersion = documentVersion
        self.typeVersions = typeVersions
        self.release = nil
        self.dropsAbsentTypes = false
    }

    /// Creates the target that writes exactly what `release` wrote.
    ///
    /// - Parameters:
    ///   - release: A release of the catalog's ``ReleaseManifest``.
    ///   - droppingAbsentTypes: Leave out objects of types the release did not have (see
    ///     ``dropsAbsentTypes``) instead of failing.
    public init(release: AppRelease, droppingAbsentTypes: Bool = false) {
        self.documentVersion = release.documentVersion
        self.typeVersions = release.types.compactMapValues(\.version)
        self.release = release
        self.dropsAbsentTypes = droppingAbsentTypes
    }
}
