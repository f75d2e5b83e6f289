import Foundation

/// Read-only access to JSON bytes for ``JSONStructure`` and ``DirectJSONDecoder``: the
/// scalar grammar shared with ``JSONParser`` (whitespace, literals, numbers through
/// ``JSONNumberParser``, strings with the same escapes and UTF-8 checks).
///
/// Public as SPI, with the readers ModelVersioning calls per value `@inlinable`: across modules a
/// `package` member is a call (see ``MoveStack``).
@_spi(Coders) public struct JSONText {
    @usableFromInline package let bytes: UnsafePointer<UInt8>
    @usableFromInline package let end: Int

    /// The text of the `end` bytes at `bytes`, which the caller keeps alive while it is read.
    package init(bytes: UnsafePointer<UInt8>, end: Int) {
        self.bytes = bytes
        self.end = end
    }

    /// Whether `length` bytes at `first` and `second` are equal (any two empty runs are, and a
    /// missing `second` holds none). Keys are short: up to 16 bytes are compared as two words
    /// (or halves, quarters) that overlap in the middle, reading no byte outside the runs;
    /// longer ones go to `memcmp`.
    @inlinable @inline(__always)
    package static func equal(_ first: UnsafePointer<UInt8>, _ second: UnsafePointer<UInt8>?, length: Int) -> Bool {
        guard length > 0 else { return true }
        guard let second else { return false }
        @inline(__always) func same<Word: FixedWidthInteger>(_ type: Word.Type, at offset: Int) -> Bool {
            UnsafeRawPointer(first + offset).loadUnaligned(as: Word.self)
                == UnsafeRawPointer(second + offset).loadUnaligned(as: Word.self)
        }
        switch length {
        case 1: return first[0] == second[0]
        case 2...3: return same(UInt16.self, at: 0) && same(UInt16.self, at: length &- 2)
        case 4...7: return same(UInt32.self, at: 0) && same(UInt32.self, at: length &- 4)
        case 8...16: return same(UInt64.self, at: 0) && same(UInt64.self, at: length &- 8)
        default: return memcmp(first, second, length) == 0
        }
    }

