import Foundation
import ModelVersioning
import TestModels
import TestSupport
import Testing

/// kiler129's `TestDummy`, now a Swift model with a stable name of its own: archives name it by
/// its old stable name and by the module-qualified name Swift gives a class without one.
struct Dummy: VersionedModel, Equatable {
    var foo: String

    static let archiveTypeName = "Dummy"
    static let archiveTypeAliases = ["TestDummy", "generate_reference_data.TestDummy"]
    static let unversionedVersion: Int? = 1
}

/// Mantle's own test model, as an app that moved to Codable declares it today, with Mantle's own
/// pre-0.3 upgrade (`MTLTestModel` read an archived `externalRepresentation`) as its step.
struct MTLTestModel: VersionedModel, Equatable {
    var name: String
    var count: Int
    var nestedName: String

    static let modelVersion = 1
    static let migrationSteps = [KeyedArchiveModelTests.externalRepresentationStep]
}

/// The same model without the step: version 0 archives cannot be read.
struct MTLTestModelWithoutMigrations: VersionedModel {
    var name: String

    static let archiveTypeName = "MTLTestModel"
    static let modelVersion = 1
}

/// The same archive name at an older version: an app that has not seen version 1 yet.
struct MTLTestModelBeforeVersion1: VersionedModel {
    var name: String

    static let archiveTypeName = "MTLTestModel"
    static let modelVersion = 0
}

/// Keyed archives meeting models: class names and aliases, the allow list, Mantle's versions and
/// its pre-0.3 archives upgraded by migration rules.
@Suite("Keyed archives: models and migrations")
struct KeyedArchiveModelTests {
    static func data(_ path: String) throws -> Data {
        try KeyedArchiveFixtures.data(path)
    }

