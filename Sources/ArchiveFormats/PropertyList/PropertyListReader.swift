import Foundation

/// Reads a property list of any kind — binary (`bplist00`), XML or OpenStep — into an archive
/// tree, then applies the archive markup when it is on.
///
/// ```swift
/// let tree = try PropertyListReader.read(data, options: .init(limits: .untrusted))
/// ```
///
/// The kind is told by content: the `bplist` header means binary; text whose first significant
/// character is `<` (after a byte-order mark and whitespace) is XML, unless it is `<` followed by
/// hexadecimal digits up to `>` (OpenStep data); any other text is OpenStep. Foundation's parsers
/// are never used: they trap on hostile input on Linux.
///
/// Markup (``ArchiveReadingOptions/markup``) follows ``ArchiveMarkup``: in
/// ``MarkupMode/automatic`` it is on when the top-level value is a dictionary whose first key is
/// `$archive` or `$type`; ``MarkupMode/archive`` switches it on, ``MarkupMode/plain`` off. When
/// on, every dictionary (bottom-up) becomes the object, reference, null or unescaped dictionary
/// it spells. An NSKeyedArchiver archive (a top-level `$archiver` key) is always read plainly:
/// its `$` keys are the keyed-archive format's own.
enum PropertyListReader {
    /// Reads a property list.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.malformedInput` (with the byte
    ///   offset, or the line and column, and the path), `ArchiveError.Code.limitExceeded` or
    ///   `ArchiveError.Code.unsupportedFormat`.
    static func read(_ data: Data, options: ArchiveReadingOptions) throws -> ArchiveValue {
        try readDocument(data, options: options).value
    }

    /// Reads a property list and tells whether its markup was read (see ``usesMarkup(_:mode:)``).
    static func readDocument(_ data: Data, options: ArchiveReadingOptions) throws -> (
        value: ArchiveValue, usedMarkup: Bool
    ) {
        guard data.count <= options.limits.maxInputBytes else {
            throw ArchiveError.limitExceeded(
                .inputBytes,
                "the input has \(data.count) bytes, more than the limit of \(options.limits.maxInputBytes)")
        }
        let plain: ArchiveValue
        switch kind(of: data) {
        case .binary:
            plain = try BinaryPropertyListReader.read(data, limits: options.limits)
        case .xml:
            plain = try XMLPropertyListReader.read(data, limits: options.limits)
        case .openStep:
            plain = try OpenStepPropertyListReader.read(data, limits: options.limits)
        case .none:
            throw ArchiveError(.unsupportedFormat, "the input is empty")
        }
        guard usesMarkup(plain, mode: options.markup) else { return (plain, false) }
        return (try interpretMarkup(plain, isTopLevel: true), true)
    }

    /// The kinds of property list.
    enum Kind {
        case binary, xml, openStep
    }

    /// Tells binary, XML and OpenStep property lists apart by their first bytes; `nil` for empty
    /// input. Text without a `<` first is OpenStep (whose reader reports what is wrong with it).
    static func kind(of data: Data) -> Kind? {
        guard !data.isEmpty else { return nil }
        let prefix = [UInt8](data.prefix(1024))
        if prefix.starts(with: "bplist".utf8) { return .binary }
        if PropertyListText.utf16Order(of: prefix) != nil {
            return textKind(asciiProjection(ofUTF16: prefix)[...])
        }
        return textKind(prefix[...])
    }

    /// The ASCII characters of the start of UTF-16 text, one byte per code unit (0x80 for a
    /// code unit that is not ASCII), without the byte-order mark: enough to recognise the format.
    static func asciiProjection(ofUTF16 bytes: [UInt8]) -> [UInt8] {
        var projection: [UInt8] = []
        projection.reserveCapacity(bytes.count / 2)
        var index = 0
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { index = 2 }
        while index + 1 < bytes.count {
            let (first, second) = (bytes[index], bytes[index + 1])
            projection.append(first == 0 && second < 0x80 ? second : (second == 0 && first < 0x80 ? first : 0x80))
            index += 2
        }
        return projection
    }

    private static func textKind(_ bytes: ArraySlice<UInt8>) -> Kind {
        var index = bytes.startIndex
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < bytes.endIndex, XMLTokenizer.isWhitespace(bytes[index]) { index += 1 }
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "<") else { return .openStep }
        // `<` then hexadecimal digits and whitespace up to `>` is OpenStep data, not a tag.
        var next = index + 1
        while next < bytes.endIndex,
            XMLTokenizer.isWhitespace(bytes[next]) || XMLTokenizer.digitValue(bytes[next], radix: 16) != nil
        {
            next += 1
        }
        return next < bytes.endIndex && bytes[next] == UInt8(ascii: ">") ? .openStep : .xml
    }

    // MARK: - Markup

    /// Whether the markup applies to a tree read in `mode`.
    static func usesMarkup(_ tree: ArchiveValue, mode: MarkupMode) -> Bool {
        guard case .dictionary(let entries) = tree else { return mode == .archive }
        if entries.index(forKey: "$archiver") != nil { return false }
        switch mode {
        case .plain: return false
        case .archive: return true
        case .automatic:
            guard let first = entries.first else { return false }
            return ArchiveMarkup.startsArchiveMarkup(firstKey: first.key)
        }
    }

    /// Rebuilds `value` with every dictionary read as markup, bottom-up.
    private static func interpretMarkup(_ value: ArchiveValue, isTopLevel: Bool) throws -> ArchiveValue {
        switch value {
        case .array(var elements):
            for index in elements.indices {
                do {
                    elements[index] = try interpretMarkup(elements[index], isTopLevel: false)
                } catch let error as ArchiveError {
                    throw error.prefixingPath([.index(index)])
                }
            }
            return .array(elements)
        case .dictionary(let dictionary):
            var entries: [ArchiveDictionary.Entry] = []
            entries.reserveCapacity(dictionary.count)
            for (key, child) in dictionary {
                do {
                    entries.append(
                        ArchiveDictionary.Entry(key: key, value: try interpretMarkup(child, isTopLevel: false)))
                } catch let error as ArchiveError {
                    throw error.prefixingPath([.key(key)])
                }
            }
            return try ArchiveMarkup.interpret(entries, isTopLevel: isTopLevel, allowsValueTags: false, path: .root)
        default:
            return value
        }
    }
}
