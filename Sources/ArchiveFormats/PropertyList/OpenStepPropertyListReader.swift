import Foundation

/// Reads an OpenStep (old-style ASCII) property list into an archive tree. Read-only: nothing
/// writes this format any more.
///
/// ```
/// /* a comment */
/// {
///     name = "Dr. Seuss";            // quoted string
///     animals = ( lamb, pig, worm ); // unquoted strings
///     bytes = <0fbd77 1f>;           // hexadecimal data
/// }
/// ```
///
/// Dictionaries (`{ key = value; … }`, every pair ends with `;`), arrays (`( a, b )`, a trailing
/// comma allowed), data (`<…>`, hexadecimal digits and whitespace), quoted strings (double or
/// single quotes, escapes `\n \t \r \a \b \f \v \\ \" \'`, `\Uxxxx` with surrogate pairs, octal
/// `\ooo` taken as a Latin-1 code point) and unquoted strings (`[A-Za-z0-9_$+/:.-]+`); `//` and
/// `/* */` comments. Every leaf is a string or data: the format has no numbers, Booleans or
/// dates. The text is UTF-8 or UTF-16 (with a byte-order mark).
///
/// Errors are `ArchiveError` with code `ArchiveError.Code.malformedInput` (or
/// `ArchiveError.Code.limitExceeded`), the line and column, and the path in the tree.
struct OpenStepPropertyListReader {
    private let bytes: [UInt8]
    private let isTranscoded: Bool
    private let limits: ArchiveLimits
    private var position: Int
    private var nodeCount = 0

    /// Reads a whole OpenStep property list.
    ///
    /// - Throws: `ArchiveError` (`ArchiveError.Code.malformedInput` with line and column,
    ///   `ArchiveError.Code.limitExceeded`).
    static func read(_ data: Data, limits: ArchiveLimits) throws -> ArchiveValue {
        var reader = try OpenStepPropertyListReader(bytes: [UInt8](data), limits: limits)
        return try reader.readDocument()
    }

    private init(bytes input: [UInt8], limits: ArchiveLimits) throws {
        self.limits = limits
        if let (order, bomLength) = PropertyListText.utf16Order(of: input) {
            switch PropertyListText.transcodeUTF16(input, order: order, from: bomLength) {
            case .success(let utf8):
                bytes = utf8
                isTranscoded = true
                position = 0
            case .failure(let invalid):
                throw ArchiveError(
                    .malformedInput, "the UTF-16 text is invalid (odd length or a lone surrogate)",
                    location: .init(byteOffset: invalid.offset))
            }
        } else {
            bytes = input
            isTranscoded = false
            position = input.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            if let invalid = PropertyListText.firstInvalidUTF8Offset(bytes[position...]) {
                throw ArchiveError(
                    .malformedInput, "the text is not valid UTF-8", location: .init(byteOffset: position + invalid))
            }
        }
    }

    /// Whether `bytes` (after whitespace, comments and a UTF-8 byte-order mark) starts like an
    /// OpenStep property list rather than JSON: `(`, a comment, or `{` followed by a key that is
    /// unquoted or quoted and followed by `=`. An empty `{}` is JSON.
    static func looksLikeOpenStep<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Bool
    where Bytes.Index == Int {
        var index = bytes.startIndex
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        func skipWhitespace() {
            while index < bytes.endIndex, XMLTokenizer.isWhitespace(bytes[index]) { index += 1 }
        }
        skipWhitespace()
        guard index < bytes.endIndex else { return false }
        switch bytes[index] {
        case UInt8(ascii: "("), UInt8(ascii: "/"):
            return true
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            guard index < bytes.endIndex else { return false }
            let first = bytes[index]
            if first == UInt8(ascii: "/") || isUnquotedByte(first) { return true }
            guard first == UInt8(ascii: "\"") else { return false }
            index += 1
            while index < bytes.endIndex, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard index < bytes.endIndex else { return false }
            index += 1
            skipWhitespace()
            return index < bytes.endIndex && bytes[index] == UInt8(ascii: "=")
        default:
            return false
        }
    }

    // MARK: - Values

    private mutating func readDocument() throws -> ArchiveValue {
        try skipWhitespaceAndComments()
        guard position < bytes.count else { throw error("the property list is empty", at: position) }
        let value = try readTree()
        try skipWhitespaceAndComments()
        guard position == bytes.count else { throw error("unexpected text after the property list", at: position) }
        return value
    }

    /// An array or dictionary being read: its children so far.
    private struct OpenContainer {
        let isDictionary: Bool
        let start: Int
        var elements: [ArchiveValue] = []
        var entries: [ArchiveDictionary.Entry] = []
        var key = ""
        var keyStart = 0
        /// The path component of the child being read.
        var component: ArchivePath.Component?

        init(isDictionary: Bool, start: Int) {
            self.isDictionary = isDictionary
            self.start = start
        }
    }

