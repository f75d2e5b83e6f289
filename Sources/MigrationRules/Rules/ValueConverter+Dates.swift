import Foundation

extension ValueConverter {
    /// How a date was stored before it became an ``ArchiveValue/date(_:)``.
    ///
    /// ```swift
    /// .date(format: .iso8601)                 // "2026-11-30T05:14:25Z" → date
    /// .date(format: .millisecondsSince1970)   // 1764479665000 → date
    /// .date(format: .pattern("yyyy-MM-dd"))   // "2026-11-30" → date (midnight UTC)
    /// ```
    public enum DateFormat: Sendable, Hashable, CustomStringConvertible {
        /// ISO 8601 text (`2026-11-30T05:14:25Z`, fractions and offsets allowed when reading),
        /// read and written exactly, whatever the locale.
        case iso8601
        /// A number of seconds since 1970-01-01T00:00:00Z (Unix time).
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z (JavaScript's `Date.now()`).
        case millisecondsSince1970
        /// A number of seconds since 2001-01-01T00:00:00Z (Foundation's reference date,
        /// `NSDate` in keyed archives).
        case secondsSinceReferenceDate
        /// Text of a fixed pattern, always in UTC and independent of any locale.
        ///
        /// The pattern is made of the fields `yyyy` (year), `MM` (month), `dd` (day), `HH` (hour,
        /// 00–23), `mm` (minute), `ss` (second) and `SSS` (milliseconds), each exactly that many
        /// digits, and literal text: any character that is not an ASCII letter, or any text in
        /// single quotes (`yyyy-MM-dd'T'HH:mm`; `''` is a quote). Fields the pattern lacks read as
        /// the start of their range (month and day 1, time 00:00:00) and are dropped when writing.
        case pattern(String)

        /// `iso8601`, `secondsSince1970`, …, `pattern(yyyy-MM-dd)`.
        public var description: String {
            switch self {
            case .iso8601: return "iso8601"
            case .secondsSince1970: return "secondsSince1970"
            case .millisecondsSince1970: return "millisecondsSince1970"
            case .secondsSinceReferenceDate: return "secondsSinceReferenceDate"
            case .pattern(let pattern): return "pattern(\(pattern))"
            }
        }

        /// Checks a ``pattern(_:)`` format (the other formats are always valid).
        ///
        /// - Throws: ``ArchiveError`` (``ArchiveError/Code/migrationFailed``) naming the first
        ///   unsupported letter run or the unterminated quote.
        public func validate() throws {
            if case .pattern(let pattern) = self {
                _ = try DatePattern(pattern)
            }
        }
    }

    /// Reads dates stored as `format` into ``ArchiveValue/date(_:)`` values.
    ///
    /// Text formats take strings; numeric formats take integers or doubles. The inverse is
    /// ``dateToString(format:)``.
    ///
    /// ```swift
    /// MigrationRule.convert("created", .date(format: .secondsSince1970))
    /// ```
    ///
    /// Text that is not a valid date of the format (`"2026-02-30"`, `"yesterday"`) is an error.
    public static func date(format: DateFormat) -> ValueConverter {
        let reader = DateCoding(format)
        return ValueConverter(
            name: "date(\(format))", inverseName: "dateToString(\(format))", spelling: .date(format),
            inverseSpelling: .dateToString(format),
            forward: { value in try reader.date(from: value) }, inverse: { value in try reader.encode(value) })
    }

    /// Writes ``ArchiveValue/date(_:)`` values in `format`: text for ``DateFormat/iso8601`` and
    /// ``DateFormat/pattern(_:)``, a number for the numeric formats (an integer when the date
    /// falls on a whole second, or millisecond for ``DateFormat/millisecondsSince1970``).
    ///
    /// ISO 8601 text uses the fewest fraction digits (0, 3, 6 or 9) that read back to the same
    /// date. The inverse is ``date(format:)``.
    public static func dateToString(format: DateFormat) -> ValueConverter {
        let writer = DateCoding(format)
        return ValueConverter(
            name: "dateToString(\(format))", inverseName: "date(\(format))", spelling: .dateToString(format),
            inverseSpelling: .date(format),
            forward: { value in try writer.encode(value) }, inverse: { value in try writer.date(from: value) })
    }
}

/// Reads and writes dates in one ``ValueConverter/DateFormat``: for the date converters, and for
/// the dates of plain documents (``DocumentConventions``).
struct DateCoding: Sendable {
    /// Seconds from 1970-01-01 to 2001-01-01.
    static let referenceOffset = 978_307_200.0

