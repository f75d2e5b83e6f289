import Foundation

/// The file formats an archive tree reads from and writes to.
///
/// ```swift
/// let (tree, format) = try ArchiveFormat.read(data)          // detects the format
/// let xml = try ArchiveFormat.xmlPropertyList.write(tree)
/// ```
///
/// Every reader is our own, hardened against hostile input and bounded by
/// ``ArchiveReadingOptions/limits``; none hands bytes to Foundation's parsers.
public enum ArchiveFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JSON text (RFC 8259), UTF-8.
    case json
    /// An XML property list.
    case xmlPropertyList = "xml-plist"
    /// A binary property list (`bplist00`).
    case binaryPropertyList = "binary-plist"

    public var description: String { rawValue }

    /// Guesses the format from the first bytes: `bplist00` for binary property lists, an XML
    /// declaration, doctype or `<plist` for XML property lists, `{`, `[` or another JSON value
    /// for JSON. Returns `nil` for empty or unrecognised input.
    ///
    /// OpenStep (old-style ASCII) property lists — text starting with `(`, a `//` or `/*`
    /// comment, or `{` followed by a key that is unquoted or followed by `=` — are reported as
    /// ``xmlPropertyList``: the property-list reader tells the text formats apart by content,
    /// and OpenStep is read-only, so writing the tree back produces XML. UTF-16 text is recognised
    /// by its byte-order mark or its first character.
    public static func detect(_ data: Data) -> ArchiveFormat? {
        let prefix = Array(data.prefix(64))
        if prefix.starts(with: Array("bplist".utf8)) {
            return .binaryPropertyList
        }
        if PropertyListText.utf16Order(of: prefix) != nil {
            // UTF-16 text: only property lists (XML or OpenStep) are read in UTF-16.
            let text = PropertyListReader.asciiProjection(ofUTF16: Array(data.prefix(4096)))
            let first = text.first { !XMLTokenizer.isWhitespace($0) }
            return first == UInt8(ascii: "<") || OpenStepPropertyListReader.looksLikeOpenStep(text[...])
                ? .xmlPropertyList : nil
        }
        if OpenStepPropertyListReader.looksLikeOpenStep(Array(data.prefix(4096))[...]) {
            return .xmlPropertyList
        }
        var bytes = prefix[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D {
            bytes = bytes.dropFirst()
        }
        guard let first = bytes.first else { return nil }
        if first == UInt8(ascii: "<") {
            return .xmlPropertyList
        }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
            || first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
            || first == UInt8(ascii: "t") || first == UInt8(ascii: "f") || first == UInt8(ascii: "n")
        {
            return .json
        }
        return nil
    }

    /// Reads a document in this format.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.malformedInput` (and the byte
    ///   offset or line) for damaged input, `ArchiveError.Code.limitExceeded` when a limit is hit.
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
        }
    }

    /// Writes a tree in this format.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidValue` for values the
    ///   format cannot hold (a non-finite double in plain JSON, a key too long for a binary plist).
    public func write(_ value: ArchiveValue, options: ArchiveWritingOptions = .init()) throws -> Data {
        switch self {
        case .json:
            return try JSONWriter.write(value, options: options)
        case .xmlPropertyList:
            return try XMLPropertyListWriter.write(value, options: options)
        case .binaryPropertyList:
            return try BinaryPropertyListWriter.write(value, options: options)
        }
    }

    /// Detects the format of `data` and reads it.
    ///
    /// - Throws: `ArchiveError.Code.unsupportedFormat` when the format is not recognised, and
    ///   whatever the format's reader throws.
    public static func read(_ data: Data, options: ArchiveReadingOptions = .init()) throws -> (
        ArchiveValue, ArchiveFormat
    ) {
        guard let format = detect(data) else {
            throw ArchiveError(
                .unsupportedFormat,
                data.isEmpty
                    ? "the input is empty"
                    : "the input is neither JSON nor a property list (it starts with \(hexPrefix(data)))")
        }
        return (try format.read(data, options: options), format)
    }

    static func hexPrefix(_ data: Data) -> String {
        data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}

/// How readers treat the reserved `$` keys of the archive format (see the "Archive format"
/// article).
public enum MarkupMode: Sendable, Hashable {
    /// Read the markup when the top-level value is a dictionary whose first key is `$archive` or
    /// `$type`; read every other document literally.
    case automatic
    /// Always read the markup.
    case archive
    /// Never read the markup: every key is taken literally.
    case plain
}

/// Options for reading a document.
public struct ArchiveReadingOptions: Sendable, Hashable {
    /// Resource bounds; exceeding one is an `ArchiveError.Code.limitExceeded` error.
    public var limits: ArchiveLimits
    /// Whether `$type`, `$ref` and the other reserved keys are read as markup.
    public var markup: MarkupMode

    public init(limits: ArchiveLimits = .default, markup: MarkupMode = .automatic) {
        self.limits = limits
        self.markup = markup
    }
}

/// Options for writing a tree.
public struct ArchiveWritingOptions: Sendable, Hashable {
    /// Line breaks and indentation (JSON: two spaces; XML: tabs). Binary formats ignore it.
    public var prettyPrinted: Bool
    /// `.archive` (the default) writes objects, references, dates and data so that they read
    /// back exactly; `.plain` writes what a foreign consumer expects: objects as dictionaries
    /// with their `$type` and `$version` keys, references as `{"$ref": n}`, and in JSON dates
    /// as ISO 8601 strings and data as base64 strings, with no `$` escaping. `.automatic`
    /// behaves as `.archive`.
    public var markup: MarkupMode
    /// Bounds the nesting depth a writer follows.
    public var limits: ArchiveLimits

    public init(prettyPrinted: Bool = true, markup: MarkupMode = .archive, limits: ArchiveLimits = .default) {
        self.prettyPrinted = prettyPrinted
        self.markup = markup
        self.limits = limits
    }
}
