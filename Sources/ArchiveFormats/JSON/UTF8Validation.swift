/// Strict UTF-8 validation (Unicode 15, table 3-7): rejects overlong forms, encoded surrogates
/// (`ED A0…BF`), scalars above U+10FFFF, stray continuation bytes and truncated sequences.
///
/// ```swift
/// let bytes: [UInt8] = [0x41, 0xC0, 0xAF]          // "A" and an overlong "/"
/// bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: $0) }   // 1
/// ```
///
/// Readers call it on the raw bytes of a string before building a `String`, because the
/// standard library's `String(decoding:as:)` would silently repair invalid input.
enum UTF8Validation {
    /// The offset of the first byte of the first ill-formed sequence in `bytes`, or `nil` when
    /// every byte belongs to a well-formed sequence.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = 0
        while index < count {
            // Runs of ASCII eight bytes at a time.
            if count &- index >= 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    index &+= 8
                    continue
                }
            }
            let lead = base[index]
            if lead < 0x80 {
                index &+= 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF:
                length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF:
                length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3:
                length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default:
                return index
            }
            guard count &- index >= length else { return index }
            let second = base[index &+ 1]
            guard second >= low, second <= high else { return index }
            if length >= 3 {
                guard base[index &+ 2] & 0xC0 == 0x80 else { return index }
                if length == 4 {
                    guard base[index &+ 3] & 0xC0 == 0x80 else { return index }
                }
            }
            index &+= length
        }
        return nil
    }
}
