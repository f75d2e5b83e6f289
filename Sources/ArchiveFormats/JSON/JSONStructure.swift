import Foundation

/// The shape of a JSON text, found by one validating pass that builds no values: where each
/// array and object's entries are, how many it holds and how many containers it nests.
///
/// ``DirectJSONDecoder`` reads values straight from the bytes with it: a container is found
/// by its ordinal (containers are numbered in the order their brackets open), skipped in one step
/// and counted without a second scan.
///
/// The pass accepts only what ``JSONParser`` accepts, and less: anything it is unsure of (a
/// byte-order mark, a raw string longer than ``ArchiveLimits/maxStringLength``, nesting within
/// two levels of ``ArchiveLimits/maxDepth``, an input too large for 32-bit offsets) makes it
/// return `nil`, and the parser reads the text instead and reports what is wrong.
///
/// ```swift
/// // {"a": [1, {"b": 2}], "c": {}}: containers 0 (the object, 3 nested), 1 (the array),
/// // 2 ({"b": 2}), 3 ({}).
/// ```
///
/// Public as SPI, with its walks `@inlinable` (JSONStructure+Walking.swift): the direct decoder in
/// ModelVersioning calls them per value, and across modules a `package` member is a call.
@_spi(Coders) public struct JSONStructure {
    /// One array or object.
    @usableFromInline package struct Container: BitwiseCopyable, Sendable {
        /// Its elements or members.
        @usableFromInline package var count: UInt32
        /// The containers inside it, at any depth: the next sibling's ordinal is this one's
        /// plus `descendants + 1`.
        @usableFromInline package var descendants: UInt32
        /// Where its entries start in ``JSONStructure/entries``.
        @usableFromInline package var firstEntry: UInt32
        /// The entries of it and of every container inside it: an entry whose value is a
        /// container is followed by that container's `nestedEntries`.
        @usableFromInline var nestedEntries: UInt32
    }

    /// Every container, by ordinal.
    @usableFromInline package let containers: FlatBuffer<Container>
    /// The offsets of every container's entries (the opening quote of each key of an object,
    /// the first byte of each element of an array), in the text's order.
    @usableFromInline package let entries: FlatBuffer<UInt32>
    /// Per entry: the length of an object's key when it is plain (ASCII, no escapes) and
    /// shorter than 255 bytes; ``unknownKeyLength`` otherwise, and for array elements.
    @usableFromInline package let keyLengths: FlatBuffer<UInt8>
    @usableFromInline static let unknownKeyLength: UInt8 = 255

    /// Says whether an object stamped with a type name (its UTF-8 bytes) and a version (`nil`
    /// when it has none, or not as an integer) stops the pass.
    package typealias ObjectCheck = (UnsafeBufferPointer<UInt8>, Int64?) -> Bool

    /// Validates `count` bytes at `bytes` as one JSON value within `limits`; `nil` when they are
    /// not valid JSON or the pass cannot vouch for them (see the type's discussion), or when
    /// `stopsAt` answers `true` for an object with a `"$type"` string (an archive that needs
    /// migrating stops at its first old object, not after a pass over everything).
    ///
    /// `storage` holds the buffers the pass fills, emptied first: a caller that scans many small
    /// texts one after the other passes the same one each time (the previous structure is then
    /// gone); without it the pass allocates its own.
    package static func scan(
        _ bytes: UnsafePointer<UInt8>, count: Int, limits: ArchiveLimits, stopsAt: ObjectCheck? = nil,
        reusing storage: Storage? = nil
    ) -> JSONStructure? {
        // Offsets are stored in 32 bits, ordinals in 31.
        guard count > 0, count < Int(Int32.max), count <= limits.maxInputBytes else { return nil }
        let storage = storage ?? Storage()
        storage.reset(forBytes: count)
        var scanner = Scanner(bytes: bytes, end: count, limits: limits, stopsAt: stopsAt, storage: storage)
        guard scanner.run(), !scanner.containers.failed, !scanner.entries.failed, !scanner.keyLengths.failed,
            !scanner.open.failed
        else {
            return nil
        }
        return JSONStructure(containers: scanner.containers, entries: scanner.entries, keyLengths: scanner.keyLengths)
    }

