import Foundation
import ModelVersioning
import SketchModel
import SketchRelease1_0
import SketchRelease1_1
import TestSupport
import Testing

/// Archives today's Sketch app writes for its older releases (`readableBy`): the older apps
/// open them with their own models (the releases' compiled code, `Examples/Sketch/Releases`),
/// keep what those models cannot hold (`UnknownFields`), and give it back.
@Suite("Archives older apps can open")
struct ForwardCompatibilityTests {
    let registry: ModelRegistry

    init() throws {
        registry = try SketchModel.SketchRegistry.registry()
    }

    /// Every archive every release of the sample app wrote, opened by today's app.
    static let fixtures = Fixture.sketchArchives

    func today(_ fixture: String) throws -> SketchModel.Drawing {
        try ArchiveDecoder(registry: registry).decode(
            SketchModel.Drawing.self, from: try Fixture.data("archives/Sketch/" + fixture))
    }

    /// Today's encoder, writing for `release`.
    func encoder(readableBy release: String?) -> ArchiveEncoder {
        var encoder = SketchModel.SketchRegistry.encoder()
        encoder.registry = registry
        encoder.readableBy = release
        return encoder
    }

    /// What `release` would have written for `drawing`: today's tree downgraded to it.
    func writtenBy(_ release: String, _ drawing: SketchModel.Drawing) throws -> ArchiveValue {
        var tree = try SketchModel.SketchRegistry.encoder().encodeTree(drawing)
        try MigrationPass(catalog: registry.catalog).downgrade(&tree, toRelease: release)
        return tree
    }

    // MARK: Swift

