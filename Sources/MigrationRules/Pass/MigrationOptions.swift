/// How a ``MigrationPass`` treats data it cannot migrate and how much it records.
///
/// ```swift
/// var options = MigrationOptions()
/// options.allowsNewerVersions = true   // keep objects from a newer app as they are
/// options.recordsSteps = false         // counts only: the decoder's hot path
/// let pass = MigrationPass(catalog: catalog, options: options)
/// ```
public struct MigrationOptions: Sendable {
    /// When `true`, objects and documents written by a newer version are left as they are and
    /// listed in ``MigrationReport/newer``; when `false` (the default) they are a
    /// ``ArchiveError/Code/newerVersion`` error. The same setting as `DecodingOptions`'s
    /// `allowsNewerVersions`, which the decoder passes on.
    public var allowsNewerVersions: Bool
    /// When `true` (the default) the report lists every migrated object
    /// (``MigrationReport/entries``); when `false` it keeps only the counts, which is cheaper.
    public var recordsSteps: Bool
    /// The resource bounds; the pass checks ``ArchiveLimits/maxDepth``.
    public var limits: ArchiveLimits

    /// Creates options; the defaults are strict, recording, and ``ArchiveLimits/default``.
    public init(allowsNewerVersions: Bool = false, recordsSteps: Bool = true, limits: ArchiveLimits = .default) {
        self.allowsNewerVersions = allowsNewerVersions
        self.recordsSteps = recordsSteps
        self.limits = limits
    }
}