    /// A structure of no container, for a walk over a text another reader vouched for that
    /// never asks it for a container (the text rewrite's flat objects, in ModelVersioning).
    package static func empty() -> JSONStructure {
        JSONStructure(
            containers: FlatBuffer(capacity: 0), entries: FlatBuffer(capacity: 0), keyLengths: FlatBuffer(capacity: 0))
    }

    /// The buffers a scan fills (``scan(_:count:limits:stopsAt:reusing:)``).
    package final class Storage {
        let containers = FlatBuffer<Container>(capacity: 0)
        let entries = FlatBuffer<UInt32>(capacity: 0)
        let keyLengths = FlatBuffer<UInt8>(capacity: 0)
        fileprivate let open = FlatBuffer<Open>(capacity: 64)
        fileprivate let keyTemplates = FlatBuffer<KeyTemplate>(capacity: 4 * JSONStructure.templateWidth)

        /// Empty buffers, grown by the first scan.
        package init() {}

        /// Empties the buffers for a text of `count` bytes.
        func reset(forBytes count: Int) {
            // Room for a container per 32 bytes and an entry per 8 (compact archives of small
            // models come close): growing copies, and pages never written cost no memory.
            containers.reset(capacity: count / 32)
            entries.reset(capacity: count / 8)
            keyLengths.reset(capacity: count / 8)
            open.reset(capacity: 64)
            // The expected keys stay: each says what its bytes are in any text (the next archive
            // of the same type starts with the same keys).
            if keyTemplates.failed { keyTemplates.reset(capacity: 4 * JSONStructure.templateWidth) }
        }
    }

    fileprivate struct Open {
        var ordinal: Int
        var isObject: Bool
        var count: Int
        /// The content of its `"$type"` string (`typeLength` -1 when it has none).
        var typeStart = 0
        var typeLength = -1
        /// Its `"$version"` when an integer.
        var version: Int64?
    }

    /// Which markup value the scanner is about to read.
    fileprivate enum Markup {
        case none, type, version
    }

    /// A key the scanner expects: the key at the same place in the last object read at the same
    /// depth. Objects of one type repeat their keys in one order, so the next key is checked by
    /// comparing its bytes with that key's as one or two machine words, not scanned and judged
    /// again: the same bytes are the same valid key.
    fileprivate struct KeyTemplate {
        /// The first 8 bytes of the key's text from its opening quote (`"id":`), masked to
        /// ``size``; the last 8 when there are more than 8, and bytes 8–15 when more than 16.
        var head: UInt64
        var middle: UInt64
        var tail: UInt64
        var headMask: UInt64
        /// The bytes compared: the quoted key (plain: ASCII, no escapes, at most 22 bytes), and
        /// its colon when it follows the quote at once. 0 when there is no key.
        var size: UInt8
        var length: UInt8
        var hasColon: Bool
        var markup: Markup

        static let none = KeyTemplate(
            head: 0, middle: 0, tail: 0, headMask: 0, size: 0, length: 0, hasColon: false, markup: .none)

        /// The template of the plain key of `length` bytes whose quote is at `offset`, or
        /// ``none`` when the text after it is too short to load words from or the key too long.
        static func make(_ text: JSONText, offset: Int, length: Int, markup: Markup) -> KeyTemplate {
            let hasColon = text.byte(at: offset &+ length &+ 2) == UInt8(ascii: ":")
            let size = length &+ (hasColon ? 3 : 2)
            guard size <= 24, text.end &- offset >= Swift.max(size, 8) else { return .none }
            let headMask: UInt64 = size >= 8 ? ~0 : (1 &<< UInt64(truncatingIfNeeded: size &* 8)) &- 1
            return KeyTemplate(
                head: text.word(at: offset) & headMask, middle: size > 16 ? text.word(at: offset &+ 8) : 0,
                tail: size > 8 ? text.word(at: offset &+ size &- 8) : 0,
                headMask: headMask, size: UInt8(truncatingIfNeeded: size), length: UInt8(truncatingIfNeeded: length),
                hasColon: hasColon, markup: markup)
        }

        /// Whether the text at `offset` starts with this key.
        @inline(__always)
        func matches(_ text: JSONText, at offset: Int) -> Bool {
            let size = Int(self.size)
            guard size > 0, text.end &- offset >= Swift.max(size, 8) else { return false }
            guard text.word(at: offset) & headMask == head else { return false }
            return size <= 8
                || (text.word(at: offset &+ size &- 8) == tail && (size <= 16 || text.word(at: offset &+ 8) == middle))
        }
    }