    @Test(
        "written for 1.1: app 1.1 reads what 1.1 would have written, and its edit comes back with all 1.1 lacks",
        arguments: fixtures)
    func release1_1(_ fixture: String) throws {
        let drawing = try today(fixture)
        let data = try encoder(readableBy: "1.1").encode(drawing)

        let oldDecoder = ArchiveDecoder(registry: try SketchRelease1_1.SketchRegistry.registry())
        let (opened, report) = try oldDecoder.decodeWithReport(SketchRelease1_1.Drawing.self, from: data)
        let expected = try oldDecoder.decode(SketchRelease1_1.Drawing.self, fromTree: try writtenBy("1.1", drawing))
        #expect(opened == expected)
        #expect(report.wayDownRun?.release == "1.1")

        opened.title += " (edited in 1.1)"
        let saved = try SketchRelease1_1.SketchRegistry.encoder().encode(opened)
        let back = try ArchiveDecoder(registry: registry).decode(SketchModel.Drawing.self, from: saved)
        drawing.title += " (edited in 1.1)"
        #expect(
            try SketchModel.SketchRegistry.encoder().encodeTree(back)
                == SketchModel.SketchRegistry.encoder().encodeTree(drawing))
    }

    @Test(
        "written for 1.0: app 1.0 reads what 1.0 would have written, and its edit comes back with all 1.0 lacks",
        arguments: fixtures)
    func release1_0(_ fixture: String) throws {
        let drawing = try today(fixture)
        let data = try encoder(readableBy: "1.0").encode(drawing)

        let oldDecoder = ArchiveDecoder(registry: try SketchRelease1_0.SketchRegistry.registry())
        let opened = try oldDecoder.decode(SketchRelease1_0.Drawing.self, from: data)
        let expected = try oldDecoder.decode(SketchRelease1_0.Drawing.self, fromTree: try writtenBy("1.0", drawing))
        #expect(opened == expected)

        opened.title += " (edited in 1.0)"
        let saved = try SketchRelease1_0.SketchRegistry.encoder().encode(opened)
        let back = try ArchiveDecoder(registry: registry).decode(SketchModel.Drawing.self, from: saved)
        drawing.title += " (edited in 1.0)"
        #expect(
            try SketchModel.SketchRegistry.encoder().encodeTree(back)
                == SketchModel.SketchRegistry.encoder().encodeTree(drawing))
    }

    @Test("what 1.1 cannot hold is kept beside each object it belongs to, and today's values come back unchanged")
    func keptValues() throws {
        let drawing = try today("v4/moodboard.json")
        drawing.models[0].tags = ["autumn", "2009"]
        drawing.canvasColor = "#FAF0E6"
        let data = try encoder(readableBy: "1.1").encode(drawing)
        var tree = try ArchiveFormat.read(data).0
        let report = try ArchiveDecoder(registry: try SketchRelease1_1.SketchRegistry.registry()).upgrade(&tree)
        // The focus (2.0) and the tags (2.0) are kept; the canvas colour 1.1 holds itself.
        #expect(tree["root"]?["$wayBack"]?["fields"] == ["focus": nil])
        #expect(tree["root"]?["$wayBack"]?["references"] == [["focus", 1]])
        #expect(tree["root"]?["models"]?[0]?["$wayBack"]?["fields"] == ["tags": ["autumn", "2009"]])
        #expect(tree["root"]?["models"]?[1]?["$wayBack"]?["anchor"] == 1)
        #expect(tree["root"]?["canvasColor"] == "#FAF0E6")
        // The drawing, two models with tags, the rounded rectangle (a Rect for 1.1).
        #expect(report.wayDownRun?.keptCount == 4)

        let opened = try ArchiveDecoder(registry: try SketchRelease1_1.SketchRegistry.registry()).decode(
            SketchRelease1_1.Drawing.self, from: data)
        let back = try ArchiveDecoder(registry: registry).decode(
            SketchModel.Drawing.self, from: try SketchRelease1_1.SketchRegistry.encoder().encode(opened))
        #expect(back.models[0].tags == ["autumn", "2009"])
        #expect(back.focus === back.models[1])
        #expect(back.canvasColor == "#FAF0E6")
    }

    @Test("a write for an older release across a closure step fails naming the step; a data-only inverse makes it work")
    func closureStep() throws {
        struct Note: VersionedModel {
            var text: String
            static let modelVersion = 2
            static let migrationSteps = [
                MigrationStep(
                    from: 1, to: 2, name: "shout",
                    rules: [
                        .transform(
                            "uppercase",
                            { target in
                                target.fields["text"] = target.fields["text"]?.stringValue.map {
                                    .string($0.uppercased())
                                }
                            }, inverse: { _ in })
                    ])
            ]
        }
        struct DeclaredNote: VersionedModel {
            var text: String
            static let archiveTypeName = "Note"
            static let modelVersion = 2
            static let migrationSteps = [
                MigrationStep(
                    from: 1, to: 2, name: "shout",
                    rules: [.transform("uppercase", { _ in }, inverse: { _ in })],
                    inverseRules: [.add("shouted", default: true)])
            ]
        }
        let releases = ReleaseManifest(
            releases: [AppRelease("1.0", types: ["Note": 1]), AppRelease("2.0", types: ["Note": 2])])
        var encoder = ArchiveEncoder()
        encoder.readableBy = "1.0"
        encoder.registry = try ModelRegistry([Note.self], releases: releases)
        let error = try #require(throws: ArchiveError.self) { try encoder.encode(Note(text: "milk")) }
        #expect(error.code == .invalidValue)
        #expect(error.step == "Note v1 → v2 (shout)")
        #expect(error.rule == "transform(inverse(uppercase))")
        #expect(error.description.contains("declare the step's inverse as data"))

        encoder.registry = try ModelRegistry([DeclaredNote.self], releases: releases)
        let tree = try ArchiveFormat.read(try encoder.encode(DeclaredNote(text: "MILK"))).0
        #expect(tree["wayDown"]?["types"]?["Note"]?["steps"]?[0]?["rules"] == [["add": "shouted", "default": true]])
        // Without readableBy, nothing is carried.
        encoder.readableBy = nil
        #expect(try ArchiveFormat.read(try encoder.encode(DeclaredNote(text: "MILK"))).0["wayDown"] == nil)
    }

    @Test("a way down someone edited is refused by the older app with a typed error, never a crash")
    func tamperedWayDown() throws {
        let data = try encoder(readableBy: "1.1").encode(try today("v4/moodboard.json"))
        let text = String(decoding: data, as: UTF8.self).replacingOccurrences(
            of: #""rename": "radius""#, with: #""rename": "diameter""#)
        #expect(text != String(decoding: data, as: UTF8.self))
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: try SketchRelease1_1.SketchRegistry.registry()).decode(
                SketchRelease1_1.Drawing.self, from: Data(text.utf8))
        }
        #expect(error.code == .invalidWayDown)
        #expect(error.path == "wayDown.digest")
    }

    // MARK: Size

    /// The bytes the way down adds to a JSON archive of the sample app holding every type (so
    /// every chain is carried), pretty-printed as the encoder writes by default and compact,
    /// whatever the number of objects: the steps are carried once per type.
    static let wayDownBytes: [(release: String, pretty: Int, compact: Int)] = [
        ("1.1", 3_600, 1_400), ("1.0", 5_000, 1_900),
    ]

    @Test("the way down adds a few kilobytes per archive, the same for one object of each type as for thousands")
    func size() throws {
        let drawing = try today("v3/ui-mockup.json")
        drawing.models = try today("v4/moodboard.json").models
        let many = try today("v3/ui-mockup.json")
        var shapes: [any SketchModel.SketchShape] = []
        var models: [SketchModel.Model] = []
        for _ in 0..<1_000 { shapes += try today("v3/ui-mockup.json").shapes }
        for _ in 0..<100 { models += try today("v4/moodboard.json").models }
        many.shapes = shapes
        many.models = models
        for (release, pretty, compact) in Self.wayDownBytes {
            for (pretty, limit) in [(true, pretty), (false, compact)] {
                func added(_ drawing: SketchModel.Drawing) throws -> Int {
                    var with = encoder(readableBy: release)
                    var without = encoder(readableBy: nil)
                    with.writingOptions.prettyPrinted = pretty
                    without.writingOptions.prettyPrinted = pretty
                    return try with.encode(drawing).count - without.encode(drawing).count
                }
                let one = try added(drawing)
                #expect(one <= limit, "readableBy \(release) adds \(one) bytes")
                let thousands = try added(many)
                #expect(thousands == one, "readableBy \(release): \(thousands) bytes for thousands of objects")
                print("readableBy \(release) adds \(one) bytes (\(pretty ? "pretty-printed" : "compact") JSON)")
            }
        }
    }
}
