import ArchiveCompatibility
import Foundation
import ModelVersioning
import SketchModel
import TestModels
import TestSupport
import Testing

/// The sample app's types, named apart from this target's test models of the same names
/// (Support/NSCodingEraModel.swift, Support/PolymorphicShapes.swift).
private enum Sketch {
    typealias Drawing = SketchModel.Drawing
    typealias Circle = SketchModel.Circle
    typealias Rectangle = SketchModel.Rectangle
    typealias RoundedRectangle = SketchModel.RoundedRectangle
    typealias Style = SketchModel.Style
    typealias Model = SketchModel.Model
    typealias Shape = SketchModel.SketchShape
}

/// The archives every shipped version of the sample app wrote (`Fixtures/archives/Sketch`), opened
/// by today's app; the same history as a rules file; and the way back to each older app.
///
/// Every expected value below is read off the fixture files and `Examples/Sketch/History.md` by
/// hand: what each release's steps must make of what that release wrote.
@Suite("Sketch sample app")
struct SketchHistoryTests {
    let registry: ModelRegistry
    let rules: MigrationCatalog

    init() throws {
        registry = try SketchRegistry.registry()
        rules = try Fixture.rules("archives/rules.json")
    }

    // MARK: Fixtures

    static let fixtures = Fixture.sketchArchives

    static func release(of fixture: String) -> Int { Fixture.sketchRelease(of: fixture) }

    /// The versions each release reads and writes (History.md's table); the rounded rectangle,
    /// at v1 since it appeared, is never listed.
    /// The downgrade target of each release, by the document version it wrote: straight from the
    /// app's release manifest.
    static let releaseTargets: [Int: DowngradeTarget] = Dictionary(
        uniqueKeysWithValues: SketchRegistry.releases.releases.compactMap { release in
            release.documentVersion.map { ($0, DowngradeTarget(release: release)) }
        })

    // MARK: Expectations

    /// What a drawing holds, in a form that prints readably when a test fails.
    struct Summary: Equatable, CustomStringConvertible {
        var title: String
        var author: String
        var canvasColor: String
        /// UTC, to the millisecond.
        var created: String
        var shapes: [String]
        var models: [String]
        /// `models[i]` when the focus is that very instance, `nil` when there is none.
        var focus: String?
        /// Indices of `shapes` that hold one and the same instance.
        var sharedShapes: [[Int]] = []

        var description: String {
            ([title, author, canvasColor, created] + shapes + models + ["focus \(focus ?? "nil")"]).joined(
                separator: "\n")
        }
    }