    /// The keys expected per object (the first ones), and the depths they are kept for.
    fileprivate static let templateWidth = 16
    private static let templateDepth = 32

    private struct Scanner {
        let text: JSONText
        let maxDepth: Int
        let maxValues: Int
        let maxCollectionCount: Int
        let maxStringLength: Int
        let stopsAt: ObjectCheck?
        var position = 0
        /// Set by a `"$type"` or `"$version"` key, for its value.
        private var markup = Markup.none
        let containers: FlatBuffer<Container>
        let entries: FlatBuffer<UInt32>
        let keyLengths: FlatBuffer<UInt8>
        /// The containers still open, innermost last.
        let open: FlatBuffer<Open>
        /// The expected keys (see ``KeyTemplate``): ``JSONStructure/templateWidth`` per depth,
        /// for the depths an object was opened at so far.
        let keyTemplates: FlatBuffer<KeyTemplate>

        init(bytes: UnsafePointer<UInt8>, end: Int, limits: ArchiveLimits, stopsAt: ObjectCheck?, storage: Storage) {
            text = JSONText(bytes: bytes, end: end)
            self.stopsAt = stopsAt
            // The decoder and the migration walk count levels from other starting points: two
            // levels of margin, so that whatever this pass accepts, they accept too.
            maxDepth = limits.maxDepth - 2
            maxValues = limits.maxObjectCount
            maxCollectionCount = limits.maxCollectionCount
            maxStringLength = limits.maxStringLength
            containers = storage.containers
            entries = storage.entries
            keyLengths = storage.keyLengths
            open = storage.open
            keyTemplates = storage.keyTemplates
        }

        mutating func run() -> Bool {
            var values = 0
            var inArray = false
            position = text.skipWhitespace(from: 0)
            valueLoop: while true {
                // At the first byte of a value.
                values &+= 1
                guard values <= maxValues else { return false }
                if inArray {
                    entries.append(UInt32(truncatingIfNeeded: position))
                    keyLengths.append(JSONStructure.unknownKeyLength)
                }
                switch text.byte(at: position) {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = text.bytes[position] == UInt8(ascii: "{")
                    guard open.count < maxDepth else { return false }
                    open.append(Open(ordinal: containers.count, isObject: isObject, count: 0))
                    markup = .none
                    containers.append(
                        Container(
                            count: 0, descendants: 0, firstEntry: UInt32(truncatingIfNeeded: entries.count),
                            nestedEntries: 0))
                    position = text.skipWhitespace(from: position &+ 1)
                    if text.byte(at: position) != (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        if isObject {
                            let templates = open.count &* JSONStructure.templateWidth
                            if open.count <= JSONStructure.templateDepth && keyTemplates.count < templates {
                                repeat { keyTemplates.append(.none) } while keyTemplates.count < templates
                            }
                            guard readKeyAndColon(index: 0) else { return false }
                        }
                        inArray = !isObject
                        continue valueLoop
                    }
                    close()
                case UInt8(ascii: "\""):
                    guard let next = text.validatedStringEnd(from: position, maxLength: maxStringLength) else {
                        return false
                    }
                    if markup == .type, open.count > 0 {
                        let last = open.count &- 1
                        open[last].typeStart = position &+ 1
                        open[last].typeLength = next &- position &- 2
                    }
                    position = next
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if markup == .version {
                        guard let number = text.number(at: &position) else { return false }
                        if open.count > 0, case .int(let version) = number {
                            open[open.count &- 1].version = version
                        }
                    } else if let next = text.plainNumberEnd(at: position) {
                        position = next
                    } else {
                        guard text.number(at: &position) != nil else { return false }
                    }
                case UInt8(ascii: "t"):
                    guard text.matches("true", at: position) else { return false }
                    position &+= 4
                case UInt8(ascii: "f"):
                    guard text.matches("false", at: position) else { return false }
                    position &+= 5
                case UInt8(ascii: "n"):
                    guard text.matches("null", at: position) else { return false }
                    position &+= 4
                default:
                    return false
                }
                markup = .none
                // A value is finished: hand it to its container; closing a container finishes another.
                while true {
                    guard open.count > 0 else {
                        position = text.skipWhitespace(from: position)
                        return position == text.end
                    }
                    let last = open.count &- 1
                    open[last].count &+= 1
                    guard open[last].count <= maxCollectionCount else { return false }
                    position = text.skipWhitespace(from: position)
                    let next = text.byte(at: position)
                    let isObject = open[last].isObject
                    if next == UInt8(ascii: ",") {
                        position = text.skipWhitespace(from: position &+ 1)
                        if isObject {
                            guard readKeyAndColon(index: open[last].count) else { return false }
                        }
                        inArray = !isObject
                        continue valueLoop
                    }
                    guard next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                    if isObject, open[last].typeLength >= 0, let stopsAt,
                        stopsAt(
                            UnsafeBufferPointer(start: text.bytes + open[last].typeStart, count: open[last].typeLength),
                            open[last].version)
                    {
                        return false
                    }
                    close()
                }
            }
        }

