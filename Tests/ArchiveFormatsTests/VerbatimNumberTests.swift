import Foundation
import MigrationRules
import Testing

@_spi(Coders) @testable import ArchiveFormats

/// `JSONText.verbatimNumberEnd(at:)` lets the JSON text rewrite copy a number instead of reading
/// and writing it: every literal it accepts must come out of the reader and the writer as the
/// same bytes, or an upgraded archive would differ from what the tree path writes.
@Suite("Numbers copied as they are spelled")
struct VerbatimNumberTests {
    /// Where the accepted literal ends in `literal + ","`, or `nil`.
    static func verbatimEnd(_ literal: String) -> Int? {
        let bytes = Array((literal + ",").utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            JSONText(bytes: buffer.baseAddress!, end: buffer.count).verbatimNumberEnd(at: 0)
        }
    }

    /// The literal read by the JSON reader and written by the JSON writer, in an array.
    static func rewritten(_ literal: String) throws -> String {
        let options = ArchiveWritingOptions(prettyPrinted: false, markup: .plain)
        let tree = try ArchiveFormat.json.read(Data("[\(literal)]".utf8), options: .init(markup: .plain))
        let text = String(decoding: try ArchiveFormat.json.write(tree, options: options), as: UTF8.self)
        return String(text.dropFirst().dropLast())
    }

    @Test(
        "accepted spellings are the writer's own",
        arguments: [
            "0", "7", "-7", "42", "123456789012345678", "-123456789012345678", "250.0", "-250.0", "0.5", "-0.5",
            "97.125", "0.0001", "0.1234", "12345678901234.5", "0.000123456789012345", "999999999999999.0",
            "1.7976931348623", "3.14159265358979",
        ])
    func accepted(_ literal: String) throws {
        #expect(Self.verbatimEnd(literal) == literal.utf8.count)
        #expect(try Self.rewritten(literal) == literal)
    }

    @Test(
        "spellings the writer changes, or that need the reader, are refused",
        arguments: [
            // The writer's spelling differs.
            "-0", "250.00", "0.50", "0.0", "-0.0", "1e5", "1.5E3", "0.00001", "1234567890123456.0",
            "1234567890123.4567", "0.1234567890123456", "3.141592653589793",
            // An integer that may not fit Int64, or a literal the reader must judge.
            "1234567890123456789", "01", "-", "1.", ".5",
        ])
    func refused(_ literal: String) {
        #expect(Self.verbatimEnd(literal) == nil)
    }

    @Test("for a hundred thousand random literals, an accepted one is written back byte for byte")
    func randomLiterals() throws {
        var random = SplitMix64(seed: 0x5EED_0F_D161)
        func digits(_ count: Int, leadingNonZero: Bool) -> String {
            var text = ""
            for index in 0..<count {
                let low: UInt64 = index == 0 && leadingNonZero ? 1 : 0
                text.append(Character(Unicode.Scalar(UInt8(48 + low + random.next() % (10 - low)))))
            }
            return text
        }
        var accepted = 0
        for _ in 0..<100_000 {
            var literal = random.next() % 4 == 0 ? "-" : ""
            let integerDigits = Int(random.next() % 17)
            literal += integerDigits == 0 ? "0" : digits(integerDigits, leadingNonZero: true)
            if random.next() % 5 != 0 {
                var fraction = String(repeating: "0", count: Int(random.next() % 6) * Int(random.next() % 2))
                fraction += digits(1 + Int(random.next() % 17), leadingNonZero: false)
                literal += "." + fraction
            }
            if random.next() % 50 == 0 { literal += "e" + String(random.next() % 20) }
            guard Self.verbatimEnd(literal) != nil else { continue }
            accepted += 1
            #expect(try Self.rewritten(literal) == literal, "\(literal)")
        }
        // The generator reaches both sides of every condition.
        #expect(accepted > 20_000 && accepted < 90_000, "\(accepted)")
    }
}