    /// kiler129's archive of `TestDummy {foo: "bar"}` (written by Apple's NSKeyedArchiver) with
    /// its class entry renamed: what the archive holds when the class had no stable name.
    static func dummyArchive(className: String) throws -> Data {
        let text = try #require(
            String(data: try data("kiler129-php/ArchivedData/objectWithSingleProp.xml.plist"), encoding: .utf8))
        #expect(text.contains("<string>TestDummy</string>"))
        return Data(
            text.replacingOccurrences(of: "<string>TestDummy</string>", with: "<string>\(className)</string>").utf8)
    }

    // MARK: - Class names

    @Test(
        "archived class names resolve through the model's aliases",
        arguments: ["TestDummy", "generate_reference_data.TestDummy", "Dummy"])
    func aliases(_ className: String) throws {
        let registry = try ModelRegistry([Dummy.self])
        #expect(registry.type(named: className) == Dummy.self)
        let data = try Self.dummyArchive(className: className)
        let decoded = try ArchiveDecoder(registry: registry).decode(Dummy.self, from: data)
        #expect(decoded == Dummy(foo: "bar"))
    }

    @Test("a class name the model does not list is a typed error")
    func unknownClassName() throws {
        let registry = try ModelRegistry([Dummy.self])
        let data = try Self.dummyArchive(className: "OtherModule.TestDummy")
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: registry).decode(Dummy.self, from: data)
        }
        #expect(error.code == .unknownType, "\(error)")
        #expect(error.typeName == "OtherModule.TestDummy")
    }

    @Test("the allow list rejects a substituted class in a keyed archive before any initializer runs")
    func allowList() throws {
        let contents = Contents(shapes: [
            Circle(center: Point(x: 1, y: 2), radius: 3),
            Rectangle(origin: Point(x: 0, y: 0), size: Size(width: 4, height: 5)),
        ])
        let registry = try ModelRegistry([Contents.self, Circle.self, Rectangle.self, Hexagon.self])

        // The honest archive reads back.
        let tree = try ArchiveEncoder().encodeValue(contents)
        let honest = try ArchiveFormat.keyedArchive.write(tree)
        let decoded = try ArchiveDecoder(registry: registry).decode(Contents.self, from: honest)
        #expect((decoded.shapes[0] as? Circle)?.radius == 3)
        #expect((decoded.shapes[1] as? Rectangle)?.size == Size(width: 4, height: 5))

        // The same archive with a Hexagon in the second slot.
        guard case .object(var root) = tree, case .array(var shapes)? = root["shapes"] else {
            Issue.record("unexpected tree \(tree)")
            return
        }
        shapes[1] = try ArchiveEncoder().encodeValue(Hexagon(side: 2))
        root["shapes"] = .array(shapes)
        let substituted = try ArchiveFormat.keyedArchive.write(.object(root))
        #expect(ArchiveFormat.detect(substituted) == .keyedArchive)

        let before = InitializationLog.shared.count(of: "Hexagon")
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: registry).decode(Contents.self, from: substituted)
        }
        #expect(error.code == .disallowedType)
        #expect(error.path == "shapes[1]")
        #expect(InitializationLog.shared.count(of: "Hexagon") == before, "Hexagon.init(from:) must not run")
    }

    // MARK: - Mantle

    @Test("Mantle: MTLModelVersion is the object's version and decodes at the current version")
    func mantleVersion() throws {
        let tree = try KeyedArchiveFixtures.read("mantle/mtl-test-model-v1.plist")
        let object = try KeyedArchiveFixtures.object(tree)
        #expect(object.typeName == "MTLTestModel" && object.version == 1)
        #expect(object.superclassNames == ["MTLModel", "NSObject"])
        #expect(object.fields == ["name": "foobar", "count": 5, "nestedName": "bar"])

        let data = try Self.data("mantle/mtl-test-model-v1.plist")
        let model = try ArchiveDecoder().decode(MTLTestModel.self, from: data)
        #expect(model == MTLTestModel(name: "foobar", count: 5, nestedName: "bar"))

        // Mantle refuses an archive from a newer model version; so does the decoder, by code.
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder().decode(MTLTestModelBeforeVersion1.self, from: data)
        }
        #expect(error.code == .newerVersion)
        #expect(error.archivedVersion == 1)
    }

    /// Mantle's own pre-0.3 case (`MTLTestModel`'s upgrade of an archived
    /// `externalRepresentation`), as migration rules.
    static let externalRepresentationStep = MigrationStep(
        from: 0, to: 1, name: "Mantle 0.3: properties instead of externalRepresentation",
        rules: [
            .move("externalRepresentation.username", to: "name"),
            .move("externalRepresentation.count", to: "count"),
            .convert("count", .stringToInt),
            .move("externalRepresentation.nested.name", to: "nestedName"),
            .remove("externalRepresentation"),
        ])

    @Test("Mantle: the pre-0.3 externalRepresentation archive upgrades with rules to today's shape")
    func mantleExternalRepresentation() throws {
        let old = try KeyedArchiveFixtures.read("mantle/mtl-test-model-v0-external-representation.plist")
        let oldObject = try KeyedArchiveFixtures.object(old)
        #expect(oldObject.version == 0)
        #expect(
            oldObject.fields == [
                "externalRepresentation": ["username": "foobar", "count": "5", "nested": ["name": "bar"]]
            ])

        // The rules alone, applied to the object's fields.
        var object = old
        for rule in Self.externalRepresentationStep.rules {
            try rule.apply(to: &object)
        }
        #expect(object.objectValue?.fields == ["name": "foobar", "count": 5, "nestedName": "bar"])

        // The migration pass runs the step and sets the version: the result is what today's
        // Mantle writes (the other fixture), and it decodes.
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(typeName: "MTLTestModel", currentVersion: 1, steps: [Self.externalRepresentationStep])
        ])
        var tree = old
        let report = try MigrationPass(catalog: catalog).upgrade(&tree)
        let current = try KeyedArchiveFixtures.read("mantle/mtl-test-model-v1.plist")
        #expect(tree == current, "\(report)")
        #expect(tree.objectValue?.version == 1)

        // The model declares the step: the decoder upgrades the archive before decoding it.
        let registry = try ModelRegistry([MTLTestModel.self])
        let model = try ArchiveDecoder(registry: registry).decode(
            MTLTestModel.self, from: Self.data("mantle/mtl-test-model-v0-external-representation.plist"))
        #expect(model == MTLTestModel(name: "foobar", count: 5, nestedName: "bar"))

        // Without the step, the decoder refuses the old version by code.
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: try ModelRegistry([MTLTestModelWithoutMigrations.self])).decode(
                MTLTestModelWithoutMigrations.self,
                from: Self.data("mantle/mtl-test-model-v0-external-representation.plist"))
        }
        #expect(error.code == .missingMigration && error.archivedVersion == 0)
    }

    @Test("Mantle: a model archived for an old Mantle app carries MTLModelVersion and NSNumber properties")
    func mantleDowngradeTarget() throws {
        let model = MTLTestModel(name: "foobar", count: 5, nestedName: "bar")
        let tree = try ArchiveEncoder().encodeValue(model)
        let data = try ArchiveFormat.keyedArchive.write(tree, options: ArchiveWritingOptions(keyedArchive: .mantle))
        let plain = try ArchiveFormat.binaryPropertyList.read(data, options: ArchiveReadingOptions(markup: .plain))
        let objects = try #require(plain["$objects"]?.arrayValue)
        let root = try KeyedArchiveFixtures.entry(plain["$top"]?["root"], in: objects)
        #expect(try KeyedArchiveFixtures.entry(root["MTLModelVersion"], in: objects) == 1)
        #expect(try KeyedArchiveFixtures.entry(root["count"], in: objects) == 5)
        #expect(try KeyedArchiveFixtures.entry(root["$class"], in: objects)["$classname"] == "MTLTestModel")
        // And it is the archive today's Mantle writes for this model, `MTLModel` superclass included.
        #expect(
            try ArchiveFormat.keyedArchive.read(data) == KeyedArchiveFixtures.read("mantle/mtl-test-model-v1.plist"))
    }
}

@Suite("Keyed archives: Python-written archives into models")
struct KeyedArchiveCycleTests {
    @Test("bpylist2: the circular archive's reference to its root resolves into one instance that points at itself")
    func bpylist2Circular() throws {
        let data = try Fixture.data("nskeyedarchiver/bpylist2/circular_archive.plist")
        let registry = try ModelRegistry([CircularFoo.self])
        let decoded = try ArchiveDecoder(registry: registry).decode(CircularFoo.self, from: data)
        #expect(decoded.title == "hello")
        #expect(decoded.recursive === decoded)
    }
}

/// bpylist2's `crap.Foo` as a Swift class: `recursive` points back at the parent.
final class CircularFoo: VersionedModel {
    var title: String
    @WeakReference var recursive: CircularFoo?

    static let archiveTypeName = "crap.Foo"
    static let unversionedVersion: Int? = 1
}
