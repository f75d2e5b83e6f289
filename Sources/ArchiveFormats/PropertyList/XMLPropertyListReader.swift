import Foundation

/// Reads an XML property list into an archive tree.
///
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
/// <plist version="1.0">
/// <dict>
///     <key>radius</key>
///     <real>30.5</real>
/// </dict>
/// </plist>
/// ```
///
/// The text is UTF-8 (a byte-order mark is skipped) or UTF-16 (recognised by its byte-order mark
/// or its first character, and transcoded first); the declaration may name UTF-8, US-ASCII or
/// UTF-16, matching the bytes. The `<plist>` wrapper is optional. Elements: `dict` (a `key`
/// before each value, no duplicate keys), `array`, `string`, `key`, `integer` (decimal or `0x`
/// hexadecimal, optional sign, the whole `Int64` and `UInt64` range), `real` (decimal, `nan`,
/// `inf`, `infinity`, signed), `true`, `false`, `date` (`2004-10-26T10:33:33Z`, fractional
/// seconds too), `data` (base64, whitespace allowed), and their empty forms (`<string/>`).
/// `<dict><key>CF$UID</key><integer>n</integer></dict>` reads as `ArchiveValue.reference(_:)`,
/// as the UID of a binary property list does. Entities are never expanded (see
/// ``XMLTokenizer``).
///
/// Errors are `ArchiveError` with code `ArchiveError.Code.malformedInput` (or
/// `ArchiveError.Code.limitExceeded`), the line and column, and the path in the tree.
struct XMLPropertyListReader {
    /// The element names of the format.
    private enum Element: String {
        case plist, dict, key, array, string, integer, real, date, data
        case `true`, `false`
    }

    private var tokenizer: XMLTokenizer
    private let limits: ArchiveLimits
    private var nodeCount = 0

    /// Reads a whole XML property list.
    ///
    /// - Throws: `ArchiveError` (`ArchiveError.Code.malformedInput` with line and column,
    ///   `ArchiveError.Code.limitExceeded`).
    static func read(_ data: Data, limits: ArchiveLimits) throws -> ArchiveValue {
        var reader = try XMLPropertyListReader(bytes: [UInt8](data), limits: limits)
        return try reader.readDocument()
    }

    private init(bytes input: [UInt8], limits: ArchiveLimits) throws {
        self.limits = limits
        var bytes = input
        var start = 0
        var isUTF16 = false
        if let (order, bomLength) = PropertyListText.utf16Order(of: input) {
            switch PropertyListText.transcodeUTF16(input, order: order, from: bomLength) {
            case .success(let utf8):
                bytes = utf8
                isUTF16 = true
            case .failure(let invalid):
                throw ArchiveError(
                    .malformedInput, "the UTF-16 text is invalid (odd length or a lone surrogate)",
                    location: .init(byteOffset: invalid.offset))
            }
        } else {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
            if let invalid = PropertyListText.firstInvalidUTF8Offset(bytes[start...]) {
                let tokenizer = XMLTokenizer(bytes: bytes, start: 0, isTranscoded: false)
                throw tokenizer.error("the text is not valid UTF-8", at: start + invalid)
            }
        }
        tokenizer = XMLTokenizer(bytes: bytes, start: start, isTranscoded: isUTF16)
        let declarationStart = tokenizer.position
        if let encoding = try tokenizer.readDeclaration() {
            switch encoding.lowercased() {
            case "utf-8", "utf8", "us-ascii", "ascii":
                guard !isUTF16 else {
                    throw tokenizer.error(
                        "the declaration names \(encoding) but the text is UTF-16", at: declarationStart)
                }
            case "utf-16", "utf16", "utf-16be", "utf-16le", "unicode":
                guard isUTF16 else {
                    throw tokenizer.error(
                        "the declaration names \(encoding) but the text is not UTF-16", at: declarationStart)
                }
            default:
                throw tokenizer.error(
                    "the encoding '\(encoding)' is not supported (property lists are UTF-8 or UTF-16)",
                    at: declarationStart)
            }
        }
    }

    // MARK: - Document

