import Foundation
import ModelVersioning
import TestModels
import Testing

@Suite("Model declarations and encoding behaviours")
struct ModelDeclarationTests {
    let model = Model(
        name: "flower", type: "photo", image: Thumbnail(pixels: [1, 2, 3]),
        rect: Rect(x: 10, y: 20, width: 300, height: 200), flag: UInt(UInt32.max) + 7, kind: -3, para: 42)

    @Test("an NSCoding-era model round-trips with its thumbnail left out of the archive and rebuilt after loading")
    func nsCodingEraModelRoundTrip() throws {
        let tree = try ArchiveEncoder().encodeValue(model)
        let object = try #require(tree.objectValue)
        #expect(object.typeName == "Model")
        #expect(object.version == 1)
        #expect(object.fields.keys == ["name", "type", "rect", "flag", "kind", "para"])
        #expect(object["image"] == nil)

        let decoded = try ArchiveDecoder().decode(Model.self, fromTree: tree)
        #expect(decoded.name == "flower")
        #expect(decoded.rect == model.rect)
        #expect(decoded.flag == model.flag)
        #expect(decoded.kind == -3)
        #expect(decoded.para == 42)
        // Rebuilt from the name by awakeFromArchive, not the archived pixels [1, 2, 3].
        #expect(decoded.image == Thumbnail.load(named: "flower"))
    }

    @Test("the archive type name is the unqualified type name by default and never module-qualified")
    func defaultTypeNames() {
        #expect(Model.archiveTypeName == "Model")
        #expect(RoundedRectangle.archiveTypeName == "RoundedRectangle")
        #expect(Point.self is any VersionedModel.Type == false)
        #expect(Circle.modelVersion == 1)
    }

    @Test("a plain Codable type takes part with one line")
    func oneLineConformance() throws {
        let tree = try ArchiveEncoder().encodeValue(Tag(label: "red"))
        #expect(tree == .object(ArchiveObject(typeName: "Tag", version: 1, fields: ["label": "red"])))
        #expect(try ArchiveDecoder().decode(Tag.self, fromTree: tree) == Tag(label: "red"))
    }

    @Test("explicit names and versions are stamped on every nested object")
    func nestedStamps() throws {
        let tree = try ArchiveEncoder().encodeValue(Label(tag: Tag(label: "x"), tags: [Tag(label: "y")]))
        #expect(tree.objectValue?.typeName == "label.v2")
        #expect(tree.objectValue?.version == 4)
        #expect(tree["tag"]?.objectValue?.typeName == "Tag")
        #expect(tree["tags"]?[0]?.objectValue?.typeName == "Tag")
    }

    @Test("an excluded property that is not optional cannot be decoded and says how to fix it")
    func excludedNonOptional() throws {
        let tree = try ArchiveEncoder().encodeValue(Cache(title: "t", entries: ["a": 1]))
        #expect(tree["entries"] == nil)
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder().decode(Cache.self, fromTree: tree)
        }
        #expect(error.code == .keyNotFound)
        #expect(error.path == "entries")
        #expect(error.message.contains("make it Optional or leave it out of CodingKeys"))
    }

    @Test("an excluded property left out of CodingKeys keeps its declared default")
    func excludedDefault() throws {
        let tree = try ArchiveEncoder().encodeValue(Session(user: "ann"))
        #expect(tree.objectValue?.fields.keys == ["user"])
        let decoded = try ArchiveDecoder().decode(Session.self, fromTree: tree)
        #expect(decoded.scratch == [0, 0, 0])
    }

    @Test("errors name the path, the archived type and version")
    func locatedErrors() throws {
        var tree = try ArchiveEncoder().encodeValue(model)
        guard case .object(var object) = tree else { Issue.record("not an object"); return }
        object["rect"] = ["x": 1, "y": "two", "width": 3, "height": 4]
        tree = .object(object)
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder().decode(Model.self, fromTree: tree)
        }
        #expect(error.code == .typeMismatch)
        #expect(error.path == "rect.y")
        #expect(error.typeName == "Model")
        #expect(error.archivedVersion == 1)
        #expect(error.description == #"Model v1: expected a number, found a string ("two") at rect.y"#)
    }
}