    static let expected: [String: Summary] = [
        "v1/kyoto-trip.json": Summary(
            title: "Kyoto trip — 京都の旅", author: "田中 愛子", canvasColor: "#FFFFFF",
            created: "2009-04-05 21:17:36.250",
            shapes: [
                "Circle center (120.0, 80.5) radius 33.333333333333336, stroke #D7263D width 1.0",
                "Rectangle origin (-48.5, 12.0) size 200.0 × 150.25, stroke #1B998B width 1.0",
                "Circle center (0.0, -0.125) radius 0.5, stroke #000000 width 1.0",
            ],
            models: [
                "Kinkaku-ji | photo | photo | (10.0, 20.0, 320.0, 240.0) | flag 1 | tags [] | thumbnail Kinkaku-ji",
                "メモ | note | text | (-16.0, 300.0, 180.0, 44.5) | flag 0 | tags [] | thumbnail メモ",
            ],
            focus: nil),
        "v1/empty.json": Summary(
            title: "Untitled", author: "Zoë Ångström", canvasColor: "#FFFFFF", created: "2009-06-17 09:00:00.001",
            shapes: [], models: [], focus: nil),
        "v1/floor-plan.json": Summary(
            title: "Floor plan – 2F", author: "Bob O'Neil", canvasColor: "#FFFFFF",
            created: "2009-11-02 23:59:59.999",
            shapes: [
                "Rectangle origin (0.0, 0.0) size 640.0 × 480.0, stroke #333333 width 1.0",
                "Rectangle origin (-12.75, -12.75) size 25.5 × 25.5, stroke #FF8800 width 1.0",
            ],
            // A model without a name gets no thumbnail (as in the NSCoding original: "if ([md_name length])").
            models: [" |  | drawing | (0.0, 0.0, 0.0, 0.0) | flag 4294967295 | tags [] | no thumbnail"],
            focus: nil),
        "v2/garden.json": Summary(
            title: "Garden plan 🌱", author: "José Müller", canvasColor: "#F5F0E6", created: "2010-03-14 15:09:26.535",
            shapes: [
                "Circle center (250.0, 250.0) radius 120.0, stroke #2E7D32 width 3.5",
                "Rectangle origin (-120.0, 400.0) size 90.0 × 30.0, stroke #795548 width 0.30000000000000004",
            ],
            models: [
                "Bench sketch | furniture | drawing | (-120.0, 360.0, 90.0, 36.0) | flag 2 | tags [] "
                    + "| thumbnail Bench sketch"
            ],
            focus: nil),
        "v2/pasted-shapes.json": Summary(
            title: "Pasted from Keynote", author: "Mei Lin", canvasColor: "#000000", created: "2010-07-01 06:30:00.500",
            shapes: [
                "Rectangle origin (10.0, 10.0) size 300.0 × 200.0, stroke #FFFFFF width 2.0",
                "Rectangle origin (20.0, -30.0) size 40.0 × 50.0, stroke #FFD700 width 1.0",
                "Circle center (-75.5, 42.0) radius 8.0, stroke #FFFFFF width 1.5",
            ],
            models: [], focus: nil),
        "v2/stamps.json": Summary(
            title: "Stamps ★", author: "Kenji Watanabe", canvasColor: "#FFFFFF", created: "2010-02-28 12:00:00.750",
            shapes: [
                "Circle center (-20.0, -20.0) radius 15.0, stroke #E91E63 width 2.0",
                "Rectangle origin (-40.0, 10.0) size 80.0 × 20.0, stroke #3F51B5 width 1.0",
                "Circle center (-20.0, -20.0) radius 15.0, stroke #E91E63 width 2.0",
                "Circle center (-20.0, -20.0) radius 15.0, stroke #E91E63 width 2.0",
            ],
            models: ["Hanko | seal | photo | (100.0, 100.0, 48.0, 48.0) | flag 0 | tags [] | thumbnail Hanko"],
            focus: nil, sharedShapes: [[0, 2, 3]]),
        "v2/postcard.plist": Summary(
            title: "Postcard from Zürich", author: "Ana Sørensen", canvasColor: "#FFFBEA",
            created: "2010-12-24 18:45:12.125",
            shapes: [
                "Rectangle origin (8.0, 8.0) size 432.0 × 288.0, stroke #B22222 width 4.0",
                "Circle center (380.0, 60.0) radius 24.0, stroke #B22222 width 1.0",
            ],
            models: [
                "Grossmünster | photo | photo | (24.0, 24.0, 200.0, 150.0) | flag 0 | tags [] | thumbnail Grossmünster",
                "Frohe Weihnachten! | greeting | text | (24.0, 200.0, 240.0, 40.0) | flag 8 | tags [] "
                    + "| thumbnail Frohe Weihnachten!",
            ],
            focus: nil),
        "v3/ui-mockup.json": Summary(
            title: "Settings screen mock-up", author: "Priya Raman", canvasColor: "#EFEFF4",
            created: "2011-08-09 10:11:12.013",
            shapes: [
                "Rectangle origin (0.0, 0.0) size 320.0 × 480.0, stroke #C8C7CC width 0.5",
                "RoundedRectangle origin (10.0, 64.0) size 300.0 × 44.0 corner 10.0, stroke #007AFF width 1.0",
                "RoundedRectangle origin (250.0, 71.0) size 51.0 × 31.0 corner 22.0, stroke #4CD964 width 2.0",
                "Circle center (285.5, 86.5) radius 13.5, stroke #FFFFFF width 1.0",
            ],
            models: [
                "Wi-Fi icon | icon | drawing | (16.0, 74.0, 24.0, 24.0) | flag 3 | tags [] | thumbnail Wi-Fi icon"
            ],
            focus: nil),
        "v3/logo-ideas.json": Summary(
            title: "Logo ideas ✏️", author: "Sam Okafor", canvasColor: "#FAFAFA", created: "2012-02-29 23:30:45.678",
            shapes: [
                "Circle center (64.0, 64.0) radius 48.0, stroke #6A1B9A width 6.0",
                "RoundedRectangle origin (140.0, 16.0) size 96.0 × 96.0 corner 4.0, stroke #6A1B9A width 6.0",
                "Circle center (64.0, 64.0) radius 48.0, stroke #6A1B9A width 6.0",
            ],
            models: [
                "Wordmark “Sketch” | lettering | text | (16.0, 128.0, 220.0, 40.0) | flag 16 | tags [] "
                    + "| thumbnail Wordmark “Sketch”",
                "Reference | photo | photo | (-300.0, -200.0, 256.0, 171.0) | flag 0 | tags [] | thumbnail Reference",
            ],
            focus: nil, sharedShapes: [[0, 2]]),
        "v4/moodboard.json": Summary(
            title: "Moodboard — autumn", author: "Léa Dubois", canvasColor: "#1E1E1E",
            created: "2024-10-21 07:42:03.617",
            shapes: [
                "RoundedRectangle origin (-160.0, -90.0) size 320.0 × 180.0 corner 16.0, stroke #D35400 width 3.0",
                "Circle center (0.0, 0.0) radius 64.0, stroke #F1C40F width 1.25",
            ],
            models: [
                "Maple leaves | photo | photo | (-150.0, -80.0, 140.0, 105.0) | flag 1 | tags [autumn, 红叶] "
                    + "| thumbnail Maple leaves",
                "Palette | colours | drawing | (10.0, -80.0, 140.0, 105.0) | flag 0 | tags [] | thumbnail Palette",
                "Caption | text | text | (-150.0, 40.0, 300.0, 32.0) | flag 0 | tags [draft] | thumbnail Caption",
            ],
            focus: "models[1]"),
        "v4/moodboard-focus-removed.json": Summary(
            title: "Moodboard — autumn (trimmed)", author: "Léa Dubois", canvasColor: "#1E1E1E",
            created: "2024-10-21 07:42:03.617",
            shapes: ["Circle center (0.0, 0.0) radius 64.0, stroke #F1C40F width 1.25"],
            models: [
                "Maple leaves | photo | photo | (-150.0, -80.0, 140.0, 105.0) | flag 1 | tags [autumn, 红叶] "
                    + "| thumbnail Maple leaves"
            ],
            focus: nil),
        "v4/empty.json": Summary(
            title: "Untitled 3", author: "", canvasColor: "#FFFFFF", created: "2025-01-01 00:00:00.000", shapes: [],
            models: [], focus: nil),
    ]

