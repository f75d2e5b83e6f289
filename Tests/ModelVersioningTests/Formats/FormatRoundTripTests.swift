import Foundation
import ModelVersioning
import TestModels
import Testing

@Suite("Models through every format")
struct FormatRoundTripTests {
    @Test(
        "Int64 and UInt64 extremes, exact doubles, dates, data and non-ASCII keys survive every format",
        arguments: ArchiveFormat.allCases)
    func extremes(format: ArchiveFormat) throws {
        let data = try ArchiveEncoder(format: format).encode(Extremes.sample)
        #expect(ArchiveFormat.detect(data) == format)
        let decoded = try ArchiveDecoder().decode(Extremes.self, from: data)
        #expect(decoded == Extremes.sample)
        #expect(decoded.negativeZero.sign == .minus)
    }

    @Test(
        "a drawing of polymorphic shapes survives every format with their concrete types",
        arguments: ArchiveFormat.allCases)
    func drawing(format: ArchiveFormat) throws {
        let contents = Contents(shapes: [
            Circle(center: Point(x: 10, y: 20), radius: 30),
            RoundedRectangle(origin: Point(x: 1, y: 2), size: Size(width: 3, height: 4), cornerRadius: 0.5),
        ])
        let data = try ArchiveEncoder(format: format).encode(contents)
        let decoded = try ArchiveDecoder(registry: shapesRegistry).decode(Contents.self, from: data)
        #expect((decoded.shapes[0] as? Circle)?.radius == 30)
        #expect((decoded.shapes[1] as? RoundedRectangle)?.cornerRadius == 0.5)
    }

    @Test("the same tree is written identically twice (deterministic output)", arguments: ArchiveFormat.allCases)
    func deterministic(format: ArchiveFormat) throws {
        let first = try ArchiveEncoder(format: format).encode(Extremes.sample)
        let second = try ArchiveEncoder(format: format).encode(Extremes.sample)
        #expect(first == second)
    }

    @Test("dictionaries and sets are written in a stable order, whatever their iteration order")
    func unorderedCollections() throws {
        struct Tally: VersionedModel {
            var counts: [String: Int]
            var tags: Set<String>
        }
        let keys = (0..<50).map { "key\($0)" }
        let tally = Tally(counts: Dictionary(uniqueKeysWithValues: keys.map { ($0, $0.count) }), tags: Set(keys))
        let tree = try ArchiveEncoder().encodeValue(tally)
        #expect(tree["counts"]?.keyedEntries?.keys == keys.sorted())
        #expect(tree["tags"]?.arrayValue?.compactMap(\.stringValue) == keys.sorted())
    }
}