    /// Reads the value at `position` and everything inside it, depth-first with an explicit
    /// stack of open containers instead of recursion, so nesting as deep as
    /// `ArchiveLimits.maxDepth` needs no more stack than a flat document.
    private mutating func readTree() throws -> ArchiveValue {
        var stack: [OpenContainer] = []
        do {
            var pending = try begin(&stack)
            while true {
                let top = stack.count - 1
                if let value = pending {
                    guard top >= 0 else { return value }
                    try deliver(value, to: &stack[top])
                    pending = nil
                }
                try skipWhitespaceAndComments()
                let container = stack[top]
                if container.isDictionary {
                    guard position < bytes.count else {
                        throw error("the dictionary is not closed with '}'", at: container.start)
                    }
                    if bytes[position] == UInt8(ascii: "}") {
                        position += 1
                        pending = try finishDictionary(stack.removeLast())
                        continue
                    }
                    let keyStart = position
                    let key = try readString()
                    try skipWhitespaceAndComments()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                        throw error("expected '=' after the key '\(key)'", at: position)
                    }
                    position += 1
                    try skipWhitespaceAndComments()
                    stack[top].key = key
                    stack[top].keyStart = keyStart
                    stack[top].component = .key(key)
                } else {
                    guard position < bytes.count else {
                        throw error("the array is not closed with ')'", at: container.start)
                    }
                    if bytes[position] == UInt8(ascii: ")") {
                        position += 1
                        pending = .array(stack.removeLast().elements)
                        continue
                    }
                    guard container.elements.count < limits.maxCollectionCount else {
                        throw ArchiveError.limitExceeded(
                            .collectionCount, "an array has more than \(limits.maxCollectionCount) elements",
                            location: location(of: container.start))
                    }
                    stack[top].component = .index(container.elements.count)
                }
                pending = try begin(&stack)
            }
        } catch let error as ArchiveError {
            throw error.prefixingPath(ArchivePath(stack.compactMap(\.component)))
        }
    }

    /// Starts the value at `position`: returns it when it is a string or data, or opens the
    /// array or dictionary on `stack`.
    private mutating func begin(_ stack: inout [OpenContainer]) throws -> ArchiveValue? {
        let start = position
        guard position < bytes.count else { throw error("the input ends where a value should be", at: position) }
        try countNode(at: start)
        switch bytes[position] {
        case UInt8(ascii: "{"), UInt8(ascii: "("):
            try checkDepth(stack.count + 1, at: start)
            stack.append(OpenContainer(isDictionary: bytes[position] == UInt8(ascii: "{"), start: start))
            position += 1
            return nil
        case UInt8(ascii: "<"):
            return .data(try readData())
        default:
            return .string(try readString())
        }
    }

    /// Adds a finished child to its container, reading the `;` or `,` after it.
    private mutating func deliver(_ value: ArchiveValue, to container: inout OpenContainer) throws {
        container.component = nil
        try skipWhitespaceAndComments()
        if container.isDictionary {
            guard position < bytes.count, bytes[position] == UInt8(ascii: ";") else {
                throw error("expected ';' after the value of '\(container.key)'", at: position)
            }
            position += 1
            guard container.entries.count < limits.maxCollectionCount else {
                throw ArchiveError.limitExceeded(
                    .collectionCount, "a dictionary has more than \(limits.maxCollectionCount) entries",
                    location: location(of: container.keyStart))
            }
            container.entries.append(ArchiveDictionary.Entry(key: container.key, value: value))
        } else {
            container.elements.append(value)
            guard position < bytes.count else { throw error("the array is not closed with ')'", at: container.start) }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] != UInt8(ascii: ")") {
                throw error("expected ',' or ')' in an array", at: position)
            }
        }
    }

    private func finishDictionary(_ container: OpenContainer) throws -> ArchiveValue {
        let dictionary = ArchiveDictionary(uniqueStoredEntries: container.entries)
        if let duplicate = dictionary.firstDuplicateKey() {
            throw error("the key '\(duplicate)' occurs twice in a dictionary", at: container.start)
        }
        return .dictionary(dictionary)
    }

    private mutating func readData() throws -> Data {
        let start = position
        position += 1
        var output: [UInt8] = []
        var high: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: ">") {
                guard high == nil else { throw error("data has an odd number of hexadecimal digits", at: start) }
                guard output.count <= limits.maxDataLength else {
                    throw ArchiveError.limitExceeded(
                        .dataLength,
                        "a data value has \(output.count) bytes, more than the limit of \(limits.maxDataLength)",
                        location: location(of: start))
                }
                return Data(output)
            }
            if XMLTokenizer.isWhitespace(byte) { continue }
            guard let digit = XMLTokenizer.digitValue(byte, radix: 16) else {
                throw error("data may hold only hexadecimal digits and whitespace", at: position - 1)
            }
            if let first = high {
                output.append(first << 4 | UInt8(digit))
                high = nil
            } else {
                high = UInt8(digit)
            }
        }
        throw error("the data is not closed with '>'", at: start)
    }

    /// A quoted or unquoted string.
    private mutating func readString() throws -> String {
        let start = position
        guard position < bytes.count else { throw error("the input ends where a string should be", at: position) }
        let first = bytes[position]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            return try readQuotedString(quote: first)
        }
        while position < bytes.count, Self.isUnquotedByte(bytes[position]) { position += 1 }
        guard position > start else {
            throw error("unexpected character '\(Self.describe(first))' where a value should be", at: start)
        }
        try checkStringLength(position - start, at: start)
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func readQuotedString(quote: UInt8) throws -> String {
        let start = position
        position += 1
        var output: [UInt8] = []
        var pendingHighSurrogate: UInt32?
        while position < bytes.count {
            let byte = bytes[position]
            if byte == quote {
                guard pendingHighSurrogate == nil else {
                    throw error("a \\U escape leaves a lone surrogate", at: position)
                }
                position += 1
                try checkStringLength(output.count, at: start)
                return String(decoding: output, as: UTF8.self)
            }
            guard byte == UInt8(ascii: "\\") else {
                guard pendingHighSurrogate == nil else {
                    throw error("a \\U escape leaves a lone surrogate", at: position)
                }
                output.append(byte)
                position += 1
                continue
            }
            let escapeStart = position
            position += 1
            guard position < bytes.count else { break }
            let escaped = bytes[position]
            position += 1
            if escaped == UInt8(ascii: "U") || escaped == UInt8(ascii: "u") {
                var value: UInt32 = 0
                var count = 0
                while count < 4, position < bytes.count, let digit = XMLTokenizer.digitValue(bytes[position], radix: 16)
                {
                    value = value << 4 | digit
                    count += 1
                    position += 1
                }
                guard count > 0 else { throw error("\\U must be followed by hexadecimal digits", at: escapeStart) }
                if let high = pendingHighSurrogate {
                    guard (0xDC00...0xDFFF).contains(value) else {
                        throw error("a \\U escape leaves a lone surrogate", at: escapeStart)
                    }
                    PropertyListText.appendUTF8(0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00), to: &output)
                    pendingHighSurrogate = nil
                } else if (0xD800...0xDBFF).contains(value) {
                    pendingHighSurrogate = value
                } else if (0xDC00...0xDFFF).contains(value) {
                    throw error("a \\U escape leaves a lone surrogate", at: escapeStart)
                } else {
                    PropertyListText.appendUTF8(value, to: &output)
                }
                continue
            }
            guard pendingHighSurrogate == nil else {
                throw error("a \\U escape leaves a lone surrogate", at: escapeStart)
            }
            switch escaped {
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = UInt32(escaped - UInt8(ascii: "0"))
                var count = 1
                while count < 3, position < bytes.count,
                    (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[position])
                {
                    value = value << 3 | UInt32(bytes[position] - UInt8(ascii: "0"))
                    count += 1
                    position += 1
                }
                PropertyListText.appendUTF8(value, to: &output)
            case UInt8(ascii: "a"): output.append(0x07)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "v"): output.append(0x0B)
            default:
                // Any other escaped character stands for itself (`\"`, `\\`, a UTF-8 sequence).
                output.append(escaped)
            }
        }
        throw error("the string is not closed with its quote", at: start)
    }

    // MARK: - Scanning

    private mutating func skipWhitespaceAndComments() throws {
        while position < bytes.count {
            let byte = bytes[position]
            if XMLTokenizer.isWhitespace(byte) || byte == 0x0B || byte == 0x0C {
                position += 1
            } else if byte == UInt8(ascii: "/"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "/") {
                while position < bytes.count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
            } else if byte == UInt8(ascii: "/"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "*") {
                let start = position
                position += 2
                while true {
                    guard position + 1 < bytes.count else { throw error("an unterminated /* comment", at: start) }
                    if bytes[position] == UInt8(ascii: "*"), bytes[position + 1] == UInt8(ascii: "/") {
                        position += 2
                        break
                    }
                    position += 1
                }
            } else {
                return
            }
        }
    }

    /// The characters of an unquoted string: `[A-Za-z0-9_$+/:.-]`.
    static func isUnquotedByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"),
            UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }

    private mutating func countNode(at offset: Int) throws {
        nodeCount += 1
        guard nodeCount <= limits.maxObjectCount else {
            throw ArchiveError.limitExceeded(
                .objectCount, "the property list holds more than \(limits.maxObjectCount) values",
                location: location(of: offset))
        }
    }

    private func checkDepth(_ depth: Int, at offset: Int) throws {
        guard depth <= limits.maxDepth else {
            throw ArchiveError.limitExceeded(
                .depth, "the values are nested deeper than the limit of \(limits.maxDepth)",
                location: location(of: offset))
        }
    }

    private func checkStringLength(_ count: Int, at offset: Int) throws {
        guard count <= limits.maxStringLength else {
            throw ArchiveError.limitExceeded(
                .stringLength, "a string has \(count) bytes, more than the limit of \(limits.maxStringLength)",
                location: location(of: offset))
        }
    }

    private func location(of offset: Int) -> ArchiveError.InputLocation {
        TextLocation.location(of: offset, in: bytes, isTranscoded: isTranscoded)
    }

    private func error(_ message: String, at offset: Int) -> ArchiveError {
        ArchiveError(.malformedInput, message, location: location(of: offset))
    }
}
