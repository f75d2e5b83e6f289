import Foundation
import ModelVersioning
import TestSupport
import Testing

/// What a newcomer meets when the Swift API and the tool answer differently: a foreign document
/// whose rules file declares no `plain` style, opened, saved and opened again through the Swift
/// API; a plain document decoded with no document chain named; an upgrade that only writes a way
/// down.
@Suite("One answer: the Swift API does what archive-migrate does")
struct OneAnswerTests {
    /// A poem file another program writes: v1 keeps the author as one string, v2 as a name of
    /// two parts. The rules file declares the chain without `plain`, as a new user writes it.
    static let rules = """
        {"formatVersion": 1, "document": {"name": "poem", "versionPath": "version", "currentVersion": 2,
          "steps": [{"from": 1, "to": 2, "name": "author as a name", "rules": [
            {"split": "author", "into": ["first", "last"], "separator": " "},
            {"nest": ["first", "last"], "into": "name"},
            {"nest": ["name"], "into": "author"}]}]}}
        """
    static let poemV1 = #"{"version": 1, "title": "She Walks in Beauty", "author": "George Byron"}"#

    struct Poem: Codable, Equatable {
        struct Author: Codable, Equatable {
            struct Name: Codable, Equatable {
                var first: String
                var last: String
            }
            var name: Name
        }
        var version: Int
        var title: String
        var author: Author
    }

    static func registry() throws -> ModelRegistry {
        try ModelRegistry([], rules: MigrationCatalog(rulesFile: ArchiveFormat.json.read(Data(rules.utf8))))
    }

    @Test("a plain document opens without a document chain named: the registry's only chain migrates it")
    func decoderTakesTheOnlyChain() throws {
        let decoder = ArchiveDecoder(registry: try Self.registry())
        let poem = try decoder.decode(Poem.self, from: Data(Self.poemV1.utf8))
        #expect(poem.version == 2 && poem.author.name == Poem.Author.Name(first: "George", last: "Byron"))
        // The people file of zorn's demo too, with its own rules file.
        let zorn = "versioned-json/zorn-VersionedFilesDemo/"
        let people = ArchiveDecoder(
            registry: try ModelRegistry([], rules: try Fixture.rules(zorn + "people.rules.json")))
        let file = try people.decode(PeopleDocument.self, from: try Fixture.data(zorn + "simple-v1.people.json"))
        #expect(file.schemaVersion == 3 && file.people.map(\.lastName) == ["Weasley", "Weasley"])
    }

    @Test("the poem round-trips through the Swift API with the rules file as written (no plain style)")
    func poemRoundTrip() throws {
        let registry = try Self.registry()
        let decoder = ArchiveDecoder(registry: registry)
        let poem = try decoder.decode(Poem.self, from: Data(Self.poemV1.utf8))
        var encoder = ArchiveEncoder(registry: registry)
        encoder.document = "poem"
        let saved = try encoder.encode(poem)
        // The archive records the version its chain is at, so opening it runs nothing again.
        let envelope = try #require(try ArchiveEnvelope(tree: ArchiveFormat.json.read(saved)))
        #expect(envelope.document == "poem" && envelope.documentVersion == 2)
        #expect(try decoder.decode(Poem.self, from: saved) == poem)
        let (_, report) = try decoder.decodeWithReport(Poem.self, from: saved)
        #expect(!report.changedTree)
        // The tool's upgrade of the same file decodes to the same poem.
        let scratch = try ScratchFolder()
        try scratch.write(Self.rules, to: "poem.rules.json")
        try scratch.write(Self.poemV1, to: "poem.json")
        let run = try ToolProcess.run(["upgrade", "poem.json", "--rules", "poem.rules.json"], in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try decoder.decode(Poem.self, from: run.standardOutput) == poem)
    }

    @Test("an archive that names a document without a version it could record is refused, not written")
    func noVersionToStamp() throws {
        var encoder = ArchiveEncoder()
        encoder.document = "poem"
        #expect {
            try encoder.encode(Poem(version: 2, title: "t", author: .init(name: .init(first: "a", last: "b"))))
        } throws: { error in
            (error as? ArchiveError)?.code == .invalidValue && "\(error)".contains("documentVersion")
        }
        encoder.documentVersion = 2
        let envelope = try #require(try ArchiveEnvelope(tree: encoder.encodeTree(["title": "t"])))
        #expect(envelope.documentVersion == 2)
    }

    @Test("an upgrade that only writes a way down says so, through the engine and in the tool's report")
    func wayDownIsReported() throws {
        let catalog = try Fixture.rules("archives/rules.json")
        var options = MigrationEngine.Options()
        options.readableBy = "1.1"
        let engine = try MigrationEngine(catalog: catalog, options: options)
        let outcome = try engine.migrate(try Fixture.data("archives/Sketch/v4/moodboard.json"))
        let report = try #require(outcome.report)
        #expect(outcome.changed && report.counts.isEmpty)
        #expect(report.writtenWayDown == MigrationReport.WrittenWayDown(release: "1.1", change: .added))
        #expect(report.summary().contains("Wrote the way down to release 1.1 into the archive."))
        // Written again, it carries the same way down: nothing changes.
        let again = try engine.migrate(try #require(outcome.data))
        #expect(!again.changed && again.report?.writtenWayDown == nil)

        let run = try ToolProcess.run(
            [
                "upgrade", "Fixtures/archives/Sketch/v4/moodboard.json", "--rules", "Fixtures/archives/rules.json",
                "--readable-by", "1.1",
            ],
            in: Fixture.root.deletingLastPathComponent())
        #expect(run.status == 0)
        #expect(
            run.standardError.contains("Wrote the way down to release 1.1 into the archive."), "\(run.standardError)")
        #expect(!run.standardError.contains("Nothing to migrate."))
    }
}

/// Today's shape of zorn/VersionedFilesDemo's people file (schema_version 3), names only.
struct PeopleDocument: Codable {
    struct Person: Codable {
        var firstName: String
        var lastName: String

        enum CodingKeys: String, CodingKey {
            case firstName = "first_name"
            case lastName = "last_name"
        }
    }

    var people: [Person]
    var schemaVersion: Int

    enum CodingKeys: String, CodingKey {
        case people
        case schemaVersion = "schema_version"
    }
}
