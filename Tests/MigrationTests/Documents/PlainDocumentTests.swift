import ArchiveCompatibility
import Foundation
import ModelVersioning
import TestSupport
import Testing

/// Today's shape (schema_version 3) of a household file another program reads too: plain JSON,
/// dates as ISO 8601 text and photos as base64.
struct Household: Codable, Equatable {
    struct Person: Codable, Equatable {
        var firstName: String
        var lastName: String
        var born: Date
        var photo: Data
        var markAsFavorite: Bool

        enum CodingKeys: String, CodingKey {
            case firstName = "first_name"
            case lastName = "last_name"
            case born
            case photo
            case markAsFavorite = "mark_as_favorite"
        }
    }

    var people: [Person]
}

/// A model value inside a plain document.
private struct Pet: VersionedModel, Equatable {
    var name: String
    static let modelVersion = 2
}

/// A model class, which an archive can share and a plain document cannot.
private final class Keeper: VersionedModel {
    var name: String

    init(name: String) {
        self.name = name
    }
}

private struct Zoo: Codable {
    var pets: [Pet]
}

private struct SharedKeeper: Codable {
    var day: Keeper
    var night: Keeper
}

/// A plain document — one with its own version key and spellings, and no envelope — is written
/// the way it is spelled on disk by everything that writes it: the encoder, upgrades,
/// downgrades, conversions and fixture goldens; and the library decodes what it writes.
@Suite("Plain documents stay plain")
struct PlainDocumentTests {
    /// Version 1 of the household file: one `name` per person.
    static let v1 = #"""
        {
          "people": [
            {"name": "Fred Weasley", "born": "1978-04-01T09:30:00Z", "photo": "iVBORw0KGgo="},
            {"name": "George Weasley", "born": "1978-04-01T09:45:00.250Z", "photo": "R0lGODlhAQABAAAAACw="}
          ],
          "schema_version": 1
        }
        """#

    /// The household file's history; `plain` is inserted as the document chain's `"plain"` value.
    static func rules(plain: String? = #"{"dates": "iso8601", "data": "base64"}"#) -> String {
        """
        {
          "formatVersion": 1,
          "document": {
            "name": "people", "versionPath": "schema_version", "currentVersion": 3,
            \(plain.map { "\"plain\": \($0)," } ?? "")
            "steps": [
              {"from": 1, "rules": [{"scope": "people[*]", "rules": [
                {"split": "name", "into": ["first_name", "last_name"], "separator": " "}]}]},
              {"from": 2, "rules": [{"scope": "people[*]", "rules": [
                {"add": "mark_as_favorite", "default": false}]}]}
            ]
          }
        }
        """
    }

    static func registry(plain: String? = #"{"dates": "iso8601", "data": "base64"}"#) throws -> ModelRegistry {
        let tree = try ArchiveFormat.json.read(Data(rules(plain: plain).utf8), options: .init(markup: .plain))
        return try ModelRegistry([], rules: try MigrationCatalog(rulesFile: tree, fileName: "rules.json"))
    }

    static func decoder(_ registry: ModelRegistry) -> ArchiveDecoder {
        var options = DecodingOptions()
        options.document = "people"
        return ArchiveDecoder(registry: registry, options: options)
    }

    /// Every key that starts with `$`, anywhere in the text read literally.
    static func dollarKeys(_ data: Data) throws -> [String] {
        DocumentFidelityTests.dollarKeys(try ArchiveFormat.json.read(data, options: .init(markup: .plain)))
    }

    /// What the v1 file holds, as today's models.
    static let household = Household(people: [
        Household.Person(
            firstName: "Fred", lastName: "Weasley", born: Date(timeIntervalSince1970: 260_271_000),
            photo: Data(base64Encoded: "iVBORw0KGgo=") ?? Data(), markAsFavorite: false),
        Household.Person(
            firstName: "George", lastName: "Weasley", born: Date(timeIntervalSince1970: 260_271_900.25),
            photo: Data(base64Encoded: "R0lGODlhAQABAAAAACw=") ?? Data(), markAsFavorite: false),
    ])

    /// Checks an upgraded household file: plain, today's version in its own key, its spellings.
    static func expectUpgraded(_ data: Data, registry: ModelRegistry) throws {
        let text = String(decoding: data, as: UTF8.self)
        #expect(try dollarKeys(data) == [], "\(text)")
        let document = try ArchiveDocument(data: data)
        #expect(document.markup == .plain)
        #expect(try ArchiveEnvelope(tree: document.tree) == nil)
        #expect(document.tree["schema_version"] == 3)
        #expect(document.tree["people"]?[0]?["born"] == "1978-04-01T09:30:00Z", "\(text)")
        #expect(document.tree["people"]?[1]?["born"] == "1978-04-01T09:45:00.250Z", "\(text)")
        #expect(document.tree["people"]?[0]?["photo"] == "iVBORw0KGgo=", "\(text)")
        #expect(document.tree["people"]?[1]?["photo"] == "R0lGODlhAQABAAAAACw=", "\(text)")
        #expect(document.tree["people"]?[1]?["mark_as_favorite"] == false)
        // The library decodes what it wrote, at today's version.
        #expect(try decoder(registry).decode(Household.self, from: data) == household)
    }

    // MARK: The Swift API

    @Test("ArchiveEncoder writes a plain document for its plain chain: its version key, its spellings, no envelope")
    func encoderWritesPlainDocument() throws {
        let registry = try Self.registry()
        let household = try Self.decoder(registry).decode(Household.self, from: Data(Self.v1.utf8))
        #expect(household == Self.household)
        var encoder = ArchiveEncoder(registry: registry)
        encoder.document = "people"
        try Self.expectUpgraded(try encoder.encode(household), registry: registry)
        // The tree has no envelope either, and every format writes the version where the chain says.
        let tree = try encoder.encodeTree(household)
        #expect(try ArchiveEnvelope(tree: tree) == nil)
        #expect(tree["schema_version"] == 3)
        encoder.format = .binaryPropertyList
        let plist = try ArchiveDocument(data: try encoder.encode(household))
        #expect(plist.markup == .plain)
        #expect(plist.tree["schema_version"] == 3)
        #expect(try Self.decoder(registry).decode(Household.self, from: try plist.data()) == household)
    }

    @Test("dates and data in a chain's own spelling are written and read back that way")
    func declaredSpellings() throws {
        let people = DocumentMigrations(
            name: "people", versionPath: "meta.version", currentVersion: 1,
            style: .plain(DocumentConventions(dates: .millisecondsSince1970)))
        let registry = try ModelRegistry([], documents: [people])
        var encoder = ArchiveEncoder(registry: registry)
        encoder.document = "people"
        #expect(encoder.documentStyle == people.style)
        let data = try encoder.encode(Self.household)
        let tree = try ArchiveFormat.json.read(data, options: .init(markup: .plain))
        #expect(tree["people"]?[0]?["born"] == 260_271_000_000)
        #expect(tree["people"]?[1]?["born"] == 260_271_900_250)
        #expect(tree["meta"] == ["version": 1])
        #expect(try Self.dollarKeys(data) == [])
        #expect(try Self.decoder(registry).decode(Household.self, from: data) == Self.household)

        // A date in another spelling than the declared one is a located error, not a guess.
        struct Births: Decodable { var people: [[String: Date]] }
        let iso = Data(#"{"people": [{"born": "1978-04-01T09:30:00Z"}], "meta": {"version": 1}}"#.utf8)
        let error = #expect(throws: ArchiveError.self) {
            _ = try Self.decoder(registry).decode(Births.self, from: iso)
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.path.description == "people[0].born")
        #expect(
            error?.message
                == #"expected a date spelled millisecondsSince1970 (a number), found string "1978-04-01T09:30:00Z""#)
    }

    @Test("an archive chain still writes an envelope, and a plain root must be a dictionary")
    func archiveChainsAndRoots() throws {
        let archived = try ModelRegistry([], documents: [DocumentMigrations(name: "notes", currentVersion: 2)])
        var encoder = ArchiveEncoder(registry: archived)
        encoder.document = "notes"
        encoder.documentVersion = 2
        #expect(encoder.documentStyle == .archive)
        let envelope = try ArchiveEnvelope(tree: try encoder.encodeTree(["a": 1]))
        #expect(envelope?.document == "notes")
        #expect(envelope?.documentVersion == 2)

        let plain = try ModelRegistry(
            [], documents: [DocumentMigrations(name: "list", versionPath: "v", currentVersion: 1, style: .plain)])
        var listEncoder = ArchiveEncoder(registry: plain)
        listEncoder.document = "list"
        let error = #expect(throws: ArchiveError.self) { _ = try listEncoder.encode([1, 2]) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("keeps its version at 'v', so its root must be a dictionary") == true)
    }

    @Test("a plain document holds values: a model object is written as its fields, a shared instance refused")
    func modelObjectsInPlainDocuments() throws {
        let zoo = DocumentMigrations(name: "zoo", versionPath: "version", currentVersion: 1, style: .plain)
        let registry = try ModelRegistry([], documents: [zoo])
        var encoder = ArchiveEncoder(registry: registry)
        encoder.document = "zoo"
        let data = try encoder.encode(Zoo(pets: [Pet(name: "Hedwig")]))
        #expect(
            try ArchiveFormat.json.read(data, options: .init(markup: .plain))
                == ["pets": [["name": "Hedwig"]], "version": 1])
        var options = DecodingOptions()
        options.document = "zoo"
        #expect(
            try ArchiveDecoder(registry: registry, options: options).decode(Zoo.self, from: data).pets == [
                Pet(name: "Hedwig")
            ])

        let keeper = Keeper(name: "Hagrid")
        let error = #expect(throws: ArchiveError.self) {
            _ = try encoder.encode(SharedKeeper(day: keeper, night: keeper))
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.path.description == "night")
        #expect(error?.message.contains("only an archive can share an instance") == true)
    }

    // MARK: The command-line tool

    @Test("archive-migrate upgrade writes a plain document's own version key and spellings, and downgrade back")
    func toolUpgradeAndDowngrade() throws {
        let scratch = try ScratchFolder()
        try scratch.write(Self.v1, to: "doc.json")
        try scratch.write(Self.rules(), to: "r.json")
        let upgrade = try ToolProcess.run(
            ["upgrade", "doc.json", "--rules", "r.json", "--document", "people", "-o", "out"], in: scratch.url)
        #expect(upgrade.status == 0, "\(upgrade.standardError)")
        let upgraded = try scratch.data("out/doc.json")
        try Self.expectUpgraded(upgraded, registry: try Self.registry())

        let downgrade = try ToolProcess.run(
            ["downgrade", "out/doc.json", "--rules", "r.json", "--document", "people", "--to", "1"], in: scratch.url)
        #expect(downgrade.status == 0, "\(downgrade.standardError)")
        #expect(try Self.dollarKeys(downgrade.standardOutput) == [])
        #expect(
            try ArchiveDocument(data: downgrade.standardOutput).tree
                == (try ArchiveDocument(data: Data(Self.v1.utf8)).tree))
    }

    @Test("a date a migration makes is written in the chain's spelling, by upgrade and by convert")
    func migratedDatesTakeTheChainsSpelling() throws {
        let scratch = try ScratchFolder()
        try scratch.write(#"{"born": "1978-04-01", "version": 1}"#, to: "doc.json")
        try scratch.write(
            #"""
            {"formatVersion": 1,
             "document": {"name": "d", "versionPath": "version", "currentVersion": 2,
                          "plain": {"dates": "secondsSince1970"},
                          "steps": [{"from": 1, "rules": [
                            {"convert": "born", "using": "date", "from": {"pattern": "yyyy-MM-dd"}, "to": "date"}]}]}}
            """#, to: "r.json")
        let upgrade = try ToolProcess.run(["upgrade", "doc.json", "--rules", "r.json"], in: scratch.url)
        #expect(upgrade.status == 0, "\(upgrade.standardError)")
        #expect(try ArchiveDocument(data: upgrade.standardOutput).tree == ["born": 260_236_800, "version": 2])

        // A property list has dates of its own; converted to JSON with the chain, it takes the chain's spelling.
        try ArchiveFormat.binaryPropertyList.write(
            ["born": .date(Date(timeIntervalSince1970: 260_236_800)), "version": 2], options: .init(markup: .plain)
        ).write(to: scratch.url.appendingPathComponent("doc.plist"))
        let convert = try ToolProcess.run(
            ["convert", "doc.plist", "--to", "json", "--rules", "r.json", "--document", "d"], in: scratch.url)
        #expect(convert.status == 0, "\(convert.standardError)")
        #expect(try ArchiveDocument(data: convert.standardOutput).tree == ["born": 260_236_800, "version": 2])
        let unknown = try ToolProcess.run(
            ["convert", "doc.plist", "--to", "json", "--rules", "r.json", "--document", "e"], in: scratch.url)
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("'--document e': no document chain has that name (there are d)"))
    }

    // MARK: Fixture goldens

    /// A fixtures folder with one plain document group, `people/v1/weasleys.json`: a `$schema`
    /// key of its own, and a date the migration makes.
    static func plainFixtures(plain: String?) throws -> ScratchFolder {
        let scratch = try ScratchFolder()
        try scratch.write(
            #"""
            {
              "$schema": "https://example.com/people.schema.json",
              "people": [{"name": "Fred Weasley", "born": "1978-04-01", "photo": "iVBORw0KGgo="}],
              "schema_version": 1
            }
            """#, to: "fixtures/people/v1/weasleys.json")
        try scratch.write(
            """
            {"formatVersion": 1,
             "document": {"name": "people", "versionPath": "schema_version", "currentVersion": 2,
                          \(plain.map { "\"plain\": \($0)," } ?? "")
                          "steps": [{"from": 1, "rules": [{"scope": "people[*]", "rules": [
                            {"split": "name", "into": ["first_name", "last_name"], "separator": " "},
                            {"convert": "born", "using": "date", "from": {"pattern": "yyyy-MM-dd"}, "to": "date"}]}]}]}}
            """, to: "fixtures/rules.json")
        return scratch
    }

    @Test(
        "check --record writes a plain document's golden as the document is spelled, and check then passes",
        arguments: [
            (nil, ArchiveValue.string("1978-04-01T00:00:00Z")), (#"{"dates": "iso8601"}"#, "1978-04-01T00:00:00Z"),
            (#"{"dates": "millisecondsSince1970"}"#, 260_236_800_000),
        ])
    func recordThenCheck(plain: String?, born: ArchiveValue) throws {
        let scratch = try Self.plainFixtures(plain: plain)
        let record = try ToolProcess.run(["check", "fixtures", "--record"], in: scratch.url)
        #expect(record.status == 0, "\(record.output)")
        #expect(record.output.contains("recorded  fixture: people/v1/weasleys.json"), "\(record.output)")
        let golden = try scratch.data("fixtures/people/expected/v1/weasleys.json")
        #expect(try Self.dollarKeys(golden) == ["$schema"], "\(String(decoding: golden, as: UTF8.self))")
        let tree = try ArchiveFormat.json.read(golden, options: .init(markup: .plain))
        #expect(tree["schema_version"] == 2)
        #expect(tree["people"]?[0]?["born"] == born)
        #expect(tree["people"]?[0]?["photo"] == "iVBORw0KGgo=")

        let check = try ToolProcess.run(["check", "fixtures"], in: scratch.url)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("ok        fixture: people/v1/weasleys.json"), "\(check.output)")
    }

    @Test("FixtureSuite compares a plain document with its golden as written")
    func fixtureSuitePlainGolden() throws {
        let scratch = try Self.plainFixtures(plain: #"{"dates": "secondsSince1970"}"#)
        let rules = try ArchiveFormat.json.read(try scratch.data("fixtures/rules.json"), options: .init(markup: .plain))
        let registry = try ModelRegistry([], rules: try MigrationCatalog(rulesFile: rules))
        let folder = scratch.url.appendingPathComponent("fixtures")
        let recorded = try FixtureSuite(directory: folder, registry: registry, recordsGoldens: true).run()
        #expect(recorded.recorded.count == 1, "\(recorded)")
        let checked = try FixtureSuite(directory: folder, registry: registry, recordsGoldens: false).run()
        #expect(checked.failures.isEmpty, "\(checked)")
        // A golden in another spelling fails, naming the path.
        try scratch.write(
            String(decoding: try scratch.data("fixtures/people/expected/v1/weasleys.json"), as: UTF8.self)
                .replacingOccurrences(of: "260236800", with: "260236801"),
            to: "fixtures/people/expected/v1/weasleys.json")
        let broken = try FixtureSuite(directory: folder, registry: registry, recordsGoldens: false).run()
        #expect(broken.failures.count == 1)
        #expect("\(broken)".contains("people[0].born: 260236801 → 260236800"), "\(broken)")
    }
}
