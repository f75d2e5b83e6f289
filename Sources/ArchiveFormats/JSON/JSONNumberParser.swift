/// Reads one JSON number (RFC 8259 grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`).
///
/// * An integer literal (no fraction, no exponent) becomes `ArchiveValue.int(_:)` when it fits
///   `Int64`, otherwise `ArchiveValue.uint(_:)` when it fits `UInt64`, otherwise a
///   `ArchiveValue.double(_:)` (correctly rounded, like every other double). `-0` is the
///   integer 0.
/// * Every other literal becomes a double equal to `Double(String)` of the same text. Literals
///   with at most 19 significant digits whose value is `m × 10^e` with `m ≤ 2^53` and `|e| ≤ 22`
///   (or slightly more, when `m × 10^(e−22)` stays an exact integer below 2^53) are computed
///   with one IEEE multiplication or division of two exactly representable doubles, which is
///   correctly rounded by construction (Clinger's fast path). Everything else goes through
///   `Double(String)`.
/// * A literal whose value overflows `Double` is an error ("number out of range"); one that
///   underflows reads as zero, as `Double(String)` does.
///
/// ```swift
/// // "1.5,": .value(.double(1.5), end: 3)
/// ```
///
/// Public as SPI, with the short form's reader `@inlinable`: the direct decoder in ModelVersioning
/// reads every number with it, and across modules a `package` member is a call.
@_spi(Coders) public enum JSONNumberParser: Sendable {
    /// What ``parse(_:from:end:)`` found.
    package enum Result {
        /// The number and the offset just after it.
        case value(ArchiveValue, end: Int)
        /// What is wrong and the offset of the offending byte.
        case failure(String, offset: Int)
    }

