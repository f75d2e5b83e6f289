// The Swift examples of the DocC articles and of the public declarations' documentation,
// compiled against the public API — no `@testable import` in this file, so an example that
// uses an internal declaration fails the build — and run where that is cheap.
//
// Each copy names its source: the file and the heading (or the declaration) it comes from.
// Examples are copied as they are written; what a copy adds (an initializer, a stand-in type
// the example leaves to the reader, input data) is marked "added for the test". When an
// example changes, change its copy here; `articleExamplesAreCompiledHere` fails when an
// article's Swift block has no copy.

import ArchiveCompatibility
import ArchiveMigrateKit
import Foundation
import MigrationRules
import ModelVersioning
import SketchModel
import Testing

/// The repository's folders, found from this file (`Tests/MigrationTests/…`).
private enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // MigrationTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the repository

    static func url(_ path: String) -> URL {
        root.appendingPathComponent(path)
    }
}

/// The module that declares an app's models, as the ArchiveCompatibility examples name it;
/// here the sample app's (added for the test).
private enum AppModels {
    static func registry() throws -> ModelRegistry {
        try SketchRegistry.registry()
    }
}

/// Same for the ArchiveMigrateKit declaration's example (added for the test).
private enum MyAppModels {
    static func registry() throws -> ModelRegistry {
        try SketchRegistry.registry()
    }
}

// MARK: - ModelVersioning.docc/ModelVersioning.md, "Overview"

private enum LandingPage {
    struct Point: Codable { var x, y: Double }

    protocol Shape: VersionedModel { var area: Double { get } }

    final class Circle: Shape {
        var center: Point
        var radius: Double
        var area: Double { .pi * radius * radius }

        init(center: Point, radius: Double) {  // added for the test
            self.center = center
            self.radius = radius
        }
    }

    final class Rectangle: Shape {  // added for the test
        var width, height: Double
        var area: Double { width * height }

        init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }
    }

    final class Contents: VersionedModel {
        @Polymorphic var shapes: [any Shape]
        static let modelVersion = 2
        static let allowedTypes: [String: [any VersionedModel.Type]] = ["shapes": [Circle.self, Rectangle.self]]

        init(shapes: [any Shape]) {  // added for the test
            self.shapes = shapes
        }
    }
}

// MARK: - ModelVersioning.docc/VersioningAModel.md

private enum VersioningAModel {
    // "Take part with one line"
    struct Point: Codable { var x, y: Double }

    // "Choose how each property is archived"
    struct Thumbnail: Codable {  // added for the test
        var name: String
        static func load(named name: String) -> Thumbnail { Thumbnail(name: name) }
    }

    final class Model: VersionedModel {  // added for the test
        var name: String
        init(name: String) { self.name = name }
    }

    final class Drawing: VersionedModel {
        var title: String
        var thumbnail: Thumbnail?  // loaded from its own file
        var models: [Model]
        weak var focus: Model?  // one of `models`, or nil

        static let encodingBehaviors: [String: EncodingBehavior] = [
            "thumbnail": .excluded,  // never written; rebuilt in awakeFromArchive()
            "focus": .conditional,  // written only if that model is archived too
        ]

        func awakeFromArchive() throws {
            thumbnail = Thumbnail.load(named: title)
        }

        init(title: String, models: [Model]) {  // added for the test
            self.title = title
            self.models = models
        }
    }

    // "Keep object identity"
    final class Node: VersionedModel {
        var children: [Node]
        @WeakReference var parent: Node?

        init(children: [Node]) {  // added for the test
            self.children = children
            for child in children { child.parent = self }
        }
    }

    // "Archive polymorphic values"; the same declaration is in HandlingUntrustedArchives.md,
    // "Allow lists"
    protocol Shape: VersionedModel {}  // added for the test
    final class Circle: Shape { var radius = 1.0 }  // added for the test
    final class Rectangle: Shape { var width = 1.0 }  // added for the test
    final class RoundedRectangle: Shape { var cornerRadius = 1.0 }  // added for the test

    final class Contents: VersionedModel {
        @Polymorphic var shapes: [any Shape]
        static let allowedTypes: [String: [any VersionedModel.Type]] = [
            "shapes": [Circle.self, Rectangle.self, RoundedRectangle.self]
        ]

        init(shapes: [any Shape]) {  // added for the test
            self.shapes = shapes
        }
    }
}

extension VersioningAModel.Point: VersionedModel {}

// "Inherit through the superclass coder": a hierarchy declared as the registry requires (a
// namespace of its own, the article's `Shape` is a class there).
private enum VersioningAModelHierarchy {
    class Shape: VersionedModel {
        class var archiveTypeName: String { String(describing: self) }
        class var archiveTypeAliases: [String] { [] }
        class var modelVersion: Int { 1 }
        class var migrationSteps: [MigrationStep] { [] }
        class var unversionedVersion: Int? { nil }
        class var encodingBehaviors: [String: EncodingBehavior] { [:] }
        class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }
        class var downgradeFallback: DowngradeFallback? { nil }
    }

    final class Rectangle: Shape {
        override class var archiveTypeAliases: [String] { ["Rect"] }  // archives of the old class name open
        override class var modelVersion: Int { 2 }
        override class var migrationSteps: [MigrationStep] {
            [MigrationStep(from: 1, to: 2, rules: [.renameType(from: "Rect", to: "Rectangle")])]
        }
    }
}

// MARK: - ModelVersioning.docc/WritingAMigration.md

private enum WritingAMigration {
    struct Point: Codable { var x, y: Double }  // added for the test

    // "Bump the version and add a step"
    final class Circle: VersionedModel {
        var center: Point
        var radius: Double

        class var modelVersion: Int { 2 }
        static let migrationSteps = [
            MigrationStep(
                from: 1, to: 2,
                rules: [
                    .nest(["x", "y"], into: "center"),
                    .rename("r", to: "radius"),
                ])
        ]

        init(center: Point, radius: Double) {  // added for the test
            self.center = center
            self.radius = radius
        }
    }

    final class Drawing: VersionedModel {  // added for the test
        var circles: [Circle]
        init(circles: [Circle]) { self.circles = circles }
    }

    // "The hard cases: a typed step"
    struct PolygonV2: Codable, Sendable { var points: [[Double]] }
    struct PolygonV3: Codable, Sendable { var xs: [Double]; var ys: [Double] }

    static let polygonStep = MigrationStep(
        from: 2, to: 3,
        rules: [
            .typed(
                "split points", from: PolygonV2.self, to: PolygonV3.self,
                { old in PolygonV3(xs: old.points.map { $0[0] }, ys: old.points.map { $0[1] }) },
                inverse: { new in PolygonV2(points: zip(new.xs, new.ys).map { [$0, $1] }) })
        ])
}

// MARK: - ModelVersioning.docc/ReadingLegacyArchives.md

private enum ReadingLegacyArchives {
    // "Class names and aliases"
    struct Note: VersionedModel {
        var title: String
        var count: Int
        static let archiveTypeName = "Note"
        static let archiveTypeAliases = ["MyApp.Note", "LegacyNote"]
        static let unversionedVersion: Int? = 1  // NSCoding archives record no version
    }

    // "Overview" registers a Person too (added for the test).
    struct Person: VersionedModel {
        var name: String
        static let archiveTypeAliases = ["MyApp.Person"]
        static let unversionedVersion: Int? = 1
    }

    // "Mantle"
    struct MTLTestModel: VersionedModel {
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

