import Foundation

/// A document read from bytes, with what it takes to write it back as it was spelled: its
/// format, whether it carried this library's archive markup, and its layout.
///
/// ```swift
/// var document = try ArchiveDocument(data: Data(contentsOf: url))
/// try MigrationPass(catalog: catalog).upgrade(&document.tree, document: "Settings")
/// let upgraded = try document.data()      // same format, same spellings
/// ```
///
/// An archive this library wrote (an envelope, or a `$type` object at the top; see
/// the article *The archive format* of ModelVersioning) is read and written with its markup. Any other document — a JSON Schema,
/// a MongoDB export, an app's settings file — is *plain*: its `$` keys are its own, read and
/// written literally, never escaped, so `{"$schema": …}` comes back as `{"$schema": …}` however
/// often it is migrated or converted. Markup belongs to archives this library writes, never to
/// documents it only migrates.
///
/// A plain document spells dates and data its own way. A date or data value that a migration
/// put in its tree (a `convert` to a date, say) is written as ``conventions`` say: give it the
/// conventions of the document chain that migrated it, and it comes back in its own spellings:
///
/// ```swift
/// if let conventions = catalog.document(named: "people")?.style.conventions {
///     document.conventions = conventions      // dates as milliseconds since 1970, say
/// }
/// ```
///
/// Converting never drops a type silently. A plain document converted to JSON from a format
/// with dates and data of their own — a Terminal profile whose colours are `<data>`, preferences
/// with `<date>`s — is written in a *plain envelope* when it holds such values
/// (`{"$archive": 1, "plain": true, "root": …}`, see ``ArchiveWritingOptions/PlainEnvelope``):
/// their markup keeps their types, and converting back gives the very same property list.
/// A plain document without them stays plain JSON; ``MarkupMode/plain`` drops the types on
/// request (dates and data become text):
///
/// ```swift
/// let profile = try ArchiveDocument(data: Data(contentsOf: terminalProfileURL))
/// let json = try profile.data(as: .json)                       // a plain envelope: data stays data
/// let back = try ArchiveDocument(data: json).data(as: .xmlPropertyList)   // the same profile
/// let text = try profile.data(as: .json, markup: .plain)       // base64 strings, on request
/// ```
public struct ArchiveDocument: Sendable {
    /// The document's tree; edit it in place (a migration pass) and write it with ``data()``.
    public var tree: ArchiveValue
    /// The format it was read from.
    public let format: ArchiveFormat
    /// ``MarkupMode/archive`` when the document carried archive markup, ``MarkupMode/plain``
    /// when it was read literally (or from a plain envelope). Writing uses the same mode.
    public let markup: MarkupMode
    /// Whether the document is a plain document read from a plain envelope (JSON that keeps
    /// its dates, data and other values plain JSON has no type for; see
    /// ``ArchiveWritingOptions/PlainEnvelope``). ``data()`` writes it in one again.
    public let usesPlainEnvelope: Bool
    /// Whether the text had line breaks (JSON and XML); binary formats ignore it.
    public let isPrettyPrinted: Bool
    /// How a plain JSON document spells dates and data (ISO 8601 and base64 unless set): its
    /// document chain's `DocumentStyle.plain(_:)` conventions. Archives ignore it.
    public var conventions = DocumentConventions()

    /// Reads a document in any supported format, detecting the format and, with
    /// ``MarkupMode/automatic`` (the default), whether it is an archive or a plain document.
    ///
    /// - Throws: what ``ArchiveFormat/read(_:options:)-swift.type.method`` throws.
    public init(data: Data, options: ArchiveReadingOptions = .init()) throws {
        let (value, format, usedMarkup, isPlainEnvelope) = try ArchiveFormat.readDocument(data, options: options)
        self.tree = value
        self.format = format
        self.markup = usedMarkup ? .archive : .plain
        self.usesPlainEnvelope = isPlainEnvelope
        switch format {
        case .json, .xmlPropertyList: self.isPrettyPrinted = Self.hasLineBreakInside(data)
        case .binaryPropertyList, .keyedArchive: self.isPrettyPrinted = true
        }
    }

    /// Whether a line break comes before the last character that is not whitespace: a file
    /// written on one line and ended with a newline is not pretty-printed.
    static func hasLineBreakInside(_ data: Data) -> Bool {
        data.withUnsafeBytes { hasLineBreakInside($0) }
    }