    private mutating func readDocument() throws -> ArchiveValue {
        try tokenizer.skipMisc(allowsDoctype: true)
        let value: ArchiveValue
        switch try tokenizer.next() {
        case .startTag(let name, let isEmpty, let offset):
            let element = try element(name, at: offset)
            if element == .plist {
                guard !isEmpty else { throw tokenizer.error("the plist holds no value", at: offset) }
                guard let (rootElement, rootIsEmpty, rootOffset) = try nextElement(closing: .plist) else {
                    throw tokenizer.error("the plist holds no value", at: offset)
                }
                value = try readTree(rootElement, isEmpty: rootIsEmpty, offset: rootOffset)
                try readEnd(of: .plist)
            } else {
                value = try readTree(element, isEmpty: isEmpty, offset: offset)
            }
        case .end(let offset):
            throw tokenizer.error("the document has no root element", at: offset)
        default:
            throw tokenizer.error("expected the root element", at: tokenizer.position)
        }
        try tokenizer.skipMisc(allowsDoctype: false)
        if tokenizer.position < tokenizer.bytes.count {
            throw tokenizer.error("content after the root element", at: tokenizer.position)
        }
        return value
    }

    /// Reads the start tag of the next value inside a container, or returns `nil` at the
    /// container's end tag (which is consumed). Whitespace between elements is skipped.
    private mutating func nextElement(closing container: Element) throws -> (Element, Bool, Int)? {
        while true {
            switch try tokenizer.next() {
            case .text(let text):
                try requireWhitespace(text)
            case .startTag(let name, let isEmpty, let offset):
                return (try element(name, at: offset), isEmpty, offset)
            case .endTag(let name, let offset):
                try expectEnd(container, name: name, at: offset)
                return nil
            case .end(let offset):
                throw tokenizer.error("the input ends before </\(container.rawValue)>", at: offset)
            }
        }
    }

    /// An `<array>` or `<dict>` being read: its children so far.
    private struct OpenContainer {
        let isDictionary: Bool
        let offset: Int
        var elements: [ArchiveValue] = []
        var entries: [ArchiveDictionary.Entry] = []
        /// The key of the value being read (dictionaries).
        var key: String?
        var keyOffset = 0
        /// The path component of the child being read.
        var component: ArchivePath.Component?

        init(isDictionary: Bool, offset: Int) {
            self.isDictionary = isDictionary
            self.offset = offset
        }
    }

    /// Reads the value that starts with `element` and everything inside it, depth-first with an
    /// explicit stack of open containers instead of recursion, so nesting as deep as
    /// `ArchiveLimits.maxDepth` needs no more stack than a flat document.
    private mutating func readTree(_ element: Element, isEmpty: Bool, offset: Int) throws -> ArchiveValue {
        var stack: [OpenContainer] = []
        do {
            var pending = try begin(element, isEmpty: isEmpty, offset: offset, stack: &stack)
            while true {
                if let value = pending {
                    guard !stack.isEmpty else { return value }
                    try deliver(value, to: &stack[stack.count - 1])
                    pending = nil
                }
                let top = stack.count - 1
                if stack[top].isDictionary {
                    stack[top].component = nil
                    guard let (key, keyOffset) = try readKey() else {
                        pending = try finishDictionary(stack.removeLast())
                        continue
                    }
                    stack[top].key = key
                    stack[top].keyOffset = keyOffset
                    stack[top].component = .key(key)
                    guard let (child, childIsEmpty, childOffset) = try nextElement(closing: .dict) else {
                        stack[top].component = nil
                        throw tokenizer.error("the key '\(key)' has no value", at: keyOffset)
                    }
                    pending = try begin(child, isEmpty: childIsEmpty, offset: childOffset, stack: &stack)
                } else {
                    stack[top].component = .index(stack[top].elements.count)
                    guard let (child, childIsEmpty, childOffset) = try nextElement(closing: .array) else {
                        pending = .array(stack.removeLast().elements)
                        continue
                    }
                    pending = try begin(child, isEmpty: childIsEmpty, offset: childOffset, stack: &stack)
                }
            }
        } catch let error as ArchiveError {
            throw error.prefixingPath(ArchivePath(stack.compactMap(\.component)))
        }
    }