    // MARK: Opening every shipped archive

    @Test("every fixture folder is listed and every fixture has expectations")
    func everyFixtureIsChecked() {
        #expect(Self.fixtures == Self.expected.keys.sorted())
        #expect(Set(Self.fixtures.map(Self.release(of:))) == [1, 2, 3, 4])
    }

    @Test(
        "every archive of every shipped version opens as today's Drawing with the right values",
        arguments: fixtures)
    func opensInToday(_ fixture: String) throws {
        let data = try Fixture.data("archives/Sketch/" + fixture)
        let (drawing, report) = try ArchiveDecoder(registry: registry).decodeWithReport(Sketch.Drawing.self, from: data)
        #expect(try Self.summary(of: drawing) == Self.expected[fixture])

        let release = Self.release(of: fixture)
        if release < 4 {
            #expect(report.document?.fromVersion == release)
            #expect(report.document?.toVersion == 4)
            #expect(report.document?.steps == Array(["app 1.1", "app 1.2", "app 2.0"].dropFirst(release - 1)))
        } else {
            #expect(report.document == nil, "today's archives need no document step")
            #expect(report.entries.isEmpty, "today's archives need no object step")
        }
    }

    @Test("the report of a 1.1 archive names each object's own chain, the alias and the renamed type")
    func reportOfMixedVersions() throws {
        let data = try Fixture.data("archives/Sketch/v2/pasted-shapes.json")
        let (_, report) = try ArchiveDecoder(registry: registry).decodeWithReport(Sketch.Drawing.self, from: data)
        let entries = report.entries.map {
            "\($0.path) \($0.archivedTypeName) v\($0.fromVersion) → \($0.typeName) v\($0.toVersion): "
                + $0.steps.joined(separator: "; ")
        }
        // Styles are v2 already in 1.1, so no step runs on them.
        #expect(
            entries == [
                " Drawing v2 → Drawing v4: app 1.2: author and created out of meta; app 2.0: focus",
                "shapes[0] SketchApp.Rect v1 → Rectangle v2: app 1.2: Rect becomes Rectangle",
                "shapes[1] Rect v1 → Rectangle v2: app 1.2: Rect becomes Rectangle",
                "shapes[2] Circle v2 → Circle v3: app 1.2: radius",
            ])
    }

    @Test("a linked shape is migrated once where it is defined and stays one instance")
    func sharedShapes() throws {
        let data = try Fixture.data("archives/Sketch/v2/stamps.json")
        let drawing = try ArchiveDecoder(registry: registry).decode(Sketch.Drawing.self, from: data)
        let stamp = try #require(drawing.shapes[0] as? Sketch.Circle)
        #expect(drawing.shapes[2] as? Sketch.Circle === stamp)
        #expect(drawing.shapes[3] as? Sketch.Circle === stamp)
        stamp.radius = 20
        #expect((drawing.shapes[3] as? Sketch.Circle)?.radius == 20, "editing one place edits every place")
    }

    @Test("the conditional focus is the very model in models when written, and nil when its model was not")
    func conditionalFocus() throws {
        let decoder = ArchiveDecoder(registry: registry)
        let board = try decoder.decode(
            Sketch.Drawing.self, from: try Fixture.data("archives/Sketch/v4/moodboard.json"))
        #expect(board.focus === board.models[1])
        #expect(board.focus?.name == "Palette")

        let trimmed = try decoder.decode(
            Sketch.Drawing.self, from: try Fixture.data("archives/Sketch/v4/moodboard-focus-removed.json"))
        #expect(trimmed.focus == nil)

        // Writing it again: a focus on a model that is not in `models` is not archived at all.
        let removed = board.models.remove(at: 1)
        let tree = try SketchRegistry.encoder().encodeTree(board)
        #expect(board.focus === removed)
        #expect(tree["root"]?["focus"] == nil)
        #expect(tree["root"]?["models"]?.arrayValue?.contains { $0.objectValue?.id != nil } == false)
    }

    @Test("an old model whose kind has no name fails with the type, version, step, rule and path")
    func unknownKind() throws {
        let text = String(decoding: try Fixture.data("archives/Sketch/v1/kyoto-trip.json"), as: UTF8.self)
        // Kinkaku-ji is the only model of kind 0 in the file; 1.0 never wrote a kind 7.
        let broken = text.replacingOccurrences(of: #""kind": 0"#, with: #""kind": 7"#)
        #expect(broken != text)
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: registry).decode(Sketch.Drawing.self, from: Data(broken.utf8))
        }
        #expect(error.code == .migrationFailed)
        #expect(error.typeName == "Model")
        #expect(error.archivedVersion == 1)
        #expect(error.step == "Model v2 → v3 (app 2.0: tags, kind by name)")
        #expect(error.rule?.hasPrefix("convert(kind: map(") == true)
        #expect(error.path == "models[0].kind")
    }

    // MARK: Writing again

    @Test("a 1.0 drawing written by today's app and read again is the same drawing, and writes the same archive")
    func reencodingIsStable() throws {
        let decoder = ArchiveDecoder(registry: registry)
        let original = try decoder.decode(
            Sketch.Drawing.self, from: try Fixture.data("archives/Sketch/v1/kyoto-trip.json"))
        let first = try SketchRegistry.encoder().encodeTree(original)
        let again = try decoder.decode(Sketch.Drawing.self, fromTree: first)
        #expect(try Self.summary(of: again) == Self.summary(of: original))
        #expect(try SketchRegistry.encoder().encodeTree(again) == first)
        // Written at today's versions, with today's document version.
        #expect(first["documentVersion"] == 4)
        #expect(first["root"]?.objectValue?.version == 4)
        #expect(first["root"]?["shapes"]?[1]?.objectValue?.typeName == "Rectangle")

        // And through bytes: JSON and the binary property list read back to the same tree.
        for format in [ArchiveFormat.json, .binaryPropertyList] {
            let data = try SketchRegistry.encoder(format: format).encode(again)
            #expect(try ArchiveFormat.read(data).0 == first, "\(format)")
        }
    }

    /// Today's app writes what each older release wrote: decode a fixture, encode it today, and
    /// downgrade to that release's versions; the result is the fixture's tree exactly, by the Swift
    /// chains and by the rules file alike.
    ///
    /// This is exact because every value the older release had survives in today's model, and every
    /// value it did not have is dropped on the way down whatever it is (the canvas colour, stroke
    /// widths, tags, the focus). The one value today's model dropped is `Model.para`, which the
    /// downgrade restores as `0`: the fixtures hold `0` because every release did (the NSCoding
    /// original's reserved parameter), so the round trip is exact. The one difference is a rectangle archived
    /// under the alias `SketchApp.Rect` (pasted in 1.1): it comes back under its name `Rect`, as the
    /// type's chain renames it.
    @Test(
        "downgrading today's encoding to a release's versions gives back exactly what that release wrote",
        arguments: fixtures)
    func downgradeRoundTrip(_ fixture: String) throws {
        let data = try Fixture.data("archives/Sketch/" + fixture)
        let target = try #require(Self.releaseTargets[Self.release(of: fixture)])
        var expected = try ArchiveFormat.read(data).0
        if fixture == "v2/pasted-shapes.json" {
            let text = String(decoding: data, as: UTF8.self)
            expected = try ArchiveFormat.json.read(
                Data(text.replacingOccurrences(of: #""SketchApp.Rect""#, with: #""Rect""#).utf8))
        }
        let drawing = try ArchiveDecoder(registry: registry).decode(Sketch.Drawing.self, from: data)
        let today = try SketchRegistry.encoder().encodeTree(drawing)

        var bySwift = today
        try MigrationPass(catalog: registry.catalog).downgrade(&bySwift, to: target)
        #expect(bySwift == expected)

        var byRules = today
        try MigrationPass(catalog: rules).downgrade(&byRules, to: target)
        #expect(byRules == expected)
    }

    @Test("rounded rectangles, which app 1.0 did not have, are written for it as the plain rectangles they draw as")
    func roundedRectanglesBeforeTheyExisted() throws {
        let data = try Fixture.data("archives/Sketch/v3/ui-mockup.json")
        let drawing = try ArchiveDecoder(registry: registry).decode(Sketch.Drawing.self, from: data)
        var tree = try SketchRegistry.encoder().encodeTree(drawing)
        let target = try #require(Self.releaseTargets[1])
        let report = try MigrationPass(catalog: registry.catalog).downgrade(&tree, to: target)
        let shapes = try #require(tree["root"]?["shapes"]?.arrayValue)
        #expect(shapes.map { $0.objectValue?.typeName } == ["Rect", "Rect", "Rect", "Circle"])
        #expect(shapes.map { $0.objectValue?.version } == [1, 1, 1, 1])
        #expect(shapes[0]["w"] == 320.0)
        #expect(shapes[1]["x"] == 10.0, "the superclass's keys, hoisted out of super, then down Rectangle's chain")
        #expect(shapes[1]["style"]?["color"] == "#007AFF", "while the nested style follows its own chain")
        #expect(shapes[1]["cornerRadius"] == nil)
        #expect(report.release == "1.0")
        #expect(
            report.absentObjects.map { "\($0.path) \($0.typeName) v\($0.version) \($0.writtenAs ?? "-")" } == [
                "shapes[1] RoundedRectangle v1 Rectangle", "shapes[2] RoundedRectangle v1 Rectangle",
            ])
        #expect(report.summary().contains("shapes[1]: RoundedRectangle v1, written as Rectangle"))
        // What app 1.0 itself reads: every object at its versions, the document labelled 1.
        #expect(tree["documentVersion"] == 1)
    }

    @Test("without a declared fallback, an object of a type the release did not have fails, or is dropped on request")
    func absentTypeWithoutFallback() throws {
        var types = rules.types
        let index = try #require(types.firstIndex { $0.typeName == "RoundedRectangle" })
        types[index].downgradeFallback = nil
        let catalog = try MigrationCatalog(types: types, documents: rules.documents, releases: rules.releases)
        let tree = try Fixture.tree("archives/Sketch/v3/ui-mockup.json")
        var upgraded = tree
        try MigrationPass(catalog: catalog).upgrade(&upgraded)

        var failing = upgraded
        let error = #expect(throws: ArchiveError.self) {
            try MigrationPass(catalog: catalog).downgrade(&failing, toRelease: "1.0")
        }
        #expect(error?.code == .notInRelease)
        #expect(error?.typeName == "RoundedRectangle")
        #expect(error?.path.description == "shapes[1]")
        #expect(error?.message.contains("release 1.0 has no RoundedRectangle") == true)

        var dropping = upgraded
        let report = try MigrationPass(catalog: catalog).downgrade(&dropping, toRelease: "1", droppingAbsentTypes: true)
        let shapes = try #require(dropping["root"]?["shapes"]?.arrayValue)
        #expect(shapes.map { $0.objectValue?.typeName } == ["Rect", "Circle"])
        #expect(report.absentObjects.map(\.path.description) == ["shapes[1]", "shapes[2]"])
        #expect(report.absentObjects.allSatisfy { $0.writtenAs == nil })
        #expect(report.summary().contains("shapes[2]: RoundedRectangle v1, left out"))
        // Nothing inside a left-out object is reported as downgraded: its style went with it.
        let reported = report.entries.map(\.path.description)
        #expect(!reported.contains { $0.hasPrefix("shapes[1]") || $0.hasPrefix("shapes[2]") })
        #expect(report.entries.count == report.counts.reduce(0) { $0 + $1.count })
    }

    @Test("a document version is never written over objects its release did not write")
    func documentVersionMeansItsRelease() throws {
        let tree = try Fixture.tree("archives/Sketch/v4/moodboard.json")
        var byDocumentVersion = tree
        try MigrationPass(catalog: rules).downgrade(&byDocumentVersion, to: DowngradeTarget(documentVersion: 2))
        var byRelease = tree
        try MigrationPass(catalog: rules).downgrade(&byRelease, toRelease: "1.1")
        #expect(byDocumentVersion == byRelease)
        #expect(byRelease["root"]?.objectValue?.version == 2)

        // A type version that contradicts the release would mislabel the archive.
        var contradicting = tree
        let error = #expect(throws: ArchiveError.self) {
            try MigrationPass(catalog: rules).downgrade(
                &contradicting, to: DowngradeTarget(documentVersion: 2, typeVersions: ["Circle": 3]))
        }
        #expect(error?.message.contains("release 1.1") == true)

        // Without releases, a document version needs every type's version.
        let bare = try MigrationCatalog(types: rules.types, documents: rules.documents)
        var unlabelled = tree
        #expect(throws: ArchiveError.self) {
            try MigrationPass(catalog: bare).downgrade(&unlabelled, to: DowngradeTarget(documentVersion: 1))
        }
    }

    @Test("History.md's table of releases is the release manifest the app declares")
    func historyTableMatchesManifest() throws {
        let history = try String(
            contentsOf: Fixture.root.deletingLastPathComponent().appendingPathComponent("Examples/Sketch/History.md"),
            encoding: .utf8)
        let lines = history.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("| App | Document |") })
        let columns = header.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        let rows = lines.filter { $0.hasPrefix("| ") && $0 != header && !$0.hasPrefix("|---") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
            .filter { $0.first.map { Double($0) != nil } ?? false }
        let manifest = SketchRegistry.releases
        #expect(rows.map { $0[0] } == manifest.releases.map(\.name))
        for (row, release) in zip(rows, manifest.releases) {
            #expect(row[1] == release.documentVersion.map(String.init), "\(release.name)")
            for (column, cell) in zip(columns.dropFirst(2), row.dropFirst(2)) {
                // A column is titled by today's type name, after an arrow when the type was renamed.
                let typeName = String(column.split(separator: " ").last ?? "")
                let archived = try #require(release.types[typeName], "\(release.name) \(typeName)")
                let expected: String
                switch archived {
                case .absent: expected = "—"
                case .version(let version, let name):
                    expected =
                        (name.map { "`\($0)` " } ?? (column.contains("→") ? "`\(typeName)` " : "")) + "v\(version)"
                }
                #expect(cell == expected, "release \(release.name), \(typeName)")
            }
        }
    }

    // MARK: The rules file

    @Test("the rules file declares exactly the chains the Swift types declare")
    func rulesFileMatchesSwift() throws {
        func render(_ steps: [MigrationStep]) -> [String] {
            steps.sorted { $0.from < $1.from }.map {
                "v\($0.from) → v\($0.to) \($0.name ?? "-"): " + $0.rules.map(\.description).joined(separator: "; ")
            }
        }
        let swift = registry.catalog
        #expect(Set(swift.types.map(\.typeName)) == Set(rules.types.map(\.typeName)))
        #expect(
            Set(swift.types.map(\.typeName)) == [
                "Drawing", "Circle", "Rectangle", "RoundedRectangle", "Style", "Model",
            ])
        for chain in swift.types {
            let ruled = try #require(rules.migrations(forTypeName: chain.typeName), "\(chain.typeName)")
            #expect(ruled.currentVersion == chain.currentVersion, "\(chain.typeName)")
            #expect(ruled.aliases == chain.aliases, "\(chain.typeName)")
            #expect(ruled.unversionedVersion == chain.unversionedVersion, "\(chain.typeName)")
            #expect(ruled.allNames == chain.allNames, "\(chain.typeName)")
            #expect(render(ruled.steps) == render(chain.steps), "\(chain.typeName)")
        }
        let document = try #require(swift.document(named: "Sketch"))
        let ruledDocument = try #require(rules.document(named: "Sketch"))
        #expect(ruledDocument.currentVersion == document.currentVersion)
        #expect(ruledDocument.versionPath == document.versionPath)
        #expect(render(ruledDocument.steps) == render(document.steps))
        #expect(swift.migrations(forTypeName: "SketchApp.Rect")?.typeName == "Rectangle")
        #expect(swift.migrations(forTypeName: "Rect")?.typeName == "Rectangle")
        #expect(swift.releases == rules.releases)
        for chain in swift.types {
            let ruled = rules.migrations(forTypeName: chain.typeName)?.downgradeFallback
            #expect(ruled?.typeName == chain.downgradeFallback?.typeName, "\(chain.typeName)")
            #expect(ruled?.version == chain.downgradeFallback?.version, "\(chain.typeName)")
            #expect(
                ruled?.rules.map(\.description) == chain.downgradeFallback?.rules.map(\.description),
                "\(chain.typeName)")
        }
    }

    @Test(
        "upgrading every fixture by the rules file gives the tree and report the Swift chains give",
        arguments: fixtures)
    func rulesFileUpgradesIdentically(_ fixture: String) throws {
        let tree = try Fixture.tree("archives/Sketch/" + fixture)
        let options = MigrationOptions(recordsSteps: true)
        var bySwift = tree
        let swiftReport = try MigrationPass(catalog: registry.catalog, options: options).upgrade(&bySwift)
        var byRules = tree
        let rulesReport = try MigrationPass(catalog: rules, options: options).upgrade(&byRules)
        #expect(byRules == bySwift)
        #expect(rulesReport == swiftReport)
        // And the upgraded tree is today's: the decoder has nothing left to migrate.
        let (_, report) = try ArchiveDecoder(registry: registry).decodeWithReport(
            Sketch.Drawing.self, fromTree: byRules)
        #expect(report.entries.isEmpty && report.document == nil)
    }

    // MARK: Schemas

    @Test("today's schemas: the versions of History.md and the declared behaviours")
    func schemas() throws {
        let expected: [(any VersionedModel.Type, String, Int, [String])] = [
            (
                Sketch.Drawing.self, "Drawing", 4,
                ["title", "author", "canvasColor", "created", "shapes", "models", "focus"]
            ),
            (Sketch.Circle.self, "Circle", 3, ["center", "radius", "style"]),
            (Sketch.Rectangle.self, "Rectangle", 2, ["origin", "size", "style"]),
            (
                Sketch.RoundedRectangle.self, "RoundedRectangle", 1,
                ["cornerRadius", "super.origin", "super.size", "super.style"]
            ),
            (Sketch.Style.self, "Style", 2, ["stroke", "width"]),
            (Sketch.Model.self, "Model", 3, ["name", "category", "image", "rect", "flag", "kind", "tags"]),
        ]
        #expect(expected.map { ObjectIdentifier($0.0) } == SketchRegistry.types.map { ObjectIdentifier($0) })
        for (type, name, version, properties) in expected {
            let schema = try ModelSchema(of: type)
            print(schema)
            #expect(schema.typeName == name)
            #expect(schema.version == version, "\(name)")
            #expect(schema.properties.map(\.name) == properties, "\(name)")
        }
        let drawing = try ModelSchema(of: Sketch.Drawing.self)
        #expect(drawing.properties.first { $0.name == "focus" }?.behavior == .conditional)
        let model = try ModelSchema(of: Sketch.Model.self)
        #expect(model.properties.first { $0.name == "image" }?.behavior == .excluded)
    }

    // MARK: Helpers

    /// Renders a drawing; each value is spelled as Swift prints it (`120.0`, `0.30000000000000004`).
    fileprivate static func summary(of drawing: Sketch.Drawing) throws -> Summary {
        let models = drawing.models
        var focus: String?
        if let focused = drawing.focus {
            focus = models.firstIndex { $0 === focused }.map { "models[\($0)]" } ?? "a model not in models"
        }
        let identities = drawing.shapes.map { ObjectIdentifier($0 as AnyObject) }
        var shared: [[Int]] = []
        for (index, identity) in identities.enumerated() where identities.firstIndex(of: identity) == index {
            let group = identities.indices.filter { identities[$0] == identity }
            if group.count > 1 { shared.append(group) }
        }
        return Summary(
            title: drawing.title, author: drawing.author, canvasColor: drawing.canvasColor,
            created: try utc(drawing.created), shapes: drawing.shapes.map(describe), models: models.map(describe),
            focus: focus, sharedShapes: shared)
    }

    fileprivate static func describe(_ shape: any Sketch.Shape) -> String {
        let style = "stroke \(shape.style.stroke) width \(shape.style.width)"
        switch shape {
        case let circle as Sketch.Circle:
            return "Circle center (\(circle.center.x), \(circle.center.y)) radius \(circle.radius), \(style)"
        case let rounded as Sketch.RoundedRectangle:
            return "RoundedRectangle origin (\(rounded.origin.x), \(rounded.origin.y)) size \(rounded.size.width) × "
                + "\(rounded.size.height) corner \(rounded.cornerRadius), \(style)"
        case let rectangle as Sketch.Rectangle:
            return "Rectangle origin (\(rectangle.origin.x), \(rectangle.origin.y)) size \(rectangle.size.width) × "
                + "\(rectangle.size.height), \(style)"
        default:
            return "unexpected \(type(of: shape))"
        }
    }

    fileprivate static func describe(_ model: Sketch.Model) -> String {
        let rect = model.rect
        let thumbnail = model.image.map { "thumbnail " + String(decoding: $0.pixels, as: UTF8.self) } ?? "no thumbnail"
        return [
            model.name, model.category, model.kind.rawValue, "(\(rect.x), \(rect.y), \(rect.width), \(rect.height))",
            "flag \(model.flag)", "tags [\(model.tags.joined(separator: ", "))]", thumbnail,
        ].joined(separator: " | ")
    }

    /// `2009-04-05 21:17:36.250`: the date in UTC to the millisecond, by Foundation's calendar.
    static func utc(_ date: Date) throws -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 0))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let milliseconds = Int((Double(parts.nanosecond ?? 0) / 1_000_000).rounded())
        func pad(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2)) "
            + "\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2)).\(pad(milliseconds, 3))"
    }
}
