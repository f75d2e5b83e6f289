import Foundation
import MigrationRules
import Testing

@Suite("ISO 8601 dates")
struct ISO8601DateTests {
    /// Expected instants computed by hand from the Unix epoch (978,307,200 s before 2001-01-01)
    /// and cross-checked with Python's `datetime`.
    @Test(
        "dates read and print at the right instant",
        arguments: [
            ("2001-01-01T00:00:00Z", 0.0),
            ("1970-01-01T00:00:00Z", -978_307_200.0),
            ("1976-04-01T12:00:00Z", -781_099_200.0),
            ("2004-10-26T10:33:33Z", 120_479_613.0),
            ("2000-02-29T00:00:00Z", -26_524_800.0),
            ("0001-01-01T00:00:00Z", -63_113_904_000.0),
            ("9999-12-31T23:59:59Z", 252_423_993_599.0),
        ])
    func instants(text: String, seconds: Double) {
        #expect(ISO8601Date.date(from: text)?.timeIntervalSinceReferenceDate == seconds)
        #expect(ISO8601Date.string(from: Date(timeIntervalSinceReferenceDate: seconds)) == text)
    }
}