    /// Starts a value: returns it when it is not a container (or an empty one), or opens the
    /// container on `stack`.
    private mutating func begin(_ element: Element, isEmpty: Bool, offset: Int, stack: inout [OpenContainer])
        throws -> ArchiveValue?
    {
        switch element {
        case .dict, .array:
            try countNode(at: offset)
            try checkDepth(stack.count + 1, at: offset)
            if isEmpty { return element == .dict ? .dictionary([:]) : .array([]) }
            stack.append(OpenContainer(isDictionary: element == .dict, offset: offset))
            return nil
        default:
            return try readElement(element, isEmpty: isEmpty, offset: offset)
        }
    }

    /// Adds a finished child to its container.
    private func deliver(_ value: ArchiveValue, to container: inout OpenContainer) throws {
        if container.isDictionary {
            guard container.entries.count < limits.maxCollectionCount else {
                throw ArchiveError.limitExceeded(
                    .collectionCount, "a dictionary has more than \(limits.maxCollectionCount) entries",
                    location: tokenizer.location(of: container.offset))
            }
            container.entries.append(ArchiveDictionary.Entry(key: container.key ?? "", value: value))
            container.key = nil
        } else {
            guard container.elements.count < limits.maxCollectionCount else {
                throw ArchiveError.limitExceeded(
                    .collectionCount, "an array has more than \(limits.maxCollectionCount) elements",
                    location: tokenizer.location(of: container.offset))
            }
            container.elements.append(value)
        }
    }

    /// Reads a value that is not a container.
    private mutating func readElement(_ element: Element, isEmpty: Bool, offset: Int) throws -> ArchiveValue {
        try countNode(at: offset)
        switch element {
        case .dict, .array:
            throw tokenizer.error("a container where a single value belongs", at: offset)
        case .true, .false:
            if !isEmpty, let text = try readText(of: element) {
                guard text.isWhitespace else {
                    throw tokenizer.error("<\(element.rawValue)/> must be empty", at: offset)
                }
            }
            return .bool(element == .true)
        case .string:
            return .string(isEmpty ? "" : try string(try readText(of: element), at: offset))
        case .integer:
            let text = isEmpty ? nil : try readText(of: element)
            guard let value = text.flatMap({ Self.integer(tokenizer.decodedBytes(of: $0)) }) else {
                throw tokenizer.error("an <integer> must hold a decimal or 0x hexadecimal 64-bit integer", at: offset)
            }
            return value
        case .real:
            let text = isEmpty ? nil : try readText(of: element)
            guard let value = text.flatMap({ Self.real(tokenizer.decodedBytes(of: $0)) }) else {
                throw tokenizer.error("a <real> must hold a decimal number, nan or inf", at: offset)
            }
            return .double(value)
        case .date:
            let text = isEmpty ? nil : try readText(of: element)
            let trimmed = text.map { Self.trimmed(tokenizer.decodedBytes(of: $0)) } ?? []
            guard let date = PropertyListDate.date(fromXML: String(decoding: trimmed, as: UTF8.self)) else {
                throw tokenizer.error(
                    "a <date> must hold a date such as 2004-10-26T10:33:33Z in the years 0 to 9999", at: offset)
            }
            return .date(date)
        case .data:
            let text = isEmpty ? nil : try readText(of: element)
            guard let data = Self.base64(text.map { tokenizer.decodedBytes(of: $0) } ?? []) else {
                throw tokenizer.error("<data> must hold base64 text", at: offset)
            }
            guard data.count <= limits.maxDataLength else {
                throw ArchiveError.limitExceeded(
                    .dataLength, "a data value has \(data.count) bytes, more than the limit of \(limits.maxDataLength)",
                    location: tokenizer.location(of: offset))
            }
            return .data(data)
        case .key:
            throw tokenizer.error("unexpected <key> (a <key> belongs in a <dict>, before its value)", at: offset)
        case .plist:
            throw tokenizer.error("a <plist> inside another value", at: offset)
        }
    }