    /// The tree the article's section "How an archive maps onto the tree" shows as JSON.
    static let notesJSON = #"""
        [
          { "$type": "MyApp.Note", "title": "groceries", "count": 3,
            "owner": { "$type": "MyApp.Person", "$id": 4, "name": "Ada" },
            "link": "https://example.com/list" },
          { "$type": "MyApp.Note", "title": "taxes", "count": 0,
            "owner": { "$ref": 4 }, "link": null }
        ]
        """#
}

// MARK: - ModelVersioning.docc/HandlingUntrustedArchives.md, "Limits"

private enum HandlingUntrustedArchives {
    protocol Shape: VersionedModel {}  // added for the test
    final class Circle: Shape { var radius = 1.0 }  // added for the test

    final class Contents: VersionedModel {  // added for the test
        @Polymorphic var shapes: [any Shape]
        static let allowedTypes: [String: [any VersionedModel.Type]] = ["shapes": [Circle.self]]
    }
}

// MARK: - MigrationRules.docc/ChoosingMigrationRules.md, "Add a step"

private enum ChoosingMigrationRules {
    static let circle = TypeMigrations(
        typeName: "Circle", currentVersion: 2,
        steps: [
            MigrationStep(
                from: 1, to: 2,
                rules: [
                    .rename("r", to: "radius"),
                    .nest(["x", "y"], into: "center"),
                ])
        ])
}

// MARK: - MigrationRules.docc/WritingForOlderReleases.md

private enum WritingForOlderReleases {
    // The chains the example's catalog is built from (added for the test): the sample app's.
    static let sketch = SketchRegistry.document
    static var chains: [TypeMigrations] {
        get throws {
            try SketchRegistry.registry().catalog.types.filter {
                ["Drawing", "Circle", "Rectangle", "RoundedRectangle"].contains($0.typeName)
            }
        }
    }

    // "Overview"
    static func downgrade(_ tree: inout ArchiveValue) throws {
        let releases = ReleaseManifest(
            document: "Sketch",
            releases: [
                AppRelease(
                    "1.0", documentVersion: 1,
                    types: [
                        "Drawing": 1, "Circle": 1, "Rectangle": .version(1, archivedAs: "Rect"),
                        "RoundedRectangle": .absent,
                    ]),
                AppRelease(
                    "2.0", documentVersion: 4,
                    types: ["Drawing": 4, "Circle": 3, "Rectangle": 2, "RoundedRectangle": 1]),
            ])
        let catalog = try MigrationCatalog(types: chains, documents: [sketch], releases: releases)
        try MigrationPass(catalog: catalog).downgrade(&tree, toRelease: "1.0")
    }

    // "The bytes the release wrote"
    static let keyOrdered: AppRelease = {
        let release = AppRelease(
            "1.0", documentVersion: 1, types: ["Rectangle": .version(1, archivedAs: "Rect")],
            keyOrders: ["Rectangle": ["x", "y", "w", "h", "style"]])
        return release
    }()

    // "The bytes the release wrote": a release's aliases.
    static let aliased: AppRelease = {
        let release = AppRelease(
            "1.1", documentVersion: 2, types: ["Rectangle": .version(1, archivedAs: "Rect")],
            aliases: ["Rectangle": ["SketchApp.Rect"]])
        return release
    }()

    // "Types a release did not have"
    static let rounded = TypeMigrations(
        typeName: "RoundedRectangle", currentVersion: 1,
        downgradeFallback: DowngradeFallback(
            becoming: "Rectangle", version: 2,
            rules: [.hoist(["origin", "size", "style"], from: "super"), .remove("cornerRadius")]))
}

// MARK: - ModelVersioning.docc/MigratingArchivesInStores.md

private enum MigratingArchivesInStores {
    // "Archives nested in archives" (and the doc comments of ArchiveDocument.migrateNestedArchives
    // and NestedArchive); the preferences file and the registry are the test's.
    static func nested(preferencesURL: URL, registry: ModelRegistry) throws -> [NestedArchiveMigration] {
        var defaults = try ArchiveDocument(data: Data(contentsOf: preferencesURL))
        let pass = MigrationPass(catalog: registry.catalog)
        let nested = try defaults.migrateNestedArchives { tree in try pass.upgrade(&tree) }
        if nested.contains(where: \.changed) {
            try defaults.data().write(to: preferencesURL, options: .atomic)
        }
        return nested  // added for the test
    }

    static func listing(terminalProfileURL: URL) throws -> [String] {
        var paths: [String] = []  // added for the test
        let profile = try ArchiveDocument(data: Data(contentsOf: terminalProfileURL))
        for nested in try profile.nestedArchives() {
            print(nested.path, nested.document.format)  // BackgroundColor keyed-archive
            paths.append(nested.path.description)  // added for the test
        }
        return paths
    }

    // "Many archives in Swift" (and the doc comment of ArchiveBatch).
    static func batch(urls: [URL], registry: ModelRegistry) async throws -> ArchiveBatch.Progress {
        let batch = try ArchiveBatch(catalog: registry.catalog)
        let summary = try await batch.run(urls, data: { url in try Data(contentsOf: url) }) { url, outcome in
            if let upgraded = try outcome.get().data {
                try upgraded.write(to: url, options: .atomic)  // only archives that changed
            }
        } progress: { progress in
            print(progress)  // 12,000 of 100,000 archives (11,950 changed, 0 failed), 48,000/s, about 2 s left
        }
        return summary  // added for the test
    }

    // "Archives in a SQLite column", "From Swift" (and the doc comment of SQLiteArchiveColumn).
    static func sqliteColumn(registry: ModelRegistry) throws -> SQLiteArchiveColumn.Summary {
        let batch = try ArchiveBatch(catalog: registry.catalog)
        var column = SQLiteArchiveColumn(path: "Drawings.sqlite", table: "ZDRAWING", column: "ZCONTENTS")
        column.skipsFailedRows = true  // --skip-failed
        let summary = try column.upgrade(with: batch)  // upgradePreview(with:) is --dry-run
        print(summary)  // 100000 rows: 99990 written, 10 already current, 0 NULL, 0 failed
        for failure in summary.failures {
            print(failure.row, failure.error)  // id 42  … at models[0].kind (of ZDRAWING.ZCONTENTS, row Z_PK 42)
        }
        return summary  // added for the test
    }

    // "Many archives in Swift", "Files" (and the doc comment of ArchiveFiles).
    static func archiveFiles(registry: ModelRegistry) throws -> ArchiveFiles.Summary {
        let batch = try ArchiveBatch(catalog: registry.catalog)
        var files = ArchiveFiles(["Documents/Drawings"], include: ["*.json", "*.plist"])
        files.keepsBackups = true  // --backup
        let summary = try files.upgrade(with: batch)  // upgradePreview(with:) is --dry-run
        print(summary)  // 10000 files: 9990 written, 10 already current, 0 failed
        for failure in summary.failures {
            print(failure.file, failure.error)  // Documents/Drawings/a.json  … at models[0].kind
        }
        return summary  // added for the test
    }

    // "One archive at a time" (and the doc comment of ArchiveUpgrader).
    static func oneAtATime(_ given: [String: Data], registry: ModelRegistry) throws -> [String: Data] {
        var archives = given  // added for the test
        let upgrader = try ArchiveUpgrader(catalog: registry.catalog)
        for (key, archive) in archives {  // [String: Data], the rows of your own store, …
            let upgraded = try upgrader.upgrade(archive)
            if upgraded.changed { archives[key] = upgraded.data }
        }
        return archives  // added for the test
    }

    // The ArchiveFormats catalog's landing page.
    static func formatsOverview(url: URL) throws -> (format: ArchiveFormat, markup: MarkupMode, json: Data) {
        let document = try ArchiveDocument(data: Data(contentsOf: url))  // JSON, a property list, a keyed archive
        print(document.format, document.markup)  // keyed-archive archive
        let json = try document.data(as: .json)  // the same tree as JSON
        return (document.format, document.markup, json)  // added for the test
    }

    // The doc comment of MigrationEngine.
    static func engine(data: Data, url: URL, registry: ModelRegistry, release: AppRelease) throws -> MigrationEngine {
        let engine = try MigrationEngine(catalog: registry.catalog)
        let outcome = try engine.migrate(data)
        if let upgraded = outcome.data { try upgraded.write(to: url, options: .atomic) }  // only when it changed

        var options = MigrationEngine.Options()
        options.readableBy = "1.1"  // app 1.1 opens what is written, too
        let forOldApps = try MigrationEngine(
            catalog: registry.catalog, operation: .downgrade(to: DowngradeTarget(release: release)), options: options)
        return forOldApps  // added for the test
    }

    // "Migrating lazily".
    final class DrawingFile {
        private(set) var drawing: Drawing
        private(set) var isUpgradedInMemoryOnly: Bool
        let url: URL

        init(contentsOf url: URL, registry: ModelRegistry) throws {
            let (drawing, report) = try ArchiveDecoder(registry: registry)
                .decodeWithReport(Drawing.self, from: Data(contentsOf: url))
            self.drawing = drawing
            self.isUpgradedInMemoryOnly = report.changedTree  // an old archive: save to keep the upgrade
            self.url = url
        }

        func save() throws {
            try ArchiveEncoder().encode(drawing).write(to: url, options: .atomic)
            isUpgradedInMemoryOnly = false
        }
    }
}

// MARK: - ModelVersioning.docc/ArchivesOlderAppsCanOpen.md

private enum ArchivesOlderAppsCanOpen {
    // "Overview"
    static func write(_ drawing: SketchModel.Drawing) throws -> Data {
        var encoder = SketchRegistry.encoder()
        encoder.registry = try SketchRegistry.registry()
        encoder.readableBy = "1.1"
        let data = try encoder.encode(drawing)
        return data  // added for the test
    }

    // "Steps that are closures"; also Sources/MigrationRules/Plan/MigrationStep.swift, `inverseRules`
    static let toKelvin: MigrationRule.Transform = { target in  // added for the test
        if let celsius = target.fields["celsius"]?.doubleValue {
            target.fields["celsius"] = nil
            target.fields["kelvin"] = .double(celsius + 273.15)
        }
    }
    static let toCelsius: MigrationRule.Transform = { target in  // added for the test
        if let kelvin = target.fields["kelvin"]?.doubleValue {
            target.fields["kelvin"] = nil
            target.fields["celsius"] = .double(kelvin - 273.15)
        }
    }
    static let kelvin =
        MigrationStep(
            from: 2, to: 3, name: "kelvin",
            rules: [.transform("celsiusToKelvin", toKelvin, inverse: toCelsius)],
            inverseRules: [.rename("kelvin", to: "celsius")])
}

// MARK: - Doc comments of public declarations

private enum DocComments {
    // Sources/ModelVersioning/Model/Polymorphic.swift, `Polymorphic`
    protocol Shape: VersionedModel { var area: Double { get } }
    final class Circle: Shape { var area: Double { 1 } }  // added for the test
    final class Rectangle: Shape { var area: Double { 2 } }  // added for the test
    final class RoundedRectangle: Shape { var area: Double { 3 } }  // added for the test

    final class Contents: VersionedModel {
        @Polymorphic var shapes: [any Shape]
        @Polymorphic var selection: (any Shape)?

        static let allowedTypes: [String: [any VersionedModel.Type]] = [
            "shapes": [Circle.self, Rectangle.self, RoundedRectangle.self],
            "selection": [Circle.self, Rectangle.self, RoundedRectangle.self],
        ]
    }

    // Sources/ModelVersioning/Model/EncodingBehavior.swift, `EncodingBehavior`
    struct Thumbnail: Codable {}  // added for the test
    final class Model: VersionedModel {}  // added for the test

    final class Drawing: VersionedModel {
        var models: [Model]
        var thumbnail: Thumbnail?  // rebuilt after loading, never archived
        weak var focus: Model?  // archived only if that model is archived too

        static let encodingBehaviors: [String: EncodingBehavior] = [
            "thumbnail": .excluded,
            "focus": .conditional,
        ]
    }

    // Sources/ModelVersioning/Model/WeakReference.swift, `KeyedDecodingContainer.decodeConditional`
    final class Node: VersionedModel {
        var name: String
        var children: [Node]
        weak var parent: Node?

        enum CodingKeys: String, CodingKey { case name, children, parent }  // added for the test

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            children = try container.decode([Node].self, forKey: .children)
            try container.decodeConditional(Node.self, forKey: .parent) { [weak self] in self?.parent = $0 }
        }
    }

    // Sources/ModelVersioning/Model/WeakReference.swift, `KeyedDecodingContainer.decodePolymorphic`
    final class Board: VersionedModel {  // added for the test
        var shapes: [any Shape]
        enum CodingKeys: String, CodingKey { case shapes }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            shapes = try container.decodePolymorphic([any Shape].self, forKey: .shapes)
        }

        func encode(to encoder: any Encoder) throws {}
    }

    // Sources/ModelVersioning/Model/SchemaSampleProviding.swift, `SchemaSampleProviding`
    enum Kind: String, Codable, SchemaSampleProviding {
        case photo, drawing
        static var schemaSample: Kind { .photo }
    }

    // Sources/ModelVersioning/Model/UnknownFields.swift, `UnknownFields`
    struct Circle5: VersionedModel {
        var radius: Double
        var unknownFields = UnknownFields()
        static let archiveTypeName = "Circle"  // added for the test (the example names it Circle)
        static let modelVersion = 5
    }

    // Sources/ArchiveCompatibility/Schema/ModelSchema.swift, `ModelSchema`
    struct Point: Codable { var x, y: Double }  // added for the test

    struct SchemaCircle: VersionedModel {  // added for the test
        var center: Point
        var radius: Double
        var label: String?
        static let archiveTypeName = "Circle"
        static let modelVersion = 2
        static let encodingBehaviors: [String: EncodingBehavior] = ["label": .excluded]
    }

    // Sources/MigrationRules/Plan/DocumentMigrations.swift, `DocumentMigrations`
    static let people = DocumentMigrations(
        name: "people", versionPath: "schema_version", currentVersion: 3, unversionedVersion: 1,
        steps: [
            MigrationStep(
                from: 1, to: 2,
                rules: [
                    .scoped("people[*]", [.split("name", into: ["first_name", "last_name"], separator: " ")])
                ]),
            MigrationStep(
                from: 2, to: 3,
                rules: [
                    .scoped("people[*]", [.add("birthday", default: nil), .add("mark_as_favorite", default: false)])
                ]),
        ])
}

// MARK: - The examples, compiled and run

@Suite("Documentation examples")
struct DocumentationExampleTests {
    // MARK: ModelVersioning.docc

    @Test("ModelVersioning.md, Overview: a polymorphic document round-trips")
    func landingPage() throws {
        let contents = LandingPage.Contents(shapes: [
            LandingPage.Circle(center: .init(x: 1, y: 2), radius: 3), LandingPage.Rectangle(width: 2, height: 5),
        ])  // added for the test

        typealias Contents = LandingPage.Contents
        typealias Circle = LandingPage.Circle
        typealias Rectangle = LandingPage.Rectangle

        let registry = try ModelRegistry([Contents.self, Circle.self, Rectangle.self])
        let data = try ArchiveEncoder().encode(contents)
        let reopened = try ArchiveDecoder(registry: registry).decode(Contents.self, from: data)

        #expect(reopened.shapes.map(\.area) == contents.shapes.map(\.area))
    }

    @Test("VersioningAModel.md, Take part with one line: archived as the article shows")
    func takePartWithOneLine() throws {
        var encoder = ArchiveEncoder()
        encoder.writingOptions.prettyPrinted = false
        let tree = try ArchiveFormat.json.read(try encoder.encode(VersioningAModel.Point(x: 10, y: 20)))
        let root = try #require(try ArchiveEnvelope(tree: tree)).root
        let text = try ArchiveFormat.json.write(root, options: ArchiveWritingOptions(prettyPrinted: false))
        #expect(String(decoding: text, as: UTF8.self) == #"{"$type":"Point","$version":1,"x":10.0,"y":20.0}"#)
    }

    @Test("VersioningAModel.md, Choose how each property is archived: excluded and conditional")
    func encodingBehaviors() throws {
        typealias Drawing = VersioningAModel.Drawing
        typealias Model = VersioningAModel.Model
        let registry = try ModelRegistry([Drawing.self, Model.self])
        let drawing = Drawing(title: "autumn", models: [Model(name: "leaves"), Model(name: "palette")])
        drawing.thumbnail = VersioningAModel.Thumbnail(name: "stale")
        drawing.focus = drawing.models[1]

        let data = try ArchiveEncoder().encode(drawing)
        let reopened = try ArchiveDecoder(registry: registry).decode(Drawing.self, from: data)

        #expect(!String(decoding: data, as: UTF8.self).contains("stale"))
        #expect(reopened.thumbnail?.name == "autumn")  // rebuilt in awakeFromArchive()
        #expect(reopened.focus === reopened.models[1])

        // A focus on a model that is not in the drawing is not written.
        let outside = Model(name: "elsewhere")
        drawing.focus = outside
        let tree = try ArchiveEncoder().encodeValue(drawing)
        #expect(tree.objectValue?.fields["focus"] == nil)
    }

    @Test("VersioningAModel.md, Inherit through the superclass coder: the subclass's alias is read")
    func hierarchy() throws {
        typealias Shape = VersioningAModelHierarchy.Shape
        typealias Rectangle = VersioningAModelHierarchy.Rectangle
        let registry = try ModelRegistry([Shape.self, Rectangle.self])
        #expect(registry.type(named: "Rect") == Rectangle.self)
        let old = Data(#"{"$type": "Rect", "$version": 1}"#.utf8)
        #expect(try ArchiveDecoder(registry: registry).decode(Shape.self, from: old) is Rectangle)
    }

    @Test("VersioningAModel.md, Keep object identity: a weak parent comes back")
    func keepObjectIdentity() throws {
        let tree = VersioningAModel.Node(children: [VersioningAModel.Node(children: [])])
        let registry = try ModelRegistry([VersioningAModel.Node.self])
        let data = try ArchiveEncoder().encode(tree)
        let reopened = try ArchiveDecoder(registry: registry).decode(VersioningAModel.Node.self, from: data)
        #expect(reopened.children[0].parent === reopened)
    }

    @Test("VersioningAModel.md, Archive polymorphic values: the allow list is checked")
    func polymorphicAllowList() throws {
        let registry = try ModelRegistry([
            VersioningAModel.Contents.self, VersioningAModel.Circle.self, VersioningAModel.Rectangle.self,
            VersioningAModel.RoundedRectangle.self, VersioningAModel.Node.self,
        ])
        let data = Data(
            #"{"$archive": 1, "root": {"$type": "Contents", "$version": 1, "shapes": [{"$type": "Node", "$version": 1, "children": []}]}}"#
                .utf8)
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: registry).decode(VersioningAModel.Contents.self, from: data)
        }
        #expect(error?.code == .disallowedType)
    }

    @Test("WritingAMigration.md: a version 1 circle opens, and a downgrade writes it back")
    func writingAMigration() throws {
        // "Bump the version and add a step": version 1 was archived as {"x": 1, "y": 2, "r": 3}.
        let registry = try ModelRegistry([WritingAMigration.Circle.self, WritingAMigration.Drawing.self])
        let old = Data(#"{"$archive": 1, "root": {"$type": "Circle", "$version": 1, "x": 1, "y": 2, "r": 3}}"#.utf8)
        let circle = try ArchiveDecoder(registry: registry).decode(WritingAMigration.Circle.self, from: old)
        #expect(circle.center.y == 2 && circle.radius == 3)

        // "Downgrade for an older app"
        let drawing = WritingAMigration.Drawing(circles: [circle])  // added for the test
        var tree = try ArchiveEncoder().encodeTree(drawing)
        try MigrationPass(catalog: registry.catalog)
            .downgrade(&tree, to: DowngradeTarget(typeVersions: ["Circle": 1]))

        let root = try #require(try ArchiveEnvelope(tree: tree)).root
        let downgraded = try #require(root.objectValue?.fields["circles"]?.arrayValue?.first?.objectValue)
        #expect(downgraded.version == 1)
        #expect(downgraded.fields.keys == ["x", "y", "r"])
    }

    @Test("WritingAMigration.md, Keep a foreign document plain: written and read back in its own spellings")
    func foreignDocumentPlain() throws {
        struct Preferences: Codable, Equatable {  // added for the test
            var appearance: String
            var lastSync: Date
        }
        // Added for the test: the preferences the example writes.
        let preferences = Preferences(appearance: "dark", lastSync: Date(timeIntervalSince1970: 1_764_479_665))

        let settings = DocumentMigrations(
            name: "settings", versionPath: "version", currentVersion: 2,
            style: .plain(DocumentConventions(dates: .millisecondsSince1970)),
            steps: [MigrationStep(from: 1, to: 2, rules: [.rename("theme", to: "appearance")])])
        let registry = try ModelRegistry([], documents: [settings])

        var encoder = ArchiveEncoder(registry: registry)
        encoder.document = "settings"
        let data = try encoder.encode(preferences)  // {"appearance":"dark","lastSync":1764479665000,"version":2}

        var options = DecodingOptions()
        options.document = "settings"
        let reopened = try ArchiveDecoder(registry: registry, options: options).decode(Preferences.self, from: data)

        #expect(reopened == preferences)
        #expect(
            try ArchiveFormat.json.read(data, options: .init(markup: .plain))
                == ["appearance": "dark", "lastSync": 1_764_479_665_000, "version": 2])
        // A version 1 file opens too.
        let v1 = Data(#"{"theme": "light", "lastSync": 1764479665000, "version": 1}"#.utf8)
        let old = try ArchiveDecoder(registry: registry, options: options).decode(Preferences.self, from: v1)
        #expect(old.appearance == "light")
    }

    @Test("OnDiskArchiveFormat.md, Plain documents: the chain declared in Swift writes the JSON shown")
    func plainDocumentsSection() throws {
        struct Person: Codable {  // added for the test
            var firstName: String
            var lastName: String
            var born: Date
            var photo: Data

            enum CodingKeys: String, CodingKey {
                case firstName = "first_name"
                case lastName = "last_name"
                case born
                case photo
            }
        }
        struct People: Codable { var people: [Person] }  // added for the test
        let peopleSteps = [
            MigrationStep(from: 1, to: 2, rules: []), MigrationStep(from: 2, to: 3, rules: []),
        ]  // added for the test

        let people = DocumentMigrations(
            name: "people", versionPath: "schema_version", currentVersion: 3,
            style: .plain(DocumentConventions(dates: .iso8601, data: .base64)),
            steps: peopleSteps)

        var encoder = ArchiveEncoder(registry: try ModelRegistry([], documents: [people]))  // added for the test
        encoder.document = "people"
        let file = People(people: [
            Person(
                firstName: "Fred", lastName: "Weasley", born: Date(timeIntervalSince1970: 260_271_000),
                photo: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        ])
        let text = try #require(
            Self.blocks(
                in: try String(
                    contentsOf: Repository.url("Sources/ModelVersioning/ModelVersioning.docc/OnDiskArchiveFormat.md"),
                    encoding: .utf8),
                language: "json"
            ).first { $0.code.contains("schema_version") })
        #expect(String(decoding: try encoder.encode(file), as: UTF8.self) == text.code + "\n")
    }

    @Test("WritingAMigration.md, The hard cases: a typed step runs both ways")
    func typedStep() throws {
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(
                typeName: "Polygon", currentVersion: 3,
                steps: [MigrationStep(from: 1, to: 2, rules: []), WritingAMigration.polygonStep])
        ])  // added for the test
        var tree: ArchiveValue = .object(
            ArchiveObject(typeName: "Polygon", version: 2, fields: ["points": [[0, 1], [2, 3]]]))
        try MigrationPass(catalog: catalog).upgrade(&tree)
        #expect(tree.objectValue?.fields == ["xs": [0.0, 2.0], "ys": [1.0, 3.0]])
        try MigrationPass(catalog: catalog).downgrade(&tree, to: DowngradeTarget(typeVersions: ["Polygon": 2]))
        #expect(tree.objectValue?.fields == ["points": [[0.0, 1.0], [2.0, 3.0]]])
    }

    @Test("ReadingLegacyArchives.md: keyed archives decode, name a root, and are written for old apps")
    func readingLegacyArchives() throws {
        // The article's notes, written as a keyed archive (added for the test).
        let notesTree = try ArchiveFormat.json.read(
            Data(ReadingLegacyArchives.notesJSON.utf8), options: ArchiveReadingOptions(markup: .archive))
        let data = try ArchiveFormat.keyedArchive.write(notesTree)

        typealias Note = ReadingLegacyArchives.Note
        typealias Person = ReadingLegacyArchives.Person

        // "Overview"
        let registry = try ModelRegistry([Note.self, Person.self])
        let notes = try ArchiveDecoder(registry: registry).decode([Note].self, from: data)

        let (tree, format) = try ArchiveFormat.read(data)  // format == .keyedArchive

        #expect(notes.map(\.title) == ["groceries", "taxes"])
        #expect(format == .keyedArchive)
        #expect(tree.arrayValue?.count == 2)

        // "How an archive maps onto the tree": naming the root object.
        var options = ArchiveReadingOptions()
        options.keyedArchive.rootKey = "root"
        let root = try ArchiveFormat.keyedArchive.read(data, options: options)
        #expect(root == tree)

        // "Writing archives for old apps"
        do {
            let tree = try ArchiveEncoder().encodeValue(notes)
            let data = try ArchiveFormat.keyedArchive.write(tree)

            var options = ArchiveWritingOptions()
            options.keyedArchive = .mantle  // NSNumber properties too, as Mantle writes them
            let forMantle = try ArchiveFormat.keyedArchive.write(tree, options: options)

            for archive in [data, forMantle] {
                let again = try ArchiveDecoder(registry: registry).decode([Note].self, from: archive)
                #expect(again.map(\.count) == [3, 0])
            }
        }
    }

    @Test("ReadingLegacyArchives.md, Mantle: Mantle's own pre-0.3 archive opens as Mantle's test expects")
    func mantle() throws {
        let data = try Data(contentsOf: Repository.url("Fixtures/archives/Mantle/MTLTestModel-OldArchive.plist"))

        typealias MTLTestModel = ReadingLegacyArchives.MTLTestModel

        let registry = try ModelRegistry([MTLTestModel.self])
        let model = try ArchiveDecoder(registry: registry).decode(MTLTestModel.self, from: data)
        // MTLTestModel(name: "foobar", count: 5, nestedName: "fuzzbuzz")

        #expect(model.name == "foobar" && model.count == 5 && model.nestedName == "fuzzbuzz")
        // The article's rules file is the same chain.
        let rules = try MigrationCatalog(
            rulesFile: try ArchiveFormat.json.read(
                try Data(contentsOf: Repository.url("Fixtures/archives/Mantle/MTLTestModel.rules.json")),
                options: ArchiveReadingOptions(markup: .plain)))
        #expect(
            rules.migrations(forTypeName: "MTLTestModel")?.steps.map(\.rules.description)
                == registry.catalog.migrations(forTypeName: "MTLTestModel")?.steps.map(\.rules.description))
    }

    @Test("HandlingUntrustedArchives.md, Limits: too deep is refused with the limit and the path")
    func untrustedLimits() throws {
        let registry = try ModelRegistry([
            HandlingUntrustedArchives.Contents.self, HandlingUntrustedArchives.Circle.self,
        ])
        let nested = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let data = Data(
            #"{"$archive": 1, "root": {"$type": "Contents", "shapes": [{"$type": "Circle", "radius": \#(nested)}]}}"#
                .utf8)  // added for the test
        var refused: String?  // added for the test

        var options = DecodingOptions()
        options.limits = .untrusted
        options.requiresAllowedTypes = true
        let decoder = ArchiveDecoder(registry: registry, options: options)

        typealias Contents = HandlingUntrustedArchives.Contents
        do {
            let contents = try decoder.decode(Contents.self, from: data)
            _ = contents
        } catch let error as ArchiveError where error.code == .limitExceeded {
            print("refused: \(error.limit!) at \(error.path)")  // refused: ArchiveLimits.maxDepth at root.shapes[0]…
            refused = "\(error.limit!) at \(error.path)"
        }

        #expect(
            refused?.hasPrefix("ArchiveLimits.maxDepth at root.shapes[0]") == true, "\(refused ?? "nothing refused")")
    }

    @Test("OnDiskArchiveFormat.md: the JSON examples read as the article says")
    func archiveFormatExamples() throws {
        // "Values JSON cannot hold"
        let invoice = try ArchiveFormat.json.read(
            Data(
                #"""
                {
                  "$archive": 1,
                  "root": {
                    "$type": "Invoice",
                    "$version": 3,
                    "issued": { "$date": "2026-11-30T05:14:25Z" },
                    "logo": { "$data": "iVBORw0KGgo=" },
                    "ratio": { "$double": "inf" },
                    "$$price": 3
                  }
                }
                """#.utf8))
        let object = try #require(try ArchiveEnvelope(tree: invoice)?.root.objectValue)
        #expect(object.typeName == "Invoice" && object.version == 3)
        #expect(object.fields["issued"] == .date(Date(timeIntervalSince1970: 1_796_015_665)))  // 2026-11-30T05:14:25Z
        #expect(object.fields["logo"] == .data(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
        #expect(object.fields["ratio"] == .double(.infinity))
        #expect(object.fields["$price"] == 3)

        // "Overview": the Sketch fixture it quotes.
        let stamps = try ArchiveFormat.json.read(
            try Data(contentsOf: Repository.url("Fixtures/archives/Sketch/v2/stamps.json")))
        let envelope = try #require(try ArchiveEnvelope(tree: stamps))
        #expect(envelope.document == "Sketch" && envelope.documentVersion == 2)
        let shapes = try #require(envelope.root.objectValue?.fields["shapes"]?.arrayValue)
        #expect(shapes[0].objectValue?.id == ArchiveObjectID(1))
        #expect(shapes[2] == .reference(1) && shapes[3] == .reference(1))

        // "Property lists" and "NSKeyedArchiver archives": the same archive in each format.
        for format in [ArchiveFormat.xmlPropertyList, .binaryPropertyList, .keyedArchive] {
            let (again, detected) = try ArchiveFormat.read(try format.write(stamps))
            #expect(detected == format)
            #expect(again == stamps, "\(format)")
        }

        // "NSKeyedArchiver archives": kyoto-trip written for release 1.0 begins as shown.
        var kyoto = try ArchiveFormat.json.read(
            try Data(contentsOf: Repository.url("Fixtures/archives/Sketch/expected/v1/kyoto-trip.json")))
        try MigrationPass(catalog: try SketchRegistry.registry().catalog).downgrade(&kyoto, toRelease: "1.0")
        let keyed = try ArchiveFormat.binaryPropertyList.read(
            try ArchiveFormat.keyedArchive.write(kyoto), options: ArchiveReadingOptions(markup: .plain))
        #expect(
            keyed["$top"] == [
                "root": .reference(1), "$archive": .reference(17), "$document": .reference(48),
                "$documentVersion": .reference(17),
            ])
        let objects = try #require(keyed["$objects"]?.arrayValue)
        #expect(objects[1].dictionaryValue?.keys == ["$class", "title", "meta", "shapes", "models", "MTLModelVersion"])
        #expect(objects[2] == ["$classname": "Drawing", "$classes": ["Drawing", "NSObject"]])
        #expect(objects[3] == "Kyoto trip — 京都の旅" && objects[17] == 1 && objects[48] == "Sketch")
    }

    // MARK: MigrationRules.docc

    @Test("MigrationRules.md, Overview: a Circle v1 tree is upgraded to v3")
    func migrationRulesOverview() throws {
        let data = Data(#"{"$type": "Circle", "$version": 1, "x": 1, "y": 2, "r": 3}"#.utf8)  // added for the test

        let circle = TypeMigrations(
            typeName: "Circle", currentVersion: 3, aliases: ["MyApp.Circle"],
            steps: [
                MigrationStep(from: 1, to: 2, rules: [.rename("r", to: "radius")]),
                MigrationStep(
                    from: 2, to: 3, rules: [.nest(["x", "y"], into: "center"), .add("visible", default: true)]),
            ])
        let catalog = try MigrationCatalog(types: [circle])

        var tree = try ArchiveFormat.json.read(data)  // ModelVersioning's readers
        let report = try MigrationPass(catalog: catalog).upgrade(&tree)
        print(report)

        #expect(
            tree
                == .object(
                    ArchiveObject(
                        typeName: "Circle", version: 3,
                        fields: ["center": ["x": 1, "y": 2], "radius": 3, "visible": true])))
    }

    @Test("ChoosingMigrationRules.md, Test the step")
    func choosingMigrationRules() throws {
        let circle = ChoosingMigrationRules.circle

        var tree: ArchiveValue = .object(
            ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 2, "x": 0, "y": 1]))
        try MigrationPass(catalog: MigrationCatalog(types: [circle])).upgrade(&tree)
        #expect(
            tree
                == .object(
                    ArchiveObject(
                        typeName: "Circle", version: 2, fields: ["radius": 2, "center": ["x": 0, "y": 1]])))
    }

    @Test("RulesFileFormat.md: the example rules file loads")
    func rulesFileFormat() throws {
        let text = try String(
            contentsOf: Repository.url("Sources/MigrationRules/MigrationRules.docc/RulesFileFormat.md"), encoding: .utf8
        )
        let json = try #require(Self.blocks(in: text, language: "json").first)
        let tree = try ArchiveFormat.json.read(Data(json.code.utf8))
        let catalog = try MigrationCatalog(rulesFile: tree, fileName: "RulesFileFormat.md")
        #expect(catalog.migrations(forTypeName: "MyApp.Circle")?.currentVersion == 3)
        #expect(catalog.document(named: "people")?.currentVersion == 3)
        #expect(catalog.document(named: "people")?.style == .plain(DocumentConventions(dates: .iso8601, data: .base64)))
    }

    @Test("WritingForOlderReleases.md: a drawing written for release 1.0 is at 1.0's versions")
    func writingForOlderReleases() throws {
        // A 1.2 archive of the same four types (added for the test), upgraded, then written for 1.0.
        var tree: ArchiveValue = [
            "$archive": 1, "document": "Sketch", "documentVersion": 3,
            "root": .object(
                ArchiveObject(
                    typeName: "Drawing", version: 3,
                    fields: [
                        "title": "t", "canvasColor": "#FFFFFF",
                        "shapes": [
                            .object(
                                ArchiveObject(
                                    typeName: "Circle", version: 3, fields: ["center": ["x": 1, "y": 2], "radius": 3]))
                        ],
                    ])),
        ]
        try WritingForOlderReleases.downgrade(&tree)
        #expect(tree["documentVersion"] == 1)
        #expect(tree["root"]?.objectValue?.version == 1)
        #expect(tree["root"]?["shapes"]?[0]?.objectValue?.version == 1)
        #expect(tree["root"]?["shapes"]?[0]?["r"] == 3)
        #expect(WritingForOlderReleases.rounded.downgradeFallback?.typeName == "Rectangle")
        #expect(WritingForOlderReleases.aliased.aliases["Rectangle"] == ["SketchApp.Rect"])
    }

    @Test("MigratingArchivesInStores.md: nested archives, a batch of files, and the lazy pattern")
    func migratingArchivesInStores() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stores-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = try MigrationCatalog(
            rulesFile: try ArchiveFormat.json.read(
                try Data(contentsOf: Repository.url("Fixtures/archives/rules.json")),
                options: ArchiveReadingOptions(markup: .plain)),
            fileName: "rules.json")
        let registry = try ModelRegistry().adding(rules: rules)

        let preferences = folder.appendingPathComponent("com.example.Sketch.plist")
        try Data(contentsOf: Repository.url("Fixtures/stores/com.example.Sketch.plist")).write(to: preferences)
        let nested = try MigratingArchivesInStores.nested(preferencesURL: preferences, registry: registry)
        #expect(nested.filter(\.changed).map(\.locationDescription) == ["DefaultStyle", "LastDrawing"])
        #expect(
            try MigratingArchivesInStores.nested(preferencesURL: preferences, registry: registry).allSatisfy {
                !$0.changed
            })
        let paths = try MigratingArchivesInStores.listing(
            terminalProfileURL: Repository.url("Fixtures/stores/Ocean.terminal"))
        #expect(paths.first == "BackgroundColor")

        var urls: [URL] = []
        for name in ["empty", "floor-plan", "kyoto-trip"] {
            let url = folder.appendingPathComponent("\(name).json")
            try Data(contentsOf: Repository.url("Fixtures/archives/Sketch/v1/\(name).json")).write(to: url)
            urls.append(url)
        }
        let summary = try await MigratingArchivesInStores.batch(urls: urls, registry: registry)
        #expect(summary.completed == 3 && summary.changed == 3 && summary.failed == 0)

        var archives: [String: Data] = [:]
        for name in ["empty", "floor-plan", "kyoto-trip"] {
            archives[name] = try Data(contentsOf: Repository.url("Fixtures/archives/Sketch/v1/\(name).json"))
        }
        let upgraded = try MigratingArchivesInStores.oneAtATime(archives, registry: registry)
        for (name, data) in upgraded {
            #expect(
                data == (try Data(contentsOf: folder.appendingPathComponent("\(name).json"))), "as the batch wrote it")
        }
        #expect(try MigratingArchivesInStores.oneAtATime(upgraded, registry: registry) == upgraded)

        let keyed = try MigratingArchivesInStores.formatsOverview(
            url: Repository.url("Fixtures/archives/Mantle/MTLTestModel-OldArchive.plist"))
        #expect(keyed.format == .keyedArchive && keyed.markup == .archive)
        #expect(try ArchiveFormat.read(keyed.json).1 == .json)
        let release = try #require(registry.catalog.releases?.release(matching: "1.0"))
        let written = folder.appendingPathComponent("engine.json")
        let forOldApps = try MigratingArchivesInStores.engine(
            data: try Data(contentsOf: Repository.url("Fixtures/archives/Sketch/v1/kyoto-trip.json")), url: written,
            registry: registry, release: release)
        #expect(
            try Data(contentsOf: written) == (try Data(contentsOf: folder.appendingPathComponent("kyoto-trip.json"))))
        #expect(forOldApps.options.readableBy == "1.1")

        let sketch = try SketchRegistry.registry()
        let old = folder.appendingPathComponent("old.json")
        try Data(contentsOf: Repository.url("Fixtures/archives/Sketch/v1/kyoto-trip.json")).write(to: old)
        let file = try MigratingArchivesInStores.DrawingFile(contentsOf: old, registry: sketch)
        #expect(file.isUpgradedInMemoryOnly)
        try file.save()
        #expect(!file.isUpgradedInMemoryOnly)
        #expect(!(try MigratingArchivesInStores.DrawingFile(contentsOf: old, registry: sketch).isUpgradedInMemoryOnly))
    }

    // MARK: ArchiveCompatibility.docc

    // ArchiveCompatibility.md, "Overview", and CheckingFixturesInCI.md, "Run them in your test
    // target" (the same test); the repository's own fixtures stand in for an app's.
    static let fixturesURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/archives")

    @Test func everyShippedArchiveOpensToday() throws {
        let fixturesURL = Self.fixturesURL
        let suite = FixtureSuite(directory: fixturesURL, registry: try AppModels.registry())
        let report = try suite.run()
        #expect(report.failures.isEmpty, "\(report)")
    }

    // CheckingFixturesInCI.md, "Prove every chain on generated objects".
    @Test func everyChainKeepsItsLaws() throws {
        let fixturesURL = Self.fixturesURL
        let suite = FixtureSuite(directory: fixturesURL, registry: try AppModels.registry())
        let schemas = SchemaStore(directory: fixturesURL.deletingLastPathComponent().appendingPathComponent("schemas"))
        let laws = suite.checkLaws(schemas: schemas, options: LawOptions(objectsPerVersion: 50))
        #expect(laws.failures.isEmpty, "\(laws)")
    }

    /// CheckingFixturesInCI.md, The command-line gate: a build check, never called (`main` exits
    /// the process). It compiles only if `main` accepts the registry function as the article
    /// passes it.
    static func commandLineGate() -> Never {
        ArchiveMigrate.main(name: "app-migrate", registry: AppModels.registry)
    }

    @Test("CheckingFixturesInCI.md, The command-line gate: the tool runs with the app's registry")
    func commandLineGateRuns() throws {
        let tool = ArchiveMigrate(name: "app-migrate", registry: try AppModels.registry())
        #expect(tool.run(["--version"]) == 0)
        #expect(tool.registry.types.count == (try AppModels.registry()).types.count)
    }

    // MARK: Doc comments of public declarations (a selection: the ones with more than one call)

    @Test("CompatibilityCheck, FixtureSuite, SchemaStore, ModelSchema: the doc comments' examples")
    func compatibilityDeclarations() throws {
        let repository = Repository.root  // added for the test

        // Sources/ArchiveCompatibility/Compatibility/CompatibilityCheck.swift
        let check = CompatibilityCheck(
            registry: try AppModels.registry(),
            fixtures: repository.appendingPathComponent("Fixtures/archives"),
            schemas: SchemaStore(directory: repository.appendingPathComponent("Fixtures/schemas")),
            records: false)
        let report = try check.run()
        print(report)
        #expect(report.passed, "\(report)")

        // Sources/ArchiveCompatibility/Schema/SchemaStore.swift (recording goes to a scratch folder)
        let store = SchemaStore(directory: repository.appendingPathComponent("Fixtures/schemas"))
        if let snapshot = try store.snapshot(typeName: "Circle", version: 3) {
            print(snapshot)
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("doc-examples-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try SchemaStore(directory: scratch).record(try ModelSchema(of: SketchModel.Circle.self))

        // Sources/ArchiveCompatibility/Schema/ModelSchema.swift
        let schema = try ModelSchema(of: DocComments.SchemaCircle.self)
        print(schema)  // Circle v2: center: Point, radius: Double, label: String? (excluded)
        #expect(schema.description == "Circle v2: center: Point, radius: Double, label: String? (excluded)")
    }

    @Test("MigrationPass, DocumentMigrations, RulesFile: the doc comments' examples")
    func migrationDeclarations() throws {
        let catalog = try MigrationCatalog(types: [], documents: [DocComments.people])

        // Sources/MigrationRules/Pass/MigrationPass.swift, `MigrationPass`
        let data = Data(#"{"schema_version": 1, "people": [{"id": "4E96", "name": "Fred Weasley"}]}"#.utf8)
        let pass = MigrationPass(catalog: catalog)
        var tree = try ArchiveFormat.json.read(data)  // ModelVersioning's readers, any format
        let report = try pass.upgrade(&tree, document: "people")
        print(report)
        #expect(report.document != nil)

        // Sources/MigrationRules/Pass/MigrationPass.swift, `upgrade(_:document:)`
        var people: ArchiveValue = ["schema_version": 1, "people": [["id": "4E96…", "name": "Fred Weasley"]]]
        try MigrationPass(catalog: catalog).upgrade(&people, document: "people")
        #expect(
            people == [
                "schema_version": 3,
                "people": [
                    [
                        "id": "4E96…", "first_name": "Fred", "last_name": "Weasley", "birthday": nil,
                        "mark_as_favorite": false,
                    ]
                ],
            ])

        // Sources/MigrationRules/RulesFile/RulesFile.swift, `RulesFile`, and
        // MigrationCatalog+RulesFile.swift, `init(rulesFile:fileName:)`
        do {
            let url = Repository.url("Fixtures/versioned-json/zorn-VersionedFilesDemo/people.rules.json")
            let data = try Data(contentsOf: url)
            let tree = try ArchiveFormat.json.read(data, options: ArchiveReadingOptions(markup: .plain))
            let catalog = try MigrationCatalog(rulesFile: tree, fileName: url.lastPathComponent)
            #expect(catalog.document(named: "people")?.currentVersion == 3)
        }

        // Sources/MigrationRules/Plan/MigrationCatalog.swift, `MigrationCatalog` and `merging(_:)`
        do {
            // Added for the test: the chains the example names.
            let circleMigrations = TypeMigrations(typeName: "Circle", currentVersion: 1, steps: [])
            let drawingMigrations = TypeMigrations(typeName: "Drawing", currentVersion: 1, steps: [])
            let sketchV1ToV2 = MigrationStep(from: 1, to: 2, rules: [])

            let catalog = try MigrationCatalog(
                types: [circleMigrations, drawingMigrations],
                documents: [DocumentMigrations(name: "Sketch", currentVersion: 2, steps: [sketchV1ToV2])])
            let pass = MigrationPass(catalog: catalog)
            _ = pass

            let appCatalog = catalog  // added for the test
            let tree = try ArchiveFormat.json.read(
                Data(contentsOf: Repository.url("Fixtures/versioned-json/zorn-VersionedFilesDemo/people.rules.json")),
                options: ArchiveReadingOptions(markup: .plain))  // added for the test
            let all = try appCatalog.merging(MigrationCatalog(rulesFile: tree, fileName: "legacy.json"))
            #expect(all.document(named: "people") != nil && all.document(named: "Sketch") != nil)
        }
    }

    @Test("ArchiveEncoder, ArchiveDecoder, ArchiveFormat, options: the doc comments' examples")
    func codingDeclarations() throws {
        let registry = try ModelRegistry([
            DocComments.Contents.self, DocComments.Circle.self, DocComments.Rectangle.self,
            DocComments.RoundedRectangle.self,
        ])
        let contents = try ArchiveDecoder(registry: registry).decode(
            DocComments.Contents.self,
            from: Data(
                #"{"$archive": 1, "root": {"$type": "Contents", "$version": 1, "shapes": [{"$type": "Circle", "$version": 1}]}}"#
                    .utf8))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("doc-examples-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }

        // Sources/ModelVersioning/Coding/ArchiveEncoder.swift, `ArchiveEncoder`
        let encoder = ArchiveEncoder()  // JSON, pretty-printed
        let data = try encoder.encode(contents)

        var plist = ArchiveEncoder(format: .binaryPropertyList)
        plist.document = "Sketch"  // optional document name and version
        plist.documentVersion = 3
        try plist.encode(contents).write(to: url, options: .atomic)

        // Sources/ModelVersioning/Formats/ArchiveFormat.swift, `ArchiveFormat`
        let (tree, format) = try ArchiveFormat.read(data)  // detects the format
        let xml = try ArchiveFormat.xmlPropertyList.write(tree)
        let legacy = try ArchiveFormat.keyedArchive.write(tree)  // for an old NSCoding app
        #expect(format == .json)
        #expect(try ArchiveFormat.read(xml).0 == tree && ArchiveFormat.read(legacy).0 == tree)

        // Sources/ModelVersioning/Formats/KeyedArchive/KeyedArchiveOptions.swift
        var options = ArchiveWritingOptions()
        options.keyedArchive = .mantle
        let keyed = try ArchiveFormat.keyedArchive.write(tree, options: options)
        var reading = ArchiveReadingOptions()
        reading.keyedArchive.rootKey = "root"  // the example names "foundItems": an archive that uses that key
        let root = try ArchiveFormat.keyedArchive.read(keyed, options: reading)
        // The same archive, in Mantle's form: nil properties left out, `MTLModel` the superclass.
        #expect(ArchiveDiff.differences(from: tree, to: root, options: .init(nullMeansAbsent: true)).isEmpty)

        // Sources/ModelVersioning/Coding/DecodingOptions.swift, `DecodingOptions`
        var decoding = DecodingOptions()
        decoding.allowsNewerVersions = true  // keep what a newer app wrote
        decoding.unknownTypeStrategy = .keepArchivedObject  // keep shapes this app cannot draw
        decoding.limits = .untrusted  // a file from another app
        let decoder = ArchiveDecoder(registry: registry, options: decoding)
        #expect(try decoder.decode(DocComments.Contents.self, from: data).shapes.count == 1)

        // Sources/MigrationRules/Options/ArchiveLimits.swift, `ArchiveLimits`
        var limits = ArchiveLimits()
        limits.maxInputBytes = 8 << 20  // files from sync: 8 MiB at most
        limits.maxDepth = 16
        var limited = DecodingOptions()
        limited.limits = limits
        _ = ArchiveDecoder(registry: registry, options: limited)
    }

    @Test("DocumentStyle, DocumentConventions, ArchiveDocument, ArchiveEncoder: the plain-document examples")
    func plainDocumentDeclarations() throws {
        // Sources/MigrationRules/Plan/DocumentStyle.swift, `DocumentStyle`
        let people = DocumentMigrations(
            name: "people", versionPath: "schema_version", currentVersion: 3,
            style: .plain(DocumentConventions(dates: .iso8601, data: .base64)),
            steps: [MigrationStep(from: 1, to: 2, rules: []), MigrationStep(from: 2, to: 3, rules: [])])  // steps added
        #expect(people.style.conventions == DocumentConventions())

        // Sources/MigrationRules/Plan/DocumentStyle.swift, `DocumentConventions`
        let defaults = DocumentConventions()  // "2026-11-30T05:14:25Z", "iVBORw0KGgo="
        let milliseconds = DocumentConventions(dates: .millisecondsSince1970)  // 1796015665000
        let days = DocumentConventions(dates: .pattern("yyyy-MM-dd"))  // "2026-11-30"
        let date: ArchiveValue = .date(Date(timeIntervalSince1970: 1_796_015_665))  // added for the test
        for (conventions, expected) in [
            (defaults, "\"2026-11-30T05:14:25Z\""), (milliseconds, "1796015665000"), (days, "\"2026-11-30\""),
        ] {
            let options = ArchiveWritingOptions(prettyPrinted: false, markup: .plain, conventions: conventions)
            #expect(String(decoding: try ArchiveFormat.json.write(date, options: options), as: UTF8.self) == expected)
        }

        // Sources/ModelVersioning/Formats/ArchiveFormat.swift, `writing(_:)`
        let chain = people  // added for the test
        let options = ArchiveWritingOptions().writing(chain.style)
        #expect(options.markup == .plain)

        // Sources/ModelVersioning/Formats/ArchiveDocument.swift, `ArchiveDocument`
        let catalog = try MigrationCatalog(
            types: [],
            documents: [
                DocumentMigrations(
                    name: "people", versionPath: "schema_version", currentVersion: 2,
                    style: .plain(DocumentConventions(dates: .millisecondsSince1970)),
                    steps: [MigrationStep(from: 1, to: 2, rules: [.convert("born", .date(format: .iso8601))])])
            ])  // added for the test
        var document = try ArchiveDocument(data: Data(#"{"born": "2026-11-30T05:14:25Z", "schema_version": 1}"#.utf8))
        try MigrationPass(catalog: catalog).upgrade(&document.tree, document: "people")  // added for the test
        if let conventions = catalog.document(named: "people")?.style.conventions {
            document.conventions = conventions  // dates as milliseconds since 1970, say
        }
        #expect(
            String(decoding: try document.data(), as: UTF8.self)
                == #"{"born":1796015665000,"schema_version":2}"#)

        // Sources/ModelVersioning/Coding/ArchiveEncoder.swift, `ArchiveEncoder`
        do {
            let file = ["people": [["name": "Fred"]]]  // added for the test
            let registry = try ModelRegistry([], documents: [people])  // people.style == .plain(…)
            var encoder = ArchiveEncoder(registry: registry)
            encoder.document = "people"
            let data = try encoder.encode(file)  // {"people": […], "schema_version": 3}
            #expect(
                try ArchiveFormat.json.read(data, options: .init(markup: .plain))
                    == ["people": [["name": "Fred"]], "schema_version": 3])
        }
    }

    @Test("UnknownFields: a newer archive's unknown keys are written back")
    func unknownFields() throws {
        var options = DecodingOptions()
        options.allowsNewerVersions = true
        let decoder = ArchiveDecoder(registry: try ModelRegistry([DocComments.Circle5.self]), options: options)
        let v7Data = Data(
            #"{"$archive": 1, "root": {"$type": "Circle", "$version": 7, "radius": 2, "gradient": "red"}}"#.utf8)

        // Sources/ModelVersioning/Model/UnknownFields.swift
        var circle = try decoder.decode(DocComments.Circle5.self, from: v7Data)  // allowsNewerVersions = true
        circle.radius *= 2
        let saved = try ArchiveEncoder().encode(circle)  // still v7, "gradient" kept

        let root = try #require(try ArchiveEnvelope(tree: ArchiveFormat.json.read(saved))?.root.objectValue)
        #expect(root.version == 7 && root.fields["gradient"] == "red" && root.fields["radius"] == 4.0)
    }

    @Test("MigrationRules declarations: rules, targets, converters, paths and values")
    func ruleDeclarations() throws {
        // Sources/MigrationRules/Rules/MigrationTarget.swift, `MigrationTarget`
        let swapAxes = MigrationRule.transform("swapAxes") { target in
            let x = target.fields["x"]
            target.fields["x"] = target.fields["y"]
            target.fields["y"] = x
        }
        var target = MigrationTarget(fields: ["x": 1, "y": 2])
        try swapAxes.apply(to: &target)  // target.fields == ["x": 2, "y": 1]
        #expect(target.fields == ["x": 2, "y": 1])

        // Sources/MigrationRules/Rules/MigrationTarget.swift, `init(object:path:)`
        var circleTarget = MigrationTarget(object: ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 3]))
        try MigrationRule.rename("r", to: "radius").apply(to: &circleTarget)
        try circleTarget.renameType(to: "Disc")
        #expect(circleTarget.fields == ["radius": 3] && circleTarget.typeName == "Disc")

        // Sources/MigrationRules/Rules/MigrationRule+Applying.swift
        var nameTarget = MigrationTarget(fields: ["name": "Fred Weasley"])
        try MigrationRule.split("name", into: ["first_name", "last_name"], separator: " ").apply(to: &nameTarget)
        #expect(nameTarget.fields == ["first_name": "Fred", "last_name": "Weasley"])

        var circle: ArchiveValue = .object(ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 3]))
        try MigrationRule.rename("r", to: "radius").apply(to: &circle)
        #expect(circle.objectValue?.fields == ["radius": 3])

        // Sources/MigrationRules/Rules/MigrationRule.swift, `MigrationRule` and its rules
        let step = MigrationStep(
            from: 1, to: 2,
            rules: [
                .rename("r", to: "radius"),
                .nest(["x", "y"], into: "center"),
                .add("visible", default: true),
                .convert("kind", .map(["circ": "circle"])),
                .scoped("tags[*]", [.rename("label", to: "title")]),
                .remove("legacyFlag", restoring: false),  // the inverse adds legacyFlag = false
                .split(
                    "size", into: ["width", "height"],
                    using: { value in
                        guard let pair = value.arrayValue, pair.count == 2 else {
                            throw ArchiveError(.migrationFailed, "expected an array of two numbers, found \(value)")
                        }
                        return pair
                    }, inverse: { parts in .array(parts) }),
                .transform(
                    "celsiusToKelvin",
                    { target in
                        if let celsius = target.fields["temperature"]?.doubleValue {
                            target.fields["temperature"] = .double(celsius + 273.15)
                        }
                    },
                    inverse: { target in
                        if let kelvin = target.fields["temperature"]?.doubleValue {
                            target.fields["temperature"] = .double(kelvin - 273.15)
                        }
                    }),
                .scoped("settings.*", [.add("enabled", default: true)]),
            ])
        #expect(step.inverse != nil)
        #expect(MigrationRule.remove("thumbnail").inverse == nil)

        // Sources/MigrationRules/Plan/MigrationStep.swift
        let down = MigrationStep(from: 1, to: 2, rules: [.rename("r", to: "radius")]).inverse
        #expect(down?.from == 2 && down?.to == 1)

        // Sources/MigrationRules/Plan/TypeMigrations.swift, `TypeMigrations`
        // (its catalog answers to the alias: MigrationCatalog.swift, `migrations(forTypeName:)`)
        let catalog = try typeMigrationsExample()
        #expect(catalog.migrations(forTypeName: "MyApp.Circle")?.typeName == "Circle")  // "Circle"
        func typeMigrationsExample() throws -> MigrationCatalog {
            let circle = TypeMigrations(
                typeName: "Circle", currentVersion: 3, aliases: ["MyApp.Circle"], unversionedVersion: 1,
                steps: [
                    MigrationStep(from: 1, to: 2, rules: [.rename("r", to: "radius")]),
                    MigrationStep(from: 2, to: 3, rules: [.nest(["x", "y"], into: "center")]),
                ])
            let catalog = try MigrationCatalog(types: [circle])  // checks the chain
            return catalog
        }

        // Sources/MigrationRules/Plan/MigrationStep.swift, `init(from:to:name:rules:)`: a step that
        // skips a version is rejected by the catalog.
        let skipping = TypeMigrations(
            typeName: "Circle", currentVersion: 3, steps: [MigrationStep(from: 1, to: 3, rules: [])])
        let error = #expect(throws: ArchiveError.self) { try MigrationCatalog(types: [skipping]) }
        #expect(error?.code == .invalidChain)

        // Sources/MigrationRules/Rules/ValueConverter.swift and ValueConverter+Dates.swift
        #expect(try ValueConverter.stringToInt.convert("42") == .int(42))
        let converters: [ValueConverter] = [
            .date(format: .iso8601), .date(format: .millisecondsSince1970), .date(format: .pattern("yyyy-MM-dd")),
            .map(["open": "todo", "closed": "done"]), .map(["sharp": nil, "round": ["type": "round"]]),
            .map([1: "small", 2: "large"], default: "medium"), .wrapElements(inKey: "id", with: ["type": "arrow"]),
            .unwrapElements(key: "id", restoring: ["type": "arrow"]),
        ]
        #expect(try converters[2].convert("2026-11-30") == .date(Date(timeIntervalSince1970: 1_795_996_800)))
        let cents = ValueConverter.custom(
            name: "dollarsToCents",
            forward: { value in
                guard let dollars = value.doubleValue else {
                    throw ArchiveError(.migrationFailed, "expected a number, found \(value)")
                }
                return .int(Int64((dollars * 100).rounded()))
            },
            inverse: { value in .double(Double(value.int64Value ?? 0) / 100) })
        #expect(try cents.convert(1.5) == .int(150))

        // Sources/MigrationRules/Value/ArchiveDictionary.swift, ArchiveObject.swift, ArchivePath.swift
        var point: ArchiveDictionary = ["x": 10, "y": 20]
        point["z"] = 0  // appended at the end
        point.renameKey("x", to: "left")  // keeps its position
        point["y"] = nil  // removes the entry
        #expect(point == ["left": 10, "z": 0])

        var object = ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 3])
        object.fields.renameKey("r", to: "radius")
        object.version = 2
        #expect(object.fields == ["radius": 3])

        let path: ArchivePath = "people[*].name"
        let odd = try ArchivePath(parsing: #"metadata["schema.version"]"#)
        #expect("\(ArchivePath.root.appending("shapes").appending(3))" == "shapes[3]")
        _ = (path, odd)

        // Sources/MigrationRules/Diff/ArchiveDiff.swift
        let differences = ArchiveDiff.differences(from: ["radius": 3], to: ["radius": 3.5])
        #expect(differences.map(\.description) == ["~ radius: 3 → 3.5"])
    }

    @Test("ArchiveError: matching a code in a catch clause")
    func archiveErrorMatching() throws {
        let registry = try ModelRegistry([WritingAMigration.Circle.self])
        let decoder = ArchiveDecoder(registry: registry)  // added for the test
        let data = Data(#"{"$archive": 1, "root": {"$type": "Circle", "$version": 9}}"#.utf8)  // added for the test
        var shown = false  // added for the test
        func showUpdateAppAlert() { shown = true }  // added for the test
        var circle: WritingAMigration.Circle?  // added for the test

        // Sources/MigrationRules/Errors/ArchiveError.swift, `ArchiveError`
        do {
            circle = try decoder.decode(WritingAMigration.Circle.self, from: data)
        } catch ArchiveError.Code.newerVersion {
            showUpdateAppAlert()
        } catch let error as ArchiveError where error.code == .limitExceeded {
            print(error.limit ?? "")
        }
        #expect(shown && circle == nil)
    }

    // MARK: Coverage

    /// The first line of a block that says what it does: not blank, not a comment, not an import.
    static func firstSignificantLine(of code: String) -> String? {
        code.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix("//") && !$0.hasPrefix("import ") }
    }

    /// The fenced code blocks of a Markdown text in `language`, with the line each starts at.
    static func blocks(in markdown: String, language: String) -> [(line: Int, code: String)] {
        var blocks: [(line: Int, code: String)] = []
        var current: (line: Int, lines: [String])?
        var inOtherBlock = false
        for (number, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("```") else {
                current?.lines.append(String(line))
                continue
            }
            if let block = current {
                blocks.append((block.line, block.lines.joined(separator: "\n")))
                current = nil
            } else if inOtherBlock {
                inOtherBlock = false
            } else if trimmed.dropFirst(3) == language {
                current = (number + 1, [])
            } else {
                inOtherBlock = true
            }
        }
        return blocks
    }

    /// The text without whitespace, so that a copy laid out by swift-format (other line breaks
    /// and indentation) still matches.
    static func collapsed(_ text: String) -> String {
        String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init))
    }

    @Test("ArchivesOlderAppsCanOpen.md and the way-down declarations: written for 1.1, carried as data")
    func archivesOlderAppsCanOpen() throws {
        let registry = try SketchRegistry.registry()
        let drawing = try ArchiveDecoder(registry: registry).decode(
            SketchModel.Drawing.self,
            from: try Data(contentsOf: Repository.url("Fixtures/archives/Sketch/v4/moodboard.json")))
        let data = try ArchivesOlderAppsCanOpen.write(drawing)
        var tree = try ArchiveFormat.read(data).0
        #expect(tree["wayDown"]?["release"] == "1.1")
        #expect(ArchivesOlderAppsCanOpen.kelvin.inverse?.rules.map(\.description) == ["rename(kelvin → celsius)"])

        // Sources/MigrationRules/WayDown/MigrationCatalog+WayDown.swift, `wayDown(toRelease:for:)`
        let catalog = registry.catalog
        if let wayDown = try catalog.wayDown(toRelease: "1.1", for: tree) {
            print(wayDown.summary)  // to release 1.1: document Sketch v4 → v2, Drawing v4 → v2, …
            #expect(wayDown.summary.hasPrefix("to release 1.1: document Sketch v4 → v2, Drawing v4 → v2"))
        }

        // Sources/MigrationRules/WayDown/WayDown.swift, `digest(ofTree:)`
        let wayDownValue = try #require(tree["wayDown"])  // added for the test
        #expect(WayDown.digest(ofTree: wayDownValue) == wayDownValue["digest"]?.stringValue)  // untouched

        // Sources/MigrationRules/WayDown/MigrationCatalog+WayDown.swift, `writeWayDown(toRelease:into:)`
        let encoder = SketchRegistry.encoder()  // added for the test
        tree = try encoder.encodeTree(drawing)
        try catalog.writeWayDown(toRelease: "1.1", into: &tree)
        #expect(tree["wayDown"] != nil)

        // Sources/MigrationRules/RulesFile/RulesFileWriter.swift, `MigrationCatalog.rulesFile()`
        let rulesTree = try catalog.rulesFile()
        let written = try ArchiveFormat.json.write(rulesTree, options: ArchiveWritingOptions(markup: .plain))
        #expect(
            try MigrationCatalog(rulesFile: ArchiveFormat.json.read(written, options: .init(markup: .plain))).types
                .count == 6)
    }

    @Test("every Swift block of the DocC articles has a compiled copy in this file")
    func articleExamplesAreCompiledHere() throws {
        let thisFile = Self.collapsed(try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        let sources = Repository.url("Sources")
        var articles: [URL] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalog = sources.appendingPathComponent(module).appendingPathComponent("\(module).docc")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: catalog.path) else { continue }
            articles += names.filter { $0.hasSuffix(".md") }.sorted().map { catalog.appendingPathComponent($0) }
        }
        #expect(articles.count >= 10, "found \(articles.count) articles under \(sources.path)")

        var missing: [String] = []
        var checked = 0
        for article in articles {
            let text = try String(contentsOf: article, encoding: .utf8)
            for block in Self.blocks(in: text, language: "swift") {
                guard let line = Self.firstSignificantLine(of: block.code) else { continue }
                checked += 1
                if !thisFile.contains(Self.collapsed(line)) {
                    missing.append("\(article.lastPathComponent):\(block.line): \(line)")
                }
            }
        }
        #expect(checked >= 15)
        let list = missing.joined(separator: "\n")
        #expect(missing.isEmpty, "Swift blocks of the articles without a copy in this file:\n\(list)")
    }
}
