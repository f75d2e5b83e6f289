import Foundation

/// The dates a property list may hold, and their XML spelling.
///
/// Property lists store dates as seconds since 2001-01-01 (binary) or as
/// `YYYY-MM-DDTHH:MM:SSZ` text (XML). Both readers and both writers accept the years 0 to 9999:
/// every such date has an XML spelling, `Date.distantPast` (0000-12-30, what Apple's frameworks
/// write for "never") is among them, and a binary date far outside that range (the 2⁴⁷ seconds
/// of CPython's invalid-plist suite) is damage, not data.
enum PropertyListDate {
    /// 0000-01-01T00:00:00Z, in seconds since 2001-01-01.
    static let earliest: Double = -63_145_526_400
    /// 10000-01-01T00:00:00Z, in seconds since 2001-01-01 (excluded).
    static let end: Double = 252_423_993_600
    /// The length of 400 Gregorian years in seconds: the calendar repeats after it.
    private static let fourHundredYears: Double = 146_097 * 86_400
    /// 0001-01-01T00:00:00Z, where `ISO8601Date` starts.
    private static let yearOne: Double = -63_113_904_000

    /// Whether `seconds` since 2001-01-01 is a date property lists hold.
    static func isValid(_ seconds: Double) -> Bool {
        seconds.isFinite && seconds >= earliest && seconds < end
    }

    /// Parses the text of an XML `<date>` element: `2004-10-26T10:33:33Z`, fractional seconds,
    /// and the other ISO 8601 forms `ISO8601Date.date(from:)` reads, including the year 0000.
    static func date(fromXML text: String) -> Date? {
        if text.utf8.starts(with: "0000-".utf8) {
            guard let shifted = ISO8601Date.date(from: "0400" + text.dropFirst(4)) else { return nil }
            let seconds = shifted.timeIntervalSinceReferenceDate - fourHundredYears
            return isValid(seconds) ? Date(timeIntervalSinceReferenceDate: seconds) : nil
        }
        guard let date = ISO8601Date.date(from: text), isValid(date.timeIntervalSinceReferenceDate) else {
            return nil
        }
        return date
    }

    /// The XML spelling of `date`: whole seconds when exact, otherwise the shortest fraction that
    /// reads back exactly (nanoseconds, rounded, when none does); `nil` outside the years 0 to
    /// 9999.
    static func xmlString(from date: Date) -> String? {
        let seconds = date.timeIntervalSinceReferenceDate
        guard isValid(seconds) else { return nil }
        if seconds >= yearOne {
            return ISO8601Date.exactString(from: date) ?? ISO8601Date.string(from: date, fractionDigits: 9)
        }
        // The year 0: spell the same day 400 years later, then put the year back.
        let shifted = Date(timeIntervalSinceReferenceDate: seconds + fourHundredYears)
        for digits in [0, 3, 6, 9] {
            if let text = ISO8601Date.string(from: shifted, fractionDigits: digits), text.utf8.starts(with: "0400".utf8)
            {
                let spelled = "0000" + text.dropFirst(4)
                if digits == 9 || self.date(fromXML: spelled)?.timeIntervalSinceReferenceDate == seconds {
                    return spelled
                }
            }
        }
        return nil
    }
}
