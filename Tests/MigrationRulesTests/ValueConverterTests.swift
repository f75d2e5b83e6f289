import Foundation
import MigrationRules
import Testing

@Suite("Value converters")
struct ValueConverterTests {
    /// A converter, an input and the expected output; `roundTrips` when the inverse must give the
    /// input back exactly.
    struct Case: CustomStringConvertible, Sendable {
        var converter: ValueConverter
        var input: ArchiveValue
        var output: ArchiveValue
        var roundTrips = true
        var description: String { "\(converter) \(input)" }
    }

    // Dates computed independently with Python's datetime (UTC):
    // 2026-11-30T05:14:25Z = 1796015665 s since 1970; 2026-11-30T00:00:00Z = 1795996800;
    // 2017-02-23T06:15:58.684097Z = 1487830558.684097; 2001-01-01T00:00:00Z = 978307200.
    static let instant = Date(timeIntervalSince1970: 1_796_015_665)
    static let midnight = Date(timeIntervalSince1970: 1_795_996_800)

    static let cases: [Case] = [
        Case(converter: .stringToInt, input: "42", output: 42),
        Case(converter: .stringToInt, input: "-7", output: -7),
        Case(converter: .stringToInt, input: "18446744073709551615", output: .uint(UInt64.max)),
        Case(converter: .intToString, input: 42, output: "42"),
        Case(converter: .stringToDouble, input: "2.5", output: 2.5),
        Case(converter: .doubleToString, input: 2.5, output: "2.5"),
        Case(converter: .doubleToString, input: 0.1, output: "0.1"),
        Case(converter: .doubleToString, input: 30, output: "30", roundTrips: false),
        Case(converter: .stringToBool, input: "true", output: true),
        Case(converter: .stringToBool, input: "false", output: false),
        Case(converter: .stringToBool, input: "yes", output: true, roundTrips: false),
        Case(converter: .stringToBool, input: "NO", output: false, roundTrips: false),
        Case(converter: .stringToBool, input: "1", output: true, roundTrips: false),
        Case(converter: .stringToBool, input: "0", output: false, roundTrips: false),
        Case(converter: .boolToString, input: true, output: "true"),
        Case(converter: .intToDouble, input: 3, output: 3.0),
        Case(converter: .intToDouble, input: -9_007_199_254_740_992, output: -9_007_199_254_740_992.0),
        Case(converter: .doubleToInt, input: 3.0, output: 3),
        Case(converter: .doubleToInt, input: -0.0, output: 0, roundTrips: false),
        Case(converter: .date(format: .iso8601), input: "2026-11-30T05:14:25Z", output: .date(instant)),
        Case(
            converter: .date(format: .iso8601), input: "2026-11-30T07:14:25+02:00", output: .date(instant),
            roundTrips: false),
        Case(
            converter: .date(format: .iso8601), input: "2017-02-23T06:15:58.684097Z",
            // 1487830558 − 978307200 = 509523358 s after 2001-01-01, plus the fraction.
            output: .date(Date(timeIntervalSinceReferenceDate: 509_523_358.684097))),
        Case(converter: .date(format: .secondsSince1970), input: 1_796_015_665, output: .date(instant)),
        Case(converter: .date(format: .secondsSince1970), input: 1.5, output: .date(Date(timeIntervalSince1970: 1.5))),
        Case(
            converter: .date(format: .millisecondsSince1970), input: 1_796_015_665_123,
            output: .date(Date(timeIntervalSince1970: 1_796_015_665.123))),
        Case(
            converter: .date(format: .secondsSinceReferenceDate), input: 0,
            output: .date(Date(timeIntervalSince1970: 978_307_200))),
        Case(converter: .date(format: .pattern("yyyy-MM-dd")), input: "2026-11-30", output: .date(midnight)),
        Case(
            converter: .date(format: .pattern("dd.MM.yyyy HH:mm:ss")), input: "30.11.2026 05:14:25",
            output: .date(instant)),
        Case(
            converter: .date(format: .pattern("yyyyMMdd'T'HHmmss.SSS'Z'")), input: "20261130T051425.250Z",
            output: .date(Date(timeIntervalSince1970: 1_796_015_665.25))),
        Case(
            converter: .date(format: .pattern("'day' dd 'of' MM, yyyy")), input: "day 30 of 11, 2026",
            output: .date(midnight)),
        Case(converter: .dateToString(format: .iso8601), input: .date(instant), output: "2026-11-30T05:14:25Z"),
        Case(converter: .dateToString(format: .secondsSince1970), input: .date(instant), output: 1_796_015_665),
        Case(
            converter: .dateToString(format: .millisecondsSince1970),
            input: .date(Date(timeIntervalSince1970: 1_796_015_665.123)), output: 1_796_015_665_123),
        Case(converter: .dateToString(format: .pattern("yyyy-MM-dd")), input: .date(midnight), output: "2026-11-30"),
        Case(
            converter: .dateToString(format: .pattern("yyyy-MM-dd")), input: .date(instant), output: "2026-11-30",
            roundTrips: false),
        Case(converter: .map(["open": "todo", "closed": "done"]), input: "open", output: "todo"),
        Case(converter: .map(["sharp": nil, "round": ["type": "round"]]), input: "sharp", output: nil),
        Case(converter: .map(["sharp": nil, "round": ["type": "round"]]), input: "round", output: ["type": "round"]),
        Case(
            converter: .map([1: "small", 2: "large"], default: "medium"), input: 3, output: "medium", roundTrips: false),
        Case(
            converter: .wrapElements(inKey: "id", with: ["type": "arrow"]), input: ["x", "y"],
            output: [["type": "arrow", "id": "x"], ["type": "arrow", "id": "y"]]),
        Case(
            converter: .unwrapElements(key: "id", restoring: ["type": "arrow"]),
            input: [["type": "arrow", "id": "x"]], output: ["x"]),
        Case(converter: .wrapElements(inKey: "id"), input: [], output: []),
        Case(converter: .stringToInt, input: nil, output: nil),
        Case(converter: .date(format: .iso8601), input: nil, output: nil),
        Case(
            converter: .custom(
                name: "cents", forward: { .int(Int64((($0.doubleValue ?? 0) * 100).rounded())) },
                inverse: { .double(Double($0.int64Value ?? 0) / 100) }),
            input: 2.5, output: 250),
    ]

