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
    /// The horizontal coordinate.
    public var x: Double
    /// The vertical coordinate.
    public var y: Double

    /// The point at `x`, `y`.
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
    /// The node's name (`title` in v1 archives).
    public var name: String
    /// An optional double, absent unless set.
    public var weight: Double?
    /// A raw-value enum (added by the v1 → v2 step as `plain`).
    public var kind: FuzzKind
    /// Polymorphic children of the types the allow list names, nodes included (the recursion).
    @Polymorphic public var children: [any FuzzShape]
    /// An optional polymorphic value, from a shorter allow list.
    @Polymorphic public var focus: (any FuzzShape)?
    /// The node holding this one: a weak back-reference that closes a cycle.
    @WeakReference public var parent: Node?
    /// A leaf that other nodes may hold too (shared by identity).
    public var shared: Leaf?
    /// Structs in an array (added by the v2 → v3 step).
    public var points: [FuzzPoint]
    /// Integers by key (added by the v2 → v3 step).
    public var counts: [String: Int]
    /// An optional generic model.
    public var box: Box<Leaf>?
    /// Generic models by key (added by the v2 → v3 step).
    public var boxes: [String: Box<Int>]
    /// Never archived: rebuilt by `awakeFromArchive()`.
    public var cache: [Int]?

    /// Version 3: two steps from v1.
    public static let modelVersion = 3
    /// `cache` is never archived.
    public static let encodingBehaviors: [String: EncodingBehavior] = ["cache": .excluded]
    /// The types `children` and `focus` accept.
    public static let allowedTypes: [String: [any VersionedModel.Type]] = [
        "children": [Node.self, Leaf.self, FancyLeaf.self, Tagged.self, Box<Leaf>.self],
        "focus": [Leaf.self, FancyLeaf.self, Tagged.self],
    ]
    /// v1 → v2 renames `title` and adds `kind`; v2 → v3 nests `x` and `y` into an origin it removes, and adds
    /// the collections.
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, rules: [.rename("title", to: "name"), .add("kind", default: "plain")]),
        MigrationStep(
            from: 2, to: 3,
            rules: [
                .nest(["x", "y"], into: "origin"), .remove("origin"), .add("points", default: []),
                .add("counts", default: [:]), .add("boxes", default: [:]),
            ]),
    ]

    /// A node named `name` with `children`, and empty collections.
    public init(name: String, kind: FuzzKind = .plain, children: [any FuzzShape] = []) {
        self.name = name
        self.kind = kind
        self.children = children
        self.points = []
        self.counts = [:]
        self.boxes = [:]
    }

    /// Rebuilds `cache` from the points.
    public func awakeFromArchive() throws {
        cache = points.isEmpty ? nil : [points.count]
    }
}

/// A class with a subclass; shared by identity.
public class Leaf: FuzzShape {
    /// A required integer.
    public var value: Int
    /// An optional string.
    public var label: String?
    /// Optional data.
    public var bytes: Data?
    /// An optional date.
    public var when: Date?
    /// An optional UUID.
    public var id: UUID?
    /// An optional URL.
    public var link: URL?
    /// A byte, 0 when the archive has none.
    public var small: UInt8
    /// Integers, empty when the archive has none.
    public var values: [Int]

