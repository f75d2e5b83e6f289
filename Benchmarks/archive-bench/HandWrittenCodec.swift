import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The practical ceiling for the benchmark's models: what a careful engineer writes by hand for
// exactly `BenchDocument`, `BenchShape` and `BenchPoint` and nothing else. No Codable, no tree:
// one loop over the bytes that fills the structs, and one that writes them. It still does what
// any correct reader must (keys in any order, unknown keys skipped, escapes decoded, numbers
// read exactly, malformed bytes refused), so the benchmark can hold the library's own figures
// against it (`decode_current_of_ceiling` and the other `…_of_ceiling` ratios). It is a
// reference row of `archive-bench`, not part of the library.

/// The hand-written reader and writer of the benchmark's archives.
enum HandWrittenCodec {
    /// Why the bytes are not a benchmark archive, and where.
    struct Malformed: Error, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "hand-written codec: \(reason) at byte \(offset)" }
    }

    /// Reads a current archive (`Shape` v4 objects) into the models.
    static func decodeCurrent(_ data: Data) throws -> BenchDocument {
        try read(data, version1: false)
    }

    /// Reads a version 1 archive (`name`, flat `x` and `y`, no `visible`) straight into today's
    /// models: the three steps of the Shape chain done while reading, as hand-written code does.
    static func decodeVersion1(_ data: Data) throws -> BenchDocument {
        try read(data, version1: true)
    }

    private static func read(_ data: Data, version1: Bool) throws -> BenchDocument {
        try data.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes: bytes)
            var shapes: [BenchShape] = []
            try reader.readObject { reader, key in
                guard key.is("root") else { return try reader.skipValue() }
                try reader.readObject { reader, key in
                    guard key.is("shapes") else { return try reader.skipValue() }
                    try reader.readArray { reader in
                        shapes.append(try version1 ? reader.readVersion1Shape() : reader.readShape())
                    }
                }
            }
            try reader.expectEnd()
            return BenchDocument(shapes: shapes)
        }
    }

    /// Writes the document as the library's compact JSON archive: the envelope, every shape
    /// stamped with its type and version.
    static func encode(_ document: BenchDocument) -> Data {
        var writer = ByteWriter(capacity: 64 + document.shapes.count * 160)
        writer.append(#"{"$archive":1,"root":{"$type":"Document","$version":1,"shapes":["#)
        for (index, shape) in document.shapes.enumerated() {
            if index > 0 { writer.append(byte: UInt8(ascii: ",")) }
            writer.append(#"{"$type":"Shape","$version":4,"id":"#)
            writer.append(integer: Int64(shape.id))
            writer.append(#","title":"#)
            writer.append(string: shape.title)
            writer.append(#","kind":"#)
            writer.append(string: shape.kind)
            writer.append(#","center":{"x":"#)
            writer.append(double: shape.center.x)
            writer.append(#","y":"#)
            writer.append(double: shape.center.y)
            writer.append(#"},"radius":"#)
            writer.append(double: shape.radius)
            writer.append(#","tags":["#)
            for (tagIndex, tag) in shape.tags.enumerated() {
                if tagIndex > 0 { writer.append(byte: UInt8(ascii: ",")) }
                writer.append(string: tag)
            }
            writer.append(shape.visible ? #"],"visible":true}"# : #"],"visible":false}"#)
        }
        writer.append("]}}")
        return writer.data()
    }
}

// MARK: - Reading

/// An object key as the bytes between its quotes (escapes already decoded when it had any).
private struct Key {
    var base: UnsafeRawPointer?
    var count: Int

    @inline(__always)
    func `is`(_ literal: StaticString) -> Bool {
        count == literal.utf8CodeUnitCount
            && (count == 0 || memcmp(base.unsafelyUnwrapped, literal.utf8Start, count) == 0)
    }
}

/// A cursor over the bytes with the few reads the benchmark's types need.
private struct ByteReader {
    let start: UnsafePointer<UInt8>?
    let end: Int
    var position = 0
    /// Holds a key that had escapes, decoded, for as long as the key is looked at.
    var keyScratch: [UInt8] = []
    var depth = 0

    init(bytes: UnsafeRawBufferPointer) {
        start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        end = bytes.count
    }

    func fail(_ reason: String) -> HandWrittenCodec.Malformed {
        HandWrittenCodec.Malformed(offset: position, reason: reason)
    }

    @inline(__always)
    func byte(at index: Int) -> UInt8 { start.unsafelyUnwrapped[index] }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < end {
            switch byte(at: position) {
            case 0x20, 0x0A, 0x0D, 0x09: position &+= 1
            default: return
            }
        }
    }

    /// The next byte that is not white space, not consumed.
    @inline(__always)
    mutating func peek() throws -> UInt8 {
        skipWhitespace()
        guard position < end else { throw fail("unexpected end of the archive") }
        return byte(at: position)
    }

    @inline(__always)
    mutating func expect(_ expected: UInt8) throws {
        guard try peek() == expected else {
            throw fail("expected '\(Character(Unicode.Scalar(expected)))'")
        }
        position &+= 1
    }

    mutating func expectEnd() throws {
        skipWhitespace()
        guard position == end else { throw fail("bytes after the archive") }
    }

    /// Calls `member` with each key of an object, the reader placed at the key's value.
    @inline(__always)
    mutating func readObject(_ member: (inout ByteReader, Key) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        depth &+= 1
        guard depth <= 512 else { throw fail("nested too deeply") }
        defer { depth &-= 1 }
        if try peek() == UInt8(ascii: "}") {
            position &+= 1
            return
        }
        while true {
            let key = try readKey()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
            switch try peek() {
            case UInt8(ascii: ","): position &+= 1
            case UInt8(ascii: "}"):
                position &+= 1
                return
            default: throw fail("expected ',' or '}' in an object")
            }
        }
    }

    /// Calls `element` for each element of an array, the reader placed at the element.
    @inline(__always)
    mutating func readArray(_ element: (inout ByteReader) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        depth &+= 1
        guard depth <= 512 else { throw fail("nested too deeply") }
        defer { depth &-= 1 }
        if try peek() == UInt8(ascii: "]") {
            position &+= 1
            return
        }
        while true {
            try element(&self)
            switch try peek() {
            case UInt8(ascii: ","): position &+= 1
            case UInt8(ascii: "]"):
                position &+= 1
                return
            default: throw fail("expected ',' or ']' in an array")
            }
        }
    }

    /// The bytes of a key; a key with escapes is decoded into `keyScratch`.
    @inline(__always)
    mutating func readKey() throws -> Key {
        try expect(UInt8(ascii: "\""))
        let first = position
        while position < end {
            let next = byte(at: position)
            if next == UInt8(ascii: "\"") {
                position &+= 1
                return Key(base: UnsafeRawPointer(start.unsafelyUnwrapped + first), count: position &- 1 &- first)
            }
            if next == UInt8(ascii: "\\") || next < 0x20 { break }
            position &+= 1
        }
        position = first
        keyScratch = try readEscapedBytes()
        return keyScratch.withUnsafeBytes { Key(base: $0.baseAddress, count: $0.count) }
    }

    /// A string value: the bytes between the quotes, or their unescaped copy when they have escapes.
    mutating func readString() throws -> String {
        try expect(UInt8(ascii: "\""))
        let first = position
        while position < end {
            let next = byte(at: position)
            if next == UInt8(ascii: "\"") {
                position &+= 1
                return String(
                    decoding: UnsafeBufferPointer(
                        start: start.unsafelyUnwrapped + first, count: position &- 1 &- first),
                    as: UTF8.self)
            }
            if next == UInt8(ascii: "\\") || next < 0x20 { break }
            position &+= 1
        }
        position = first
        return String(decoding: try readEscapedBytes(), as: UTF8.self)
    }

    /// The string from `position` (just after its opening quote) to its closing quote, its escapes decoded.
    mutating func readEscapedBytes() throws -> [UInt8] {
        var bytes: [UInt8] = []
        while position < end {
            let next = byte(at: position)
            position &+= 1
            switch next {
            case UInt8(ascii: "\""):
                return bytes
            case UInt8(ascii: "\\"):
                guard position < end else { throw fail("unfinished escape") }
                let escape = byte(at: position)
                position &+= 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try readHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard position + 1 < end, byte(at: position) == UInt8(ascii: "\\"),
                            byte(at: position + 1) == UInt8(ascii: "u")
                        else { throw fail("a lone surrogate") }
                        position &+= 2
                        let low = try readHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("a lone surrogate") }
                    bytes.append(contentsOf: UTF8.encode(unicode).map { Array($0) } ?? [])
                default: throw fail("an unknown escape")
                }
            default:
                guard next >= 0x20 else { throw fail("a control character in a string") }
                bytes.append(next)
            }
        }
        throw fail("unfinished string")
    }

    mutating func readHex4() throws -> UInt32 {
        guard position + 4 <= end else { throw fail("unfinished \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit = byte(at: position)
            position &+= 1
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(digit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | UInt32(digit - UInt8(ascii: "A") + 10)
            default: throw fail("not a hexadecimal digit")
            }
        }
        return value
    }

    /// An integer literal that fits an `Int`.
    @inline(__always)
    mutating func readInt() throws -> Int {
        _ = try peek()
        let negative = byte(at: position) == UInt8(ascii: "-")
        if negative { position &+= 1 }
        let first = position
        var value = 0
        while position < end {
            let digit = byte(at: position) &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            let (times, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times.addingReportingOverflow(Int(digit))
            guard !overflowed, !overflowedAgain else { throw fail("an integer out of range") }
            value = sum
            position &+= 1
        }
        guard position > first else { throw fail("expected an integer") }
        if position < end {
            switch byte(at: position) {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): throw fail("expected an integer")
            default: break
            }
        }
        return negative ? -value : value
    }

    /// Exact powers of ten as doubles (10^22 is the largest).
    static let powers: [Double] = (0...22).map { exponent in (0..<exponent).reduce(1.0) { power, _ in power * 10 } }

    /// A number, read exactly: digits that fit 2^53 with a power of ten up to 10^22 are one exact
    /// multiplication or division (Clinger's fast path); anything else goes to `strtod`.
    @inline(__always)
    mutating func readDouble() throws -> Double {
        _ = try peek()
        let first = position
        let negative = byte(at: position) == UInt8(ascii: "-")
        if negative { position &+= 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var sawDigit = false
        while position < end, case let digit = byte(at: position) &- UInt8(ascii: "0"), digit < 10 {
            mantissa = mantissa &* 10 &+ UInt64(digit)
            digits &+= 1
            sawDigit = true
            position &+= 1
        }
        if position < end, byte(at: position) == UInt8(ascii: ".") {
            position &+= 1
            while position < end, case let digit = byte(at: position) &- UInt8(ascii: "0"), digit < 10 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
                digits &+= 1
                fractionDigits &+= 1
                position &+= 1
            }
            guard fractionDigits > 0 else { throw fail("expected a digit after '.'") }
        }
        guard sawDigit else { throw fail("expected a number") }
        var exponentPart = false
        if position < end, byte(at: position) | 0x20 == UInt8(ascii: "e") {
            exponentPart = true
            position &+= 1
            if position < end, byte(at: position) == UInt8(ascii: "+") || byte(at: position) == UInt8(ascii: "-") {
                position &+= 1
            }
            let exponentStart = position
            while position < end, byte(at: position) &- UInt8(ascii: "0") < 10 { position &+= 1 }
            guard position > exponentStart else { throw fail("expected an exponent") }
        }
        if !exponentPart, digits <= 15, fractionDigits <= 22 {
            let magnitude = Double(mantissa) / Self.powers[fractionDigits]
            return negative ? -magnitude : magnitude
        }
        return try parseWithStrtod(from: first)
    }

    /// `strtod` on a terminated copy of the number's bytes.
    mutating func parseWithStrtod(from first: Int) throws -> Double {
        let count = position - first
        guard count < 400 else { throw fail("a number too long") }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer in
            for index in 0..<count { buffer[index] = CChar(bitPattern: byte(at: first + index)) }
            buffer[count] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }

    @inline(__always)
    mutating func readBool() throws -> Bool {
        let next = try peek()
        if next == UInt8(ascii: "t"), position + 4 <= end, memcmp(start! + position, "true", 4) == 0 {
            position &+= 4
            return true
        }
        if next == UInt8(ascii: "f"), position + 5 <= end, memcmp(start! + position, "false", 5) == 0 {
            position &+= 5
            return false
        }
        throw fail("expected true or false")
    }

    /// Skips any JSON value.
    mutating func skipValue() throws {
        switch try peek() {
        case UInt8(ascii: "{"): try readObject { reader, _ in try reader.skipValue() }
        case UInt8(ascii: "["): try readArray { reader in try reader.skipValue() }
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"):
            guard position + 4 <= end, memcmp(start! + position, "null", 4) == 0 else { throw fail("expected null") }
            position &+= 4
        default: _ = try readDouble()
        }
    }

    mutating func readStrings() throws -> [String] {
        var strings: [String] = []
        try readArray { reader in strings.append(try reader.readString()) }
        return strings
    }

    mutating func readPoint() throws -> BenchPoint {
        var x: Double?
        var y: Double?
        try readObject { reader, key in
            if key.is("x") {
                x = try reader.readDouble()
            } else if key.is("y") {
                y = try reader.readDouble()
            } else {
                try reader.skipValue()
            }
        }
        guard let x, let y else { throw fail("a point without x or y") }
        return BenchPoint(x: x, y: y)
    }

    /// A `Shape` of today's version.
    mutating func readShape() throws -> BenchShape {
        var id: Int?
        var title: String?
        var kind: String?
        var center: BenchPoint?
        var radius: Double?
        var tags: [String]?
        var visible: Bool?
        var type: String?
        var version: Int?
        try readObject { reader, key in
            switch key.count {
            case 2 where key.is("id"): id = try reader.readInt()
            case 4 where key.is("kind"): kind = try reader.readString()
            case 4 where key.is("tags"): tags = try reader.readStrings()
            case 5 where key.is("title"): title = try reader.readString()
            case 5 where key.is("$type"): type = try reader.readString()
            case 6 where key.is("center"): center = try reader.readPoint()
            case 6 where key.is("radius"): radius = try reader.readDouble()
            case 7 where key.is("visible"): visible = try reader.readBool()
            case 8 where key.is("$version"): version = try reader.readInt()
            default: try reader.skipValue()
            }
        }
        guard type == "Shape", version == 4 else { throw fail("not a Shape of version 4") }
        guard let id, let title, let kind, let center, let radius, let tags, let visible else {
            throw fail("a Shape without one of its properties")
        }
        return BenchShape(
            id: id, title: title, kind: kind, center: center, radius: radius, tags: tags, visible: visible)
    }

    /// A `Shape` of version 1, made today's: `name` is the title, `x` and `y` the center, and it
    /// is visible.
    mutating func readVersion1Shape() throws -> BenchShape {
        var id: Int?
        var name: String?
        var kind: String?
        var x: Double?
        var y: Double?
        var radius: Double?
        var tags: [String]?
        var type: String?
        var version: Int?
        try readObject { reader, key in
            switch key.count {
            case 1 where key.is("x"): x = try reader.readDouble()
            case 1 where key.is("y"): y = try reader.readDouble()
            case 2 where key.is("id"): id = try reader.readInt()
            case 4 where key.is("name"): name = try reader.readString()
            case 4 where key.is("kind"): kind = try reader.readString()
            case 4 where key.is("tags"): tags = try reader.readStrings()
            case 5 where key.is("$type"): type = try reader.readString()
            case 6 where key.is("radius"): radius = try reader.readDouble()
            case 8 where key.is("$version"): version = try reader.readInt()
            default: try reader.skipValue()
            }
        }
        guard type == "Shape", version == 1 else { throw fail("not a Shape of version 1") }
        guard let id, let name, let kind, let x, let y, let radius, let tags else {
            throw fail("a version 1 Shape without one of its properties")
        }
        return BenchShape(
            id: id, title: name, kind: kind, center: BenchPoint(x: x, y: y), radius: radius, tags: tags, visible: true)
    }
}

// MARK: - Writing

/// A growing byte buffer with the writes the benchmark's types need.
private struct ByteWriter {
    var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    func data() -> Data { Data(bytes) }

    @inline(__always)
    mutating func append(byte: UInt8) { bytes.append(byte) }

    @inline(__always)
    mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// A JSON string: the bytes as they are, quotes, backslashes and control characters escaped.
    @inline(__always)
    mutating func append(string: String) {
        var string = string
        string.withUTF8 { utf8 in
            bytes.append(UInt8(ascii: "\""))
            var runStart = 0
            for index in 0..<utf8.count {
                let next = utf8[index]
                guard next < 0x20 || next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                bytes.append(UInt8(ascii: "\\"))
                switch next {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(next)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(next >> 4)], hex[Int(next & 15)]])
                }
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
            bytes.append(UInt8(ascii: "\""))
        }
    }

    @inline(__always)
    mutating func append(integer: Int64) {
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        append(digits: integer.magnitude, fractionDigits: 0)
    }

    /// `value` in decimal, with a point before its last `fractionDigits` digits (none when zero).
    @inline(__always)
    mutating func append(digits value: UInt64, fractionDigits: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var index = 24
            var remaining = value
            var written = 0
            repeat {
                if written == fractionDigits, fractionDigits > 0 {
                    index &-= 1
                    buffer[index] = UInt8(ascii: ".")
                }
                index &-= 1
                buffer[index] = UInt8(ascii: "0") &+ UInt8(remaining % 10)
                remaining /= 10
                written &+= 1
            } while remaining > 0 || written <= fractionDigits
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index..<24]))
        }
    }

    /// The shortest decimal that reads back as `number`: the plain decimal with the fewest
    /// fraction digits when that is exact below 10^15, `description` otherwise. Always with a
    /// point or an exponent, so that it reads back as a double.
    @inline(__always)
    mutating func append(double number: Double) {
        let magnitude = number.magnitude
        if magnitude >= 1e-4, magnitude < 1e15 {
            for fractionDigits in 0...15 {
                let product = magnitude * ByteReader.powers[fractionDigits]
                guard product < 1e15 else { break }
                let scaled = UInt64(product + 0.5)
                if Double(scaled) / ByteReader.powers[fractionDigits] == magnitude {
                    if number < 0 { bytes.append(UInt8(ascii: "-")) }
                    append(digits: scaled, fractionDigits: fractionDigits)
                    if fractionDigits == 0 { bytes.append(contentsOf: [UInt8(ascii: "."), UInt8(ascii: "0")]) }
                    return
                }
            }
        }
        var text = number.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }
}

extension HandWrittenCodec {
    /// The contender's name in the benchmark's rows.
    static let name = "hand-written (ceiling)"

    /// Checks, before anything is timed, that a document read by hand (or from bytes written by
    /// hand) is the one the library reads from `reference`: the ceiling must do the same work.
    static func check(decoded: BenchDocument, from reference: Data, decoder: ArchiveDecoder) throws {
        let expected = try decoder.decode(BenchDocument.self, from: reference)
        guard decoded == expected else {
            let index =
                zip(decoded.shapes, expected.shapes).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(decoded.shapes.count, expected.shapes.count)
            let ours = index < expected.shapes.count ? "\(expected.shapes[index])" : "none"
            let theirs = index < decoded.shapes.count ? "\(decoded.shapes[index])" : "none"
            throw ArchiveError(
                .invalidValue,
                "the hand-written codec and the library disagree on shape \(index): \(theirs) against \(ours)")
        }
    }
}