    let format: ValueConverter.DateFormat
    /// The parsed pattern, or the error a bad pattern reports on use.
    let pattern: Result<DatePattern, ArchiveError>?

    init(_ format: ValueConverter.DateFormat) {
        self.format = format
        if case .pattern(let text) = format {
            pattern = Result { () throws(ArchiveError) in try DatePattern(text) }
        } else {
            pattern = nil
        }
    }

    /// Whether the format is text (ISO 8601, a pattern) rather than a number.
    var isText: Bool {
        switch format {
        case .iso8601, .pattern: return true
        case .secondsSince1970, .millisecondsSince1970, .secondsSinceReferenceDate: return false
        }
    }

    /// What a date of the format is, for messages: `a string`, `a number`.
    var expectedKind: String { isText ? "a string" : "a number" }

    /// Whether `value` is of the kind the format spells dates with (a string or a number).
    func accepts(_ value: ArchiveValue) -> Bool {
        switch value {
        case .string: return isText
        case .int, .uint, .double: return !isText
        default: return false
        }
    }

    func date(from value: ArchiveValue) throws -> ArchiveValue {
        switch format {
        case .iso8601:
            guard case .string(let text) = value else { throw ValueConverter.kindError(value, expected: "a string") }
            guard let date = ISO8601Date.date(from: text) else {
                throw ValueConverter.valueError(value, "not an ISO 8601 date")
            }
            return .date(date)
        case .pattern:
            guard case .string(let text) = value else { throw ValueConverter.kindError(value, expected: "a string") }
            return .date(try compiledPattern().date(from: text, value: value))
        case .secondsSince1970, .millisecondsSince1970, .secondsSinceReferenceDate:
            guard let number = value.doubleValue ?? Self.approximate(value) else {
                throw ValueConverter.kindError(value, expected: "a number")
            }
            guard number.isFinite else { throw ValueConverter.valueError(value, "not a finite number") }
            switch format {
            case .secondsSince1970: return .date(Date(timeIntervalSinceReferenceDate: number - Self.referenceOffset))
            case .millisecondsSince1970:
                return .date(Date(timeIntervalSinceReferenceDate: number / 1000 - Self.referenceOffset))
            default: return .date(Date(timeIntervalSinceReferenceDate: number))
            }
        }
    }

    func encode(_ value: ArchiveValue) throws -> ArchiveValue {
        guard case .date(let date) = value else { throw ValueConverter.kindError(value, expected: "a date") }
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite else { throw ValueConverter.valueError(value, "not a finite date") }
        switch format {
        case .iso8601:
            guard let text = ISO8601Date.exactString(from: date) ?? ISO8601Date.string(from: date, fractionDigits: 9)
            else {
                throw ValueConverter.valueError(value, "ISO 8601 text holds the years 1 to 9999 only")
            }
            return .string(text)
        case .pattern:
            return .string(try compiledPattern().string(from: date, value: value))
        case .secondsSince1970:
            return Self.number(interval + Self.referenceOffset, snap: 1e-6)
        case .millisecondsSince1970:
            return Self.number((interval + Self.referenceOffset) * 1000, snap: 1e-3)
        case .secondsSinceReferenceDate:
            return Self.number(interval, snap: 0)
        }
    }

    private func compiledPattern() throws -> DatePattern {
        switch pattern {
        case .success(let compiled): return compiled
        case .failure(let error): throw error
        case nil: throw ArchiveError(.migrationFailed, "\(format) is not a pattern")
        }
    }

    /// Unsigned integers beyond `Double`'s exact range still name a (far) date.
    private static func approximate(_ value: ArchiveValue) -> Double? {
        switch value {
        case .int(let number): return Double(number)
        case .uint(let number): return Double(number)
        default: return nil
        }
    }

    /// An integer when `number` is within `snap` of one (floating error of the conversion), else
    /// the double.
    private static func number(_ number: Double, snap: Double) -> ArchiveValue {
        let whole = number.rounded()
        if abs(number - whole) <= snap, let integer = Int64(exactly: whole) {
            return .int(integer)
        }
        return .double(number)
    }
}

/// A parsed fixed date pattern (`yyyy-MM-dd'T'HH:mm`), read and written through ISO 8601 text
/// so that calendar arithmetic lives in one place (``ISO8601Date``).
struct DatePattern: Sendable {
    enum Field: Int, Sendable {
        case year, month, day, hour, minute, second, millisecond

