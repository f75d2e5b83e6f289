import MigrationRules

/// Options for writing a tree.
public struct ArchiveWritingOptions: Sendable, Hashable {
    /// Line breaks and indentation (JSON: two spaces; XML: tabs). Binary formats ignore it.
    public var prettyPrinted: Bool
    /// `.archive` (the default) writes objects, references, dates and data so that they read
    /// back exactly; `.plain` writes what a foreign consumer expects: objects as dictionaries
    /// with their `$type` and `$version` keys, references as `{"$ref": n}`, and in JSON dates
    /// and data as ``conventions`` spell them (ISO 8601 strings and base64 strings unless they
    /// say otherwise), with no `$` escaping. `.automatic` behaves as `.archive`.
    public var markup: MarkupMode
    /// How plain JSON (``markup`` `.plain`) spells dates and data: a plain document's own
    /// conventions (its document chain's `DocumentStyle.plain(_:)`). Archive markup and
    /// property lists, which have dates and data of their own, ignore it.
    public var conventions: DocumentConventions
    /// Bounds the nesting depth a writer follows.
    public var limits: ArchiveLimits
    /// How keyed archives are written (root key, Mantle's `MTLModelVersion`, numbers as objects).
    /// The other formats ignore it.
    public var keyedArchive: KeyedArchiveOptions

    public init(
        prettyPrinted: Bool = true, markup: MarkupMode = .archive, conventions: DocumentConventions = .init(),
        limits: ArchiveLimits = .default, keyedArchive: KeyedArchiveOptions = .default
    ) {
        self.prettyPrinted = prettyPrinted
        self.markup = markup
        self.conventions = conventions
        self.limits = limits
        self.keyedArchive = keyedArchive
    }

    /// These options for a document of `style`: ``MarkupMode/plain`` with the style's
    /// conventions for a plain document, ``MarkupMode/archive`` for an archive.
    ///
    /// ```swift
    /// let options = ArchiveWritingOptions().writing(chain.style)
    /// ```
    public func writing(_ style: DocumentStyle) -> ArchiveWritingOptions {
        var options = self
        switch style {
        case .archive:
            options.markup = .archive
        case .plain(let conventions):
            options.markup = .plain
            options.conventions = conventions
        }
        return options
    }
}
