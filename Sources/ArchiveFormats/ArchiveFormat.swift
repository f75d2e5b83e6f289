import Foundation

/// The file formats an archive tree reads from and writes to.
///
/// ```swift
/// let (tree, format) = try ArchiveFormat.read(data)          // detects the format
/// let xml = try ArchiveFormat.xmlPropertyList.write(tree)
/// let legacy = try ArchiveFormat.keyedArchive.write(tree)    // for an old NSCoding app
/// ```
///
/// Every reader is our own, hardened against hostile input and bounded by
/// ``ArchiveReadingOptions/limits``; none hands bytes to Foundation's parsers or to
/// `NSKeyedUnarchiver`.
public enum ArchiveFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JSON text (RFC 8259), UTF-8.
    case json
    /// An XML property list.
    case xmlPropertyList = "xml-plist"
    /// A binary property list (`bplist00`).
    case binaryPropertyList = "binary-plist"
    /// An NSKeyedArchiver (or Mantle) archive, binary or XML, read into its object graph: the
    /// root object rather than the archive's `$objects` table. See the article *Reading legacy archives* of ModelVersioning
    /// for how its classes map onto the tree. Written as a binary property list.
    case keyedArchive = "keyed-archive"

    /// The format's short name (its raw value): `json`, `xml-plist`, `binary-plist` or `keyed-archive`.
    public var description: String { rawValue }

    /// Guesses the format from the first bytes: `bplist00` for binary property lists, an XML
    /// declaration, doctype or `<plist` for XML property lists, `{`, `[` or another JSON value
    /// for JSON. Returns `nil` for empty or unrecognised input.
    ///
    /// A property list whose top-level dictionary has the key `$archiver` is reported as
    /// ``keyedArchive``: for a binary property list the top dictionary's keys are checked; for
    /// an XML one, `$archiver` must be its first key (as Apple's writer sorts them).
    /// ``read(_:options:)-swift.type.method`` confirms the guess by content.
    ///
    /// OpenStep (old-style ASCII) property lists — text starting with `(`, a `//` or `/*`
    /// comment, or `{` followed by a key that is unquoted or followed by `=` — are reported as
    /// ``xmlPropertyList``: the property-list reader tells the text formats apart by content,
    /// and OpenStep is read-only, so writing the tree back produces XML. UTF-16 text is recognised
    /// by its byte-order mark or its first character.
    public static func detect(_ data: Data) -> ArchiveFormat? {
        // Everything below looks at no more than the first 4,096 bytes, in place (a copy of
        // them cost a tenth of reading a small JSON archive).
        let guess = data.withUnsafeBytes { raw -> Guess in
            detect(head: UnsafeRawBufferPointer(rebasing: raw.prefix(4096)))
        }
        switch guess {
        case .format(let format): return format
        case .keyedArchiveOr(let format): return KeyedArchiveReader.looksLikeKeyedArchive(data) ? .keyedArchive : format
        case .none: return nil
        }
    }

    /// Whether ``detect(_:)`` names these bytes ``json``, decided from them in place (for a
    /// caller that has an input's bytes open already: each opening of a `Data` makes three
    /// run-time exclusivity checks in Foundation).
    package static func isJSON(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // `{"key":` without a backslash in the key, how archives start: JSON, as `detect` finds
        // at ten times the cost (not UTF-16 by its first two bytes, not OpenStep, whose
        // dictionary has `=` after its first key).
        if bytes.count > 3, bytes[0] == UInt8(ascii: "{"), bytes[1] == UInt8(ascii: "\"") {
            let end = Swift.min(bytes.count - 1, 256)
            var index = 2
            while index < end, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
            if index < end, bytes[index] == UInt8(ascii: "\""), bytes[index + 1] == UInt8(ascii: ":") { return true }
        }
        // Only property lists need the whole input (keyedArchiveOr); JSON is told by its head.
        if case .format(.json) = detect(head: UnsafeRawBufferPointer(rebasing: bytes.prefix(4096))) { return true }
        return false
    }

    /// What the first bytes say; ``keyedArchiveOr(_:)`` when only the whole input can tell.
    private enum Guess {
        case format(ArchiveFormat)
        case keyedArchiveOr(ArchiveFormat)
        case none
    }

    private static func detect(head: UnsafeRawBufferPointer) -> Guess {
        if head.starts(with: Self.binaryPropertyListMagic) { return .keyedArchiveOr(.binaryPropertyList) }
        if PropertyListText.utf16Order(of: head) != nil {
            // UTF-16 text: only property lists (XML or OpenStep) are read in UTF-16.
            let text = PropertyListReader.asciiProjection(ofUTF16: Array(head))
            let first = text.first { !XMLTokenizer.isWhitespace($0) }
            return first == UInt8(ascii: "<") || OpenStepPropertyListReader.looksLikeOpenStep(text)
                ? .format(.xmlPropertyList) : .none
        }
        if OpenStepPropertyListReader.looksLikeOpenStep(head) { return .format(.xmlPropertyList) }
        var bytes = head.prefix(64)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D {
            bytes = bytes.dropFirst()
        }
        guard let first = bytes.first else { return .none }
        if first == UInt8(ascii: "<") { return .keyedArchiveOr(.xmlPropertyList) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
            || first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
            || first == UInt8(ascii: "t") || first == UInt8(ascii: "f") || first == UInt8(ascii: "n")
        {
            return .format(.json)
        }
        return .none
    }

    /// The first bytes of every binary property list (and so of binary keyed archives).
    private static let binaryPropertyListMagic = Array("bplist".utf8)

    /// Reads a document in this format.
    ///
    /// ``keyedArchive`` reads the archive's root object (see
    /// ``KeyedArchiveOptions/rootKey``), in the envelope `$top` records beside it when this
    /// library wrote one there; the property-list formats read a keyed archive as the
    /// plain property list it is (`$objects`, `$top`, UIDs as references). ``json`` reads a
    /// plain envelope (``ArchiveWritingOptions/PlainEnvelope``) as the plain document it holds.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.malformedInput` (and the byte
    ///   offset or line, or for keyed archives the place in the archive such as
    ///   `$objects[12]`) for damaged input, `ArchiveError.Code.limitExceeded` when a limit is
    ///   hit.
    public func read(_ data: Data, options: ArchiveReadingOptions = .init()) throws -> ArchiveValue {
        guard data.count <= options.limits.maxInputBytes else {
            throw ArchiveError.limitExceeded(
                .inputBytes, "the input has \(data.count) bytes, more than the limit of \(options.limits.maxInputBytes)"
            )
        }
        switch self {
        case .json:
            return try JSONReader.read(data, options: options)
        case .xmlPropertyList, .binaryPropertyList:
            return try PropertyListReader.read(data, options: options)
        case .keyedArchive:
            return try KeyedArchiveReader.read(data, options: options)
        }
    }

    /// Writes a tree in this format.
    ///
    /// ``keyedArchive`` writes an NSKeyedArchiver archive (a binary property list) whose root
    /// object is the tree or, for an envelope, the envelope's root (its document name and version
    /// go beside it in `$top`), following ``ArchiveWritingOptions/keyedArchive``: what an old
    /// NSCoding or Mantle app reads with `NSKeyedUnarchiver` (see the article *Reading legacy archives* of ModelVersioning).
    ///
    /// ``json`` with ``ArchiveWritingOptions/markup`` `.plain` writes dates and data as text,
    /// unless ``ArchiveWritingOptions/plainEnvelope`` asks for a plain envelope that keeps them.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidValue` for values the
    ///   format cannot hold (a non-finite double in plain JSON, a key too long for a binary plist),
    ///   `ArchiveError.Code.unresolvedReference` for a reference to no object (keyed archives).
    public func write(_ value: ArchiveValue, options: ArchiveWritingOptions = .init()) throws -> Data {
        switch self {
        case .json:
            return try JSONWriter.write(value, options: options)
        case .xmlPropertyList:
            return try XMLPropertyListWriter.write(value, options: options)
        case .binaryPropertyList:
            return try BinaryPropertyListWriter.write(value, options: options)
        case .keyedArchive:
            return try KeyedArchiveWriter.write(value, options: options)
        }
    }

    /// Detects the format of `data` and reads it as a whole archive: besides what the format's
    /// reader checks, every reference must point to an object of the archive.
    ///
    /// A property list whose top level is a dictionary with `$archiver` is read as a
    /// ``keyedArchive`` (its root object), whatever ``detect(_:)`` guessed. JSON in a plain
    /// envelope (``ArchiveWritingOptions/PlainEnvelope``) is read as the plain document it holds,
    /// its dates, data and other values with their types.
    ///
    /// - Throws: `ArchiveError.Code.unsupportedFormat` when the format is not recognised,
    ///   `ArchiveError.Code.unresolvedReference` at the path of a reference to no object, and
    ///   whatever the format's reader throws.
    public static func read(_ data: Data, options: ArchiveReadingOptions = .init()) throws -> (
        ArchiveValue, ArchiveFormat
    ) {
        let document = try readDocument(data, options: options)
        return (document.value, document.format)
    }

    /// ``read(_:options:)-swift.type.method``, also telling whether the document's markup was
    /// read (``ArchiveDocument/markup``) and whether it was a plain document in a plain envelope
    /// (``ArchiveDocument/usesPlainEnvelope``).
    static func readDocument(_ data: Data, options: ArchiveReadingOptions) throws -> (
        value: ArchiveValue, format: ArchiveFormat, usedMarkup: Bool, isPlainEnvelope: Bool
    ) {
        guard let format = detect(data) else {
            throw ArchiveError(
                .unsupportedFormat,
                data.isEmpty
                    ? "the input is empty"
                    : "the input is neither JSON nor a property list (it starts with \(hexPrefix(data)))")
        }
        guard data.count <= options.limits.maxInputBytes else {
            throw ArchiveError.limitExceeded(
                .inputBytes, "the input has \(data.count) bytes, more than the limit of \(options.limits.maxInputBytes)"
            )
        }
        switch format {
        case .json:
            let (value, usedMarkup, hasReferences, isPlainEnvelope) = try JSONReader.readDocument(
                data, options: options)
            if hasReferences { try ArchiveMarkup.checkReferences(in: value, limits: options.limits) }
            return (value, format, usedMarkup, isPlainEnvelope)
        case .xmlPropertyList, .binaryPropertyList, .keyedArchive:
            let (propertyList, usedMarkup) = try PropertyListReader.readDocument(data, options: options)
            if KeyedArchiveReader.isKeyedArchive(propertyList) {
                let root = try KeyedArchiveReader.read(propertyList: propertyList, options: options)
                return (root, .keyedArchive, true, false)
            }
            if usedMarkup { try ArchiveMarkup.checkReferences(in: propertyList, limits: options.limits) }
            let kind: ArchiveFormat =
                PropertyListReader.kind(of: data) == .binary ? .binaryPropertyList : .xmlPropertyList
            return (propertyList, kind, usedMarkup, false)
        }
    }

    static func hexPrefix(_ data: Data) -> String {
        data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}
