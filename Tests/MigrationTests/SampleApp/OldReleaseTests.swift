import ArchiveCompatibility
import Foundation
import ModelVersioning
import SketchModel
import SketchRelease1_0
import SketchRelease1_1
import SketchRelease1_2
import TestModels
import TestSupport
import Testing

/// The archives of every shipped version of the sample app, opened by the *old* apps' own code:
/// the models of releases 1.0, 1.1 and 1.2 as they compiled them (`Examples/Sketch/Releases`),
/// each with its own types, versions and archive names and no knowledge of any later release.
///
/// `SketchHistoryTests` checks the migrations against today's models and against trees; here an
/// old release's `init(from:)` is the judge: an archive written for release 1.1 is right when
/// app 1.1's models decode it into the values it should hold, and what those models write
/// upgrades to today's goldens.
@Suite("Old releases' own models")
struct OldReleaseTests {
    let today: ModelRegistry

    init() throws {
        today = try SketchModel.SketchRegistry.registry()
    }

    /// `v1/kyoto-trip.json`, …: every archive under `Fixtures/archives/Sketch`.
    static let fixtures = Fixture.sketchArchives

    /// The archives the old releases wrote (1.0 – 1.2); 2.0 is today.
    static let fixturesOfOldReleases = fixtures.filter { Fixture.sketchRelease(of: $0) < 4 }

    /// `1.0`, `1.1`, `1.2`: every release of the manifest but today's. A release added to the
    /// manifest without its compiled models fails ``app(named:)``.
    static let oldReleases = SketchModel.SketchRegistry.releases.releases.dropLast().map(\.name)

    static let manifest = SketchModel.SketchRegistry.releases

    // MARK: The old models are the old releases

    @Test("the old releases are the manifest's releases before today's, each with its compiled models")
    func everyOldReleaseIsCompiled() throws {
        #expect(Self.oldReleases == ["1.0", "1.1", "1.2"])
        for name in Self.oldReleases {
            let app = try Self.app(named: name)
            #expect(Self.manifest.release(named: name)?.documentVersion == app.documentVersion, "\(name)")
        }
        #expect(Self.fixtures.count == 12 && Self.fixturesOfOldReleases.count == 9)
    }

    /// The committed snapshots (`Fixtures/schemas/<Type>/v<N>.json`) were written by hand from
    /// History.md; the old models were written from it too. Both must describe the same shapes,
    /// and the release manifest the same versions and names.
    @Test(
        "each old release's models are the committed schema snapshots of exactly the versions and names it archived",
        arguments: oldReleases)
    func schemas(_ release: String) throws {
        try Self.checkSchemas(Self.app(named: release), catalog: today.catalog)
    }

    @Test("an old release refuses an archive of a later release that was not written for it", arguments: oldReleases)
    func refusesNewerArchives(_ release: String) throws {
        try Self.checkRefusesNewer(Self.app(named: release))
    }

    // MARK: Written for an old release

    /// For a fixture written by release Rf, opened by release Rt (every fixture, every old
    /// release): the fixture is upgraded to today and downgraded to Rt (`downgrade(_:toRelease:)`),
    /// and Rt's models must decode it into the reference:
    ///
    /// - Rt = Rf: the fixture itself, decoded by Rt's models;
    /// - Rt > Rf: the fixture upgraded by today's chains cut at Rt's versions (not through
    ///   today), decoded by Rt's models; and Rt's own steps must open the fixture the same way;
    /// - Rt < Rf: the fixture downgraded straight to Rt (not through today).
    ///
    /// Lossy by design, and so in the reference too: below 1.2 a rounded rectangle is written as
    /// the plain rectangle it is drawn in (its corner radius dropped; the report lists each one).
    /// A rectangle archived under the alias `SketchApp.Rect` (pasted in 1.1) is written under that
    /// name for release 1.1 (which archived it so) and as `Rect` for release 1.0.
    @Test(
        "every archive, upgraded to today and written for an old release, opens in that release's models as it should",
        arguments: fixtures, oldReleases)
    func writtenForOldRelease(_ fixture: String, _ release: String) throws {
        try Self.checkWrittenFor(Self.app(named: release), fixture: fixture, today: today)
    }

