import Foundation
import ModelVersioning
import TestSupport
import Testing

/// `archive-migrate upgrade` over archives and rules files made to take time or memory: a way
/// down that copies a large default into every object, carried chains of very many steps,
/// rules of very many keys. Each either runs or is refused well within a deadline; the
/// deadline only tells a hang from an answer (`archive-bench --many-keys` and the figures of
/// issue 37 show the time).
@Suite("archive-migrate within bounds")
struct BoundedWorkToolTests {
    /// The tool may take this long on this package's slowest machine with a debug build.
    static let deadline = 60.0

    /// An archive today's Sketch app could have written for release 1.1, its way down taking
    /// `Circle` from `from` to v2 through `steps`, and its drawing holding `circles` circles at
    /// `from`.
    static func sketch(circlesAt from: Int, count circles: Int, steps: [MigrationStep]) throws -> Data {
        let wayDown = WayDown(release: "1.1", types: [WayDown.Chain(name: "Circle", from: from, to: 2, steps: steps)])
        let circle = ArchiveValue.object(
            ArchiveObject(typeName: "Circle", version: from, fields: ["center": ["x": 0, "y": 0], "radius": 1]))
        let drawing = ArchiveObject(
            typeName: "Drawing", version: 2,
            fields: [
                "title": "bounds", "author": "probe", "canvasColor": "#FFFFFF", "created": nil,
                "shapes": .array(Array(repeating: circle, count: circles)), "models": [],
            ])
        let tree: ArchiveValue = [
            "$archive": 1, "document": "Sketch", "documentVersion": 2,
            "wayDown": try wayDown.tree, "root": .object(drawing),
        ]
        return try ArchiveFormat.json.write(tree)
    }

    /// Runs `archive-migrate upgrade` on `input` with `rules`, writing into the scratch folder.
    static func upgrade(_ input: Data, rules: String, in scratch: ScratchFolder) throws -> ToolProcess.Run? {
        let file = scratch.url.appendingPathComponent("input.json")
        try input.write(to: file)
        let started = try ToolProcess.start(
            ["upgrade", file.path, "--rules", rules, "-o", scratch.url.appendingPathComponent("out").path])
        return try started.wait(seconds: deadline)
    }

    static let sketch11Rules = Fixture.url("archives/Sketch-1.1.rules.json").path

    @Test("a carried add of a 100 KB default into 10,000 circles (a gigabyte of output) is refused as too much work")
    func amplifyingAdd() throws {
        let scratch = try ScratchFolder()
        let large = ArchiveValue.string(String(repeating: "x", count: 100_000))
        let input = try Self.sketch(
            circlesAt: 3, count: 10_000,
            steps: [MigrationStep(from: 3, to: 2, rules: [.add("note", default: large)])])
        let run = try #require(try Self.upgrade(input, rules: Self.sketch11Rules, in: scratch), "still running")
        #expect(run.status == 2)
        #expect(run.standardError.contains("(ArchiveLimits.maxRuleWork)"))
        #expect(run.standardError.contains("at shapes["))
    }

    @Test("a carried chain of 10,000 one-version steps opens; one of 20,000 is refused")
    func carriedSteps() throws {
        func steps(from: Int) -> [MigrationStep] {
            (2..<from).reversed().map { MigrationStep(from: $0 + 1, to: $0, rules: []) }
        }
        let scratch = try ScratchFolder()
        let opened = try #require(
            try Self.upgrade(
                try Self.sketch(circlesAt: 10_002, count: 1, steps: steps(from: 10_002)), rules: Self.sketch11Rules,
                in: scratch),
            "still running")
        #expect(opened.status == 0, "\(opened.standardError)")
        #expect(opened.standardError.contains("Circle v10002 → v2: 1"))

        let refused = try #require(
            try Self.upgrade(
                try Self.sketch(circlesAt: 20_002, count: 1, steps: steps(from: 20_002)), rules: Self.sketch11Rules,
                in: scratch),
            "still running")
        #expect(refused.status == 2)
        #expect(
            refused.standardError.contains("the chain has 20000 steps, more than 10000 at wayDown.types.Circle.steps"))
    }

    /// A rules file whose `Wide` v1 → v2 step is `rules`, and an archive of one `Wide` v1
    /// object with the keys `field0`…
    static func wide(keys count: Int, rules: [MigrationRule], in scratch: ScratchFolder) throws -> (Data, String) {
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(typeName: "Wide", currentVersion: 2, steps: [MigrationStep(from: 1, to: 2, rules: rules)])
        ])
        let rulesURL = scratch.url.appendingPathComponent("wide.rules.json")
        try ArchiveFormat.json.write(try catalog.rulesFile(), options: ArchiveWritingOptions(markup: .plain))
            .write(to: rulesURL)
        var fields = ArchiveDictionary()
        for index in 0..<count { fields["field\(index)"] = .int(Int64(index)) }
        let archive = try ArchiveFormat.json.write(.object(ArchiveObject(typeName: "Wide", version: 1, fields: fields)))
        return (archive, rulesURL.path)
    }

    @Test("a rules file that nests 100,000 keys, or removes them one rule each, runs on an object of as many")
    func manyKeys() throws {
        let keys = (0..<100_000).map { "field\($0)" }
        for rules in [[MigrationRule.nest(keys, into: "group")], keys.map { MigrationRule.remove($0) }] {
            let scratch = try ScratchFolder()
            let (archive, rulesPath) = try Self.wide(keys: keys.count, rules: rules, in: scratch)
            let run = try #require(try Self.upgrade(archive, rules: rulesPath, in: scratch), "still running")
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardError.contains("Wide v1 → v2: 1"), "\(run.standardError)")
        }
    }
}
