import Foundation

extension ArchiveValue {
    /// The bytes a ``WayDown``'s digest is computed over: one spelling per value, whatever format
    /// the archive was read from, so that converting an archive (JSON, property lists, keyed
    /// archives) keeps its digest.
    ///
    /// Each value is a tag byte followed by its payload; numbers and lengths are 8 bytes,
    /// big-endian:
    ///
    /// | value | bytes |
    /// |---|---|
    /// | null, false, true | `00`, `01`, `02` |
    /// | integer that fits `Int64` | `03`, two's complement |
    /// | integer above `Int64.max` | `04`, unsigned |
    /// | double | `05`, its IEEE 754 bits |
    /// | string | `06`, UTF-8 length, UTF-8 bytes |
    /// | data | `07`, length, bytes |
    /// | date | `08`, the IEEE 754 bits of its seconds since 2001-01-01 |
    /// | array | `09`, count, each element |
    /// | dictionary | `0A`, count, then each key (as a string) and value, keys sorted by their UTF-8 bytes |
    /// | object | `0B`, type name (string), version and identity (`00` when absent, else an integer), superclass names (array), fields (dictionary) |
    /// | reference | `0C`, identity |
    ///
    /// The caller bounds the nesting (the value is checked against ``ArchiveLimits`` first).
    func appendCanonicalBytes(to bytes: inout CanonicalBytes) {
        func number(_ value: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        func text(_ string: String) {
            bytes.append(0x06)
            number(UInt64(string.utf8.count))
            bytes.append(contentsOf: string.utf8)
        }
        func optionalInteger(_ value: Int?) {
            guard let value else {
                bytes.append(0x00)
                return
            }
            bytes.append(0x03)
            number(UInt64(bitPattern: Int64(value)))
        }
        func entries(_ dictionary: ArchiveDictionary) {
            bytes.append(0x0A)
            number(UInt64(dictionary.count))
            let sorted = dictionary.entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for entry in sorted {
                text(entry.key)
                entry.value.appendCanonicalBytes(to: &bytes)
            }
        }
        switch self {
        case .null:
            bytes.append(0x00)
        case .bool(let flag):
            bytes.append(flag ? 0x02 : 0x01)
        case .int(let integer):
            bytes.append(0x03)
            number(UInt64(bitPattern: integer))
        case .uint(let integer):
            if let small = Int64(exactly: integer) {
                bytes.append(0x03)
                number(UInt64(bitPattern: small))
            } else {
                bytes.append(0x04)
                number(integer)
            }
        case .double(let double):
            bytes.append(0x05)
            number(double.bitPattern)
        case .string(let string):
            text(string)
        case .data(let data):
            bytes.append(0x07)
            number(UInt64(data.count))
            bytes.append(contentsOf: data)
        case .date(let date):
            bytes.append(0x08)
            number(date.timeIntervalSinceReferenceDate.bitPattern)
        case .array(let elements):
            bytes.append(0x09)
            number(UInt64(elements.count))
            for element in elements { element.appendCanonicalBytes(to: &bytes) }
        case .dictionary(let dictionary):
            entries(dictionary)
        case .object(let object):
            bytes.append(0x0B)
            text(object.typeName)
            optionalInteger(object.version)
            optionalInteger(object.id?.rawValue)
            ArchiveValue.array(object.superclassNames.map { .string($0) }).appendCanonicalBytes(to: &bytes)
            entries(object.fields)
        case .reference(let id):
            bytes.append(0x0C)
            number(UInt64(bitPattern: Int64(id.rawValue)))
        }
    }
}

/// Where canonical bytes go: a buffer that hands its bytes to a running SHA-256 whenever it holds
/// a few kilobytes, so that a way down's digest takes memory of that size, not of the way down's.
struct CanonicalBytes {
    private var buffer: [UInt8] = []
    private var hash = SHA256()
    private static let flushSize = 8_192

    init() {
        buffer.reserveCapacity(Self.flushSize + 64)
    }

    mutating func append(_ byte: UInt8) {
        buffer.append(byte)
        if buffer.count >= Self.flushSize { flush() }
    }

    mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushSize { flush() }
    }

    /// The hexadecimal SHA-256 of every byte appended.
    mutating func hexDigest() -> String {
        flush()
        return SHA256.hexadecimal(hash.finalize())
    }

    private mutating func flush() {
        hash.update(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
