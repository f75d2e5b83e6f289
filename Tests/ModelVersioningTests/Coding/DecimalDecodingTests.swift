import Foundation
import ModelVersioning
import Testing

/// A model with a `Decimal`, the one Foundation number type that cannot hold every double.
private struct Invoice: VersionedModel, Equatable {
    var amount: Decimal
    static let archiveTypeName = "Invoice"
}

/// `Decimal(Double)` traps on an infinity (Foundation's precondition on Apple platforms, a trap
/// instruction in swift-corelibs-foundation), and archives may spell one (`{"$double": "inf"}`,
/// a property list's `<real>inf</real>`): the decoder must refuse it with a located error.
@Suite("Decimal decoding")
struct DecimalDecodingTests {
    static let decoder: ArchiveDecoder = {
        do {
            return ArchiveDecoder(registry: try ModelRegistry([Invoice.self]))
        } catch {
            Issue.record(error)
            return ArchiveDecoder(registry: ModelRegistry())
        }
    }()

    static func archive(amount: String) -> Data {
        Data(#"{"$archive": 1, "root": {"$type": "Invoice", "$version": 1, "amount": \#(amount)}}"#.utf8)
    }

    @Test("an infinite or NaN double is refused at its path, not trapped on", arguments: ["inf", "-inf", "nan"])
    func nonFinite(spelling: String) throws {
        #expect {
            try Self.decoder.decode(Invoice.self, from: Self.archive(amount: #"{"$double": "\#(spelling)"}"#))
        } throws: { error in
            "\(error)".contains("is not a decimal number (a Decimal is finite)") && "\(error)".contains("amount")
        }
    }

    @Test("finite doubles, integers and decimal strings still decode")
    func finite() throws {
        #expect(try Self.decoder.decode(Invoice.self, from: Self.archive(amount: "12.5")).amount == Decimal(12.5))
        #expect(try Self.decoder.decode(Invoice.self, from: Self.archive(amount: "-3")).amount == Decimal(-3))
        #expect(
            try Self.decoder.decode(Invoice.self, from: Self.archive(amount: #""12.34""#)).amount
                == Decimal(string: "12.34"))
    }
}
