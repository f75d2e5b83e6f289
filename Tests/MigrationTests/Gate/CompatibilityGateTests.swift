import ArchiveCompatibility
import Foundation
import ModelVersioning
import SketchModel
import TestModels
import TestSupport
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
        #expect(app.output.contains("ok        fixtureCoverage: Rectangle v1 — in Sketch/v1/floor-plan.json"))
        #expect(
            app.output.contains(
                "ok        law: Model v1 → v3 — 100 generated v1 objects upgrade and open today, and back to v1 unchanged"
            ))
        #expect(
            app.output.contains(
                "laws: 6 types, 15 versions, 100 generated objects per type and version (1500 in all, 2400 runs through "
                    + "the laws), seed 1, "))
        let rules = try ToolProcess.run(["check"], in: Fixture.root.deletingLastPathComponent())
        #expect(rules.status == 0, "\(rules.output)")
        #expect(rules.output.contains("skipped   schema: models"))
        #expect(rules.output.contains("ok        law: Model v2 → v3"))
        #expect(
            rules.output.contains("laws: 6 types, 15 versions, 100 generated objects per type and version (1500 in all")
        )
    }

    @Test("a key added to a nested type without a bump fails with its path, the models to bump and the step to write")
    func nestedChangeWithoutBump() throws {
        let scratch = try repositoryCopy()
        // The snapshot's Frame had no height: today's Model (still v3) archives one more key.
        let snapshot = "Fixtures/schemas/Model/v3.json"
        var schema = try ModelSchema(jsonData: try scratch.data(snapshot))
        let frame = try #require(schema.nestedTypes.firstIndex { $0.name == "Frame" })
        schema.nestedTypes[frame].properties.removeLast()
        try scratch.write(String(decoding: try schema.jsonData(), as: UTF8.self), to: snapshot)
        let run = try ToolProcess.run(["check", "--law-objects", "0"], tool: "sketch-migrate", in: scratch.url)
        #expect(run.status == 1)
        #expect(run.output.contains("FAILED    schema: Model v3 (Fixtures/schemas/Model/v3.json)"))
        #expect(run.output.contains("            + rect: Frame.height: Double"))
        #expect(run.output.contains("          Frame is archived by Model: Model needs a version bump"))
        #expect(run.output.contains("proposed step (Model v3 → v4); `sketch-migrate check --write` writes it"))
        #expect(
            run.output.contains(#"                .scoped("rect", [.add("height", default: <#TODO: a Double#>)]),"#))

        let write = try ToolProcess.run(
            ["check", "--law-objects", "0", "--write"], tool: "sketch-migrate", in: scratch.url)
        #expect(write.status == 1)
        #expect(
            write.output.contains(
                "wrote the proposed step for Model v3 → v4: Fixtures/proposals/Model-v4.swift and "
                    + "Fixtures/proposals/Model-v4.json"))
        let swift = String(decoding: try scratch.data("Fixtures/proposals/Model-v4.swift"), as: UTF8.self)
        #expect(swift.contains("let proposedModelV4 = MigrationStep("))
        let json = String(decoding: try scratch.data("Fixtures/proposals/Model-v4.json"), as: UTF8.self)
        #expect(json.contains(#"{ "add": "height", "TODO": "default: a Double" }"#))
    }

    @Test("a case added to a nested enum without a bump fails, naming the enum, the key and the model to bump")
    func enumCaseWithoutBump() throws {
        let scratch = try repositoryCopy()
        // The snapshot's ModelKind had no text: today's Model (still v3) archives one more case.
        let snapshot = "Fixtures/schemas/Model/v3.json"
        var schema = try ModelSchema(jsonData: try scratch.data(snapshot))
        let kind = try #require(schema.nestedTypes.firstIndex { $0.name == "ModelKind" })
        schema.nestedTypes[kind].cases.removeAll { $0.name == "text" }
        try scratch.write(String(decoding: try schema.jsonData(), as: UTF8.self), to: snapshot)
        let run = try ToolProcess.run(["check", "--law-objects", "0"], tool: "sketch-migrate", in: scratch.url)
        #expect(run.status == 1)
        #expect(run.output.contains("FAILED    schema: Model v3 (Fixtures/schemas/Model/v3.json)"))
        #expect(run.output.contains(#"            + kind: ModelKind case text = "text""#))
        #expect(run.output.contains("          ModelKind is archived by Model: Model needs a version bump"))
        #expect(run.output.contains(#"name: "ModelKind case text added""#))
    }

    @Test("a change to a nested type several models archive names each of them")
    func sharedNestedType() throws {
        let scratch = try repositoryCopy()
        let snapshot = "Fixtures/schemas/Circle/v3.json"
        var schema = try ModelSchema(jsonData: try scratch.data(snapshot))
        let point = try #require(schema.nestedTypes.firstIndex { $0.name == "Point" })
        schema.nestedTypes[point].properties[0].type = "Float"
        try scratch.write(String(decoding: try schema.jsonData(), as: UTF8.self), to: snapshot)
        let run = try ToolProcess.run(["check", "--law-objects", "0"], tool: "sketch-migrate", in: scratch.url)
        #expect(run.status == 1)
        #expect(run.output.contains("            ~ center: Point.x: Float → Double"))
        #expect(
            run.output.contains(
                "          Point is archived by Circle, Rectangle and RoundedRectangle: each of them needs a version bump"
            ))
    }

    @Test("a broken inverse in a rules file fails archive-migrate check with a shrunk counterexample that replays")
    func brokenRulesFileFailsTheGate() throws {
        let scratch = try repositoryCopy()
        let text = String(decoding: try scratch.data("Fixtures/archives/rules.json"), as: UTF8.self)
        try scratch.write(
            text.replacingOccurrences(
                of: #""remove": "para", "restoring": 0"#, with: #""remove": "para", "restoring": 1"#),
            to: "broken.json")
        let run = try ToolProcess.run(["check", "--rules", "broken.json"], in: scratch.url)
        #expect(run.status == 1)
        #expect(run.output.contains("FAILED    law: Model v1 → v3 (Fixtures/schemas/Model/v1.json)"))
        #expect(
            run.output.contains(
                "upgrading then downgrading does not give the original for Model v1, at Model v2 → v3 (app 2.0: tags, "
                    + "kind by name), rule remove(para, restoring 1):"))
        #expect(run.output.contains("            ~ para: 0 → 1"))
        #expect(
            run.output.contains(
                #"            {"$type":"Model","$version":1,"name":"","type":"","rect":{"x":0.0,"y":0.0,"width":0.0,"height":0.0},"flag":0,"kind":0,"para":0}"#
            ))
        #expect(run.output.contains("          replay: archive-migrate check --rules broken.json --seed 1"))
        let replay = try ToolProcess.run(["check", "--rules", "broken.json", "--seed", "1"], in: scratch.url)
        let failures = { (output: String) in
            output.split(separator: "\n").filter { !$0.hasPrefix("ok") && !$0.hasPrefix("laws:") }
        }
        #expect(failures(replay.output) == failures(run.output))
        let other = try ToolProcess.run(["check", "--rules", "broken.json", "--seed", "0x2A"], in: scratch.url)
        #expect(other.status == 1)
        #expect(other.output.contains("replay: archive-migrate check --rules broken.json --seed 42"))
    }

    @Test("a version a release archived with no fixture fails; --record records one that passes")
    func missingFixtureIsRecorded() throws {
        let scratch = try repositoryCopy()
        // The only fixture holding Rectangle v2.
        try FileManager.default.removeItem(
            at: scratch.url.appendingPathComponent("Fixtures/archives/Sketch/v3/ui-mockup.json"))
        let run = try ToolProcess.run(["check", "--law-objects", "0"], tool: "sketch-migrate", in: scratch.url)
        #expect(run.status == 1)
        #expect(
            run.output.contains(
                "no fixture holds Rectangle v2 (archived by release 1.2): keep an archive that version wrote under "
                    + "Fixtures/archives/, or record a generated one with `sketch-migrate check --record`"))
        let record = try ToolProcess.run(
            ["check", "--law-objects", "0", "--record"], tool: "sketch-migrate", in: scratch.url)
        #expect(record.status == 0, "\(record.output)")
        #expect(record.output.contains("recorded  fixtureCoverage: Rectangle v2"))
        #expect(record.output.contains("recorded  fixture: Rectangle/v2/generated.json"))
        let fixture = try ArchiveFormat.read(try scratch.data("Fixtures/archives/Rectangle/v2/generated.json")).0
        #expect(fixture.objectValue?.typeName == "Rectangle")
        let again = try ToolProcess.run(["check", "--law-objects", "0"], tool: "sketch-migrate", in: scratch.url)
        #expect(again.status == 0, "\(again.output)")
        #expect(again.output.contains("ok        fixture: Rectangle/v2/generated.json"))
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