    /// The same archives against an oracle that shares no migration rule: today's drawing
    /// converted by hand, in Swift, into what each old release can hold (History.md's table:
    /// names, nesting, a kind's number, `para` 0; no canvas colour, widths, tags, focus or
    /// corner radius where the release had none), with shared shapes kept shared.
    @Test(
        "what an old release reads of any archive is today's drawing as that release can hold it",
        arguments: fixtures, oldReleases)
    func heldByOldRelease(_ fixture: String, _ release: String) throws {
        try Self.checkHeldBy(Self.app(named: release), fixture: fixture, today: today)
    }

    // MARK: Written by an old release

    /// An old release opens its own archive and writes it again: exactly the fixture (the one
    /// difference: a pasted `SketchApp.Rect` comes back as `Rect`). Upgraded by today's registry,
    /// that archive is the fixture's golden, compared as `FixtureSuite` compares (`ArchiveDiff`,
    /// a `null` key equal to a missing one), both as upgraded and decoded and written again by
    /// today's models.
    @Test(
        "what an old release writes is what it archived, and upgrades to the fixture's golden",
        arguments: fixturesOfOldReleases)
    func writtenByOldRelease(_ fixture: String) throws {
        let release = try #require(Self.manifest.release(documentVersion: Fixture.sketchRelease(of: fixture)))
        try Self.checkWrittenBy(Self.app(named: release.name), fixture: fixture, today: today)
    }

    // MARK: Checks, generic over the release