    /// The 8 bytes at `offset` as a little-endian word; the caller checks that they are there.
    @usableFromInline @inline(__always)
    func word(at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes + offset).loadUnaligned(as: UInt64.self))
    }

    /// The byte at `offset`, or 0 at and past the end (0 is invalid everywhere it is read).
    @inlinable @inline(__always)
    package func byte(at offset: Int) -> UInt8 {
        offset < end ? bytes[offset] : 0
    }

    @usableFromInline @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    @inlinable @inline(__always)
    package func skipWhitespace(from offset: Int) -> Int {
        var cursor = offset
        while cursor < end, bytes[cursor] <= 0x20, Self.isWhitespace(bytes[cursor]) { cursor &+= 1 }
        return cursor
    }

    @inline(__always)
    func matches(_ literal: StaticString, at offset: Int) -> Bool {
        let length = literal.utf8CodeUnitCount
        return end &- offset >= length && memcmp(bytes + offset, literal.utf8Start, length) == 0
    }

    /// The number at `position` (as ``JSONParser`` reads it), moving past it; `nil` when the
    /// literal is invalid.
    @inline(__always)
    package func number(at position: inout Int) -> ArchiveValue? {
        if let short = JSONNumberParser.parseShort(bytes, at: &position, end: end) { return short }
        switch JSONNumberParser.parse(bytes, from: position, end: end) {
        case .value(let number, let next):
            position = next
            return number
        case .failure:
            return nil
        }
    }

    /// The offset after the number at `position` when it is plain: the JSON grammar without an
    /// exponent and with fewer than 300 integer digits, which ``JSONNumberParser`` reads without
    /// fail (no value of that form is out of range). `nil` for anything else, which the number
    /// reader then judges.
    @inline(__always)
    func plainNumberEnd(at position: Int) -> Int? {
        plainNumber(at: position)?.end
    }

    /// The plain number at `position` (see ``plainNumberEnd(at:)``): where its integer digits
    /// end (at the `.` when it has a fraction) and where the number ends.
    @inline(__always)
    private func plainNumber(at position: Int) -> (integerEnd: Int, end: Int)? {
        var cursor = position
        if byte(at: cursor) == UInt8(ascii: "-") { cursor &+= 1 }
        let integerStart = cursor
        let first = byte(at: cursor)
        guard first &- UInt8(ascii: "0") < 10 else { return nil }
        cursor &+= 1
        if first != UInt8(ascii: "0") {
            while byte(at: cursor) &- UInt8(ascii: "0") < 10 { cursor &+= 1 }
            guard cursor &- integerStart < 300 else { return nil }
        }
        let integerEnd = cursor
        if byte(at: cursor) == UInt8(ascii: ".") {
            cursor &+= 1
            guard byte(at: cursor) &- UInt8(ascii: "0") < 10 else { return nil }
            repeat { cursor &+= 1 } while byte(at: cursor) &- UInt8(ascii: "0") < 10
        }
        let next = byte(at: cursor)
        // An exponent, or a digit after a leading zero: the reader decides.
        guard next | 0x20 != UInt8(ascii: "e"), next &- UInt8(ascii: "0") >= 10 else { return nil }
        return (integerEnd, cursor)
    }

    /// The offset after the number at `position` when ``JSONWriter`` writes the value the reader
    /// makes of it with exactly its bytes, so that a rewrite may copy them instead of reading and
    /// writing the number; `nil` otherwise (then read it and write it). A plain number
    /// (``plainNumberEnd(at:)``) is written as it is when it is
    ///
    /// - an integer of at most 18 digits other than `-0` (read as an `Int64`, written in decimal),
    /// - `I.0` with `I` not 0 and at most 15 digits (an integral double below 10^15, written with
    ///   `.0`), or
    /// - `I.F` with at most 15 significant digits, `F` not ending in 0, and a value of at least
    ///   10^-4: a decimal of at most 15 significant digits names a double no other such decimal
    ///   names, so the writer's shortest plain decimal for it (`writeShortDecimal`, used from
    ///   10^-4 to 10^15) has exactly `F`'s fraction digits, and so these bytes.
    package func verbatimNumberEnd(at position: Int) -> Int? {
        guard let (integerEnd, end) = plainNumber(at: position) else { return nil }
        let negative = bytes[position] == UInt8(ascii: "-")
        let integerStart = negative ? position &+ 1 : position
        let leadingZero = bytes[integerStart] == UInt8(ascii: "0")
        let integerDigits = integerEnd &- integerStart
        guard integerEnd < end else {
            // An integer.
            return integerDigits <= 18 && !(negative && leadingZero) ? end : nil
        }
        let fractionStart = integerEnd &+ 1
        let fractionDigits = end &- fractionStart
        if fractionDigits == 1 && bytes[fractionStart] == UInt8(ascii: "0") {
            return !leadingZero && integerDigits <= 15 ? end : nil
        }
        guard bytes[end &- 1] != UInt8(ascii: "0") else { return nil }
        let significantDigits: Int
        if leadingZero {
            // 0.000ddd: the zeros after the point are not significant; more than three is below 10^-4.
            var zeros = 0
            while bytes[fractionStart &+ zeros] == UInt8(ascii: "0") { zeros &+= 1 }
            guard zeros <= 3 else { return nil }
            significantDigits = fractionDigits &- zeros
        } else {
            significantDigits = integerDigits &+ fractionDigits
        }
        return significantDigits <= 15 ? end : nil
    }

    /// The first quote, backslash or control character at or after `from` (``end`` when none),
    /// and the OR of the bytes before it.
    @inlinable @inline(__always)
    package func scanString(from: Int) -> (stop: Int, highBits: UInt64) {
        var cursor = from
        var highBits: UInt64 = 0
        while end &- cursor >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(bytes + cursor).loadUnaligned(as: UInt64.self))
            let quotes = word ^ 0x2222_2222_2222_2222
            let backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let special =
                (((quotes &- 0x0101_0101_0101_0101) & ~quotes) | ((backslashes &- 0x0101_0101_0101_0101) & ~backslashes)
                    | ((word &- 0x2020_2020_2020_2020) & ~word)) & 0x8080_8080_8080_8080
            if special != 0 {
                let before = special.trailingZeroBitCount &>> 3
                highBits |= word & ((1 &<< UInt64(truncatingIfNeeded: before &* 8)) &- 1)
                return (cursor &+ before, highBits)
            }
            highBits |= word
            cursor &+= 8
        }
        while cursor < end {
            let current = bytes[cursor]
            if current == UInt8(ascii: "\"") || current == UInt8(ascii: "\\") || current < 0x20 { break }
            highBits |= UInt64(current)
            cursor &+= 1
        }
        return (cursor, highBits)
    }

    /// Checks the string whose opening quote is at `offset` as ``JSONParser`` does (escapes,
    /// paired surrogates, no raw control characters, valid UTF-8) and returns the offset after
    /// its closing quote; `nil` when it is invalid or its raw text is longer than `maxLength`.
    @inline(__always)
    package func validatedStringEnd(from offset: Int, maxLength: Int) -> Int? {
        // The common case: ASCII without escapes.
        let contentStart = offset &+ 1
        let (stop, bits) = scanString(from: contentStart)
        if stop < end && bytes[stop] == UInt8(ascii: "\"") && bits & 0x8080_8080_8080_8080 == 0 {
            return stop &- contentStart <= maxLength ? stop &+ 1 : nil
        }
        return validatedStringEndSlowly(from: offset, maxLength: maxLength)
    }

    private func validatedStringEndSlowly(from offset: Int, maxLength: Int) -> Int? {
        let contentStart = offset &+ 1
        var cursor = contentStart
        var highBits: UInt64 = 0
        while true {
            let (stop, bits) = scanString(from: cursor)
            highBits |= bits
            guard stop < end else { return nil }
            let current = bytes[stop]
            if current == UInt8(ascii: "\"") {
                cursor = stop
                break
            }
            guard current == UInt8(ascii: "\\") else { return nil }
            let letter = byte(at: stop &+ 1)
            if Self.simpleEscape(letter) != nil {
                cursor = stop &+ 2
                continue
            }
            switch letter {
            case UInt8(ascii: "u"):
                guard let unit = hexQuad(at: stop &+ 2) else { return nil }
                cursor = stop &+ 6
                if unit >= 0xD800 && unit <= 0xDBFF {
                    guard byte(at: cursor) == UInt8(ascii: "\\"), byte(at: cursor &+ 1) == UInt8(ascii: "u"),
                        let low = hexQuad(at: cursor &+ 2), low >= 0xDC00, low <= 0xDFFF
                    else { return nil }
                    cursor &+= 6
                } else if unit >= 0xDC00 && unit <= 0xDFFF {
                    return nil
                }
            default:
                return nil
            }
        }
        let length = cursor &- contentStart
        guard length <= maxLength else { return nil }
        if highBits & 0x8080_8080_8080_8080 != 0,
            UTF8Validation.firstInvalidOffset(in: UnsafeBufferPointer(start: bytes + contentStart, count: length))
                != nil
        {
            return nil
        }
        return cursor &+ 1
    }

    /// The string (already validated) whose opening quote is at `offset`.
    package func string(at offset: Int, scratch: inout [UInt8]) -> String {
        let contentStart = offset &+ 1
        let (stop, _) = scanString(from: contentStart)
        if stop < end && bytes[stop] == UInt8(ascii: "\"") {
            return JSONParser.string(
                validUTF8: UnsafeBufferPointer(start: bytes + contentStart, count: stop &- contentStart))
        }
        scratch.removeAll(keepingCapacity: true)
        var segmentStart = contentStart
        var cursor = stop
        while cursor < end {
            let current = bytes[cursor]
            if current != UInt8(ascii: "\"") && current != UInt8(ascii: "\\") {
                cursor &+= 1
                continue
            }
            scratch.append(contentsOf: UnsafeBufferPointer(start: bytes + segmentStart, count: cursor &- segmentStart))
            if current == UInt8(ascii: "\"") { break }
            let escaped = byte(at: cursor &+ 1)
            cursor &+= 2
            if let unescaped = Self.simpleEscape(escaped) {
                scratch.append(unescaped)
                segmentStart = cursor
                continue
            }
            switch escaped {
            case UInt8(ascii: "u"):
                var scalar = hexQuad(at: cursor) ?? 0xFFFD
                cursor &+= 4
                if scalar >= 0xD800 && scalar <= 0xDBFF, let low = hexQuad(at: cursor &+ 2) {
                    scalar = 0x10000 &+ ((scalar &- 0xD800) << 10) &+ (low &- 0xDC00)
                    cursor &+= 6
                }
                Self.appendUTF8(scalar, to: &scratch)
            default: scratch.append(escaped)
            }
            segmentStart = cursor
        }
        return String(decoding: scratch, as: UTF8.self)
    }

    /// The byte a one-letter escape stands for (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`,
    /// `\t`); `nil` for any other letter (`\u` included).
    @inline(__always)
    static func simpleEscape(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return letter
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return nil
        }
    }

    /// The value of four hex digits at `offset`, or `nil`.
    func hexQuad(at offset: Int) -> UInt32? {
        guard end &- offset >= 4 else { return nil }
        var value: UInt32 = 0
        for index in offset..<(offset &+ 4) {
            let digit = bytes[index]
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit &- UInt8(ascii: "A") &+ 10
            default: return nil
            }
            value = value << 4 | UInt32(nibble)
        }
        return value
    }

    /// Appends a scalar (never a surrogate) as UTF-8.
    static func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            bytes.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            bytes.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            bytes.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        default:
            bytes.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            bytes.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }
}
