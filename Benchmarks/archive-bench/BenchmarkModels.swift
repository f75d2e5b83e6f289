import Foundation
import ModelVersioning

// The benchmark document: shapes shaped like PERFORMANCE.md's (id, title, kind, center {x, y},
// radius, two tags, visible), as our models and as Foundation mirror types decoding the same bytes.

struct BenchPoint: Codable, Equatable {
    var x: Double
    var y: Double
}

struct BenchShape: VersionedModel, Equatable {
    var id: Int
    var title: String
    var kind: String
    var center: BenchPoint
    var radius: Double
    var tags: [String]
    var visible: Bool

    static let archiveTypeName = "Shape"
    static let modelVersion = 4
    /// v1 {name, x, y} → v2 rename name → title → v3 nest x, y into center → v4 add visible.
    static let migrationSteps: [MigrationStep] = [
        MigrationStep(from: 1, to: 2, rules: [.rename("name", to: "title")]),
        MigrationStep(from: 2, to: 3, rules: [.nest(["x", "y"], into: "center")]),
        MigrationStep(from: 3, to: 4, rules: [.add("visible", default: true)]),
    ]
}

struct BenchDocument: VersionedModel, Equatable {
    var shapes: [BenchShape]
    static let archiveTypeName = "Document"
}

/// Foundation's view of the same archive bytes (it ignores the `$` keys).
struct FoundationEnvelope: Codable {
    var root: FoundationDocument
}

struct FoundationDocument: Codable {
    var shapes: [FoundationShape]
}

struct FoundationShape: Codable {
    var id: Int
    var title: String
    var kind: String
    var center: BenchPoint
    var radius: Double
    var tags: [String]
    var visible: Bool
}

/// Generates the documents deterministically.
enum DocumentGenerator {
    /// Which value mix: short strings and short doubles, or long strings and 17-digit doubles.
    enum Flavor: String, CaseIterable {
        case short
        case long
    }

    static func shapes(count: Int, flavor: Flavor) -> [BenchShape] {
        var generator = SplitMix64(seed: 0x5EED)
        let kinds = ["circle", "square", "triangle", "star"]
        return (0..<count).map { index in
            let radius: Double
            let x: Double
            let y: Double
            let title: String
            switch flavor {
            case .short:
                radius = Double(generator.next() % 1000) / 4
                x = Double(generator.next() % 10_000) / 8
                y = -Double(generator.next() % 10_000) / 16
                title = "Shape \(index)"
            case .long:
                radius = Double(generator.next() % (1 << 52)) / Double(1 << 40) + 0.1
                x = Double(generator.next() % (1 << 52)) / 3.0
                y = -Double(generator.next() % (1 << 52)) / 7.0
                title = "Shape \(index) — a longer title with ünïcødé text so strings need real work, #\(index)"
            }
            return BenchShape(
                id: index, title: title, kind: kinds[index % kinds.count], center: BenchPoint(x: x, y: y),
                radius: radius, tags: ["tag\(index % 7)", "group\(index % 13)"], visible: index % 3 != 0)
        }
    }

    /// The current-version archive.
    static func currentArchive(_ shapes: [BenchShape]) throws -> Data {
        try ArchiveEncoder(writingOptions: ArchiveWritingOptions(prettyPrinted: false)).encode(
            BenchDocument(shapes: shapes))
    }

    /// The same shapes as written by version 1 of the app: `name`, flat `x`/`y`, no `visible`.
    static func version1Archive(_ shapes: [BenchShape]) throws -> Data {
        let objects: [ArchiveValue] = shapes.map { shape in
            .object(
                ArchiveObject(
                    typeName: "Shape", version: 1,
                    fields: [
                        "id": .int(Int64(shape.id)), "name": .string(shape.title), "kind": .string(shape.kind),
                        "x": .double(shape.center.x), "y": .double(shape.center.y), "radius": .double(shape.radius),
                        "tags": .array(shape.tags.map { .string($0) }),
                    ]))
        }
        let root = ArchiveValue.object(
            ArchiveObject(typeName: "Document", version: 1, fields: ["shapes": .array(objects)]))
        return try ArchiveFormat.json.write(
            ArchiveEnvelope(root: root).tree, options: ArchiveWritingOptions(prettyPrinted: false))
    }
}
