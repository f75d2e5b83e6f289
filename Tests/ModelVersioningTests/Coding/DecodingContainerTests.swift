import Foundation
import ModelVersioning
import Testing

// Keyed containers must read their own object whatever else is decoded while they are alive
// (a decoder that recycled containers between objects would fail here): these models read after
// nested objects of the same type, ask twice, and hand the same decoder to another type with
// the same keys.

/// Reads its fields after its children, so its container must survive their decoding.
private struct Outline: VersionedModel, Equatable {
    var title: String
    var children: [Outline]
    var note: String

    static let archiveTypeName = "Outline"

    private enum CodingKeys: String, CodingKey {
        case title, children, note
    }

    init(title: String, children: [Outline], note: String) {
        self.title = title
        self.children = children
        self.note = note
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        children = try container.decode([Outline].self, forKey: .children)
        title = try container.decode(String.self, forKey: .title)
        note = try container.decode(String.self, forKey: .note)
    }
}

/// Keys shared by two types that decode from one decoder.
private enum SharedKeys: String, CodingKey {
    case name, size, detail
}

/// Part of ``Labelled``, decoded from the same decoder with the same key type.
private struct Detail: Codable, Equatable {
    var detail: String

    init(detail: String) {
        self.detail = detail
    }

    init(from decoder: any Decoder) throws {
        detail = try decoder.container(keyedBy: SharedKeys.self).decode(String.self, forKey: .detail)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SharedKeys.self)
        try container.encode(detail, forKey: .detail)
    }
}

/// Asks for its container twice and lets ``Detail`` read the same object in between.
private struct Labelled: VersionedModel, Equatable {
    var name: String
    var size: Int
    var detail: Detail

    static let archiveTypeName = "Labelled"

    init(name: String, size: Int, detail: Detail) {
        self.name = name
        self.size = size
        self.detail = detail
    }

    init(from decoder: any Decoder) throws {
        let first = try decoder.container(keyedBy: SharedKeys.self)
        let second = try decoder.container(keyedBy: SharedKeys.self)
        name = try first.decode(String.self, forKey: .name)
        detail = try Detail(from: decoder)
        size = try second.decode(Int.self, forKey: .size)
        let again: String = try first.decode(String.self, forKey: .name)
        guard again == name else {
            throw DecodingError.dataCorruptedError(
                forKey: .name, in: first, debugDescription: "the container changed under its reader")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SharedKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(size, forKey: .size)
        try detail.encode(to: encoder)
    }
}

private struct Catalog: VersionedModel, Equatable {
    var outlines: [Outline]
    var labels: [Labelled]

    static let archiveTypeName = "Catalog"
}

@Suite("Keyed containers")
struct DecodingContainerTests {
    private func outline(depth: Int, index: Int, random: inout SplitMix64) -> Outline {
        let count: Int = depth == 0 ? 0 : Int(random.next() % 4)
        var children: [Outline] = []
        for child in 0..<count {
            children.append(outline(depth: depth - 1, index: child, random: &random))
        }
        let note: UInt64 = random.next() % 1000
        return Outline(title: "d\(depth)-\(index)", children: children, note: "n\(note)")
    }

    private var registry: ModelRegistry {
        get throws { try ModelRegistry([Catalog.self, Outline.self, Labelled.self]) }
    }

    @Test("objects of one type at every depth decode their own fields, whatever order they read them in")
    func recursiveObjects() throws {
        var random = SplitMix64(seed: 42)
        var outlines: [Outline] = []
        var labels: [Labelled] = []
        for index in 0..<6 {
            outlines.append(outline(depth: 4, index: index, random: &random))
            let detail = Detail(detail: "detail \(index)")
            labels.append(Labelled(name: "label \(index)", size: index * 7, detail: detail))
        }
        let catalog = Catalog(outlines: outlines, labels: labels)
        let registry = try self.registry
        let data = try ArchiveEncoder(registry: registry).encode(catalog)
        let decoded = try ArchiveDecoder(registry: registry).decode(Catalog.self, from: data)
        #expect(decoded == catalog)
    }

    @Test("an error deep in objects of one type names the path of the failing value")
    func errorAfterReuse() throws {
        let child = Outline(title: "c", children: [], note: "y")
        let outlines = [
            Outline(title: "a", children: [], note: "x"),
            Outline(title: "b", children: [child], note: "z"),
        ]
        let registry = try self.registry
        let encoder = ArchiveEncoder(writingOptions: .init(prettyPrinted: false), registry: registry)
        let encoded = try encoder.encode(Catalog(outlines: outlines, labels: []))
        let json = String(decoding: encoded, as: UTF8.self)
        // Break the note of the second outline's child.
        let broken = json.replacingOccurrences(of: #""note":"y""#, with: #""note":3"#)
        #expect(broken != json)
        let decoder = ArchiveDecoder(registry: registry)
        let error = try #require(throws: ArchiveError.self) {
            try decoder.decode(Catalog.self, from: Data(broken.utf8))
        }
        #expect(error.code == ArchiveError.Code.typeMismatch)
        #expect(error.path.description == "outlines[1].children[0].note")
    }
}
