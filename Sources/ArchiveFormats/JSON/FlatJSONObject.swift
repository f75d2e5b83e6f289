import Foundation

/// One pass over a *flat object*: a compact typed object whose values hold no object (strings,
/// numbers, literals, arrays of them), the common shape of a small model's archive in a SQLite
/// row or an NDJSON line. The text rewrite reads such an object with it instead of the structural
/// pass and its walk.
///
/// It checks every byte as ``JSONStructure`` would under the same limits, or more strictly, and
/// for each field notes where its value ends when ``JSONWriter`` spells the value with its very
/// bytes (so a rewrite copies them). Anything else makes it stop (``readFields(into:)`` answers
/// `false`) as soon as it is met, for the structural pass to take the text:
/// whitespace, an object inside a value, markup other than a leading `$type` and `$version`, a
/// key with escapes or of 255 bytes or more, an array holding a value the writer spells otherwise
/// (an escaped string, `1.50`).
///
/// ```swift
/// let archive = Array(#"{"$type":"Shape","$version":1,"id":7,"name":"a\n","tags":["a"]}"#.utf8)
/// archive.withUnsafeBufferPointer { bytes in
///     guard let base = bytes.baseAddress else { return }
///     var object = FlatJSONObject(text: JSONText(bytes: base, end: bytes.count), limits: .default, maxArrayDepth: 8)
///     var recent = RecentTypeName()
///     let stamp = object.readStamp(recentType: &recent)  // ("Shape", 1)
///     var fields: [JSONMemberSpan] = []
///     let flat = object.readFields(into: &fields)  // true
///     // id and tags have a verbatim end (copied); name's is -1 (escaped: written by the writer)
/// }
/// ```
///
/// (The test *the flat objects' pass reads the fields of its own example* runs this.)
package struct FlatJSONObject {
    let text: JSONText
    let maxStringLength: Int
    let maxCollectionCount: Int
    let maxValues: Int
    let maxArrayDepth: Int
    /// At the byte being read.
    var position = 0
    /// The values read, the object's and its arrays' included (the structural pass's count).
    var values = 1
    /// The object's entries, its markup included.
    var entries = 0
    /// Whether the text turned out not to be a flat object.
    private var failed = false
    /// How deep the deepest array is below the object (1: a field's value).
    package private(set) var deepest = 0

    /// A pass over `text` within `limits`, refusing arrays more than `maxArrayDepth` below the
    /// object.
    package init(text: JSONText, limits: ArchiveLimits, maxArrayDepth: Int) {
        self.text = text
        maxStringLength = limits.maxStringLength
        maxCollectionCount = limits.maxCollectionCount
        maxValues = limits.maxObjectCount
        self.maxArrayDepth = maxArrayDepth
        // Offsets of the structural pass are 32-bit; it refuses what it nests at `maxDepth - 2`.
        failed = text.end >= Int(Int32.max) || limits.maxDepth < 3
    }

    @inline(__always)
    private func has(_ literal: StaticString, at offset: Int) -> Bool {
        let length = literal.utf8CodeUnitCount
        return text.end &- offset >= length && memcmp(text.bytes + offset, literal.utf8Start, length) == 0
    }

    /// The string whose opening quote is at `quote` when it has no escapes (its UTF-8 checked):
    /// where it ends, after its closing quote; `nil` otherwise.
    @inline(__always)
    private func plainStringEnd(quote: Int) -> Int? {
        let (stop, bits) = text.scanString(from: quote &+ 1)
        guard stop < text.end, text.bytes[stop] == UInt8(ascii: "\""), stop &- quote &- 1 <= maxStringLength else {
            return nil
        }
        if bits & 0x8080_8080_8080_8080 != 0 {
            guard text.validatedStringEnd(from: quote, maxLength: maxStringLength) == stop &+ 1 else { return nil }
        }
        return stop &+ 1
    }

    /// Reads `{"$type":"…"` and, when it follows, `,"$version":N`: the type name and the version;
    /// `nil` when the text does not start so.
    package mutating func readStamp(recentType: inout RecentTypeName) -> (typeName: String, version: Int?)? {
        // `{"$type":"`: the name's quote is at 9.
        // The markup keys count against the longest string, as every key does.
        guard !failed, maxArrayDepth >= 0, maxStringLength >= 5, has(#"{"$type":""#, at: 0),
            let end = plainStringEnd(quote: 9), end > 11
        else { return fail() }
        let start = 10
        let length = end &- 1 &- start
        let typeName =
            recentType.name(spelledBy: text.bytes + start, length: length)
            ?? String(decoding: UnsafeBufferPointer(start: text.bytes + start, count: length), as: UTF8.self)
        position = end
        values &+= 1
        entries = 1
        guard has(#","$version":"#, at: position) else { return (typeName, nil) }
        guard maxStringLength >= 8 else { return fail() }
        position &+= 12
        let first = text.byte(at: position)
        guard first == UInt8(ascii: "-") || first &- UInt8(ascii: "0") < 10, let number = text.number(at: &position),
            case .int(let archived) = number, archived >= 0, let version = Int(exactly: archived)
        else { return fail() }
        values &+= 1
        entries = 2
        return (typeName, version)
    }

    /// Reads the fields after the stamp, appending each to `fields` (its ordinal -1), up to the
    /// closing brace and the whitespace after it; `false` when the text is not a flat object
    /// within the limits (some fields may have been appended).
    package mutating func readFields(into fields: inout [JSONMemberSpan]) -> Bool {
        guard !failed else { return false }
        while text.byte(at: position) == UInt8(ascii: ",") {
            // `"key":`, plain, not markup.
            let quote = position &+ 1
            guard text.byte(at: quote) == UInt8(ascii: "\""), text.byte(at: quote &+ 1) != UInt8(ascii: "$"),
                let keyEnd = plainStringEnd(quote: quote), keyEnd &- quote < 257,
                text.byte(at: keyEnd) == UInt8(ascii: ":")
            else { return false }
            let value = keyEnd &+ 1
            position = value
            let verbatimEnd: Int
            if text.byte(at: value) == UInt8(ascii: "[") {
                guard readArray(depth: 1) else { return false }
                verbatimEnd = position
            } else {
                guard let end = readScalar(inArray: false) else { return false }
                verbatimEnd = end
            }
            let next = text.byte(at: position)
            guard next == UInt8(ascii: ",") || next == UInt8(ascii: "}") else { return false }
            entries &+= 1
            fields.append(
                JSONMemberSpan(
                    keyStart: quote &+ 1, keyLength: keyEnd &- quote &- 2, value: value, ordinal: -1,
                    verbatimEnd: verbatimEnd))
        }
        return text.byte(at: position) == UInt8(ascii: "}") && entries <= maxCollectionCount && values <= maxValues
            && text.skipWhitespace(from: position &+ 1) == text.end
    }

    private mutating func fail<Result>() -> Result? {
        failed = true
        return nil
    }

    /// Reads the scalar at ``position`` and moves past it: where it ends when the writer spells
    /// it with its bytes, else -1; `nil` when it is invalid, or not spelled as the writer spells
    /// it inside an array (the structural walk writes those).
    @inline(__always)
    private mutating func readScalar(inArray: Bool) -> Int? {
        let start = position
        values &+= 1
        switch text.byte(at: start) {
        case UInt8(ascii: "\""):
            if let end = plainStringEnd(quote: start) {
                position = end
                return end
            }
            guard !inArray, let end = text.validatedStringEnd(from: start, maxLength: maxStringLength) else {
                return nil
            }
            position = end
            return -1
        case UInt8(ascii: "t"):
            guard has("true", at: start) else { return nil }
            position = start &+ 4
        case UInt8(ascii: "f"):
            guard has("false", at: start) else { return nil }
            position = start &+ 5
        case UInt8(ascii: "n"):
            guard has("null", at: start) else { return nil }
            position = start &+ 4
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if let end = text.verbatimNumberEnd(at: start) {
                position = end
                return end
            }
            guard !inArray, text.number(at: &position) != nil else { return nil }
            return -1
        default:
            return nil
        }
        return position
    }

    /// Reads the array at ``position``, `depth` below the object, whose elements are all spelled
    /// as the writer spells them, and moves past it; `false` when it is not such an array.
    private mutating func readArray(depth: Int) -> Bool {
        guard depth <= maxArrayDepth else { return false }
        deepest = Swift.max(deepest, depth)
        values &+= 1
        position &+= 1
        if text.byte(at: position) == UInt8(ascii: "]") {
            position &+= 1
            return true
        }
        var count = 0
        while true {
            if text.byte(at: position) == UInt8(ascii: "[") {
                guard readArray(depth: depth &+ 1) else { return false }
            } else {
                guard readScalar(inArray: true) != nil else { return false }
            }
            count &+= 1
            let next = text.byte(at: position)
            position &+= 1
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else { return false }
        }
        return count <= maxCollectionCount
    }
}

/// One member of an object in a JSON text, as the text rewrite writes it: its key's bytes
/// (without quotes), its value's first byte, the value's ordinal in the ``JSONStructure`` when it
/// is a container that structure numbers (else -1), and where the value ends when the writer
/// spells it with these very bytes, which are then copied (else -1: it is written through the
/// writer).
package struct JSONMemberSpan {
    package var keyStart: Int
    package var keyLength: Int
    package var value: Int
    package var ordinal: Int
    package var verbatimEnd: Int

    @inline(__always)
    package init(keyStart: Int, keyLength: Int, value: Int, ordinal: Int, verbatimEnd: Int = -1) {
        self.keyStart = keyStart
        self.keyLength = keyLength
        self.value = value
        self.ordinal = ordinal
        self.verbatimEnd = verbatimEnd
    }
}
