import Foundation
import ModelVersioning
import Testing

/// Writes `count` under its key, and when `repeats` is set writes it a second time with
/// another value, the way a hand-written `encode(to:)` can.
private struct Counter: VersionedModel, Equatable {
    var count: Int
    var label: String
    var repeats: Bool

    static let archiveTypeName = "Counter"

    private enum CodingKeys: String, CodingKey {
        case count, label, repeats
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(count, forKey: .count)
        try container.encode(label, forKey: .label)
        if repeats {
            try container.encode(count * 100, forKey: .count)
        } else {
            try container.encode(repeats, forKey: .repeats)
        }
    }
}

/// Writes the coding path it is encoded at, and keeps the one it is decoded at: each key as
/// `stringValue|intValue`.
private struct PathReporter: Codable, Equatable {
    var decodedAt: [String] = []

    private enum CodingKeys: String, CodingKey {
        case path
    }

    static func describe(_ path: [any CodingKey]) -> [String] {
        path.map { "\($0.stringValue)|\($0.intValue.map(String.init) ?? "-")" }
    }

    init() {}

    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: CodingKeys.self)
        decodedAt = Self.describe(decoder.codingPath)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.describe(encoder.codingPath), forKey: .path)
    }
}

@Suite("Keyed encoding containers")
struct EncodingContainerTests {
    @Test("a key written twice keeps its first position and its last value, object after object")
    func repeatedKeys() throws {
        let counters = [
            Counter(count: 1, label: "a", repeats: false), Counter(count: 2, label: "b", repeats: true),
            Counter(count: 3, label: "c", repeats: false), Counter(count: 4, label: "d", repeats: true),
        ]
        let tree = try ArchiveEncoder().encodeValue(counters)
        guard case .array(let objects) = tree else {
            Issue.record("expected an array, got \(tree)")
            return
        }
        let fields = objects.map { $0.keyedEntries }
        #expect(fields[0]?.keys == ["count", "label", "repeats"])
        #expect(fields[1]?.keys == ["count", "label"])
        #expect(fields[1]?["count"] == .int(200))
        #expect(fields[2]?.keys == ["count", "label", "repeats"])
        #expect(fields[3]?["count"] == .int(400))
        // Foundation's rule for the same encode(to:).
        let foundation = try JSONSerialization.jsonObject(with: JSONEncoder().encode(counters)) as? [[String: Any]]
        #expect(foundation?[1]["count"] as? Int == 200)
    }

    @Test("array elements are coded at their index, as string and integer key, as Foundation's coders report")
    func elementCodingPaths() throws {
        let document = ["items": [PathReporter(), PathReporter()]]
        let ours = try ArchiveEncoder().encodeValue(document)
        let foundation =
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(document)) as? [String: [[String: [String]]]]
        let expected = [["items|-", "Index 0|0"], ["items|-", "Index 1|1"]]
        #expect(ours["items"]?[0]?["path"] == .array(expected[0].map { .string($0) }))
        #expect(ours["items"]?[1]?["path"] == .array(expected[1].map { .string($0) }))
        #expect(foundation?["items"]?.map { $0["path"] ?? [] } == expected)

        let decoded = try ArchiveDecoder().decode([String: [PathReporter]].self, fromTree: ours)
        let foundationDecoded = try JSONDecoder().decode(
            [String: [PathReporter]].self, from: JSONEncoder().encode(document))
        #expect(decoded["items"]?.map(\.decodedAt) == expected)
        #expect(foundationDecoded["items"]?.map(\.decodedAt) == expected)
    }
}
