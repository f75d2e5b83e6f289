import Foundation

/// A small XML tokenizer, sufficient for property lists and safe on hostile input.
///
/// It reads UTF-8 (validated by the caller) and yields start tags, end tags and runs of character
/// data. Comments, processing instructions and CDATA sections are understood; the XML
/// declaration and a DOCTYPE with an external identifier are read in the prolog. What it never
/// does is expand entities: a DOCTYPE with an internal subset (`[` … `]`, where entity
/// declarations live) is rejected, and the only references in text are the five predefined
/// entities and numeric character references. Billion-laughs input is an error, not a hang.
///
/// Positions are byte offsets into ``bytes``; ``location(of:)`` turns one into a line and column
/// for error messages (computed only when an error is reported).
struct XMLTokenizer {
    /// One token of element content.
    enum Token {
        /// `<name …>` or `<name …/>`; `name` is a byte range of ``bytes``.
        case startTag(name: Range<Int>, isEmpty: Bool, offset: Int)
        /// `</name>`.
        case endTag(name: Range<Int>, offset: Int)
        /// Character data up to the next tag.
        case text(Text)
        /// The end of the input.
        case end(offset: Int)
    }

    /// A run of character data, possibly with references, comments, processing instructions and
    /// CDATA sections inside.
    struct Text {
        /// The bytes of the run in the input.
        var range: Range<Int>
        /// Whether the run holds only XML whitespace once references are decoded.
        var isWhitespace: Bool
        /// Whether the run is plain text (no references or markup): its bytes are its value.
        var isPlain: Bool
    }

    /// The UTF-8 input.
    let bytes: [UInt8]
    /// Whether ``bytes`` were transcoded from another encoding (byte offsets then refer to the
    /// transcoded text and are left out of locations).
    let isTranscoded: Bool
    /// The next byte to read.
    private(set) var position: Int

    init(bytes: [UInt8], start: Int, isTranscoded: Bool) {
        self.bytes = bytes
        self.position = start
        self.isTranscoded = isTranscoded
    }

    // MARK: - Prolog and epilog

    /// Reads the XML declaration, if any, and returns its `encoding` value.
    mutating func readDeclaration() throws -> String? {
        guard hasPrefix("<?xml"), position + 5 < bytes.count, Self.isWhitespace(bytes[position + 5]) else {
            return nil
        }
        let start = position
        position += 5
        var encoding: String?
        while true {
            skipWhitespace()
            if hasPrefix("?>") {
                position += 2
                return encoding
            }
            guard position < bytes.count else { throw error("the XML declaration is not closed with '?>'", at: start) }
            let (name, value) = try readAttribute()
            if name == "encoding" { encoding = value }
        }
    }

    /// Skips whitespace, comments and processing instructions, and a DOCTYPE when `allowsDoctype`;
    /// stops at the first element or the end. Returns whether a DOCTYPE was read.
    ///
    /// - Throws: For text, a second DOCTYPE or a DOCTYPE with an internal subset.
    @discardableResult
    mutating func skipMisc(allowsDoctype: Bool) throws -> Bool {
        var sawDoctype = false
        while true {
            skipWhitespace()
            guard position < bytes.count else { return sawDoctype }
            if hasPrefix("<!--") {
                try skipComment()
            } else if hasPrefix("<?") {
                try skipProcessingInstruction()
            } else if hasPrefix("<!DOCTYPE") {
                guard allowsDoctype, !sawDoctype else {
                    throw error("a DOCTYPE is only allowed once, before the root element", at: position)
                }
                try skipDoctype()
                sawDoctype = true
            } else if bytes[position] == UInt8(ascii: "<") {
                return sawDoctype
            } else {
                throw error("text outside the root element", at: position)
            }
        }
    }

