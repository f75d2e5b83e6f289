import MigrationRules

/// Options for reading a document.
public struct ArchiveReadingOptions: Sendable, Hashable {
    /// Resource bounds; exceeding one is an `ArchiveError.Code.limitExceeded` error.
    public var limits: ArchiveLimits
    /// Whether `$type`, `$ref` and the other reserved keys are read as markup.
    public var markup: MarkupMode
    /// How keyed archives are read (which `$top` key is the root).
    public var keyedArchive: KeyedArchiveOptions

    /// Options that by default read within the default limits, read the markup when the document starts
    /// with it (``MarkupMode/automatic``), and find a keyed archive's root automatically.
    public init(
        limits: ArchiveLimits = .default, markup: MarkupMode = .automatic, keyedArchive: KeyedArchiveOptions = .default
    ) {
        self.limits = limits
        self.markup = markup
        self.keyedArchive = keyedArchive
    }
}
