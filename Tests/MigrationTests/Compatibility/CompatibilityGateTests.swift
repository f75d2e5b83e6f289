import ArchiveCompatibility
import Foundation
import ModelVersioning
import SketchModel
import Testing

/// The CI gate on the repository's own sample app, through its own `sketch-migrate` (an app's
/// archive-migrate built with ArchiveMigrateKit) and the stand-alone `archive-migrate`.
@Suite("Compatibility gate on the Sketch sample app")
struct CompatibilityGateTests {
    /// A copy of the repository's fixtures and schema snapshots to break.
    func repositoryCopy() throws -> ScratchFolder {
        let scratch = try ScratchFolder()
        try scratch.copy(fixtureFolder: "archives", to: "Fixtures/archives")
        try scratch.copy(fixtureFolder: "schemas", to: "Fixtures/schemas")
        return scratch
    }

    @Test("the committed fixtures and snapshots pass, with the app's models and with the rules file alone")
    func repositoryPasses() throws {
        let app = try ToolProcess.run(["check"], tool: "sketch-migrate", in: Fixture.root.deletingLastPathComponent())
        #expect(app.status == 0, "\(app.output)")
        #expect(app.output.contains("ok        schema: Drawing v4"))
        #expect(app.output.contains("ok        migrationPath: Rectangle v1 → v2"))
        #expect(app.output.contains("ok        fixture: Sketch/v2/postcard.plist"))
        let rules = try ToolProcess.run(["check"], in: Fixture.root.deletingLastPathComponent())
        #expect(rules.status == 0, "\(rules.output)")
        #expect(rules.output.contains("skipped   schema: models"))
    }

    @Test("a model change without a version bump fails, naming the type, the snapshot file and the change")
    func schemaChangeWithoutBump() throws {
        let scratch = try repositoryCopy()
        // The committed snapshot says what v3 of Circle was; today's Circle (still v3) differs from it.
        let snapshot = "Fixtures/schemas/Circle/v3.json"
        let text = String(decoding: try scratch.data(snapshot), as: UTF8.self)
        try scratch.write(
            text.replacingOccurrences(of: #""name": "radius""#, with: #""name": "diameter""#), to: snapshot)
        let run = try ToolProcess.run(["check", "--format", "github"], tool: "sketch-migrate", in: scratch.url)
        #expect(run.status == 1)
        #expect(run.output.contains("::error file=Fixtures/schemas/Circle/v3.json"))
        #expect(run.output.contains("Circle changed without a version bump (still v3)"))
        #expect(run.output.contains("- diameter: Double"))
        #expect(run.output.contains("+ radius: Double"))

        let text2 = try ToolProcess.run(["check"], tool: "sketch-migrate", in: scratch.url)
        #expect(text2.output.contains("FAILED    schema: Circle v3 (Fixtures/schemas/Circle/v3.json)"))
        #expect(text2.output.contains("NOT compatible"))
    }

    @Test("a corrupted fixture fails with its file and the reason, in JUnit XML too")
    func corruptedFixture() throws {
        let scratch = try repositoryCopy()
        let path = "Fixtures/archives/Sketch/v2/garden.json"
        let text = String(decoding: try scratch.data(path), as: UTF8.self)
        try scratch.write(text.replacingOccurrences(of: #""r": 120.0"#, with: #""r": "big""#), to: path)
        let run = try ToolProcess.run(["check", "--junit", "check.xml"], tool: "sketch-migrate", in: scratch.url)
        #expect(run.status == 1)
        #expect(run.output.contains("FAILED    fixture: Sketch/v2/garden.json (\(path))"))
        #expect(run.output.contains(#"expected a number, found a string ("big")"#))
        let junit = String(decoding: try scratch.data("check.xml"), as: UTF8.self)
        #expect(junit.contains(#"<testcase classname="fixture" name="Sketch/v2/garden.json" file="\#(path)">"#))
        #expect(junit.contains("<failure message="))
    }

    @Test("a snapshotted version with no migration path to today's fails")
    func missingMigrationPath() throws {
        let scratch = try repositoryCopy()
        let v1 = String(decoding: try scratch.data("Fixtures/schemas/Circle/v1.json"), as: UTF8.self)
        try scratch.write(
            v1.replacingOccurrences(of: #""version": 1"#, with: #""version": 0"#), to: "Fixtures/schemas/Circle/v0.json"
        )
        let run = try ToolProcess.run(["check"], in: scratch.url)
        #expect(run.status == 1)
        #expect(run.output.contains("no migration path from Circle v0 to v3: its chain starts at v1"))
    }

    @Test("the fixture suite runs from a test target too")
    func fixtureSuiteInTests() throws {
        let suite = FixtureSuite(
            directory: Fixture.url("archives"), registry: try SketchRegistry.registry(), recordsGoldens: false)
        let report = try suite.run()
        #expect(report.results.count == 12)
        #expect(report.failures.isEmpty, "\(report)")
    }
}