    /// Reads `<!DOCTYPE name [SYSTEM "…" | PUBLIC "…" "…"]>`, rejecting an internal subset.
    private mutating func skipDoctype() throws {
        let start = position
        position += "<!DOCTYPE".utf8.count
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: ">"):
                position += 1
                return
            case UInt8(ascii: "["):
                throw error(
                    "a DOCTYPE with an internal subset (entity or other declarations) is not allowed in a property list",
                    at: position)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let literalStart = position
                position += 1
                while position < bytes.count, bytes[position] != byte { position += 1 }
                guard position < bytes.count else {
                    throw error("an unterminated literal in the DOCTYPE", at: literalStart)
                }
                position += 1
            default:
                position += 1
            }
        }
        throw error("the DOCTYPE is not closed with '>'", at: start)
    }

    // MARK: - Content

    /// The next token of element content.
    mutating func next() throws -> Token {
        guard position < bytes.count else { return .end(offset: position) }
        if bytes[position] == UInt8(ascii: "<") {
            guard position + 1 < bytes.count else { throw error("the input ends inside a tag", at: position) }
            let second = bytes[position + 1]
            if second == UInt8(ascii: "/") { return try readEndTag() }
            if second != UInt8(ascii: "!") && second != UInt8(ascii: "?") { return try readStartTag() }
        }
        return .text(try readText())
    }

    private mutating func readStartTag() throws -> Token {
        let start = position
        position += 1
        let name = try readName()
        while true {
            let hadWhitespace = skipWhitespace()
            guard position < bytes.count else { throw error("the tag is not closed with '>'", at: start) }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                return .startTag(name: name, isEmpty: false, offset: start)
            }
            if hasPrefix("/>") {
                position += 2
                return .startTag(name: name, isEmpty: true, offset: start)
            }
            guard hadWhitespace else { throw error("expected whitespace, '>' or '/>' in a tag", at: position) }
            _ = try readAttribute()
        }
    }

    private mutating func readEndTag() throws -> Token {
        let start = position
        position += 2
        let name = try readName()
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
            throw error("the end tag is not closed with '>'", at: start)
        }
        position += 1
        return .endTag(name: name, offset: start)
    }

    private mutating func readName() throws -> Range<Int> {
        let start = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        guard position > start, !Self.isDigitOrDashOrDot(bytes[start]) else {
            throw error("expected an element or attribute name", at: start)
        }
        return start..<position
    }

    /// Reads `name = "value"` (or single quotes) and returns both; references in the value are
    /// checked but left undecoded except the predefined ones.
    private mutating func readAttribute() throws -> (String, String) {
        let nameRange = try readName()
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
            throw error("expected '=' after an attribute name", at: position)
        }
        position += 1
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'")
        else {
            throw error("expected a quoted attribute value", at: position)
        }
        let quote = bytes[position]
        position += 1
        let valueStart = position
        while position < bytes.count, bytes[position] != quote {
            if bytes[position] == UInt8(ascii: "<") { throw error("'<' in an attribute value", at: position) }
            position += 1
        }
        guard position < bytes.count else { throw error("an unterminated attribute value", at: valueStart - 1) }
        let value = String(decoding: bytes[valueStart..<position], as: UTF8.self)
        position += 1
        return (String(decoding: bytes[nameRange], as: UTF8.self), value)
    }

    private mutating func readText() throws -> Text {
        let start = position
        var isWhitespace = true
        var isPlain = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") {
                if hasPrefix("<!--") {
                    try skipComment()
                } else if hasPrefix("<![CDATA[") {
                    let contents = try skipCDATA()
                    if isWhitespace, contents.contains(where: { !Self.isWhitespace(bytes[$0]) }) {
                        isWhitespace = false
                    }
                } else if hasPrefix("<?") {
                    try skipProcessingInstruction()
                } else if hasPrefix("<!") {
                    throw error("unexpected '<!' in element content", at: position)
                } else {
                    break
                }
                isPlain = false
            } else if byte == UInt8(ascii: "&") {
                let scalar = try readReference()
                if isWhitespace, !(scalar < 0x80 && Self.isWhitespace(UInt8(scalar))) { isWhitespace = false }
                isPlain = false
            } else {
                if isWhitespace, !Self.isWhitespace(byte) { isWhitespace = false }
                position += 1
            }
        }
        return Text(range: start..<position, isWhitespace: isWhitespace, isPlain: isPlain)
    }

    /// The bytes `text` stands for: references decoded, CDATA unwrapped, comments and
    /// processing instructions removed.
    func decodedBytes(of text: Text) -> ArraySlice<UInt8> {
        if text.isPlain { return bytes[text.range] }
        var output: [UInt8] = []
        output.reserveCapacity(text.range.count)
        var scanner = self
        scanner.position = text.range.lowerBound
        let end = text.range.upperBound
        while scanner.position < end {
            let byte = bytes[scanner.position]
            if byte == UInt8(ascii: "<") {
                if scanner.hasPrefix("<!--") {
                    _ = try? scanner.skipComment()
                } else if scanner.hasPrefix("<![CDATA[") {
                    if let contents = try? scanner.skipCDATA() { output.append(contentsOf: bytes[contents]) }
                } else {
                    _ = try? scanner.skipProcessingInstruction()
                }
            } else if byte == UInt8(ascii: "&") {
                if let scalar = try? scanner.readReference() { PropertyListText.appendUTF8(scalar, to: &output) }
            } else {
                output.append(byte)
                scanner.position += 1
            }
        }
        return output[...]
    }

    /// Reads `&name;` or `&#…;` and returns the Unicode scalar value it stands for.
    private mutating func readReference() throws -> UInt32 {
        let start = position
        position += 1
        var end = position
        while end < bytes.count, end - position < 12, bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else {
            throw error("'&' must start a reference such as '&amp;' (entities are not supported)", at: start)
        }
        let body = bytes[position..<end]
        position = end + 1
        if body.first == UInt8(ascii: "#") {
            var digits = body.dropFirst()
            var radix: UInt32 = 10
            if digits.first == UInt8(ascii: "x") {
                radix = 16
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty else { throw error("an empty character reference", at: start) }
            var value: UInt32 = 0
            for digit in digits {
                guard let digitValue = Self.digitValue(digit, radix: radix), value <= 0x10FFFF else {
                    throw error("a malformed character reference", at: start)
                }
                value = value * radix + digitValue
            }
            guard Unicode.Scalar(value) != nil else {
                throw error("the character reference names no Unicode scalar (\(value))", at: start)
            }
            return value
        }
        switch String(decoding: body, as: UTF8.self) {
        case "lt": return 0x3C
        case "gt": return 0x3E
        case "amp": return 0x26
        case "quot": return 0x22
        case "apos": return 0x27
        default:
            throw error(
                "the entity '&\(String(decoding: body, as: UTF8.self));' is not one of the five predefined entities",
                at: start)
        }
    }

    private mutating func skipComment() throws {
        let start = position
        position += 4
        guard let end = find("-->") else { throw error("an unterminated comment", at: start) }
        position = end + 3
    }

    private mutating func skipProcessingInstruction() throws {
        let start = position
        position += 2
        guard let end = find("?>") else { throw error("an unterminated processing instruction", at: start) }
        position = end + 2
    }

    /// Skips a CDATA section and returns the range of its contents.
    private mutating func skipCDATA() throws -> Range<Int> {
        let start = position
        position += "<![CDATA[".utf8.count
        guard let end = find("]]>") else { throw error("an unterminated CDATA section", at: start) }
        let contents = position..<end
        position = end + 3
        return contents
    }

    // MARK: - Bytes

    /// The offset of the next occurrence of `pattern` from ``position``.
    private func find(_ pattern: StaticString) -> Int? {
        let count = pattern.utf8CodeUnitCount
        return pattern.withUTF8Buffer { pattern -> Int? in
            guard let first = pattern.first else { return nil }
            var index = position
            while index + count <= bytes.count {
                if bytes[index] == first {
                    var matches = true
                    for offset in 1..<count where bytes[index + offset] != pattern[offset] {
                        matches = false
                        break
                    }
                    if matches { return index }
                }
                index += 1
            }
            return nil
        }
    }

    func hasPrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return prefix.withUTF8Buffer { prefix in
            for offset in 0..<count where bytes[position + offset] != prefix[offset] {
                return false
            }
            return true
        }
    }

    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = position
        while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
        return position > start
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"),
            UInt8(ascii: "."), 0x80...:
            return true
        default:
            return false
        }
    }

    private static func isDigitOrDashOrDot(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    static func digitValue(_ byte: UInt8, radix: UInt32) -> UInt32? {
        let value: UInt32
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt32(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = UInt32(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
        return value < radix ? value : nil
    }

    // MARK: - Errors

    /// The line, column and (for untranscoded input) byte offset of `offset`.
    func location(of offset: Int) -> ArchiveError.InputLocation {
        TextLocation.location(of: offset, in: bytes, isTranscoded: isTranscoded)
    }

    /// A `ArchiveError.Code.malformedInput` error at `offset`.
    func error(_ message: String, at offset: Int) -> ArchiveError {
        ArchiveError(.malformedInput, message, location: location(of: offset))
    }
}