    @Test("converts, and the inverse converts back", arguments: cases)
    func convert(_ testCase: Case) throws {
        let output = try testCase.converter.convert(testCase.input)
        #expect(output == testCase.output)
        #expect(output.kind == testCase.output.kind)
        if testCase.roundTrips {
            let inverse = try #require(testCase.converter.inverse)
            #expect(try inverse.convert(output) == testCase.input)
        }
    }

    /// A converter, an input it must reject and the exact message.
    struct Failure: CustomStringConvertible, Sendable {
        var converter: ValueConverter
        var input: ArchiveValue
        var message: String
        var description: String { "\(converter) \(input)" }
    }

    static let failures: [Failure] = [
        Failure(converter: .stringToInt, input: 3, message: "expected a string, found int 3"),
        Failure(converter: .stringToInt, input: "4.2", message: #"cannot convert "4.2": not a decimal integer"#),
        Failure(converter: .stringToInt, input: "", message: #"cannot convert "": not a decimal integer"#),
        Failure(converter: .intToString, input: "3", message: #"expected an integer, found string "3""#),
        Failure(converter: .stringToDouble, input: "abc", message: #"cannot convert "abc": not a number"#),
        Failure(converter: .doubleToString, input: true, message: "expected a number, found bool true"),
        Failure(
            converter: .stringToBool, input: "maybe",
            message: #"cannot convert "maybe": expected "true", "false", "yes", "no", "1" or "0""#),
        Failure(converter: .boolToString, input: 1, message: "expected a Boolean, found int 1"),
        Failure(converter: .intToDouble, input: 2.5, message: "expected an integer, found double 2.5"),
        Failure(
            converter: .intToDouble, input: .int(Int64.max),
            message: "cannot convert 9223372036854775807: a double cannot hold it exactly"),
        Failure(
            converter: .doubleToInt, input: 2.5,
            message: "cannot convert 2.5: it is not a whole number in the 64-bit range"),
        Failure(
            converter: .doubleToInt, input: 1e30,
            message: "cannot convert 1e+30: it is not a whole number in the 64-bit range"),
        Failure(
            converter: .date(format: .iso8601), input: "yesterday",
            message: #"cannot convert "yesterday": not an ISO 8601 date"#),
        Failure(converter: .date(format: .iso8601), input: 5, message: "expected a string, found int 5"),
        Failure(
            converter: .date(format: .secondsSince1970), input: "5", message: #"expected a number, found string "5""#),
        Failure(
            converter: .date(format: .pattern("yyyy-MM-dd")), input: "2026-02-30",
            message: #"cannot convert "2026-02-30": not a valid date"#),
        Failure(
            converter: .date(format: .pattern("yyyy-MM-dd")), input: "2026/11/30",
            message: #"cannot convert "2026/11/30": it does not match the pattern 'yyyy-MM-dd'"#),
        Failure(
            converter: .date(format: .pattern("yyyy-MM-dd")), input: "2026-11-300",
            message: #"cannot convert "2026-11-300": it does not match the pattern 'yyyy-MM-dd'"#),
        Failure(
            converter: .date(format: .pattern("YYYY-MM-dd")), input: "2026-11-30",
            message:
                "date pattern 'YYYY-MM-dd' has 'YYYY'; the fields are yyyy, MM, dd, HH, mm, ss and SSS, and literal "
                + "letters go in single quotes"),
        Failure(converter: .dateToString(format: .iso8601), input: "x", message: #"expected a date, found string "x""#),
        Failure(
            converter: .map(["open": "todo"]), input: "doing",
            message: #"no mapping for "doing" and no default in map("open" → "todo")"#),
        Failure(converter: .wrapElements(inKey: "id"), input: "x", message: #"expected an array, found string "x""#),
        Failure(
            converter: .unwrapElements(key: "id"), input: [["type": "arrow"]], message: "the element has no key 'id'"),
    ]

    @Test("rejects values of the wrong kind or shape with a message naming the value", arguments: failures)
    func reject(_ failure: Failure) {
        let error = archiveError { _ = try failure.converter.convert(failure.input) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message == failure.message)
    }

    @Test("a one-to-one map without default has an inverse; others do not")
    func mapInverse() throws {
        let map = ValueConverter.map(["open": "todo", "closed": "done"])
        let inverse = try #require(map.inverse)
        #expect(try inverse.convert("done") == "closed")
        #expect(ValueConverter.map(["open": "todo", "doing": "todo"]).inverse == nil)
        #expect(ValueConverter.map(["open": "todo"], default: "todo").inverse == nil)
        let excalidraw = try #require(ValueConverter.map(["sharp": nil, "round": ["type": "round"]]).inverse)
        #expect(try excalidraw.convert(nil) == "sharp")
        #expect(ValueConverter.unwrapElements(key: "id").inverse == nil)
    }

    @Test("errors of converters inside a convert rule carry the key and element path")
    func errorPath() {
        var target = MigrationTarget(fields: ["boundElements": [["id": "a"], ["type": "arrow"]]], path: "library[0]")
        let error = archiveError {
            try MigrationRule.convert("boundElements", .unwrapElements(key: "id")).apply(to: &target)
        }
        #expect(error?.path.description == "library[0].boundElements[1]")
        #expect(error?.rule == "convert(boundElements: unwrapElements(id))")
        #expect(target.fields["boundElements"] == [["id": "a"], ["type": "arrow"]])
    }

    @Test("custom converter errors are wrapped as migration failures")
    func customError() {
        struct Bad: Error {}
        let converter = ValueConverter.custom(name: "bad", forward: { _ in throw Bad() })
        let error = archiveError { _ = try converter.convert(1) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.underlyingError is Bad)
        #expect((try? converter.convert(nil)) == .null)
    }

    @Test("patterns are validated")
    func patternValidation() {
        #expect(throws: Never.self) { try ValueConverter.DateFormat.pattern("yyyy-MM-dd'T'HH:mm").validate() }
        #expect(archiveError { try ValueConverter.DateFormat.pattern("yyyy-MM-dd'T").validate() } != nil)
        #expect(archiveError { try ValueConverter.DateFormat.pattern("yy-MM-dd").validate() } != nil)
    }
}