    /// Closes a dictionary whose entries are all read: a dictionary, or the reference a
    /// `CF$UID` dictionary spells.
    private mutating func finishDictionary(_ container: OpenContainer) throws -> ArchiveValue {
        let entries = container.entries
        let offset = container.offset
        let dictionary = ArchiveDictionary(uniqueStoredEntries: entries)
        if let duplicate = dictionary.firstDuplicateKey() {
            throw tokenizer.error("the key '\(duplicate)' occurs twice in a dictionary", at: offset)
        }
        if entries.count == 1, entries[0].key == "CF$UID" {
            // A keyed archive's reference, as XML spells a binary UID.
            switch entries[0].value {
            case .int(let number):
                guard number >= 0, number <= Int64(UInt32.max) else {
                    throw tokenizer.error("a CF$UID must be an integer from 0 to 4294967295", at: offset)
                }
                nodeCount -= 1
                return .reference(ArchiveObjectID(Int(number)))
            case .uint:
                throw tokenizer.error("a CF$UID must be an integer from 0 to 4294967295", at: offset)
            default:
                break
            }
        }
        return .dictionary(dictionary)
    }

    /// Reads the next `<key>` of a dictionary, or returns `nil` at `</dict>`.
    private mutating func readKey() throws -> (String, Int)? {
        while true {
            switch try tokenizer.next() {
            case .text(let text):
                try requireWhitespace(text)
            case .startTag(let name, let isEmpty, let offset):
                let element = try element(name, at: offset)
                guard element == .key else {
                    throw tokenizer.error("expected a <key> in a <dict>, found <\(element.rawValue)>", at: offset)
                }
                return (isEmpty ? "" : try string(try readText(of: .key), at: offset), offset)
            case .endTag(let name, let offset):
                try expectEnd(.dict, name: name, at: offset)
                return nil
            case .end(let offset):
                throw tokenizer.error("the input ends before </dict>", at: offset)
            }
        }
    }

    /// Reads whitespace up to `</element>`, rejecting a second value.
    private mutating func readEnd(of element: Element) throws {
        while true {
            switch try tokenizer.next() {
            case .text(let text):
                try requireWhitespace(text)
            case .startTag(_, _, let offset):
                throw tokenizer.error("a <\(element.rawValue)> holds exactly one value", at: offset)
            case .endTag(let name, let offset):
                try expectEnd(element, name: name, at: offset)
                return
            case .end(let offset):
                throw tokenizer.error("the input ends before </\(element.rawValue)>", at: offset)
            }
        }
    }

    /// Rejects text between elements unless it is whitespace; the error points at the first
    /// character that is not.
    private func requireWhitespace(_ text: XMLTokenizer.Text) throws {
        guard !text.isWhitespace else { return }
        let bytes = tokenizer.bytes[text.range]
        let offset = bytes.firstIndex { !XMLTokenizer.isWhitespace($0) } ?? text.range.lowerBound
        throw tokenizer.error("text outside a value element", at: offset)
    }

    /// Reads the character data of a leaf element up to and including its end tag; `nil` when
    /// there is none.
    private mutating func readText(of element: Element) throws -> XMLTokenizer.Text? {
        var text: XMLTokenizer.Text?
        while true {
            switch try tokenizer.next() {
            case .text(let run):
                text = run
            case .endTag(let name, let offset):
                try expectEnd(element, name: name, at: offset)
                return text
            case .startTag(_, _, let offset):
                throw tokenizer.error("<\(element.rawValue)> cannot contain elements", at: offset)
            case .end(let offset):
                throw tokenizer.error("the input ends before </\(element.rawValue)>", at: offset)
            }
        }
    }