    /// 10^0 … 10^22, all exactly representable as doubles.
    /// 10^`exponent` for 0 … 22 (``doublePowers`` without the array: read in inlined code, the
    /// array is a call to its lazy initializer first).
    @inlinable @inline(__always)
    static func exactPowerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        case 22: 1e22
        default: .nan
        }
    }

    private static let doublePowers: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
        1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// 10^0 … 10^15 as integers.
    private static let integerPowers: [UInt64] = [
        1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000,
    ]

    /// The largest integer below which every integer is exactly a double.
    private static let exactDoubleLimit: UInt64 = 1 << 53

    @usableFromInline @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// A number of the short form ``parseShort(_:at:end:)`` reads: its digits as one integer,
    /// how many of them follow the point, and its sign.
    @usableFromInline package struct ShortNumber: Sendable {
        @usableFromInline var mantissa: UInt64
        @usableFromInline package var fractionDigits: Int
        @usableFromInline var negative: Bool

        @inlinable @inline(__always)
        init(mantissa: UInt64, fractionDigits: Int, negative: Bool) {
            self.mantissa = mantissa
            self.fractionDigits = fractionDigits
            self.negative = negative
        }

        /// The value ``parse(_:from:end:)`` reads: an integer without a fraction (`-0` is 0),
        /// a double with one.
        @inlinable @inline(__always)
        package var value: ArchiveValue {
            fractionDigits == 0 ? .int(integer) : .double(double)
        }

        /// The integer, when there is no fraction.
        @inlinable @inline(__always)
        package var integer: Int64 {
            let magnitude = Int64(truncatingIfNeeded: mantissa)
            return negative ? 0 &- magnitude : magnitude
        }

        /// The number as ``ArchiveValue/numberAsDouble`` gives ``value``: the integer rounded
        /// (here exact), or the fraction correctly rounded (`-0.0` keeps its sign).
        @inlinable @inline(__always)
        package var double: Double {
            guard fractionDigits > 0 else { return Double(integer) }
            let magnitude = Double(mantissa) / JSONNumberParser.exactPowerOfTen(fractionDigits)
            return negative ? -magnitude : magnitude
        }
    }

    /// Reads the number at `position` (a `-` or a digit) when it is short and plain: at most 15
    /// digits in all, an optional fraction, no exponent. Returns `nil`, leaving `position`
    /// alone, for anything else, which ``parse(_:from:end:)`` then reads.
    ///
    /// The result is what ``parse(_:from:end:)`` returns for the same text: a mantissa below
    /// 10^15 is exact in a double, and dividing it by an exact power of ten is correctly
    /// rounded.
    @inline(__always)
    static func parseShort(_ bytes: UnsafePointer<UInt8>, at position: inout Int, end: Int) -> ArchiveValue? {
        readShort(bytes, at: &position, end: end)?.value
    }

    /// ``parseShort(_:at:end:)``'s number before it becomes a value, for readers that want a
    /// `Double` or an integer straight away.
    @inlinable @inline(__always)
    package static func readShort(_ bytes: UnsafePointer<UInt8>, at position: inout Int, end: Int) -> ShortNumber? {
        // A short number and the byte after it span at most 18 bytes (sign, 15 digits, point,
        // next byte); closer to the end of the input the general reader takes over.
        guard end &- position >= 18 else { return nil }
        var cursor = position
        let negative = bytes[cursor] == UInt8(ascii: "-")
        if negative { cursor &+= 1 }
        let integerStart = cursor
        var digit = bytes[cursor] &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        var mantissa = UInt64(digit)
        cursor &+= 1
        var current = bytes[cursor]
        if mantissa != 0 {
            while true {
                digit = current &- UInt8(ascii: "0")
                guard digit < 10, cursor &- integerStart < 15 else { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                cursor &+= 1
                current = bytes[cursor]
            }
        }
        var fractionDigits = 0
        if current == UInt8(ascii: ".") {
            cursor &+= 1
            let fractionStart = cursor
            // At most 15 digits in all: the integer digits, the point and the fraction digits
            // span at most 16 bytes.
            while true {
                current = bytes[cursor]
                digit = current &- UInt8(ascii: "0")
                guard digit < 10, cursor &- integerStart < 16 else { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                cursor &+= 1
            }
            fractionDigits = cursor &- fractionStart
            guard fractionDigits > 0 else { return nil }
        }
        // A digit here means too many digits (or a leading zero); an exponent is not short.
        guard !isDigit(current), current != UInt8(ascii: "."), current | 0x20 != UInt8(ascii: "e") else {
            return nil
        }
        position = cursor
        return ShortNumber(mantissa: mantissa, fractionDigits: fractionDigits, negative: negative)
    }

    /// Reads the number that starts at `start` (a `-` or a digit). Bytes at `end` and beyond are
    /// never read.
    package static func parse(_ bytes: UnsafePointer<UInt8>, from start: Int, end: Int) -> Result {
        @inline(__always) func byte(_ offset: Int) -> UInt8 {
            offset < end ? bytes[offset] : 0
        }
        var position = start
        let negative = byte(position) == UInt8(ascii: "-")
        if negative { position &+= 1 }

        // Up to 19 significant digits go into `mantissa`; `exponent` scales it.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var droppedDigits = false
        var exponent = 0

        let integerStart = position
        var current = byte(position)
        if current == UInt8(ascii: "0") {
            position &+= 1
            if isDigit(byte(position)) {
                return .failure("numbers cannot have leading zeros", offset: integerStart)
            }
        } else if isDigit(current) {
            repeat {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(current &- UInt8(ascii: "0"))
                    significantDigits &+= 1
                } else {
                    droppedDigits = true
                    exponent &+= 1
                }
                position &+= 1
                current = byte(position)
            } while isDigit(current)
        } else {
            return .failure(negative ? "expected a digit after '-'" : "expected a number", offset: position)
        }
        let integerEnd = position

        var isInteger = true
        if byte(position) == UInt8(ascii: ".") {
            isInteger = false
            position &+= 1
            current = byte(position)
            guard isDigit(current) else {
                return .failure("expected a digit after the decimal point", offset: position)
            }
            repeat {
                if significantDigits < 19 {
                    if mantissa != 0 || current != UInt8(ascii: "0") {
                        mantissa = mantissa &* 10 &+ UInt64(current &- UInt8(ascii: "0"))
                        significantDigits &+= 1
                    }
                    exponent &-= 1
                } else {
                    droppedDigits = true
                }
                position &+= 1
                current = byte(position)
            } while isDigit(current)
        }

        current = byte(position)
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position &+= 1
            current = byte(position)
            var exponentNegative = false
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
                exponentNegative = current == UInt8(ascii: "-")
                position &+= 1
                current = byte(position)
            }
            guard isDigit(current) else {
                return .failure("expected a digit in the exponent", offset: position)
            }
            var written = 0
            repeat {
                // Saturates far beyond any double's range; the exact value no longer matters.
                if written < 100_000_000 {
                    written = written &* 10 &+ Int(current &- UInt8(ascii: "0"))
                }
                position &+= 1
                current = byte(position)
            } while isDigit(current)
            exponent = exponentNegative ? exponent &- written : exponent &+ written
        }

        if isInteger {
            if let magnitude = integerMagnitude(bytes, from: integerStart, to: integerEnd, mantissa: mantissa) {
                if negative {
                    if magnitude <= UInt64(1) << 63 {
                        return .value(.int(Int64(bitPattern: 0 &- magnitude)), end: position)
                    }
                } else {
                    return .value(ArchiveValue(magnitude), end: position)
                }
            }
        } else if !droppedDigits && mantissa <= exactDoubleLimit {
            var value: Double?
            if exponent >= 0 && exponent <= 22 {
                value = Double(mantissa) * doublePowers[exponent]
            } else if exponent < 0 && exponent >= -22 {
                value = Double(mantissa) / doublePowers[-exponent]
            } else if exponent > 22 && exponent <= 22 + 15 {
                let (scaled, overflow) = mantissa.multipliedReportingOverflow(by: integerPowers[exponent &- 22])
                if !overflow && scaled <= exactDoubleLimit {
                    value = Double(scaled) * doublePowers[22]
                }
            }
            if let value {
                return .value(.double(negative ? -value : value), end: position)
            }
        }

        // Slow path: the standard library's correctly rounded conversion of the same text.
        let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: position &- start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            return .failure("number out of range", offset: start)
        }
        return .value(.double(value), end: position)
    }

    /// The exact value of the digits `start..<end` (no leading zeros) when it fits `UInt64`.
    private static func integerMagnitude(
        _ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int, mantissa: UInt64
    ) -> UInt64? {
        let digits = end &- start
        if digits <= 19 { return mantissa }
        if digits > 20 { return nil }
        var value: UInt64 = 0
        for offset in start..<end {
            let (scaled, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = scaled.addingReportingOverflow(UInt64(bytes[offset] &- UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }
}