        var width: Int {
            switch self {
            case .year: return 4
            case .millisecond: return 3
            default: return 2
            }
        }

        /// Where the field sits in `YYYY-MM-DDTHH:MM:SS.sssZ`.
        var isoOffset: Int {
            switch self {
            case .year: return 0
            case .month: return 5
            case .day: return 8
            case .hour: return 11
            case .minute: return 14
            case .second: return 17
            case .millisecond: return 20
            }
        }
    }

    enum Token: Sendable {
        case field(Field)
        case literal([UInt8])
    }

    let text: String
    let tokens: [Token]

    /// Parses a pattern.
    ///
    /// - Throws: ``ArchiveError`` (``ArchiveError/Code/migrationFailed``) for letters that are no
    ///   supported field or an unterminated quote.
    init(_ text: String) throws(ArchiveError) {
        self.text = text
        let bytes = Array(text.utf8)
        var tokens: [Token] = []
        var literal: [UInt8] = []
        var index = 0
        func flush() {
            if !literal.isEmpty {
                tokens.append(.literal(literal))
                literal = []
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "'") {
                    literal.append(byte)
                    index += 1
                    continue
                }
                guard let end = bytes[index...].firstIndex(of: UInt8(ascii: "'")) else {
                    throw ArchiveError(.migrationFailed, "date pattern '\(text)' has an unterminated quote")
                }
                literal.append(contentsOf: bytes[index..<end])
                index = end + 1
            } else if Self.isLetter(byte) {
                var end = index
                while end < bytes.count, bytes[end] == byte { end += 1 }
                let run = String(decoding: bytes[index..<end], as: UTF8.self)
                guard let field = Self.fields[run] else {
                    throw ArchiveError(
                        .migrationFailed,
                        "date pattern '\(text)' has '\(run)'; the fields are yyyy, MM, dd, HH, mm, ss and SSS, and "
                            + "literal letters go in single quotes")
                }
                flush()
                tokens.append(.field(field))
                index = end
            } else {
                literal.append(byte)
                index += 1
            }
        }
        flush()
        self.tokens = tokens
    }

    private static let fields: [String: Field] = [
        "yyyy": .year, "MM": .month, "dd": .day, "HH": .hour, "mm": .minute, "ss": .second, "SSS": .millisecond,
    ]

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    func date(from string: String, value: ArchiveValue) throws -> Date {
        let bytes = Array(string.utf8)
        // YYYY-MM-DDTHH:MM:SS.sssZ with the defaults for fields the pattern lacks.
        var iso = Array("0001-01-01T00:00:00.000Z".utf8)
        var index = 0
        let mismatch = ValueConverter.valueError(value, "it does not match the pattern '\(text)'")
        for token in tokens {
            switch token {
            case .literal(let literal):
                guard bytes.count - index >= literal.count, bytes[index..<index + literal.count].elementsEqual(literal)
                else {
                    throw mismatch
                }
                index += literal.count
            case .field(let field):
                let width = field.width
                guard bytes.count - index >= width else { throw mismatch }
                for offset in 0..<width {
                    let digit = bytes[index + offset]
                    guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { throw mismatch }
                    iso[field.isoOffset + offset] = digit
                }
                index += width
            }
        }
        guard index == bytes.count, let date = ISO8601Date.date(from: String(decoding: iso, as: UTF8.self)) else {
            throw index == bytes.count ? ValueConverter.valueError(value, "not a valid date") : mismatch
        }
        return date
    }

    func string(from date: Date, value: ArchiveValue) throws -> String {
        guard let iso = ISO8601Date.string(from: date, fractionDigits: 3).map({ Array($0.utf8) }), iso.count == 24
        else {
            throw ValueConverter.valueError(value, "the pattern '\(text)' holds the years 1 to 9999 only")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for token in tokens {
            switch token {
            case .literal(let literal): bytes.append(contentsOf: literal)
            case .field(let field): bytes.append(contentsOf: iso[field.isoOffset..<field.isoOffset + field.width])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