    // A base class declares every requirement as a `class var` (the registry refuses one that
    // leaves them to the protocol's defaults); FancyLeaf inherits them all.
    /// The unqualified class name: `Leaf`, `FancyLeaf`.
    public class var archiveTypeName: String { String(describing: self) }
    /// No earlier names.
    public class var archiveTypeAliases: [String] { [] }
    /// Version 1.
    public class var modelVersion: Int { 1 }
    /// No steps.
    public class var migrationSteps: [MigrationStep] { [] }
    /// An archived object without a version is at version 1.
    public class var unversionedVersion: Int? { 1 }
    /// Every property written unconditionally.
    public class var encodingBehaviors: [String: EncodingBehavior] { [:] }
    /// No allow lists.
    public class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }
    /// No fallback.
    public class var downgradeFallback: DowngradeFallback? { nil }

    /// A leaf holding `value` and `label`.
    public init(value: Int, label: String? = nil) {
        self.value = value
        self.label = label
        self.small = 0
        self.values = []
    }

    private enum CodingKeys: String, CodingKey {
        case value, label, bytes, when, id, link, small, values
    }

    /// Decodes `value`; every other key may be absent.
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

    /// Encodes every key, the optional ones only when present.
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
    /// The subclass's own key.
    public var flourish: [String]

    /// A fancy leaf holding `value` and `flourish`.
    public init(value: Int, flourish: [String]) {
        self.flourish = flourish
        super.init(value: value)
    }

    private enum CodingKeys: String, CodingKey {
        case flourish
    }

    /// Decodes `flourish`, then the superclass's keys through the super decoder.
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
    /// Strings (one string in v1 archives, wrapped in an array by the v1 → v2 step).
    public var tags: [String]
    /// A nested struct.
    public var point: FuzzPoint
    /// Booleans.
    public var flags: [Bool]
    /// Nested arrays of doubles.
    public var nested: [[Double]]
    /// An optional dictionary of dictionaries of small integers.
    public var table: [String: [String: Int8]]?

    /// Version 2.
    public static let modelVersion = 2
    /// v1 → v2 wraps `tags` in an array and removes `junk` from every value of `table`.
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, rules: [.wrapInArray("tags"), .scoped("table.*", [.remove("junk")])])
    ]

    /// A tagged value with `tags` and `point`, and no flags or nested arrays.
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
    /// Where v3 keeps the children (`kids`, a key of the object itself before).
    public struct Family: Codable, Hashable {
        /// The children.
        public var kids: [Relocated]
    }

    /// The title (`name` in v1 archives).
    public var title: String
    /// The point (`x` and `y` keys of the object itself before v3).
    public var point: FuzzPoint
    /// A Boolean (added by the v2 → v3 step as `true`).
    public var visible: Bool
    /// A double (added by the v2 → v3 step as 1).
    public var rank: Double
    /// An optional string (added by the v2 → v3 step as `null`).
    public var note: String?
    /// Optional strings.
    public var tags: [String]?
    /// The children, one level down since v3.
    public var family: Family?

    /// Version 3.
    public static let modelVersion = 3
    /// An archived object without a version is at version 1.
    public static let unversionedVersion: Int? = 1
    /// Steps that only move keys: renames, removals, nesting and defaults.
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, rules: [.rename("name", to: "title"), .remove("junk")]),
        MigrationStep(
            from: 2, to: 3,
            rules: [
                .nest(["x", "y"], into: "point"), .add("visible", default: true), .add("rank", default: 1),
                .add("note", default: .null), .nest(["kids"], into: "family"),
            ]),
    ]

    /// A visible value of rank 1 with `title` and `point`.
    public init(title: String, point: FuzzPoint) {
        self.title = title
        self.point = point
        self.visible = true
        self.rank = 1
    }
}

/// A generic model.
public struct Box<Content: Codable>: FuzzShape {
    /// The value.
    public var content: Content
    /// More values.
    public var more: [Content]
    /// An optional value.
    public var spare: Content?

    /// `Box.` and the content's type: `Box.Int`, `Box.Leaf`.
    public static var archiveTypeName: String { "Box.\(Content.self)" }

    /// A box of `content` and `more`.
    public init(content: Content, more: [Content] = []) {
        self.content = content
        self.more = more
    }
}

/// A struct at the root holding polymorphic values and a dictionary of them.
public struct FuzzDocument: VersionedModel {
    /// The polymorphic root.
    @Polymorphic public var root: any FuzzShape
    /// Polymorphic values by name.
    @Polymorphic public var named: [String: any FuzzShape]
    /// Leaves, statically typed (subclasses included).
    public var leaves: [Leaf]
    /// Struct models.
    public var tagged: [Tagged]

    /// The types `root` and `named` accept.
    public static let allowedTypes: [String: [any VersionedModel.Type]] = [
        "root": [Node.self, Leaf.self, FancyLeaf.self, Tagged.self, Box<Leaf>.self, Box<Int>.self],
        "named": [Node.self, Leaf.self, Tagged.self],
    ]

    /// A document of the given values.
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