struct Tag: VersionedModel, Equatable {
    var label: String
}

struct Label: VersionedModel {
    var tag: Tag
    var tags: [Tag]
    static let archiveTypeName = "label.v2"
    static let modelVersion = 4
}

struct Cache: VersionedModel {
    var title: String
    var entries: [String: Int]
    static let encodingBehaviors: [String: EncodingBehavior] = ["entries": .excluded]
}

struct Session: VersionedModel {
    var user: String
    var scratch: [Int] = [0, 0, 0]

    init(user: String) {
        self.user = user
    }

    private enum CodingKeys: String, CodingKey {
        case user
    }
}

// MARK: - Declarations the registry cannot see

/// A base class whose versioning requirements are `static let`s: a subclass cannot override them.
private class StaticBaseShape: VersionedModel {
    static let archiveTypeName = "StaticBaseShape"
    static let archiveTypeAliases = ["App.StaticBaseShape"]
    static let modelVersion = 2
    static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.rename("w", to: "width")])]
    var width = 1.0
}

/// Declares its own name and aliases, which Swift never reads through the protocol.
private final class RoundStaticShape: StaticBaseShape {
    static let roundName = "RoundStaticShape"
}

/// A base class whose chain is not empty and whose subclass repeats it (declarations inherited).
private class ChainBase: VersionedModel {
    class var modelVersion: Int { 2 }
    class var migrationSteps: [MigrationStep] { [MigrationStep(from: 1, to: 2, rules: [.add("z", default: 0)])] }
    var z = 0
}

private final class ChainChild: ChainBase {}

/// The same done right: `class var`s in the base (every requirement), overrides in the subclass.
private class OverridableBase: VersionedModel {
    class var archiveTypeName: String { String(describing: self) }
    class var archiveTypeAliases: [String] { ["App.OverridableBase"] }
    class var modelVersion: Int { 2 }
    class var migrationSteps: [MigrationStep] { [MigrationStep(from: 1, to: 2, rules: [.add("z", default: 0)])] }
    class var unversionedVersion: Int? { nil }
    class var encodingBehaviors: [String: EncodingBehavior] { [:] }
    class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }
    class var downgradeFallback: DowngradeFallback? { nil }
    var z = 0
}

private final class OverridingChild: OverridableBase {
    override class var archiveTypeAliases: [String] { [] }
    override class var modelVersion: Int { 1 }
    override class var migrationSteps: [MigrationStep] { [] }
}

@Suite("Declarations checked at registration")
struct DeclarationRegistrationTests {
    @Test(
        "a subclass whose static lets are shadowed by the base class's conformance is an error naming both and the fix")
    func inheritedAliases() {
        let error = #expect(throws: ArchiveError.self) {
            try ModelRegistry([StaticBaseShape.self, RoundStaticShape.self])
        }
        #expect(error?.code == .invalidChain)
        let message = error?.message ?? ""
        #expect(message.contains("RoundStaticShape inherits StaticBaseShape's versioning declarations"), "\(message)")
        #expect(message.contains("class var"), "\(message)")
        #expect(message.contains("override class var"), "\(message)")
    }

    @Test("a subclass that repeats its base class's migration steps is an error; overriding class vars is fine")
    func inheritedChain() throws {
        let error = #expect(throws: ArchiveError.self) {
            try ModelRegistry([ChainBase.self, ChainChild.self])
        }
        #expect(error?.message.contains("ChainChild inherits ChainBase's versioning declarations") == true)
        #expect(error?.message.contains("version and migration steps") == true)
        let registry = try ModelRegistry([OverridableBase.self, OverridingChild.self])
        #expect(registry.type(named: "OverridingChild") == OverridingChild.self)
        #expect(registry.type(named: "App.OverridableBase") == OverridableBase.self)
    }
}