    private func string(_ text: XMLTokenizer.Text?, at offset: Int) throws -> String {
        guard let text else { return "" }
        let bytes = tokenizer.decodedBytes(of: text)
        guard bytes.count <= limits.maxStringLength else {
            throw ArchiveError.limitExceeded(
                .stringLength, "a string has \(bytes.count) bytes, more than the limit of \(limits.maxStringLength)",
                location: tokenizer.location(of: offset))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func element(_ name: Range<Int>, at offset: Int) throws -> Element {
        let text = String(decoding: tokenizer.bytes[name], as: UTF8.self)
        guard let element = Element(rawValue: text) else {
            throw tokenizer.error("<\(text)> is not a property-list element", at: offset)
        }
        return element
    }

    private func expectEnd(_ element: Element, name: Range<Int>, at offset: Int) throws {
        guard tokenizer.bytes[name].elementsEqual(element.rawValue.utf8) else {
            let found = String(decoding: tokenizer.bytes[name], as: UTF8.self)
            throw tokenizer.error("expected </\(element.rawValue)>, found </\(found)>", at: offset)
        }
    }

    private mutating func countNode(at offset: Int) throws {
        nodeCount += 1
        guard nodeCount <= limits.maxObjectCount else {
            throw ArchiveError.limitExceeded(
                .objectCount, "the property list holds more than \(limits.maxObjectCount) values",
                location: tokenizer.location(of: offset))
        }
    }

    private func checkDepth(_ depth: Int, at offset: Int) throws {
        guard depth <= limits.maxDepth else {
            throw ArchiveError.limitExceeded(
                .depth, "the values are nested deeper than the limit of \(limits.maxDepth)",
                location: tokenizer.location(of: offset))
        }
    }

    // MARK: - Scalars

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, XMLTokenizer.isWhitespace(first) { slice = slice.dropFirst() }
        while let last = slice.last, XMLTokenizer.isWhitespace(last) { slice = slice.dropLast() }
        return slice
    }

    /// `[+-]?` then decimal digits or `0x` and hexadecimal digits, in the `Int64` ∪ `UInt64` range.
    static func integer(_ text: ArraySlice<UInt8>) -> ArchiveValue? {
        var digits = trimmed(text)
        var isNegative = false
        if let sign = digits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            isNegative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        var radix: UInt64 = 10
        if digits.count > 2, digits.first == UInt8(ascii: "0"),
            digits.dropFirst().first == UInt8(ascii: "x") || digits.dropFirst().first == UInt8(ascii: "X")
        {
            radix = 16
            digits = digits.dropFirst(2)
        }
        guard !digits.isEmpty else { return nil }
        var magnitude: UInt64 = 0
        for byte in digits {
            guard let digit = XMLTokenizer.digitValue(byte, radix: UInt32(radix)) else { return nil }
            let (product, productOverflow) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, sumOverflow) = product.addingReportingOverflow(UInt64(digit))
            guard !productOverflow, !sumOverflow else { return nil }
            magnitude = sum
        }
        if !isNegative { return ArchiveValue(magnitude) }
        if magnitude <= UInt64(Int64.max) { return .int(-Int64(magnitude)) }
        if magnitude == UInt64(Int64.max) + 1 { return .int(.min) }
        return nil
    }

    /// A decimal number (`1`, `-2.5`, `.5`, `1e-7`) or `nan`, `inf`, `infinity` with an optional
    /// sign, in any case.
    static func real(_ text: ArraySlice<UInt8>) -> Double? {
        let bytes = trimmed(text)
        let word = String(decoding: bytes, as: UTF8.self).lowercased()
        switch word {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        var index = bytes.startIndex
        func skipDigits() -> Int {
            let start = index
            while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var mantissaDigits = skipDigits()
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
            index += 1
            mantissaDigits += skipDigits()
        }
        guard mantissaDigits > 0 else { return nil }
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard skipDigits() > 0 else { return nil }
        }
        guard index == bytes.endIndex else { return nil }
        return Double(word)
    }

    /// Decodes base64 text, ignoring XML whitespace; padding is optional.
    static func base64(_ text: ArraySlice<UInt8>) -> Data? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0
        var pending = 0
        var padding = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            case 0x20, 0x09, 0x0A, 0x0D:
                continue
            default:
                return nil
            }
            guard padding == 0 else { return nil }
            accumulator = accumulator << 6 | value
            pending += 1
            if pending == 4 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                pending = 0
            }
        }
        switch pending {
        case 0:
            guard padding == 0 else { return nil }
        case 2:
            guard padding == 0 || padding == 2 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            guard padding == 0 || padding == 1 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            return nil
        }
        return Data(output)
    }
}
