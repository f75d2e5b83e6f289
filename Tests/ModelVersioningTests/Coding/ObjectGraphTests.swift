import Foundation
import ModelVersioning
import TestModels
import Testing

/// Mantle's `MTLTestModel` from its NSCoding spec: a conditional `weakModel`.
final class MantleTestModel: VersionedModel {
    var name: String
    weak var weakModel: MantleTestModel?

    init(name: String) {
        self.name = name
    }

    static let encodingBehaviors: [String: EncodingBehavior] = ["weakModel": .conditional]

    private enum CodingKeys: String, CodingKey {
        case name, weakModel
    }
}

/// The same with a plain `weak var` and `decodeConditional` in a hand-written initializer.
final class Folder: VersionedModel {
    var name: String
    var items: [Folder]
    weak var owner: Folder?

    static let encodingBehaviors: [String: EncodingBehavior] = ["owner": .conditional]

    init(name: String, items: [Folder] = []) {
        self.name = name
        self.items = items
        for item in items {
            item.owner = self
        }
    }

    private enum CodingKeys: String, CodingKey {
        case name, items, owner
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        items = try container.decode([Folder].self, forKey: .items)
        try container.decodeConditional(Folder.self, forKey: .owner) { [weak self] in self?.owner = $0 }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(items, forKey: .items)
        try container.encodeIfPresent(owner, forKey: .owner)
    }
}

/// A strong cycle that cannot be rebuilt by initializers.
final class Loop: VersionedModel {
    var next: Loop?
    init() {}
}

@Suite("Object graphs: shared, conditional and cyclic references")
struct ObjectGraphTests {
    @Test("Mantle: a weakly referenced model archived alone decodes as nil")
    func conditionalAloneIsNil() throws {
        let model = MantleTestModel(name: "model")
        let empty = MantleTestModel(name: "empty")
        model.weakModel = empty
        let tree = try ArchiveEncoder().encodeValue(model)
        #expect(tree["weakModel"] == nil, "an unresolved conditional reference is not written")
        let decoded = try ArchiveDecoder().decode(MantleTestModel.self, fromTree: tree)
        #expect(decoded.weakModel == nil)
        withExtendedLifetime(empty) {}
    }

    @Test("Mantle: [model, emptyModel] with a conditional reference to emptyModel resolves to that very instance")
    func conditionalResolvesToSameInstance() throws {
        let model = MantleTestModel(name: "model")
        let empty = MantleTestModel(name: "empty")
        model.weakModel = empty
        let tree = try ArchiveEncoder().encodeValue([model, empty])
        let decoded = try ArchiveDecoder().decode([MantleTestModel].self, fromTree: tree)
        #expect(decoded.count == 2)
        #expect(decoded[0].weakModel === decoded[1])
        #expect(decoded[1].name == "empty")
        // The conditional reference comes first in the archive; it still resolves.
        #expect(tree[0]?["weakModel"] == .reference(1))
        #expect(tree[1]?.objectValue?.id == 1)
    }

    @Test("a class instance referenced twice stays one instance")
    func sharedInstance() throws {
        let shared = Shared(value: 7)
        let holder = Holder(first: shared, second: shared, list: [shared, Shared(value: 8)])
        let tree = try ArchiveEncoder().encodeValue(holder)
        #expect(tree["first"]?.objectValue?.id == 1)
        #expect(tree["second"] == .reference(1))
        #expect(tree["list"]?[0] == .reference(1))
        #expect(tree["list"]?[1]?.objectValue?.id == nil, "an instance referenced once carries no identity")
        let decoded = try ArchiveDecoder().decode(Holder.self, fromTree: tree)
        #expect(decoded.first === decoded.second)
        #expect(decoded.list[0] === decoded.first)
        #expect(decoded.list[1] !== decoded.first)
        #expect(decoded.first.value == 7)
    }

    @Test("a parent/children cycle through @WeakReference decodes with every back-reference restored")
    func weakReferenceCycle() throws {
        let root = Node(name: "root", children: [Node(name: "a", children: [Node(name: "a1")]), Node(name: "b")])
        let tree = try ArchiveEncoder().encodeValue(root)
        #expect(tree.objectValue?.id == 1)
        #expect(tree["children"]?[0]?["parent"] == .reference(1))
        #expect(tree["parent"] == nil)
        let decoded = try ArchiveDecoder().decode(Node.self, fromTree: tree)
        #expect(decoded.parent == nil)
        #expect(decoded.children.map(\.name) == ["a", "b"])
        #expect(decoded.children[0].parent === decoded)
        #expect(decoded.children[1].parent === decoded)
        #expect(decoded.children[0].children[0].parent === decoded.children[0])
    }

    @Test("a parent/children cycle through a weak var and decodeConditional decodes")
    func decodeConditionalCycle() throws {
        let root = Folder(name: "root", items: [Folder(name: "docs"), Folder(name: "pics")])
        let tree = try ArchiveEncoder().encodeValue(root)
        let decoded = try ArchiveDecoder().decode(Folder.self, fromTree: tree)
        #expect(decoded.items.count == 2)
        #expect(decoded.items.allSatisfy { $0.owner === decoded })
        #expect(decoded.owner == nil)
    }

    @Test("a child archived without its parent decodes with a nil parent")
    func childWithoutParent() throws {
        let root = Node(name: "root", children: [Node(name: "a")])
        let tree = try ArchiveEncoder().encodeValue(root.children[0])
        #expect(tree["parent"] == nil)
        let decoded = try ArchiveDecoder().decode(Node.self, fromTree: tree)
        #expect(decoded.parent == nil)
        #expect(decoded.name == "a")
    }

    @Test("a strong reference cycle is refused when encoding, with advice")
    func strongCycle() throws {
        let loop = Loop()
        loop.next = loop
        let error = try #require(throws: ArchiveError.self) { try ArchiveEncoder().encodeValue(loop) }
        #expect(error.code == .referenceCycle)
        #expect(error.path == "next")
        #expect(error.message.contains(".conditional"))
        loop.next = nil
    }

    @Test("a reference to no object is a located error")
    func danglingReference() throws {
        let tree: ArchiveValue = .object(
            ArchiveObject(
                typeName: "Holder", version: 1,
                fields: [
                    "first": .object(ArchiveObject(typeName: "Shared", version: 1, fields: ["value": 1])),
                    "second": .reference(9), "list": [],
                ]))
        let error = try #require(throws: ArchiveError.self) { try ArchiveDecoder().decode(Holder.self, fromTree: tree) }
        #expect(error.code == .unresolvedReference)
        #expect(error.path == "second")
    }

    @Test("a reference met before its definition builds the definition on the spot")
    func forwardReference() throws {
        let shared = ArchiveObject(typeName: "Shared", version: 1, id: 4, fields: ["value": 5])
        let tree: ArchiveValue = .object(
            ArchiveObject(
                typeName: "Holder", version: 1,
                fields: ["first": .reference(4), "second": .object(shared), "list": [.reference(4)]]))
        let decoded = try ArchiveDecoder().decode(Holder.self, fromTree: tree)
        #expect(decoded.first === decoded.second)
        #expect(decoded.list[0] === decoded.first)
    }
}
