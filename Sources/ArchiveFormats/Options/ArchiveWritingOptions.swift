import MigrationRules

/// Options for writing a tree.
public struct ArchiveWritingOptions: Sendable, Hashable {
    /// Line breaks and indentation (JSON: two spaces; XML: tabs). Binary formats ignore it.
    public var prettyPrinted: Bool
    /// `.archive` (the default) writes objects, references, dates and data so that they read
    /// back exactly; `.plain` writes what a foreign consumer expects: objects as dictionaries
    /// with their `$type` and `$version` keys, references as `{"$ref": n}`, and in JSON dates
    /// and data as ``conventions`` spell them (ISO 8601 strings and base64 strings unless they
    /// say otherwise), with no `$` escaping — or, in JSON, in a plain envelope that keeps their
    /// types, as ``plainEnvelope`` says. `.automatic` behaves as `.archive`.
    public var markup: MarkupMode
    /// How plain JSON (``markup`` `.plain`) spells dates and data: a plain document's own
    /// conventions (its document chain's `DocumentStyle.plain(_:)`). Archive markup and
    /// property lists, which have dates and data of their own, ignore it.
    public var conventions: DocumentConventions
    /// Whether plain JSON (``markup`` `.plain`) keeps the types of the values it has none for
    /// — dates, data, non-finite doubles, objects and references — by writing the document in
    /// a plain envelope (see ``PlainEnvelope``). The other formats ignore it.
    public var plainEnvelope: PlainEnvelope
    /// Bounds the nesting depth a writer follows.
    public var limits: ArchiveLimits
    /// How keyed archives are written (root key, Mantle's `MTLModelVersion`, numbers as objects).
    /// The other formats ignore it.
    public var keyedArchive: KeyedArchiveOptions

    /// Options that by default write pretty-printed text with the archive markup, no plain envelope, the
    /// default limits and the default keyed-archive options.
    public init(
        prettyPrinted: Bool = true, markup: MarkupMode = .archive, conventions: DocumentConventions = .init(),
        plainEnvelope: PlainEnvelope = .never, limits: ArchiveLimits = .default,
        keyedArchive: KeyedArchiveOptions = .default
    ) {
        self.prettyPrinted = prettyPrinted
        self.markup = markup
        self.conventions = conventions
        self.plainEnvelope = plainEnvelope
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

extension ArchiveWritingOptions {
    /// When plain JSON is written in a plain envelope, `{"$archive": 1, "plain": true, "root": …}`:
    /// the document as its root, in archive markup, so that its dates (`{"$date": …}`), data
    /// (`{"$data": …}`), non-finite doubles, objects and references read back with their types,
    /// and its own `$` keys escaped. Readers give back the root, the plain document itself (see
    /// ModelVersioning's article "The archive format").
    ///
    /// ```swift
    /// var options = ArchiveWritingOptions(markup: .plain, plainEnvelope: .whenNeeded)
    /// let json = try ArchiveFormat.json.write(["created": .date(.now), "name": "Basic"], options: options)
    /// // {"$archive": 1, "plain": true, "root": {"created": {"$date": "…"}, "name": "Basic"}}
    /// try ArchiveFormat.json.read(json)         // ["created": .date(…), "name": "Basic"]
    /// ```
    ///
    /// ``ArchiveDocument/data(as:prettyPrinted:markup:)`` chooses ``whenNeeded`` for a plain
    /// document converted to JSON from another format, so that a property list converted to JSON
    /// and back is the same property list.
    public enum PlainEnvelope: Sendable, Hashable {
        /// Plain JSON, whatever the tree holds: dates and data spelled as
        /// ``ArchiveWritingOptions/conventions`` say (text or numbers, which read back as
        /// such), objects and references as dictionaries; a non-finite double is an error.
        /// Types are dropped: what `archive-migrate convert --plain` writes.
        case never
        /// A plain envelope when the tree holds a date, data, a non-finite double, an object or a
        /// reference; plain JSON, with no `$` key of the library's, otherwise.
        case whenNeeded
        /// A plain envelope always (a document that was read from one is written back in one).
        case always
    }
}
