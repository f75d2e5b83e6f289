import ArchiveCompatibility
import Foundation
import ModelVersioning
import TestSupport
import Testing

/// Mantle's own test model as an app that moved to Codable declares it: version 2 today, and a
/// step from version 1, the version Mantle archived both of its layouts at (the pre-0.3
/// `externalRepresentation` dictionary and, later, one key per property). The same model and
/// rules as the *Reading legacy archives* article and `Fixtures/archives/Mantle/MTLTestModel.rules.json`.
private struct MantleOldArchiveModel: VersionedModel, Equatable {
    static let archiveTypeName = "MTLTestModel"
    var name: String
    var count: Int
    var nestedName: String

    static let modelVersion = 2
    static let migrationSteps = [
        MigrationStep(
            from: 1, to: 2, name: "Codable: properties instead of Mantle's archived externalRepresentation",
            rules: [
                .scoped("externalRepresentation", [.convert("count", .stringToInt)]),
                .move("externalRepresentation.username", to: "name"),
                .move("externalRepresentation.count", to: "count"),
                .move("externalRepresentation.nested.name", to: "nestedName"),
                .remove("externalRepresentation", restoring: ["nested": [:]]),
            ])
    ]
}

/// The archive Mantle's test suite keeps (`MTLTestModel-OldArchive.plist`), rebuilt from its facts
/// with this package's keyed-archive writer, and opened as Mantle's own test expects.
@Suite("Mantle's own archive")
struct MantleArchiveTests {
    static let folder = "archives/Mantle/"
    static let fixture = folder + "MTLTestModel-OldArchive.plist"
    static let rules = folder + "MTLTestModel.rules.json"

    /// Mantle's 2013 archive as a tree: the root `MTLTestModel` (superclass `MTLModel`) at
    /// `MTLModelVersion` 1, holding its whole external representation under one key.
    static let mantlesArchive = ArchiveValue.object(
        ArchiveObject(
            typeName: "MTLTestModel", version: 1, superclassNames: ["MTLModel", "NSObject"],
            fields: ["externalRepresentation": ["count": "5", "username": "foobar", "nested": ["name": "fuzzbuzz"]]]))

    @Test("the fixture is what the keyed-archive writer writes in Mantle's form for Mantle's archive")
    func fixtureIsWritten() throws {
        let written = try ArchiveFormat.keyedArchive.write(
            Self.mantlesArchive, options: ArchiveWritingOptions(keyedArchive: .mantle))
        if ProcessInfo.processInfo.environment[FixtureSuite.recordEnvironmentVariable] == "1" {
            try written.write(to: Fixture.url(Self.fixture))
        }
        #expect(written == (try Fixture.data(Self.fixture)), "ARCHIVE_MIGRATE_RECORD=1 writes it again")
    }

    @Test("our reader finds Mantle's layout in the file, field by field")
    func layout() throws {
        let plain = try ArchiveFormat.binaryPropertyList.read(
            try Fixture.data(Self.fixture), options: ArchiveReadingOptions(markup: .plain))
        #expect(plain["$archiver"] == "NSKeyedArchiver")
        #expect(plain["$version"] == 100000)
        #expect(plain["$top"]?.keyedEntries?.keys == ["root"])
        let objects = try #require(plain["$objects"]?.arrayValue)
        #expect(objects.first == "$null")
        func entry(_ reference: ArchiveValue?) throws -> ArchiveValue {
            let uid = try #require(reference?.referenceValue).rawValue
            return try #require(uid > 0 && uid < objects.count ? objects[uid] : nil)
        }
        let root = try entry(plain["$top"]?["root"])
        let rootClass = try entry(root["$class"])
        #expect(rootClass["$classname"] == "MTLTestModel")
        #expect(rootClass["$classes"] == ["MTLTestModel", "MTLModel", "NSObject"])
        #expect(root.keyedEntries?.keys.sorted() == ["$class", "MTLModelVersion", "externalRepresentation"])
        // As Mantle writes it, `encodeObject:@(modelVersion)`: an NSNumber object.
        #expect(try entry(root["MTLModelVersion"]) == 1)
        func dictionary(_ value: ArchiveValue) throws -> [(String, ArchiveValue)] {
            #expect(try entry(value["$class"])["$classname"] == "NSDictionary")
            let keys = try #require(value["NS.keys"]?.arrayValue)
            let values = try #require(value["NS.objects"]?.arrayValue)
            #expect(keys.count == values.count)
            return try zip(keys, values).map { (try #require(try entry($0).stringValue), try entry($1)) }
        }
        let external = try dictionary(try entry(root["externalRepresentation"]))
        #expect(external.map(\.0) == ["count", "username", "nested"])
        #expect(external[0].1 == .string("5"))
        #expect(external[1].1 == "foobar")
        let nested = try dictionary(external[2].1)
        #expect(nested.map(\.0) == ["name"] && nested.map(\.1) == ["fuzzbuzz"])

        // And the keyed-archive reader reads it back as the tree it was written from.
        let data = try Fixture.data(Self.fixture)
        #expect(try ArchiveFormat.keyedArchive.read(data) == Self.mantlesArchive)
        #expect(ArchiveFormat.detect(data) == .keyedArchive)
    }

    @Test(
        "Python's plistlib, a reader independent of ours, finds every fact in the file",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func independentReader() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Fixture.url(Self.folder + "check_with_plistlib.py").path, Fixture.url(Self.fixture).path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.hasSuffix("all facts hold\n"), "\(text)")
        #expect(!text.contains("FAILED"))
    }

    @Test("the model decodes the archive as Mantle's own test expects")
    func decodes() throws {
        let registry = try ModelRegistry([MantleOldArchiveModel.self])
        let (model, report) = try ArchiveDecoder(registry: registry).decodeWithReport(
            MantleOldArchiveModel.self, from: try Fixture.data(Self.fixture))
        #expect(model == MantleOldArchiveModel(name: "foobar", count: 5, nestedName: "fuzzbuzz"))
        #expect(report.entries.map(\.fromVersion) == [1])
    }

    @Test("the rules file is the model's chain, and an archive in Mantle's later layout passes through it")
    func rulesFile() throws {
        let catalog = try Fixture.rules(Self.rules)
        let chain = try #require(catalog.migrations(forTypeName: "MTLTestModel"))
        let swift = try ModelRegistry([MantleOldArchiveModel.self]).catalog.migrations(forTypeName: "MTLTestModel")
        #expect(chain.currentVersion == swift?.currentVersion)
        #expect(chain.steps.map(\.rules.description) == swift?.steps.map(\.rules.description))
        // Mantle 0.3 and later: one key per property, at version 1 too.
        var later = ArchiveValue.object(
            ArchiveObject(
                typeName: "MTLTestModel", version: 1, superclassNames: ["MTLModel", "NSObject"],
                fields: ["name": "foobar", "count": 5, "nestedName": "fuzzbuzz"]))
        try MigrationPass(catalog: catalog).upgrade(&later)
        #expect(
            later
                == .object(
                    ArchiveObject(
                        typeName: "MTLTestModel", version: 2, superclassNames: ["MTLModel", "NSObject"],
                        fields: ["name": "foobar", "count": 5, "nestedName": "fuzzbuzz"])))
    }

