import Foundation
import ModelVersioning

// A recursive, polymorphic model set for `fuzz-decode`: a `Node` class whose `@Polymorphic`
// children are any of several registered types (itself included), a `@WeakReference` parent,
// shared class instances, structs decoded from shared references, optional and excluded fields,
// allow lists, a class hierarchy, a generic `Box<T>`, arrays and dictionaries.

/// The protocol the polymorphic keys hold.
public protocol FuzzShape: VersionedModel {}

/// A small value type.
public struct FuzzPoint: Codable, Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// An enum with raw values.
public enum FuzzKind: String, Codable, Sendable {
    case plain, bold, italic
}

/// The recursive node: children of any allowed shape, a weak parent, a shared leaf.
public final class Node: FuzzShape {
    public var name: String
    public var weight: Double?
    public var kind: FuzzKind
    @Polymorphic public var children: [any FuzzShape]
    @Polymorphic public var focus: (any FuzzShape)?
    @WeakReference public var parent: Node?
    public var shared: Leaf?
    public var points: [FuzzPoint]
    public var counts: [String: Int]
    public var box: Box<Leaf>?
    public var boxes: [String: Box<Int>]
    /// Never archived: rebuilt by `awakeFromArchive()`.
    public var cache: [Int]?

    public static let modelVersion = 3
    public static let encodingBehaviors: [String: EncodingBehavior] = ["cache": .excluded]
    public static let allowedTypes: [String: [any VersionedModel.Type]] = [
        "children": [Node.self, Leaf.self, FancyLeaf.self, Tagged.self, Box<Leaf>.self],
        "focus": [Leaf.self, FancyLeaf.self, Tagged.self],
    ]
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, rules: [.rename("title", to: "name"), .add("kind", default: "plain")]),
        MigrationStep(
            from: 2, to: 3,
            rules: [
                .nest(["x", "y"], into: "origin"), .remove("origin"), .add("points", default: []),
                .add("counts", default: [:]), .add("boxes", default: [:]),
            ]),
    ]

    public init(name: String, kind: FuzzKind = .plain, children: [any FuzzShape] = []) {
        self.name = name
        self.kind = kind
        self.children = children
        self.points = []
        self.counts = [:]
        self.boxes = [:]
    }

    public func awakeFromArchive() throws {
        cache = points.isEmpty ? nil : [points.count]
    }
}

/// A class with a subclass; shared by identity.
public class Leaf: FuzzShape {
    public var value: Int
    public var label: String?
    public var bytes: Data?
    public var when: Date?
    public var id: UUID?
    public var link: URL?
    public var small: UInt8
    public var values: [Int]

    // A base class declares every requirement as a `class var` (the registry refuses one that
    // leaves them to the protocol's defaults); FancyLeaf inherits them all.
    public class var archiveTypeName: String { String(describing: self) }
    public class var archiveTypeAliases: [String] { [] }
    public class var modelVersion: Int { 1 }
    public class var migrationSteps: [MigrationStep] { [] }
    public class var unversionedVersion: Int? { 1 }
    public class var encodingBehaviors: [String: EncodingBehavior] { [:] }
    public class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }
    public class var downgradeFallback: DowngradeFallback? { nil }

    public init(value: Int, label: String? = nil) {
        self.value = value
        self.label = label
        self.small = 0
        self.values = []
    }

    private enum CodingKeys: String, CodingKey {
        case value, label, bytes, when, id, link, small, values
    }

    public required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decode(Int.self, forKey: .value)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        bytes = try container.decodeIfPresent(Data.self, forKey: .bytes)
        when = try container.decodeIfPresent(Date.self, forKey: .when)
        id = try container.decodeIfPresent(UUID.self, forKey: .id)
        link = try container.decodeIfPresent(URL.self, forKey: .link)
        small = try container.decodeIfPresent(UInt8.self, forKey: .small) ?? 0
        values = try container.decodeIfPresent([Int].self, forKey: .values) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encodeIfPresent(bytes, forKey: .bytes)
        try container.encodeIfPresent(when, forKey: .when)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encodeIfPresent(link, forKey: .link)
        try container.encode(small, forKey: .small)
        try container.encode(values, forKey: .values)
    }
}

/// A registered subclass, decoded through its superclass's coder.
public final class FancyLeaf: Leaf {
    public var flourish: [String]

    public init(value: Int, flourish: [String]) {
        self.flourish = flourish
        super.init(value: value)
    }

    private enum CodingKeys: String, CodingKey {
        case flourish
    }

    public required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        flourish = try container.decode([String].self, forKey: .flourish)
        try super.init(from: container.superDecoder())
    }

    public override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(flourish, forKey: .flourish)
        try super.encode(to: container.superEncoder())
    }
}

