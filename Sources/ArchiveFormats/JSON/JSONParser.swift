import Foundation

/// The JSON tokenizer and tree builder behind ``JSONReader``: one pass over the bytes with an
/// explicit stack of open containers, so nesting costs heap, not call stack.
///
/// Children of open containers wait on ``MoveStack``s (array elements and object entries) and
/// are moved into exactly sized arrays when their container closes. Strings without escapes are
/// built straight from the input bytes. Keys seen before come from ``JSONKeyCache``, together
/// with their fingerprint for duplicate detection and their role in archive markup; the key
/// that followed the previous key last time is tried first, so keys in their usual order are
/// neither scanned nor hashed. Objects whose only `$` keys are their leading metadata keys are
/// built directly; everything else in the markup goes through ``ArchiveMarkup``. Short plain
/// numbers are read inline (``JSONNumberParser/parseShort(_:at:end:)``). Line and column are
/// computed only for errors.
///
/// ```swift
/// var parser = JSONParser(base, count: count, options: options)
/// let tree = try parser.parse()
/// ```
package struct JSONParser: ~Copyable {
    /// The kind of an open container.
    enum Kind: UInt8 {
        /// Outside every container (the document's top level).
        case none
        case array
        case object
    }

    /// The state of a container that is open around the current one.
    struct Frame {
        var kind: Kind
        /// Where its children start on ``values`` (arrays) or ``entries`` (objects).
        var start: Int
        /// For objects: the key whose value is being read, and its fingerprint.
        var key: String
        var keyPrint: UInt64
        /// For objects: one bit per key fingerprint seen (see ``noteKey(at:isFirst:)``).
        var keyMask: UInt64
        /// For arrays: the index of the element being read.
        var index: Int
        /// How many of its keys start with `$`.
        var reservedKeys: Int
        /// For objects: how many of its first keys are object metadata keys, and their roles.
        var metadataCount: Int
        var metadataRoles: UInt32
        /// The offset of its opening bracket.
        var openOffset: Int
    }

    /// Objects up to this many entries are checked for duplicate keys as each key arrives;
    /// larger ones again when they close, through the index of their dictionary (see
    /// `ArchiveDictionary`) or a set.
    private static let incrementalKeyCheckLimit = 32

    private let bytes: UnsafePointer<UInt8>
    private let end: Int
    private let hasByteOrderMark: Bool
    private var position: Int

    private let maxDepth: Int
    private let maxCollectionCount: Int
    private let maxStringLength: Int
    private let maxDataLength: Int
    private let maxObjectCount: Int
    private let markupMode: MarkupMode
    /// Whether objects are read as archive markup (decided on the first key in `.automatic`).
    private(set) var markup: Bool
    /// Whether a `{"$ref": n}` was read: the reader then checks that every reference has its
    /// object (``ArchiveMarkup/checkReferences(in:limits:)``).
    private(set) var sawReference = false

    private var values = MoveStack<ArchiveValue>()
    private var entries = MoveStack<ArchiveDictionary.Entry>()
    /// The fingerprint of each key on ``entries`` (see ``readKey()``).
    private var keyPrints = MoveStack<UInt64>()
    private var frames = MoveStack<Frame>(initialCapacity: 16)
    private var keyCache: JSONKeyCache
    /// The cache slot of the key read last, when it was cached.
    private var previousKeySlot: UnsafeMutablePointer<JSONKeyCache.Slot>?
    /// Decoded bytes of strings with escapes.
    private var scratch: [UInt8] = []
    private var valueCount = 0

    // The innermost open container (see ``Frame``).
    private var kind = Kind.none
    private var start = 0
    private var key = ""
    private var keyPrint: UInt64 = 0
    private var keyMask: UInt64 = 0
    private var reservedKeys = 0
    /// How many keys of the object, from its first, are metadata keys (`$type`, `$version`,
    /// `$id`, `$classes`), and their roles (``JSONKeyCache/Role``), four bits each.
    private var metadataCount = 0
    private var metadataRoles: UInt32 = 0
    private var openOffset = 0

    /// Creates a parser over `count` bytes at `base`, which must stay valid while it parses.
    init(_ base: UnsafePointer<UInt8>, count: Int, options: ArchiveReadingOptions) {
        bytes = base
        end = count
        keyCache = JSONKeyCache(documentBytes: count)
        hasByteOrderMark = count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF
        position = hasByteOrderMark ? 3 : 0
        let limits = options.limits
        maxDepth = limits.maxDepth
        maxCollectionCount = limits.maxCollectionCount
        maxStringLength = limits.maxStringLength
        maxDataLength = limits.maxDataLength
        maxObjectCount = limits.maxObjectCount
        markupMode = options.markup
        markup = options.markup == .archive
    }

    // MARK: - Bytes

    /// The byte at `offset`, or 0 at and past the end (0 is invalid everywhere it is read).
    @inline(__always)
    private func byte(at offset: Int) -> UInt8 {
        offset < end ? bytes[offset] : 0
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < end {
            let current = bytes[position]
            guard current <= 0x20,
                current == 0x20 || current == 0x0A || current == 0x0D || current == 0x09
            else { return }
            position &+= 1
        }
    }

    @inline(__always)
    private static func take(_ string: inout String) -> String {
        let taken = string
        string = ""
        return taken
    }

    // MARK: - Document

    /// Reads the whole document: one value, surrounded by whitespace only.
    mutating func parse() throws -> ArchiveValue {
        skipWhitespace()
        valueLoop: while true {
            // At the first byte of a value.
            var value: ArchiveValue
            switch byte(at: position) {
            case UInt8(ascii: "{"):
                try open(.object)
                position &+= 1
                skipWhitespace()
                if byte(at: position) == UInt8(ascii: "}") {
                    position &+= 1
                    value = try closeObject()
                } else {
                    try readKeyAndColon(afterComma: false)
                    continue valueLoop
                }
            case UInt8(ascii: "["):
                try open(.array)
                position &+= 1
                skipWhitespace()
                if byte(at: position) == UInt8(ascii: "]") {
                    position &+= 1
                    value = closeArray()
                } else {
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                value = .string(try readValueString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if let short = JSONNumberParser.parseShort(bytes, at: &position, end: end) {
                    value = short
                    break
                }
                switch JSONNumberParser.parse(bytes, from: position, end: end) {
                case .value(let number, let next):
                    value = number
                    position = next
                case .failure(let message, let offset):
                    throw malformed(message, at: offset, inValue: true)
                }
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            default:
                throw unexpectedValueStart()
            }

            // Hand the finished value to its container; closing a container finishes another.
            while true {
                valueCount &+= 1
                if valueCount > maxObjectCount {
                    throw limit(
                        .objectCount, "the document has more than \(maxObjectCount) values", at: position,
                        inValue: true)
                }
                switch kind {
                case .none:
                    skipWhitespace()
                    guard position == end else {
                        throw malformed(
                            "unexpected \(describe(position)) after the top-level value", at: position, inValue: false)
                    }
                    return value
                case .array:
                    if values.count &- start >= maxCollectionCount {
                        throw limit(
                            .collectionCount, "an array has more than \(maxCollectionCount) elements", at: position,
                            inValue: false)
                    }
                    values.append(consume value)
                    skipWhitespace()
                    let next = byte(at: position)
                    if next == UInt8(ascii: ",") {
                        position &+= 1
                        skipWhitespace()
                        continue valueLoop
                    }
                    if next == UInt8(ascii: "]") {
                        position &+= 1
                        value = closeArray()
                        continue
                    }
                    throw malformed(
                        "expected ',' or ']' after an array element, found \(describe(position))", at: position,
                        inValue: false)
                case .object:
                    if entries.count &- start >= maxCollectionCount {
                        throw limit(
                            .collectionCount, "an object has more than \(maxCollectionCount) entries", at: position,
                            inValue: false)
                    }
                    entries.append(ArchiveDictionary.Entry(key: Self.take(&key), value: consume value))
                    keyPrints.append(keyPrint)
                    skipWhitespace()
                    let next = byte(at: position)
                    if next == UInt8(ascii: ",") {
                        position &+= 1
                        skipWhitespace()
                        try readKeyAndColon(afterComma: true)
                        continue valueLoop
                    }
                    if next == UInt8(ascii: "}") {
                        position &+= 1
                        value = try closeObject()
                        continue
                    }
                    throw malformed(
                        "expected ',' or '}' after an object value, found \(describe(position))", at: position,
                        inValue: false)
                }
            }
        }
    }

    // MARK: - Containers

    /// Opens an array or object at `position` (its bracket).
    @inline(__always)
    private mutating func open(_ newKind: Kind) throws {
        frames.append(
            Frame(
                kind: kind, start: start, key: Self.take(&key), keyPrint: keyPrint, keyMask: keyMask,
                index: kind == .array ? values.count &- start : 0, reservedKeys: reservedKeys,
                metadataCount: metadataCount, metadataRoles: metadataRoles, openOffset: openOffset))
        if frames.count > maxDepth {
            throw limit(.depth, "the document nests deeper than \(maxDepth) levels", at: position, inValue: false)
        }
        kind = newKind
        start = newKind == .array ? values.count : entries.count
        keyMask = 0
        reservedKeys = 0
        metadataCount = 0
        metadataRoles = 0
        openOffset = position
    }

    /// Returns to the container around the current one.
    @inline(__always)
    private mutating func restoreParent() {
        guard frames.count > 0 else { return }
        let parent = frames.removeLast()
        kind = parent.kind
        start = parent.start
        key = parent.key
        keyPrint = parent.keyPrint
        keyMask = parent.keyMask
        reservedKeys = parent.reservedKeys
        metadataCount = parent.metadataCount
        metadataRoles = parent.metadataRoles
        openOffset = parent.openOffset
    }

    private mutating func closeArray() -> ArchiveValue {
        let elements = values.removeArray(from: start)
        restoreParent()
        return .array(elements)
    }

    private mutating func closeObject() throws -> ArchiveValue {
        let count = entries.count &- start
        let isLarge = count > Self.incrementalKeyCheckLimit
        keyPrints.removeLast(count)
        let value: ArchiveValue
        if markup && reservedKeys > 0 {
            if isLarge, let duplicate = duplicateKeyInLargeObject() {
                throw duplicateKeyError(duplicate)
            }
            if reservedKeys == metadataCount, let object = leadingMetadataObject() {
                value = object
            } else {
                value = try interpretMarkup()
                if case .reference = value { sawReference = true }
            }
        } else {
            // A large dictionary indexes its keys as it is made, which finds a repeated one.
            let dictionary = ArchiveDictionary(uniqueStoredEntries: entries.removeArray(from: start))
            if isLarge, let duplicate = dictionary.firstDuplicateKey() {
                throw duplicateKeyError(duplicate)
            }
            value = .dictionary(dictionary)
        }
        restoreParent()
        return value
    }

    /// Reads `"key"` and `:` at `position`, checks the key is new in its object, and leaves
    /// `position` at the value.
    @inline(__always)
    private mutating func readKeyAndColon(afterComma: Bool) throws {
        guard byte(at: position) == UInt8(ascii: "\"") else {
            let hint =
                afterComma && byte(at: position) == UInt8(ascii: "}") ? " (trailing commas are not allowed)" : ""
            throw malformed(
                "expected a string key, found \(describe(position))\(hint)", at: position, inValue: false)
        }
        let keyOffset = position
        let role = try readKey()
        let existing = entries.count &- start
        if existing < Self.incrementalKeyCheckLimit {
            try noteKey(at: keyOffset, isFirst: existing == 0)
            if existing == 0 && markupMode == .automatic && frames.count == 1 {
                markup = ArchiveMarkup.startsArchiveMarkup(firstKey: key)
            }
        }
        if role != .plain {
            reservedKeys &+= 1
            if role.isObjectMetadata && metadataCount == existing && existing < 4 {
                metadataRoles |= UInt32(role.rawValue) << UInt32(truncatingIfNeeded: existing &* 4)
                metadataCount &+= 1
            }
        }
        skipWhitespace()
        guard byte(at: position) == UInt8(ascii: ":") else {
            throw malformed(
                "expected ':' after the key '\(key)', found \(describe(position))", at: position, inValue: false)
        }
        position &+= 1
        skipWhitespace()
    }

    /// Records the fingerprint of ``key`` in ``keyMask`` and, when its bit was already set (or
    /// a fingerprint is 0, which stands for any key), compares ``key`` with the object's
    /// earlier keys.
    ///
    /// Keys are the same key when they have the same Unicode scalars, as for `ArchiveDictionary`
    /// (`"\u{E9}"` and `"e\u{301}"` are two keys). Keys with escapes or bytes beyond ASCII get
    /// the fingerprint 0, so they are compared with every earlier key.
    @inline(__always)
    private mutating func noteKey(at keyOffset: Int, isFirst: Bool) throws {
        let bit: UInt64
        if keyPrint == 0 {
            bit = .max
        } else {
            bit = 1 << ((keyPrint &* 0x9E37_79B9_7F4A_7C15) >> 58)
        }
        if isFirst {
            keyMask = bit
            return
        }
        if keyMask & bit != 0 {
            try compareWithEarlierKeys(at: keyOffset)
        }
        keyMask |= bit
    }

    private func compareWithEarlierKeys(at keyOffset: Int) throws {
        let first = keyPrints.count &- (entries.count &- start)
        for index in 0..<(entries.count &- start) {
            let print = keyPrints[first &+ index]
            guard print == keyPrint || print == 0 || keyPrint == 0 else { continue }
            if entries[start &+ index].key.hasSameScalars(as: key) {
                throw ArchiveError(
                    .malformedInput, "duplicate key '\(key)' in an object", path: containerPath(),
                    location: location(of: keyOffset))
            }
        }
    }

    /// The first repeated key of an object with archive markup too large for
    /// ``noteKey(at:isFirst:)`` (plain objects find theirs as their dictionary is made).
    private func duplicateKeyInLargeObject() -> String? {
        entries.withElements(from: start) { elements in
            var seen = Set<ExactString>(minimumCapacity: elements.count)
            for element in elements where !seen.insert(ExactString(element.key)).inserted {
                return element.key
            }
            return nil
        }
    }

    /// The error for a key that occurs twice in the object being closed.
    private func duplicateKeyError(_ key: String) -> ArchiveError {
        ArchiveError(
            .malformedInput, "duplicate key '\(key)' in an object", path: containerPath(),
            location: location(of: openOffset))
    }

    /// Builds the value an object with reserved keys stands for (see ``ArchiveMarkup``), through
    /// ``ArchiveMarkup/interpret(_:isTopLevel:allowsValueTags:path:)``.
    private mutating func interpretMarkup() throws -> ArchiveValue {
        let elements = entries.removeArray(from: start)
        let isTopLevel = frames.count == 1
        let value: ArchiveValue
        do {
            value = try ArchiveMarkup.interpret(
                elements, isTopLevel: isTopLevel, allowsValueTags: true, maxDataLength: maxDataLength, path: .root)
        } catch let error as ArchiveError {
            var located = error.prefixingPath(containerPath())
            located.location = location(of: openOffset)
            throw located
        }
        // At the top level `$archive` stays literal while `$$archive` unescapes to it: both
        // together would give the tree a repeated key.
        if isTopLevel, let duplicate = value.keyedEntries?.firstDuplicateKey() {
            throw ArchiveError(
                .malformedInput, "duplicate key '\(duplicate)' in an object (spelled with and without escaping)",
                path: containerPath(), location: location(of: openOffset))
        }
        return value
    }

    /// Builds the object for an object whose `$` keys are all leading metadata keys (what
    /// writers produce), with its fields and metadata moved off the stack; `nil`, leaving the
    /// entries untouched, for any metadata value it doubts, so that
    /// ``ArchiveMarkup/interpret(_:isTopLevel:allowsValueTags:path:)`` reports it and the two
    /// stay identical.
    private mutating func leadingMetadataObject() -> ArchiveValue? {
        let count = metadataCount
        let roles = metadataRoles
        guard entries.count &- start >= count else { return nil }
        @inline(__always) func role(at index: Int) -> JSONKeyCache.Role? {
            JSONKeyCache.Role(
                rawValue: UInt8(truncatingIfNeeded: roles >> UInt32(truncatingIfNeeded: index &* 4)) & 0xF)
        }
        // Check the metadata in place, without copying values; on any doubt nothing has moved.
        var typeName: String?
        var version: Int?
        var id: ArchiveObjectID?
        var superclassNames: [String] = []
        let valid = entries.withElements(from: start) { elements -> Bool in
            for index in 0..<count {
                switch role(at: index) {
                case .type:
                    guard case .string(let name) = elements[index].value, !name.isEmpty else { return false }
                    typeName = name
                case .version:
                    guard let number = elements[index].value.int64Value, number >= 0, let int = Int(exactly: number)
                    else {
                        return false
                    }
                    version = int
                case .id:
                    guard let number = elements[index].value.int64Value, number >= 0, let int = Int(exactly: number)
                    else {
                        return false
                    }
                    id = ArchiveObjectID(int)
                case .classes:
                    guard case .array(let names) = elements[index].value else { return false }
                    superclassNames.reserveCapacity(names.count)
                    for name in names {
                        guard case .string(let string) = name else { return false }
                        superclassNames.append(string)
                    }
                default:
                    return false
                }
            }
            return true
        }
        guard valid, let typeName else { return nil }
        let fields = entries.removeArray(from: start &+ count)
        entries.removeLast(count)
        return .object(
            ArchiveObject(
                typeName: typeName, version: version, id: id, superclassNames: superclassNames,
                fields: ArchiveDictionary(uniqueStoredEntries: fields)))
    }

    // MARK: - Scalars

    /// Checks that `literal` is at `position` and moves past it.
    @inline(__always)
    private mutating func expectLiteral(_ literal: StaticString) throws {
        let length = literal.utf8CodeUnitCount
        if end &- position >= length && memcmp(bytes + position, literal.utf8Start, length) == 0 {
            position &+= length
            return
        }
        throw malformed("invalid literal (expected '\(literal)')", at: position, inValue: true)
    }

    /// Finds the first quote, backslash or control character at or after `from`; returns its
    /// offset (``end`` when there is none) and the OR of the bytes before it.
    @inline(__always)
    private func scanString(from: Int) -> (stop: Int, highBits: UInt64) {
        JSONText(bytes: bytes, end: end).scanString(from: from)
    }

    /// Reads the string value whose opening quote is at `position`.
    @inline(__always)
    private mutating func readValueString() throws -> String {
        let contentStart = position &+ 1
        let (stop, highBits) = scanString(from: contentStart)
        guard stop < end else {
            throw malformed("unterminated string", at: position, inValue: true)
        }
        guard bytes[stop] == UInt8(ascii: "\"") else {
            return try readEscapedString(contentStart: contentStart, stop: stop, highBits: highBits, isKey: false)
        }
        let length = stop &- contentStart
        if length > maxStringLength {
            throw stringTooLong(at: position, isKey: false)
        }
        let content = UnsafeBufferPointer(start: bytes + contentStart, count: length)
        if highBits & 0x8080_8080_8080_8080 != 0, let bad = UTF8Validation.firstInvalidOffset(in: content) {
            throw malformed("invalid UTF-8 in a string", at: contentStart &+ bad, inValue: true)
        }
        position = stop &+ 1
        return Self.string(validUTF8: content)
    }

    /// Reads the key whose opening quote is at `position` into ``key``, sets ``keyPrint`` and
    /// returns the key's role in archive markup.
    ///
    /// Escape-free ASCII keys are looked up in ``keyCache`` by their bytes and fingerprinted for
    /// ``noteKey(at:isFirst:)``; other keys get the fingerprint 0.
    @inline(__always)
    private mutating func readKey() throws -> JSONKeyCache.Role {
        let contentStart = position &+ 1
        let readable = end &- contentStart
        // Keys mostly come in the order they came before: try the key that followed the previous
        // key last time. Bytes equal to a cached key's, followed by a quote, are that key (a
        // cached key is at most 16 escape-free ASCII bytes that passed every check).
        if let predicted = previousKeySlot?.pointee.next {
            let length = predicted.pointee.length
            if length >= 0 && length <= 16 && length < readable
                && bytes[contentStart &+ length] == UInt8(ascii: "\"")
            {
                let (head, tail) = JSONKeyCache.words(bytes + contentStart, length: length, readable: readable)
                if head == predicted.pointee.head && tail == predicted.pointee.tail {
                    position = contentStart &+ length &+ 1
                    keyPrint = predicted.pointee.print
                    previousKeySlot = predicted
                    key = predicted.pointee.string
                    return predicted.pointee.role
                }
            }
        }
        let (stop, highBits) = scanString(from: contentStart)
        guard stop < end else {
            throw malformed("unterminated string", at: position, inValue: false)
        }
        guard bytes[stop] == UInt8(ascii: "\"") else {
            previousKeySlot = nil
            keyPrint = 0
            key = try readEscapedString(contentStart: contentStart, stop: stop, highBits: highBits, isKey: true)
            return JSONKeyCache.Role(of: key)
        }
        let length = stop &- contentStart
        if length > maxStringLength {
            throw stringTooLong(at: position, isKey: true)
        }
        let base = bytes + contentStart
        let content = UnsafeBufferPointer(start: base, count: length)
        if highBits & 0x8080_8080_8080_8080 != 0 {
            if let bad = UTF8Validation.firstInvalidOffset(in: content) {
                throw malformed("invalid UTF-8 in a string", at: contentStart &+ bad, inValue: false)
            }
            position = stop &+ 1
            previousKeySlot = nil
            keyPrint = 0
            key = Self.string(validUTF8: content)
            return JSONKeyCache.Role(of: key)
        }
        position = stop &+ 1

        let (head, tail) = JSONKeyCache.words(base, length: length, readable: readable)
        let hash =
            (head &* 0x9E37_79B9_7F4A_7C15) ^ (tail &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: length)
        keyPrint = hash | (1 << 63)
        let slot = keyCache.slot(hash: hash)
        if !JSONKeyCache.matches(slot, head: head, tail: tail, base: base, length: length) {
            let string = Self.string(validUTF8: content)
            slot.pointee = JSONKeyCache.Slot(
                head: head, tail: tail, length: length, print: keyPrint, role: JSONKeyCache.Role(of: string),
                string: string, next: nil)
        }
        previousKeySlot?.pointee.next = slot
        previousKeySlot = slot
        key = slot.pointee.string
        return slot.pointee.role
    }

    /// Builds a string from bytes known to be valid UTF-8.
    ///
    /// Short strings are built in place as small strings, which skips the standard library's
    /// general decoding path (it would check the bytes again); the result is the same.
    @inline(__always)
    package static func string(validUTF8 content: UnsafeBufferPointer<UInt8>) -> String {
        guard content.count <= 15 else {
            return String(decoding: content, as: UTF8.self)
        }
        return String(unsafeUninitializedCapacity: content.count) { buffer in
            if let target = buffer.baseAddress, let source = content.baseAddress {
                target.initialize(from: source, count: content.count)
            }
            return content.count
        }
    }

    /// Continues reading a string at its first backslash or control character (`stop`);
    /// `firstHighBits` are ``JSONText/scanString(from:)``'s for the text before it, which is
    /// validated here like every later segment.
    private mutating func readEscapedString(
        contentStart: Int, stop: Int, highBits firstHighBits: UInt64, isKey: Bool
    ) throws -> String {
        scratch.removeAll(keepingCapacity: true)
        var segmentStart = contentStart
        var cursor = stop
        // The first segment was scanned by the caller: only its high bits carry over.
        var highBits: UInt8 = firstHighBits & 0x8080_8080_8080_8080 != 0 ? 0x80 : 0
        while true {
            var current: UInt8 = 0
            while cursor < end {
                current = bytes[cursor]
                if current == UInt8(ascii: "\"") || current == UInt8(ascii: "\\") || current < 0x20 { break }
                highBits |= current
                cursor &+= 1
            }
            guard cursor < end else {
                throw malformed("unterminated string", at: contentStart &- 1, inValue: !isKey)
            }
            let segment = UnsafeBufferPointer(start: bytes + segmentStart, count: cursor &- segmentStart)
            if highBits & 0x80 != 0, let bad = UTF8Validation.firstInvalidOffset(in: segment) {
                throw malformed("invalid UTF-8 in a string", at: segmentStart &+ bad, inValue: !isKey)
            }
            scratch.append(contentsOf: segment)
            highBits = 0
            if current == UInt8(ascii: "\"") {
                cursor &+= 1
                break
            }
            if current < 0x20 {
                throw malformed(
                    "control character U+\(hex(UInt32(current), digits: 4)) in a string (it must be escaped)",
                    at: cursor, inValue: !isKey)
            }
            // A backslash.
            let escapeStart = cursor
            cursor &+= 1
            let letter = byte(at: cursor)
            if let unescaped = JSONText.simpleEscape(letter) {
                scratch.append(unescaped)
                cursor &+= 1
                segmentStart = cursor
                continue
            }
            switch letter {
            case UInt8(ascii: "u"):
                guard let unit = hexQuad(at: cursor &+ 1) else {
                    throw malformed("expected four hex digits after '\\u'", at: escapeStart, inValue: !isKey)
                }
                cursor &+= 4
                var scalar = unit
                if unit >= 0xD800 && unit <= 0xDBFF {
                    guard byte(at: cursor &+ 1) == UInt8(ascii: "\\"), byte(at: cursor &+ 2) == UInt8(ascii: "u"),
                        let low = hexQuad(at: cursor &+ 3), low >= 0xDC00, low <= 0xDFFF
                    else {
                        throw malformed(
                            "unpaired surrogate '\\u\(hex(unit, digits: 4))' in a string", at: escapeStart,
                            inValue: !isKey)
                    }
                    cursor &+= 6
                    scalar = 0x10000 &+ ((unit &- 0xD800) << 10) &+ (low &- 0xDC00)
                } else if unit >= 0xDC00 && unit <= 0xDFFF {
                    throw malformed(
                        "unpaired surrogate '\\u\(hex(unit, digits: 4))' in a string", at: escapeStart, inValue: !isKey)
                }
                appendUTF8(scalar)
            default:
                throw malformed(
                    "invalid escape '\\\(describeRaw(cursor))' in a string", at: escapeStart, inValue: !isKey)
            }
            cursor &+= 1
            segmentStart = cursor
        }
        if scratch.count > maxStringLength {
            throw stringTooLong(at: contentStart &- 1, isKey: isKey)
        }
        position = cursor
        return String(decoding: scratch, as: UTF8.self)
    }

    /// The value of four hex digits at `offset`, or `nil`.
    private func hexQuad(at offset: Int) -> UInt32? {
        JSONText(bytes: bytes, end: end).hexQuad(at: offset)
    }

    /// Appends a scalar (never a surrogate) as UTF-8 to ``scratch``.
    private mutating func appendUTF8(_ scalar: UInt32) {
        JSONText.appendUTF8(scalar, to: &scratch)
    }

    // MARK: - Errors

    private func unexpectedValueStart() -> ArchiveError {
        var message = "expected a value, found \(describe(position))"
        switch byte(at: position) {
        case UInt8(ascii: "]"), UInt8(ascii: "}"):
            if kind != .none { message += " (trailing commas are not allowed)" }
        case UInt8(ascii: "/"), UInt8(ascii: "#"):
            message += " (comments are not allowed)"
        case UInt8(ascii: "+"):
            message += " (numbers cannot start with '+')"
        case UInt8(ascii: "'"):
            message += " (strings use double quotes)"
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            message += " (JSON has no NaN or Infinity)"
        default:
            break
        }
        return malformed(message, at: position, inValue: true)
    }

    private func stringTooLong(at offset: Int, isKey: Bool) -> ArchiveError {
        limit(
            .stringLength, "a \(isKey ? "key" : "string") is longer than \(maxStringLength) bytes", at: offset,
            inValue: !isKey)
    }

    private func malformed(_ message: String, at offset: Int, inValue: Bool) -> ArchiveError {
        ArchiveError(.malformedInput, message, path: path(inValue: inValue), location: location(of: offset))
    }

    private func limit(_ limit: ArchiveLimits.Limit, _ message: String, at offset: Int, inValue: Bool) -> ArchiveError {
        ArchiveError.limitExceeded(limit, message, path: path(inValue: inValue), location: location(of: offset))
    }

    /// The path of the innermost open container: the slots its ancestors hold it in.
    private func containerPath() -> ArchivePath {
        frames.withElements(from: 0) { frames in
            var components: [ArchivePath.Component] = []
            components.reserveCapacity(frames.count)
            for frame in frames {
                switch frame.kind {
                case .array: components.append(.index(frame.index))
                case .object: components.append(.key(frame.key))
                case .none: break
                }
            }
            return ArchivePath(components)
        }
    }

    /// The path of the value being read (`inValue`) or of the innermost open container.
    private func path(inValue: Bool) -> ArchivePath {
        var path = containerPath()
        if inValue {
            switch kind {
            case .array: path.components.append(.index(values.count &- start))
            case .object: path.components.append(.key(key))
            case .none: break
            }
        }
        return path
    }

    /// Line and column of `offset` (``TextLocation``).
    private func location(of offset: Int) -> ArchiveError.InputLocation {
        TextLocation.location(of: offset, in: bytes, start: hasByteOrderMark ? 3 : 0, end: end)
    }

    /// `'x'` for printable ASCII, `byte 0xNN` otherwise, `the end of the input` past the end.
    private func describe(_ offset: Int) -> String {
        guard offset < end else { return "the end of the input" }
        let value = bytes[offset]
        if value >= 0x20 && value < 0x7F {
            return "'\(Character(Unicode.Scalar(value)))'"
        }
        return "byte 0x\(hex(UInt32(value), digits: 2))"
    }

    private func describeRaw(_ offset: Int) -> String {
        guard offset < end else { return "" }
        let value = bytes[offset]
        return value >= 0x20 && value < 0x7F
            ? String(Character(Unicode.Scalar(value))) : "x\(hex(UInt32(value), digits: 2))"
    }

    private func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: Swift.max(0, digits - text.count)) + text
    }
}