    static func checkSchemas<App: OldRelease>(_ app: App.Type, catalog: MigrationCatalog) throws {
        let release = try #require(manifest.release(named: App.name))
        let store = SchemaStore(directory: Fixture.url("schemas"))
        var versions: [String: Int] = [:]
        for type in App.types {
            let schema = try ModelSchema(of: type)
            // The snapshots are filed under today's name (`Rectangle/v1.json` describes `Rect`).
            let name = try #require(catalog.migrations(forTypeName: schema.typeName)?.typeName, "\(schema.typeName)")
            let archived = try #require(release.types[name], "\(App.name) \(name)")
            #expect(archived.version == schema.version, "\(App.name) \(name)")
            #expect((archived.archivedName ?? name) == schema.typeName, "\(App.name) \(name)")
            let snapshot = try #require(
                try store.snapshot(typeName: name, version: schema.version), "\(name) v\(schema.version)")
            #expect(snapshot.typeName == schema.typeName)
            #expect(
                schema.differences(from: snapshot).isEmpty,
                "\(App.name) \(schema.typeName) v\(schema.version): \(schema.differences(from: snapshot))")
            versions[name] = schema.version
        }
        #expect(versions == release.types.compactMapValues(\.version), "release \(App.name) has exactly these types")
    }

    static func checkRefusesNewer<App: OldRelease>(_ app: App.Type) throws {
        let registry = try App.registry()
        for fixture in fixtures where Fixture.sketchRelease(of: fixture) > App.documentVersion {
            let error = #expect(throws: ArchiveError.self, "\(fixture)") {
                try ArchiveDecoder(registry: registry).decode(
                    App.Drawing.self, from: try Fixture.data("archives/Sketch/" + fixture))
            }
            #expect(error?.code == .newerVersion, "\(fixture)")
            #expect(error?.message.contains("this app knows v\(App.documentVersion)") == true, "\(fixture)")
        }
    }

    static func checkWrittenFor<App: OldRelease>(_ app: App.Type, fixture: String, today: ModelRegistry) throws {
        let registry = try App.registry()
        let decoder = ArchiveDecoder(registry: registry)
        let data = try Fixture.data("archives/Sketch/" + fixture)
        let archived = try Fixture.tree("archives/Sketch/" + fixture)
        let writer = Fixture.sketchRelease(of: fixture)
        let target = try #require(manifest.release(named: App.name))

        // Today's app writes for the old release: up to today, down to the release.
        var tree = archived
        try MigrationPass(catalog: today.catalog).upgrade(&tree)
        let report = try MigrationPass(catalog: today.catalog).downgrade(&tree, toRelease: App.name)
        #expect(tree["document"] == "Sketch")
        #expect(tree["documentVersion"]?.intValue == App.documentVersion)
        let (opened, openingReport) = try decoder.decodeWithReport(App.Drawing.self, fromTree: tree)
        if fixture == "v2/pasted-shapes.json" && App.name == "1.1" {
            // The pasted rectangle is written under the name release 1.1 gave it, which that
            // release reads as an alias: renamed, nothing else.
            #expect(openingReport.entries.map(\.archivedTypeName) == ["SketchApp.Rect"])
            #expect(openingReport.entries.allSatisfy { $0.fromVersion == $0.toVersion && $0.steps.isEmpty })
        } else {
            #expect(openingReport.isEmpty, "written at the release's own versions, nothing is left to migrate")
        }

        let reference: App.Drawing
        if App.documentVersion == writer {
            reference = try decoder.decode(App.Drawing.self, from: data)
        } else if App.documentVersion > writer {
            var upgraded = archived
            try MigrationPass(catalog: truncated(today.catalog, at: target)).upgrade(&upgraded)
            #expect(upgraded["documentVersion"]?.intValue == App.documentVersion)
            reference = try decoder.decode(App.Drawing.self, fromTree: upgraded)
            // The old release opens the older archive itself, with its own steps, the same way.
            try expectSame(try decoder.decode(App.Drawing.self, from: data), reference, "opened by its own steps")
        } else {
            var downgraded = archived
            try MigrationPass(catalog: today.catalog).downgrade(&downgraded, toRelease: App.name)
            reference = try decoder.decode(App.Drawing.self, fromTree: downgraded)
        }
        try expectSame(opened, reference, "\(fixture) for \(App.name)")

        // The documented loss: rounded rectangles, for releases without them.
        let drawing = try ArchiveDecoder(registry: today).decode(SketchModel.Drawing.self, from: data)
        let rounded = Set(
            drawing.shapes.compactMap { ($0 as? SketchModel.RoundedRectangle).map(ObjectIdentifier.init) })
        if target.types["RoundedRectangle"] == .absent {
            #expect(report.absentObjects.count == rounded.count)
            #expect(
                report.absentObjects.allSatisfy { $0.typeName == "RoundedRectangle" && $0.writtenAs == "Rectangle" })
        } else {
            #expect(report.absentObjects.isEmpty)
        }
    }

    static func checkHeldBy<App: OldRelease>(_ app: App.Type, fixture: String, today: ModelRegistry) throws {
        let data = try Fixture.data("archives/Sketch/" + fixture)
        let drawing = try ArchiveDecoder(registry: today).decode(SketchModel.Drawing.self, from: data)
        let expected = try App.holding(drawing)

        var tree = try Fixture.tree("archives/Sketch/" + fixture)
        try MigrationPass(catalog: today.catalog).upgrade(&tree)
        try MigrationPass(catalog: today.catalog).downgrade(&tree, toRelease: App.name)
        let opened = try ArchiveDecoder(registry: App.registry()).decode(App.Drawing.self, fromTree: tree)
        try expectSame(opened, expected, "\(fixture) for \(App.name)")
        #expect(
            sharedIndices(opened.shapeObjects) == sharedIndices(drawing.shapes.map { $0 as AnyObject }),
            "a shape placed several times stays one instance")
    }

    static func checkWrittenBy<App: OldRelease>(_ app: App.Type, fixture: String, today: ModelRegistry) throws {
        let data = try Fixture.data("archives/Sketch/" + fixture)
        let drawing = try ArchiveDecoder(registry: App.registry()).decode(App.Drawing.self, from: data)
        var written = try App.encoder().encodeTree(drawing)
        #expect(written["document"] == "Sketch")
        #expect(written["documentVersion"]?.intValue == App.documentVersion)

        var archived = try Fixture.tree("archives/Sketch/" + fixture)
        if fixture == "v2/pasted-shapes.json" {
            // App 1.1 reads the pasteboard's class name as an alias, and writes the rectangle as `Rect`.
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#""SketchApp.Rect""#))
            archived = try ArchiveFormat.json.read(
                Data(text.replacingOccurrences(of: #""SketchApp.Rect""#, with: #""Rect""#).utf8))
        }
        #expect(written == archived, "\(ArchiveDiff.differences(from: archived, to: written).map(\.description))")

        let report = try ArchiveDecoder(registry: today).upgrade(&written)
        #expect(report.document?.fromVersion == App.documentVersion)
        #expect(report.document?.toVersion == SketchModel.SketchRegistry.documentVersion)
        let golden = try ArchiveFormat.json.read(
            try Data(
                contentsOf: Fixture.url("archives/Sketch/expected/" + fixture).deletingPathExtension()
                    .appendingPathExtension("json")))
        let options = ArchiveDiff.Options(nullMeansAbsent: true)
        let upgraded = ArchiveDiff.differences(from: golden, to: written, options: options)
        #expect(upgraded.isEmpty, "golden → upgraded: \(upgraded.map(\.description))")

        let reopened = try ArchiveDecoder(registry: today).decode(SketchModel.Drawing.self, fromTree: written)
        let rewritten = try SketchModel.SketchRegistry.encoder().encodeTree(reopened)
        let differences = ArchiveDiff.differences(from: golden, to: rewritten, options: options)
        #expect(differences.isEmpty, "golden → today's encoding: \(differences.map(\.description))")
    }

    // MARK: Helpers

    static func app(named name: String) throws -> any OldRelease.Type {
        let apps: [any OldRelease.Type] = [Release1_0.self, Release1_1.self, Release1_2.self]
        return try #require(apps.first { $0.name == name }, "no compiled models for release \(name)")
    }

    /// Today's chains cut at what `release` wrote: each type's steps up to the version it had
    /// there, under the name it had; types it did not have left out; the document likewise. An
    /// upgrade by this catalog takes an older archive to the release without passing through
    /// today.
    static func truncated(_ catalog: MigrationCatalog, at release: AppRelease) throws -> MigrationCatalog {
        var types: [TypeMigrations] = []
        for chain in catalog.types {
            let archived = try #require(release.types[chain.typeName], "\(release.name) \(chain.typeName)")
            guard let version = archived.version else { continue }
            types.append(
                TypeMigrations(
                    typeName: archived.archivedName ?? chain.typeName, currentVersion: version, aliases: chain.aliases,
                    unversionedVersion: chain.unversionedVersion, steps: chain.steps.filter { $0.to <= version }))
        }
        let documentVersion = try #require(release.documentVersion)
        let documents = catalog.documents.map {
            DocumentMigrations(
                name: $0.name, versionPath: $0.versionPath, currentVersion: documentVersion,
                unversionedVersion: $0.unversionedVersion, steps: $0.steps.filter { $0.to <= documentVersion })
        }
        return try MigrationCatalog(types: types, documents: documents)
    }

    /// Equal values, shape by shape, and the same shapes shared; a failure shows the two
    /// drawings' differences as the release writes them.
    static func expectSame<Drawing: OldReleaseDrawing>(
        _ actual: Drawing, _ expected: Drawing, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let encoder = ArchiveEncoder()
        let differences = ArchiveDiff.differences(
            from: try encoder.encodeTree(expected), to: try encoder.encodeTree(actual))
        #expect(actual == expected, "\(what): \(differences.map(\.description))", sourceLocation: sourceLocation)
        #expect(
            sharedIndices(actual.shapeObjects) == sharedIndices(expected.shapeObjects), "\(what): shared shapes",
            sourceLocation: sourceLocation)
    }

    /// The groups of indices that hold one and the same instance (`[[0, 2, 3]]`).
    static func sharedIndices(_ objects: [AnyObject]) -> [[Int]] {
        let identities = objects.map(ObjectIdentifier.init)
        var groups: [[Int]] = []
        for (index, identity) in identities.enumerated() where identities.firstIndex(of: identity) == index {
            let group = identities.indices.filter { identities[$0] == identity }
            if group.count > 1 { groups.append(group) }
        }
        return groups
    }
}

// MARK: - The old releases

/// A release's root model, compared by value, with its shapes as objects.
protocol OldReleaseDrawing: VersionedModel, Equatable {
    var shapeObjects: [AnyObject] { get }
}

extension SketchRelease1_0.Drawing: OldReleaseDrawing {
    var shapeObjects: [AnyObject] { shapes.map { $0 as AnyObject } }
}

extension SketchRelease1_1.Drawing: OldReleaseDrawing {
    var shapeObjects: [AnyObject] { shapes.map { $0 as AnyObject } }
}

extension SketchRelease1_2.Drawing: OldReleaseDrawing {
    var shapeObjects: [AnyObject] { shapes.map { $0 as AnyObject } }
}

/// One shipped release, through its own compiled models.
protocol OldRelease {
    associatedtype Drawing: OldReleaseDrawing
    /// The release's name in the manifest (`1.1`).
    static var name: String { get }
    /// The document version the release writes.
    static var documentVersion: Int { get }
    /// The types the release archives.
    static var types: [any VersionedModel.Type] { get }
    static func registry() throws -> ModelRegistry
    static func encoder() -> ArchiveEncoder
    /// Today's drawing as this release holds it, converted by hand from History.md.
    static func holding(_ today: SketchModel.Drawing) throws -> Drawing
}

/// A shape today's models have that the conversion does not expect.
private struct UnexpectedShape: Error {
    var type: String
}

/// Converts shapes one by one; a shape placed several times is converted once and stays shared.
private func convertSharing<Old>(
    _ shapes: [any SketchModel.SketchShape], _ convert: (any SketchModel.SketchShape) throws -> Old
) throws -> [Old] {
    var converted: [ObjectIdentifier: Old] = [:]
    return try shapes.map { shape in
        let identity = ObjectIdentifier(shape as AnyObject)
        if let old = converted[identity] { return old }
        let old = try convert(shape)
        converted[identity] = old
        return old
    }
}

/// `ModelKind` as apps 1.0 – 1.2 archived it (History.md): `0` photo, `1` drawing, `2` text.
private let kindNumbers: [SketchModel.ModelKind: Int] = [.photo: 0, .drawing: 1, .text: 2]

enum Release1_0: OldRelease {
    typealias Drawing = SketchRelease1_0.Drawing
    static let name = "1.0"
    static let documentVersion = SketchRelease1_0.SketchRegistry.documentVersion
    static var types: [any VersionedModel.Type] { SketchRelease1_0.SketchRegistry.types }
    static func registry() throws -> ModelRegistry { try SketchRelease1_0.SketchRegistry.registry() }
    static func encoder() -> ArchiveEncoder { SketchRelease1_0.SketchRegistry.encoder() }

    /// No canvas colour, stroke widths, tags, focus or rounded corners; `Rect {x, y, w, h}`.
    static func holding(_ today: SketchModel.Drawing) throws -> Drawing {
        let shapes = try convertSharing(today.shapes) { shape -> any SketchRelease1_0.SketchShape in
            let style = SketchRelease1_0.Style(color: shape.style.stroke)
            switch shape {
            case let circle as SketchModel.Circle:
                return SketchRelease1_0.Circle(x: circle.center.x, y: circle.center.y, r: circle.radius, style: style)
            case let rectangle as SketchModel.Rectangle:  // a rounded one too: the plain rectangle it is drawn in
                return SketchRelease1_0.Rect(
                    x: rectangle.origin.x, y: rectangle.origin.y, w: rectangle.size.width, h: rectangle.size.height,
                    style: style)
            default:
                throw UnexpectedShape(type: "\(type(of: shape))")
            }
        }
        let models = try today.models.map { model in
            SketchRelease1_0.Model(
                name: model.name, type: model.category,
                rect: SketchRelease1_0.Frame(
                    x: model.rect.x, y: model.rect.y, width: model.rect.width, height: model.rect.height),
                flag: model.flag, kind: try #require(kindNumbers[model.kind]), para: 0)
        }
        return Drawing(title: today.title, author: today.author, created: today.created, shapes: shapes, models: models)
    }
}

enum Release1_1: OldRelease {
    typealias Drawing = SketchRelease1_1.Drawing
    static let name = "1.1"
    static let documentVersion = SketchRelease1_1.SketchRegistry.documentVersion
    static var types: [any VersionedModel.Type] { SketchRelease1_1.SketchRegistry.types }
    static func registry() throws -> ModelRegistry { try SketchRelease1_1.SketchRegistry.registry() }
    static func encoder() -> ArchiveEncoder { SketchRelease1_1.SketchRegistry.encoder() }

    /// No tags, focus or rounded corners; `Rect {x, y, w, h}`, a circle's `r`.
    static func holding(_ today: SketchModel.Drawing) throws -> Drawing {
        let shapes = try convertSharing(today.shapes) { shape -> any SketchRelease1_1.SketchShape in
            let style = SketchRelease1_1.Style(stroke: shape.style.stroke, width: shape.style.width)
            switch shape {
            case let circle as SketchModel.Circle:
                return SketchRelease1_1.Circle(
                    center: SketchRelease1_1.Point(x: circle.center.x, y: circle.center.y), r: circle.radius,
                    style: style)
            case let rectangle as SketchModel.Rectangle:  // a rounded one too: the plain rectangle it is drawn in
                return SketchRelease1_1.Rect(
                    x: rectangle.origin.x, y: rectangle.origin.y, w: rectangle.size.width, h: rectangle.size.height,
                    style: style)
            default:
                throw UnexpectedShape(type: "\(type(of: shape))")
            }
        }
        let models = try today.models.map { model in
            SketchRelease1_1.Model(
                name: model.name, category: model.category,
                rect: SketchRelease1_1.Frame(
                    x: model.rect.x, y: model.rect.y, width: model.rect.width, height: model.rect.height),
                flag: model.flag, kind: try #require(kindNumbers[model.kind]), para: 0)
        }
        return Drawing(
            title: today.title, author: today.author, created: today.created, canvasColor: today.canvasColor,
            shapes: shapes, models: models)
    }
}

enum Release1_2: OldRelease {
    typealias Drawing = SketchRelease1_2.Drawing
    static let name = "1.2"
    static let documentVersion = SketchRelease1_2.SketchRegistry.documentVersion
    static var types: [any VersionedModel.Type] { SketchRelease1_2.SketchRegistry.types }
    static func registry() throws -> ModelRegistry { try SketchRelease1_2.SketchRegistry.registry() }
    static func encoder() -> ArchiveEncoder { SketchRelease1_2.SketchRegistry.encoder() }

    /// No tags or focus; kinds as numbers and `para`.
    static func holding(_ today: SketchModel.Drawing) throws -> Drawing {
        let shapes = try convertSharing(today.shapes) { shape -> any SketchRelease1_2.SketchShape in
            let style = SketchRelease1_2.Style(stroke: shape.style.stroke, width: shape.style.width)
            switch shape {
            case let circle as SketchModel.Circle:
                return SketchRelease1_2.Circle(
                    center: SketchRelease1_2.Point(x: circle.center.x, y: circle.center.y), radius: circle.radius,
                    style: style)
            case let rounded as SketchModel.RoundedRectangle:
                return SketchRelease1_2.RoundedRectangle(
                    origin: SketchRelease1_2.Point(x: rounded.origin.x, y: rounded.origin.y),
                    size: SketchRelease1_2.Size(width: rounded.size.width, height: rounded.size.height), style: style,
                    cornerRadius: rounded.cornerRadius)
            case let rectangle as SketchModel.Rectangle:
                return SketchRelease1_2.Rectangle(
                    origin: SketchRelease1_2.Point(x: rectangle.origin.x, y: rectangle.origin.y),
                    size: SketchRelease1_2.Size(width: rectangle.size.width, height: rectangle.size.height),
                    style: style)
            default:
                throw UnexpectedShape(type: "\(type(of: shape))")
            }
        }
        let models = try today.models.map { model in
            SketchRelease1_2.Model(
                name: model.name, category: model.category,
                rect: SketchRelease1_2.Frame(
                    x: model.rect.x, y: model.rect.y, width: model.rect.width, height: model.rect.height),
                flag: model.flag, kind: try #require(kindNumbers[model.kind]), para: 0)
        }
        return Drawing(
            title: today.title, author: today.author, created: today.created, canvasColor: today.canvasColor,
            shapes: shapes, models: models)
    }
}