    @Test("archive-migrate upgrade runs the step and writes name, count and nestedName")
    func upgradeWithTheTool() throws {
        let run = try ToolProcess.run(
            ["upgrade", Fixture.url(Self.fixture).path, "--rules", Fixture.url(Self.rules).path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "MTLTestModel v1 → v2 (Codable: properties instead of Mantle's archived externalRepresentation)"),
            "\(run.standardError)")
        let tree = try ArchiveFormat.keyedArchive.read(run.standardOutput)
        let object = try #require(tree.objectValue)
        #expect(object.typeName == "MTLTestModel" && object.version == 2)
        #expect(object.fields == ["name": "foobar", "count": 5, "nestedName": "fuzzbuzz"])
        #expect(object.fields.keys == ["name", "count", "nestedName"])
    }

    // MARK: Versions that do not match

    /// The chain the article used to declare: the pre-0.3 layout as version 0, a step to 1.
    static let fromVersion0 = TypeMigrations(
        typeName: "MTLTestModel", currentVersion: 1,
        steps: [
            MigrationStep(
                from: 0, to: 1, name: "pre-0.3 external representation",
                rules: [
                    .move("externalRepresentation.username", to: "name"),
                    .move("externalRepresentation.count", to: "count"),
                    .convert("count", .stringToInt),
                    .move("externalRepresentation.nested.name", to: "nestedName"),
                    .remove("externalRepresentation"),
                ])
        ])

    static let version0Message =
        "the archive says v1, the current version, but the object holds 'externalRepresentation.username' and no "
        + "'name', the keys of v0 that the step MTLTestModel v0 → v1 (pre-0.3 external representation) moves: the "
        + "rules' versions do not match the archive's. If the app wrote this layout at v1, the step belongs at v1 → v2"

    @Test("an object at the current version with the keys of the version before is an error, not nothing to do")
    func layoutOfTheVersionBefore() throws {
        var tree = try ArchiveFormat.keyedArchive.read(try Fixture.data(Self.fixture))
        let catalog = try MigrationCatalog(types: [Self.fromVersion0])
        let error = try #require(throws: ArchiveError.self) { try MigrationPass(catalog: catalog).upgrade(&tree) }
        #expect(error.code == .missingMigration)
        #expect(error.typeName == "MTLTestModel" && error.archivedVersion == 1)
        #expect(error.message == Self.version0Message)
        #expect(error.description.hasPrefix("MTLTestModel v1: the archive says v1"))

        // The same object in the layout of v1 (as the step leaves it) is current: nothing to do.
        var current = ArchiveValue.object(
            ArchiveObject(
                typeName: "MTLTestModel", version: 1, fields: ["name": "foobar", "count": 5, "nestedName": "x"]))
        #expect(try MigrationPass(catalog: catalog).upgrade(&current).entries.isEmpty)
    }

    @Test("archive-migrate says so and exits 2, and writes nothing")
    func layoutOfTheVersionBeforeWithTheTool() throws {
        let scratch = try ScratchFolder()
        let rules = scratch.url.appendingPathComponent("rules.json")
        try ArchiveFormat.json.write(
            try MigrationCatalog(types: [Self.fromVersion0]).rulesFile(), options: ArchiveWritingOptions(markup: .plain)
        ).write(to: rules)
        let run = try ToolProcess.run(["upgrade", Fixture.url(Self.fixture).path, "--rules", rules.path])
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(!run.standardError.contains("Nothing to migrate"))
        #expect(run.standardError.contains("error: MTLTestModel v1: " + Self.version0Message), "\(run.standardError)")
    }

    @Test("a chain whose oldest step starts above the archive's version says so too")
    func chainStartsAboveTheArchive() throws {
        var tree = ArchiveValue.object(
            ArchiveObject(typeName: "MTLTestModel", version: 0, fields: ["externalRepresentation": [:]]))
        let catalog = try Fixture.rules(Self.rules)
        let error = try #require(throws: ArchiveError.self) { try MigrationPass(catalog: catalog).upgrade(&tree) }
        #expect(error.code == .missingMigration && error.archivedVersion == 0)
        #expect(
            error.description
                == "MTLTestModel v0: no migration from MTLTestModel v0: the oldest version MTLTestModel migrates from is v1"
        )
    }
}
