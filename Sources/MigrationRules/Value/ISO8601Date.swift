import Foundation

/// ISO 8601 date-times (`2026-11-30T05:14:25Z`, `2017-02-23T06:15:58.684097Z`,
/// `1976-04-01T12:00:00+02:00`) read and written without `DateFormatter`: exact, locale-free,
/// thread-safe and valid for every year from 1 to 9999 in the proleptic Gregorian calendar.
///
/// ```swift
/// let date = ISO8601Date.date(from: "0001-01-01T00:00:00Z")
/// let text = ISO8601Date.string(from: Date(), fractionDigits: 3)   // "2026-11-30T05:14:25.120Z"
/// ```
package enum ISO8601Date {
    private static let secondsPerDay: Int64 = 86_400
    /// Days from 0000-03-01 (the civil-from-days epoch) to 2001-01-01.
    private static let daysToReferenceDate: Int64 = 730_791

    /// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fraction]]` and `Z` or `±HH:MM`
    /// (a missing zone means UTC). Returns `nil` for anything else, including impossible dates.
    package static func date(from text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take(UInt8(ascii: "-")), let month = scanner.digits(2),
            scanner.take(UInt8(ascii: "-")), let day = scanner.digits(2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), year >= 1
        else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        var fraction = 0.0
        var offsetSeconds = 0
        if scanner.take(UInt8(ascii: "T")) || scanner.take(UInt8(ascii: "t")) || scanner.take(UInt8(ascii: " ")) {
            guard let h = scanner.digits(2), scanner.take(UInt8(ascii: ":")), let m = scanner.digits(2),
                h < 24, m < 60
            else { return nil }
            hour = h
            minute = m
            if scanner.take(UInt8(ascii: ":")) {
                guard let s = scanner.digits(2), s < 61 else { return nil }
                second = s
                if scanner.take(UInt8(ascii: ".")) || scanner.take(UInt8(ascii: ",")) {
                    guard let value = scanner.fraction() else { return nil }
                    fraction = value
                }
            }
            if scanner.take(UInt8(ascii: "Z")) || scanner.take(UInt8(ascii: "z")) {
                offsetSeconds = 0
            } else if let sign = scanner.sign() {
                guard let oh = scanner.digits(2), oh < 24 else { return nil }
                _ = scanner.take(UInt8(ascii: ":"))
                guard let om = scanner.digits(2), om < 60 else { return nil }
                offsetSeconds = sign * (oh * 3600 + om * 60)
            }
        }
        guard scanner.isAtEnd else { return nil }
        let days = daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day)) - daysToReferenceDate
        let whole = days * secondsPerDay + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return Date(timeIntervalSinceReferenceDate: Double(whole) + fraction)
    }

    /// Formats `date` in UTC with `fractionDigits` digits after the seconds (0 to 9).
    ///
    /// Returns `nil` for dates outside the years 1 to 9999 or non-finite dates.
    package static func string(from date: Date, fractionDigits: Int = 0) -> String? {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 4e11 else { return nil }
        let digits = max(0, min(9, fractionDigits))
        let scale = pow(10, Double(digits))
        var whole = Int64(interval.rounded(.down))
        var fractionUnits = Int64(((interval - Double(whole)) * scale).rounded())
        if Double(fractionUnits) >= scale {
            whole += 1
            fractionUnits = 0
        }
        var days = whole / secondsPerDay
        var secondsOfDay = whole % secondsPerDay
        if secondsOfDay < 0 {
            secondsOfDay += secondsPerDay
            days -= 1
        }
        let (year, month, day) = civilFromDays(days + daysToReferenceDate)
        guard (1...9999).contains(year) else { return nil }
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondsOfDay / 3600, 2) + ":" + pad(secondsOfDay / 60 % 60, 2) + ":" + pad(secondsOfDay % 60, 2)
        if digits > 0 {
            text += "." + pad(fractionUnits, digits)
        }
        return text + "Z"
    }

    /// The shortest of the 0-, 3-, 6- and 9-digit forms that reads back to exactly `date`, or
    /// `nil` when none does (then keep the number of seconds instead).
    package static func exactString(from date: Date) -> String? {
        for digits in [0, 3, 6, 9] {
            if let text = string(from: date, fractionDigits: digits), let parsed = self.date(from: text),
                parsed.timeIntervalSinceReferenceDate == date.timeIntervalSinceReferenceDate
            {
                return text
            }
        }
        return nil
    }

    private static func pad<I: BinaryInteger>(_ value: I, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 0000-03-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra
    }

    private static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { position == bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func sign() -> Int? {
            if take(UInt8(ascii: "+")) { return 1 }
            if take(UInt8(ascii: "-")) { return -1 }
            return nil
        }

        mutating func digits(_ count: Int) -> Int? {
            guard position + count <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<count {
                let byte = bytes[position + offset]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            position += count
            return value
        }

        /// Up to 9 significant digits of a decimal fraction (more digits are read and dropped).
        mutating func fraction() -> Double? {
            var units: Int64 = 0
            var count = 0
            let start = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                if count < 9 {
                    units = units * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
                    count += 1
                }
                position += 1
            }
            guard position > start else { return nil }
            return Double(units) / pow(10, Double(count))
        }
    }
}