/// A struct model: decoded again (copied) each time a reference to it is followed.
public struct Tagged: FuzzShape, Hashable {
    public var tags: [String]
    public var point: FuzzPoint
    public var flags: [Bool]
    public var nested: [[Double]]
    public var table: [String: [String: Int8]]?

    public static let modelVersion = 2
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, rules: [.wrapInArray("tags"), .scoped("table.*", [.remove("junk")])])
    ]

    public init(tags: [String], point: FuzzPoint) {
        self.tags = tags
        self.point = point
        self.flags = []
        self.nested = []
    }
}

/// A model whose chain only moves keys: its old archives decode straight from the bytes too.
/// Its `kids` move into `family`, so every upgraded level nests deeper than the text's.
public struct Relocated: FuzzShape, Hashable {
    public struct Family: Codable, Hashable {
        public var kids: [Relocated]
    }

    public var title: String
    public var point: FuzzPoint
    public var visible: Bool
    public var rank: Double
    public var note: String?
    public var tags: [String]?
    public var family: Family?

    public static let modelVersion = 3
    public static let unversionedVersion: Int? = 1
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, rules: [.rename("name", to: "title"), .remove("junk")]),
        MigrationStep(
            from: 2, to: 3,
            rules: [
                .nest(["x", "y"], into: "point"), .add("visible", default: true), .add("rank", default: 1),
                .add("note", default: .null), .nest(["kids"], into: "family"),
            ]),
    ]

    public init(title: String, point: FuzzPoint) {
        self.title = title
        self.point = point
        self.visible = true
        self.rank = 1
    }
}

/// A generic model.
public struct Box<Content: Codable>: FuzzShape {
    public var content: Content
    public var more: [Content]
    public var spare: Content?

    public static var archiveTypeName: String { "Box.\(Content.self)" }

    public init(content: Content, more: [Content] = []) {
        self.content = content
        self.more = more
    }
}

/// A struct at the root holding polymorphic values and a dictionary of them.
public struct FuzzDocument: VersionedModel {
    @Polymorphic public var root: any FuzzShape
    @Polymorphic public var named: [String: any FuzzShape]
    public var leaves: [Leaf]
    public var tagged: [Tagged]

    public static let allowedTypes: [String: [any VersionedModel.Type]] = [
        "root": [Node.self, Leaf.self, FancyLeaf.self, Tagged.self, Box<Leaf>.self, Box<Int>.self],
        "named": [Node.self, Leaf.self, Tagged.self],
    ]

    public init(root: any FuzzShape, named: [String: any FuzzShape] = [:], leaves: [Leaf] = [], tagged: [Tagged] = []) {
        self.root = root
        self.named = named
        self.leaves = leaves
        self.tagged = tagged
    }
}

/// The registry of every fuzz model.
public let fuzzRegistry: ModelRegistry = {
    do {
        return try ModelRegistry(
            [
                Node.self, Leaf.self, FancyLeaf.self, Tagged.self, Box<Leaf>.self, Box<Int>.self,
                FuzzDocument.self, Relocated.self,
            ],
            documents: [
                DocumentMigrations(
                    name: "FuzzDocument", currentVersion: 2, unversionedVersion: 1,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.scoped("leaves[*]", [.rename("v", to: "value")])])])
            ])
    } catch {
        preconditionFailure("the fuzz registry is consistent: \(error)")
    }
}()

/// A graph that uses every feature: shared leaves, a weak parent cycle, nested polymorphic nodes.
public func sampleFuzzDocument() -> FuzzDocument {
    let shared = Leaf(value: 7, label: "shared")
    shared.bytes = Data([1, 2, 3])
    shared.when = Date(timeIntervalSinceReferenceDate: 12345.5)
    shared.id = UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")
    shared.link = URL(string: "https://example.com/a?b=c")
    shared.values = [1, -2, 3]
    let fancy = FancyLeaf(value: -1, flourish: ["a", "b"])
    let child = Node(name: "child", kind: .bold, children: [shared, Tagged(tags: ["x"], point: FuzzPoint(x: 1, y: 2))])
    child.shared = shared
    child.points = [FuzzPoint(x: 0.5, y: -0.25)]
    let root = Node(name: "root", children: [child, fancy, shared, Box(content: shared, more: [fancy])])
    root.focus = fancy
    root.counts = ["a": 1, "b": 2]
    root.boxes = ["one": Box(content: 1, more: [2, 3])]
    root.weight = 2.5
    child.parent = root
    root.box = Box(content: shared)
    var tagged = Tagged(tags: ["t"], point: FuzzPoint(x: 3, y: 4))
    tagged.flags = [true, false]
    tagged.nested = [[1, 2], []]
    tagged.table = ["k": ["z": -3]]
    return FuzzDocument(root: root, named: ["leaf": shared, "tag": tagged], leaves: [shared, fancy], tagged: [tagged])
}
