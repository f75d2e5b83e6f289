import Foundation
import MigrationRules
import Testing

/// `ArchiveDiff` finds two trees equal only when their values are equal in type as well as
/// value, and says so when a value changed kind.
@Suite("ArchiveDiff: types matter")
struct ArchiveDiffTests {
    static let bytes = Data("bplist00".utf8)
    static let instant = Date(timeIntervalSinceReferenceDate: 730_981_351)

    @Test(
        "a value and its text are different values, and the difference names both kinds",
        arguments: [
            (ArchiveValue.data(bytes), ArchiveValue.string(bytes.base64EncodedString()), "data → string"),
            (.date(instant), .string("2024-03-01T10:22:31Z"), "date → string"),
            (.date(instant), .double(730_981_351), "date → double"),
            (.bool(true), .int(1), "bool → int"),
            (
                ArchiveValue.dictionary(["r": 1]),
                .object(ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 1])), "dictionary → object"
            ),
        ])
    func changeOfKind(_ old: ArchiveValue, _ new: ArchiveValue, kinds: String) throws {
        let differences = ArchiveDiff.differences(from: ["value": old], to: ["value": new])
        let difference = try #require(differences.first)
        #expect(differences.count == 1)
        #expect(difference.kind == .changed)
        #expect(difference.isChangeOfKind)
        #expect(difference.description.hasPrefix("~ value: "))
        #expect(difference.description.hasSuffix(" (\(kinds))"), "\(difference)")
        // Either way round.
        #expect(ArchiveDiff.differences(from: ["value": new], to: ["value": old]).count == 1)
    }

    @Test("the same kind changed says no kinds; numbers are one kind; 1 and 1.0 are one number unless exact")
    func sameKind() throws {
        let change = try #require(
            ArchiveDiff.differences(from: ["a": .data(Data([1]))], to: ["a": .data(Data([2]))]).first)
        #expect(!change.isChangeOfKind)
        #expect(change.description == "~ a: <1 bytes> → <1 bytes>")
        #expect(ArchiveDiff.differences(from: ["a": 1], to: ["a": 1.0]).isEmpty)
        let exact = try #require(
            ArchiveDiff.differences(from: ["a": 1], to: ["a": 1.0], options: .init(numbersByValue: false)).first)
        #expect(exact.description == "~ a: 1 → 1.0")
        #expect(!exact.isChangeOfKind)
        // As the documentation shows a changed number.
        #expect(
            ArchiveDiff.differences(from: ["radius": 3], to: ["radius": 3.5]).map(\.description) == [
                "~ radius: 3 → 3.5"
            ])
        // Integers above Int64.max are numbers too.
        let large = try #require(ArchiveDiff.differences(from: ["a": 1], to: ["a": .uint(.max)]).first)
        #expect(!large.isChangeOfKind)
        #expect(ArchiveDiff.differences(from: ["a": .data(Self.bytes)], to: ["a": .data(Self.bytes)]).isEmpty)
    }
}
