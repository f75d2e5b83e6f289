import Foundation
import ModelVersioning
import TestSupport
import Testing

/// Today's shape of zorn/VersionedFilesDemo's people file (schema_version 3).
struct PeopleFile: Codable, Equatable {
    struct Person: Codable, Equatable {
        var id: UUID
        var firstName: String
        var lastName: String
        var birthday: Date?
        var markAsFavorite: Bool

        enum CodingKeys: String, CodingKey {
            case id
            case firstName = "first_name"
            case lastName = "last_name"
            case birthday
            case markAsFavorite = "mark_as_favorite"
        }
    }

    var people: [Person]
    var schemaVersion: Int

    enum CodingKeys: String, CodingKey {
        case people
        case schemaVersion = "schema_version"
    }
}

@Suite("Foreign versioned documents migrated by rules files")
struct ForeignDocumentTests {
    let zorn = "versioned-json/zorn-VersionedFilesDemo/"

    @Test("zorn's v1 people file migrated by the rules file equals simple-v2")
    func zornV1ToV2() throws {
        var tree = try Fixture.tree(zorn + "simple-v1.people.json")
        let pass = MigrationPass(catalog: try Fixture.rules(zorn + "people.rules.json"))
        var toV2 = tree
        // Stop at v2: the document chain from the same file, cut after its first step.
        let catalog = try Fixture.rules(zorn + "people.rules.json")
        let firstStep = try #require(catalog.document(named: "people")?.steps.first { $0.from == 1 })
        let v2Catalog = try MigrationCatalog(
            types: [],
            documents: [
                DocumentMigrations(name: "people", versionPath: "schema_version", currentVersion: 2, steps: [firstStep])
            ])
        try MigrationPass(catalog: v2Catalog).upgrade(&toV2, document: "people")
        #expect(toV2 == (try Fixture.tree(zorn + "simple-v2.people.json")))

        let report = try pass.upgrade(&tree, document: "people")
        #expect(report.document?.fromVersion == 1)
        #expect(report.document?.toVersion == 3)
        #expect(tree["schema_version"] == 3)
    }

    @Test("zorn v1 → v3 gives every person a null birthday and mark_as_favorite false")
    func zornV1ToV3() throws {
        var tree = try Fixture.tree(zorn + "simple-v1.people.json")
        try MigrationPass(catalog: try Fixture.rules(zorn + "people.rules.json")).upgrade(&tree, document: "people")
        let people = try #require(tree["people"]?.arrayValue)
        #expect(people.count == 2)
        for person in people {
            #expect(person["birthday"] == .null)
            #expect(person["mark_as_favorite"] == false)
        }
        // simple-v3 differs only where a birthday was set by hand afterwards.
        var expected = try Fixture.tree(zorn + "simple-v3.people.json")
        expected = try expected.replacing(at: "people[0].birthday", with: .null)
        #expect(tree == expected)
    }

    @Test("a v1 people file decodes straight into today's Swift types")
    func zornDecode() throws {
        let registry = try ModelRegistry([], rules: try Fixture.rules(zorn + "people.rules.json"))
        var options = DecodingOptions()
        options.document = "people"
        let decoder = ArchiveDecoder(registry: registry, options: options)
        let file = try decoder.decode(PeopleFile.self, from: try Fixture.data(zorn + "simple-v1.people.json"))
        #expect(file.schemaVersion == 3)
        #expect(file.people.map(\.firstName) == ["Fred", "George"])
        #expect(file.people.map(\.lastName) == ["Weasley", "Weasley"])
        #expect(file.people.allSatisfy { $0.birthday == nil && !$0.markAsFavorite })
        #expect(file.people[0].id == UUID(uuidString: "4E966EDD-893C-4F96-973A-949411B50149"))
        // The v3 file itself decodes too, with the birthday set by hand.
        let v3 = try decoder.decode(PeopleFile.self, from: try Fixture.data(zorn + "simple-v3.people.json"))
        #expect(v3.people[0].birthday == ISO8601Date.date(from: "0001-01-01T00:00:00Z"))
    }

    @Test("downgrading v3 back to v1 with the same rules file restores the v1 document")
    func zornDowngrade() throws {
        var tree = try Fixture.tree(zorn + "simple-v1.people.json")
        let pass = MigrationPass(catalog: try Fixture.rules(zorn + "people.rules.json"))
        try pass.upgrade(&tree, document: "people")
        try pass.downgrade(&tree, to: DowngradeTarget(documentVersion: 1), document: "people")
        #expect(tree == (try Fixture.tree(zorn + "simple-v1.people.json")))
    }

    @Test("the excalidraw v1 library's legacy fields are rewritten as its loader does")
    func excalidraw() throws {
        let path = "versioned-json/excalidraw/"
        var tree = try Fixture.tree(path + "fixture_library.v1.excalidrawlib")
        let original = try #require(tree["library"]?[0]?[0])
        try MigrationPass(catalog: try Fixture.rules(path + "excalidrawlib.rules.json"))
            .upgrade(&tree, document: "excalidrawlib")
        #expect(tree["version"] == 2)
        let element = try #require(tree["library"]?[0]?[0])
        #expect(element["strokeSharpness"] == nil)
        #expect(element["boundElementIds"] == nil)
        #expect(element["roundness"] == .null)
        #expect(element["boundElements"] == [])
        // Every other field is untouched, in its place.
        let untouched = original.keyedEntries?.keys.filter { $0 != "strokeSharpness" && $0 != "boundElementIds" } ?? []
        for key in untouched {
            #expect(element[key] == original[key], "\(key)")
        }
        #expect(element.keyedEntries?.keys.suffix(2) == ["roundness", "boundElements"])
    }
}

extension ArchiveValue {
    /// This tree with the value at a (wildcard-free) path replaced.
    func replacing(at path: ArchivePath, with newValue: ArchiveValue) throws -> ArchiveValue {
        guard let first = path.components.first else { return newValue }
        let rest = ArchivePath(Array(path.components.dropFirst()))
        switch (self, first) {
        case (.dictionary(var dictionary), .key(let key)):
            dictionary[key] = try (dictionary[key] ?? .null).replacing(at: rest, with: newValue)
            return .dictionary(dictionary)
        case (.object(var object), .key(let key)):
            object[key] = try (object[key] ?? .null).replacing(at: rest, with: newValue)
            return .object(object)
        case (.array(var elements), .index(let index)) where elements.indices.contains(index):
            elements[index] = try elements[index].replacing(at: rest, with: newValue)
            return .array(elements)
        default:
            throw ArchiveError(.invalidPath, "no value at \(path)")
        }
    }
}