        /// Closes the innermost container at its bracket (`position`) and moves past it.
        private mutating func close() {
            let closed = open.removeLast()
            var container = containers[closed.ordinal]
            container.count = UInt32(truncatingIfNeeded: closed.count)
            container.descendants = UInt32(truncatingIfNeeded: containers.count &- closed.ordinal &- 1)
            container.nestedEntries = UInt32(truncatingIfNeeded: entries.count &- Int(container.firstEntry))
            containers[closed.ordinal] = container
            position &+= 1
        }

        /// Reads `"key" :`, the `index`th key of the innermost object, and the whitespace after
        /// it.
        @inline(__always)
        private mutating func readKeyAndColon(index: Int) -> Bool {
            entries.append(UInt32(truncatingIfNeeded: position))
            let slot = (open.count &- 1) &* JSONStructure.templateWidth &+ index
            let templated = index < JSONStructure.templateWidth && slot < keyTemplates.count
            if templated {
                let template = keyTemplates[slot]
                if template.matches(text, at: position) {
                    keyLengths.append(template.length)
                    markup = template.markup
                    position &+= Int(template.size)
                    if !template.hasColon {
                        position = text.skipWhitespace(from: position)
                        guard text.byte(at: position) == UInt8(ascii: ":") else { return false }
                        position &+= 1
                    }
                    position = text.skipWhitespace(from: position)
                    return true
                }
            }
            guard let next = readKey(slot: templated ? slot : -1) else { return false }
            position = text.skipWhitespace(from: next)
            guard text.byte(at: position) == UInt8(ascii: ":") else { return false }
            position = text.skipWhitespace(from: position &+ 1)
            return true
        }

        /// Reads the key at `position` without a template, and keeps it as the template of
        /// `slot` (-1: none): the offset after its closing quote, `nil` when it is invalid.
        private mutating func readKey(slot: Int) -> Int? {
            guard text.byte(at: position) == UInt8(ascii: "\"") else { return nil }
            let (stop, bits) = text.scanString(from: position &+ 1)
            let next: Int
            var plainLength = -1
            if stop < text.end && text.bytes[stop] == UInt8(ascii: "\"") && bits & 0x8080_8080_8080_8080 == 0 {
                let length = stop &- position &- 1
                guard length <= maxStringLength else { return nil }
                keyLengths.append(length < 255 ? UInt8(truncatingIfNeeded: length) : JSONStructure.unknownKeyLength)
                plainLength = length
                next = stop &+ 1
            } else {
                guard let end = text.validatedStringEnd(from: position, maxLength: maxStringLength) else {
                    return nil
                }
                keyLengths.append(JSONStructure.unknownKeyLength)
                next = end
            }
            if text.bytes[position &+ 1] == UInt8(ascii: "$") {
                switch next &- position &- 2 {
                case 5 where text.matches("$type", at: position &+ 1): markup = .type
                case 8 where text.matches("$version", at: position &+ 1): markup = .version
                default: break
                }
            }
            if slot >= 0 {
                keyTemplates[slot] =
                    plainLength >= 0 ? .make(text, offset: position, length: plainLength, markup: markup) : .none
            }
            return next
        }

    }
}