    /// ``hasLineBreakInside(_:)-(Data)`` for bytes in memory.
    package static func hasLineBreakInside(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var end = bytes.count
        scan: while end > 0 {
            switch bytes[end - 1] {
            case 0x20, 0x09, 0x0A, 0x0D: end -= 1
            default: break scan
            }
        }
        guard end > 0, let base = bytes.baseAddress else { return false }
        // `memchr` rather than a byte loop: every JSON and XML document read goes through here.
        return memchr(base, 0x0A, end - 1) != nil
    }

    /// The options that write a tree as this document was spelled (in a plain envelope again
    /// when it was read from one).
    public var writingOptions: ArchiveWritingOptions {
        ArchiveWritingOptions(
            prettyPrinted: isPrettyPrinted, markup: markup, conventions: conventions,
            plainEnvelope: usesPlainEnvelope ? .always : .never)
    }

    /// The tree written in the document's own format, markup and layout.
    ///
    /// - Throws: what ``ArchiveFormat/write(_:options:)`` throws; code `newerVersion`, at
    ///   `$archive`, for an envelope of a newer format than this library reads (its markup was
    ///   read by this format's rules, so it is not written back under the newer label), and
    ///   `malformedInput` for a `$archive` marker that is not a positive integer.
    public func data() throws -> Data {
        try requireReadableEnvelope()
        return try format.write(tree, options: writingOptions)
    }

    /// Refuses a tree whose envelope is of a newer format: the markup was read by this format's
    /// rules, and what is written would still be labelled with the newer one.
    private func requireReadableEnvelope() throws {
        _ = try ArchiveEnvelope.isReadableEnvelope(tree)
    }

    /// The tree converted to `format` (what `archive-migrate convert` writes), pretty-printed
    /// unless `prettyPrinted` is `false`, with no type dropped unless `markup` asks for it.
    ///
    /// With `markup` `nil`, the document keeps its own mode: an archive keeps its markup, and a
    /// plain document stays plain — but a plain document converted to JSON from another format
    /// is written in a plain envelope when it holds a date, data, a non-finite double, an
    /// object or a reference (``ArchiveWritingOptions/PlainEnvelope/whenNeeded``), since plain
    /// JSON has no type for them; converting that JSON back gives the same document. In its own
    /// format a document is written as ``data()`` writes it.
    ///
    /// ```swift
    /// let preferences = try ArchiveDocument(data: binaryPlist)      // dates, data
    /// let json = try preferences.data(as: .json)                     // a plain envelope
    /// let xml = try ArchiveDocument(data: json).data(as: .xmlPropertyList)   // <date>, <data> again
    /// ```
    ///
    /// ``MarkupMode/plain`` writes plain JSON whatever the tree holds: dates and data as
    /// ``conventions`` spell them (ISO 8601 and base64 text unless set), which read back as text
    /// — types dropped on request, as `archive-migrate convert --plain` does. Give a plain
    /// document its chain's conventions and ``MarkupMode/plain`` to write it in the chain's own
    /// spellings. ``MarkupMode/archive`` writes the tree with archive markup as it is.
    ///
    /// - Throws: what ``ArchiveFormat/write(_:options:)`` throws: code `invalidValue`, with its
    ///   path, for a value the format cannot hold (null in an XML property list; with
    ///   ``MarkupMode/plain``, a non-finite double in JSON); code `newerVersion` for an envelope
    ///   of a newer format, as ``data()``.
    public func data(as format: ArchiveFormat, prettyPrinted: Bool = true, markup: MarkupMode? = nil) throws -> Data {
        try requireReadableEnvelope()
        return try format.write(tree, options: writingOptions(as: format, prettyPrinted: prettyPrinted, markup: markup))
    }

    /// The options ``data(as:prettyPrinted:markup:)`` writes with.
    package func writingOptions(as format: ArchiveFormat, prettyPrinted: Bool, markup: MarkupMode?)
        -> ArchiveWritingOptions
    {
        var options = writingOptions
        options.prettyPrinted = prettyPrinted
        if let markup {
            options.markup = markup
            options.plainEnvelope = .never
        } else if self.markup == .plain, format != self.format, !usesPlainEnvelope {
            options.plainEnvelope = .whenNeeded
        }
        return options
    }
}
