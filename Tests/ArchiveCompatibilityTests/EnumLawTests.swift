import Foundation
import ModelVersioning
import Testing

@testable import ArchiveCompatibility

// Enums the law generator meets: it makes only values the type can hold.

/// An ordinary raw-value enum: not `CaseIterable`, and `0` a case, so the probe's stand-in works.
enum PlainKind: Int, Codable { case photo, drawing, text }

struct PlainKindModel: VersionedModel {
    var name: String
    var kind: PlainKind
}

/// The same, optional: the probe meets it without decoding a value.
struct OptionalKindModel: VersionedModel {
    var kind: PlainKind?
}

/// A raw-value enum with a sample.
enum SampledKind: Int, Codable, SchemaSampleProviding {
    case photo = 3, drawing = 5
    static var schemaSample: SampledKind { .drawing }
}

struct SampledKindModel: VersionedModel {
    var kind: SampledKind
}

/// The same enum, `CaseIterable`.
enum ListedKind: Int, Codable, CaseIterable { case photo, drawing, text }

struct ListedKindModel: VersionedModel {
    static let archiveTypeName = "PlainKindModel"
    var name: String
    var kind: ListedKind
}

/// An enum with associated values, with a sample.
enum Stroke: Codable, SchemaSampleProviding {
    case solid(width: Double), dashed(pattern: [Int])
    static var schemaSample: Stroke { .solid(width: 1) }
}

struct StrokeModel: VersionedModel {
    var stroke: Stroke
}

/// The same without a sample, where the probe meets it without a value.
enum BareStroke: Codable { case solid(width: Double), dashed(pattern: [Int]) }

struct BareStrokeModel: VersionedModel {
    var strokes: [BareStroke]
}

@Suite("The law generator and enums")
struct EnumLawTests {
    static func laws(_ types: [any VersionedModel.Type]) throws -> LawReport {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-enum-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        return MigrationLaws(
            registry: try ModelRegistry(types), schemas: SchemaStore(directory: folder),
            options: LawOptions(objectsPerVersion: 60)
        ).run()
    }

    @Test("an enum that is not CaseIterable is recorded as an enum whose cases are not listed")
    func probe() throws {
        let plain = try #require(try ModelSchema(of: PlainKindModel.self).nestedType(named: "PlainKind"))
        #expect(plain == .init(name: "PlainKind", kind: .enum, valueType: "Int", listsEveryCase: false))
        #expect(plain.description == "PlainKind: enum of Int, cases not listed")
        let optional = try #require(try ModelSchema(of: OptionalKindModel.self).nestedType(named: "PlainKind"))
        #expect(optional == plain)
        let sampled = try #require(try ModelSchema(of: SampledKindModel.self).nestedType(named: "SampledKind"))
        #expect(sampled.cases == [.init(name: "drawing", value: 5)] && !sampled.listsEveryCase)
        let stroke = try #require(try ModelSchema(of: StrokeModel.self).nestedType(named: "Stroke"))
        #expect(stroke.kind == .enum && !stroke.listsEveryCase && stroke.cases.map(\.name) == ["solid(width: 1.0)"])
        let bare = try #require(try ModelSchema(of: BareStrokeModel.self).nestedType(named: "BareStroke"))
        #expect(bare == .init(name: "BareStroke", kind: .enum, listsEveryCase: false))
        // The snapshot keeps what is not listed.
        let schema = try ModelSchema(of: SampledKindModel.self)
        #expect(try ModelSchema(jsonData: schema.jsonData()) == schema)
    }

    @Test(
        "without CaseIterable or a sample the chain is not run, and one line says which type needs which",
        arguments: [PlainKindModel.self, OptionalKindModel.self, BareStrokeModel.self] as [any VersionedModel.Type])
    func unlistedEnum(type: any VersionedModel.Type) throws {
        let report = try Self.laws([type])
        let name = String(describing: type)
        let enumName = name == "BareStrokeModel" ? "BareStroke" : "PlainKind"
        #expect(report.failures.count == 1)
        #expect(
            report.results.map(\.outcome) == [
                .cannotGenerate(
                    "\(enumName) (in \(name) v1) is an enum whose cases the law check cannot know, so it cannot "
                        + "generate a value of it: make \(enumName) CaseIterable, or conform it to "
                        + "SchemaSampleProviding")
            ])
        #expect(report.description.hasPrefix("FAILED    \(name) v1 — \(enumName) (in \(name) v1) is an enum"))
    }

    @Test(
        "with CaseIterable or a sample every generated object opens",
        arguments: [ListedKindModel.self, SampledKindModel.self, StrokeModel.self] as [any VersionedModel.Type])
    func listedEnum(type: any VersionedModel.Type) throws {
        let report = try Self.laws([type])
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.results.map(\.objects) == [60])
    }

    @Test("the generator makes only the sample of an enum that lists no other case")
    func onlyTheSample() throws {
        let schema = try ModelSchema(of: SampledKindModel.self)
        let set = SchemaSet(catalog: try ModelRegistry([SampledKindModel.self]).catalog, store: nil, today: [schema])
        for seed in 0..<200 {
            var generator = ArchiveGenerator(seed: UInt64(seed), schemas: set)
            let object = try generator.object(schema, archivedAs: "SampledKindModel")
            #expect(object["kind"] == 5)
        }
    }

    @Test("adding CaseIterable, or an old snapshot of the raw value, is no schema change")
    func noChange() throws {
        let listed = try ModelSchema(of: ListedKindModel.self)
        var unlisted = try ModelSchema(of: PlainKindModel.self)
        unlisted.nestedTypes = unlisted.nestedTypes.map { type in
            var renamed = type
            renamed.name = "ListedKind"
            return renamed
        }
        unlisted.properties = unlisted.properties.map { property in
            var renamed = property
            if renamed.type == "PlainKind" { renamed.type = "ListedKind" }
            return renamed
        }
        #expect(listed.differences(from: unlisted) == [])
        #expect(unlisted.differences(from: listed) == [])
        // A snapshot written before the probe recognised such enums: a value of the raw type.
        var legacy = unlisted
        legacy.nestedTypes = [.init(name: "ListedKind", kind: .value, valueType: "Int")]
        #expect(listed.differences(from: legacy) == [])
        // A value of another type is a change.
        legacy.nestedTypes = [.init(name: "ListedKind", kind: .value, valueType: "String")]
        #expect(listed.differences(from: legacy) == ["~ kind: ListedKind → ListedKind"])
    }

    @Test("recording never writes a fixture of an enum it cannot generate, nor one that fails to open")
    func recording() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-enum-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = try ModelRegistry([PlainKindModel.self])
        let error = try #require(throws: ArchiveError.self) {
            try FixtureCoverage.record(
                .init(typeName: "PlainKindModel", version: 1), into: folder, catalog: plain.catalog, schemas: nil,
                today: [try ModelSchema(of: PlainKindModel.self)], registry: plain)
        }
        #expect(
            error.message.contains("PlainKind (in PlainKindModel) is an enum whose cases the law check cannot know"))
        #expect(!FileManager.default.fileExists(atPath: folder.path))

        let listed = try ModelRegistry([ListedKindModel.self])
        let url = try FixtureCoverage.record(
            .init(typeName: "PlainKindModel", version: 1), into: folder, catalog: listed.catalog, schemas: nil,
            today: [try ModelSchema(of: ListedKindModel.self)], registry: listed)
        let opened = try ArchiveDecoder(registry: listed).decode(ListedKindModel.self, from: Data(contentsOf: url))
        #expect(ListedKind.allCases.contains(opened.kind))
    }
}
