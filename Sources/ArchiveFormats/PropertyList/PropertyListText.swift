import Foundation

/// Strict text decoding shared by the property-list readers: UTF-8 validation, UTF-16 decoding
/// and the transcoding of UTF-16 documents to UTF-8.
///
/// Nothing here repairs text: an invalid sequence is `nil` and the reader reports it.
enum PropertyListText {
    /// `bytes` as a string when they are valid UTF-8 (no overlong forms, no surrogates).
    static func utf8String(_ bytes: ArraySlice<UInt8>) -> String? {
        guard isValidUTF8(bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` are valid UTF-8; pure ASCII takes a fast path.
    static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let firstNonASCII = bytes.firstIndex(where: { $0 >= 0x80 }) else { return true }
        var iterator = bytes[firstNonASCII...].makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// The byte offset (relative to `bytes.startIndex`) of the first invalid UTF-8 sequence, or
    /// `nil` when all of `bytes` is valid.
    static func firstInvalidUTF8Offset(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard let firstNonASCII = bytes.firstIndex(where: { $0 >= 0x80 }) else { return nil }
        var position = firstNonASCII
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes[firstNonASCII...].makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                position += encoded.count
            case .emptyInput:
                return nil
            case .error:
                return position - bytes.startIndex
            }
        }
    }

    /// Decodes UTF-16 code units, rejecting lone surrogates.
    static func utf16String<C: Collection>(_ units: C) -> String? where C.Element == UInt16 {
        var expectsLow = false
        for unit in units {
            if UTF16.isLeadSurrogate(unit) {
                if expectsLow { return nil }
                expectsLow = true
            } else if UTF16.isTrailSurrogate(unit) {
                if !expectsLow { return nil }
                expectsLow = false
            } else if expectsLow {
                return nil
            }
        }
        if expectsLow { return nil }
        return String(decoding: units, as: UTF16.self)
    }

    /// The byte order of a UTF-16 document, recognised by its byte-order mark or by an ASCII
    /// character in one byte of the first code unit (`<` or `{` followed or preceded by 0).
    enum UTF16Order {
        case bigEndian, littleEndian
    }

    /// How `bytes` (a text property list) is encoded: `nil` for an 8-bit encoding, or the UTF-16
    /// byte order and the length of its byte-order mark.
    static func utf16Order<Bytes: RandomAccessCollection<UInt8>>(of bytes: Bytes) -> (
        order: UTF16Order, bomLength: Int
    )? where Bytes.Index == Int {
        guard bytes.count >= 2 else { return nil }
        switch (bytes[bytes.startIndex], bytes[bytes.startIndex + 1]) {
        case (0xFE, 0xFF): return (.bigEndian, 2)
        case (0xFF, 0xFE): return (.littleEndian, 2)
        case (0x00, let second) where second != 0 && second < 0x80: return (.bigEndian, 0)
        case (let first, 0x00) where first != 0 && first < 0x80: return (.littleEndian, 0)
        default: return nil
        }
    }

    /// Transcodes a UTF-16 document to UTF-8.
    ///
    /// - Returns: The UTF-8 bytes, or the byte offset of the first invalid code unit (an odd
    ///   length, a lone surrogate).
    static func transcodeUTF16(_ bytes: [UInt8], order: UTF16Order, from start: Int) -> Result<[UInt8], InvalidOffset> {
        let byteCount = bytes.count - start
        guard byteCount % 2 == 0 else { return .failure(InvalidOffset(bytes.count - 1)) }
        var output: [UInt8] = []
        output.reserveCapacity(byteCount / 2 + byteCount / 8)
        var position = start
        func unit(at index: Int) -> UInt16 {
            order == .bigEndian
                ? UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
                : UInt16(bytes[index + 1]) << 8 | UInt16(bytes[index])
        }
        while position < bytes.count {
            let first = unit(at: position)
            var scalarValue = UInt32(first)
            if UTF16.isLeadSurrogate(first) {
                guard position + 3 < bytes.count else { return .failure(InvalidOffset(position)) }
                let second = unit(at: position + 2)
                guard UTF16.isTrailSurrogate(second) else { return .failure(InvalidOffset(position)) }
                scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
                position += 4
            } else if UTF16.isTrailSurrogate(first) {
                return .failure(InvalidOffset(position))
            } else {
                position += 2
            }
            appendUTF8(scalarValue, to: &output)
        }
        return .success(output)
    }

    /// Appends the UTF-8 form of a Unicode scalar value (the caller checked that it is one).
    @inline(__always)
    static func appendUTF8(_ value: UInt32, to output: inout [UInt8]) {
        switch value {
        case ..<0x80:
            output.append(UInt8(truncatingIfNeeded: value))
        case ..<0x800:
            output.append(0xC0 | UInt8(truncatingIfNeeded: value >> 6))
            output.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        case ..<0x1_0000:
            output.append(0xE0 | UInt8(truncatingIfNeeded: value >> 12))
            output.append(0x80 | UInt8(truncatingIfNeeded: (value >> 6) & 0x3F))
            output.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        default:
            output.append(0xF0 | UInt8(truncatingIfNeeded: value >> 18))
            output.append(0x80 | UInt8(truncatingIfNeeded: (value >> 12) & 0x3F))
            output.append(0x80 | UInt8(truncatingIfNeeded: (value >> 6) & 0x3F))
            output.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        }
    }

    /// The byte offset of invalid input.
    struct InvalidOffset: Error {
        var offset: Int
        init(_ offset: Int) { self.offset = offset }
    }

}
