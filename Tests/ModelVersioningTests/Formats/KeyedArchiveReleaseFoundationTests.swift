// Keyed archives written for an old release, read by swift-corelibs-foundation's own
// NSKeyedUnarchiver into the NSSecureCoding classes that release had (Linux). Small, trusted
// archives only (see FORMATS.md). Foundation on Linux resolves `$classname` with
// NSClassFromString, so the classes are top-level and the manifest names them module-qualified
// (`ModelVersioningTests.LegacyCircle`), as Foundation archives them; it reads `$classname` (then
// `$classhints`) and never `$classes`.
#if os(Linux)
    import Foundation
    import Testing

    @testable import ModelVersioning
    import TestSupport

    // MARK: - Release 1.0: NSCoding classes

    /// Release 1.0's shape: the superclass, whose keys `LegacyCircle` archives too.
    class LegacyShape: NSObject, NSSecureCoding {
        class var supportsSecureCoding: Bool { true }

        let name: String
        let created: Date
        let thumbnail: Data
        let tags: [String]
        let attributes: NSDictionary

        init(name: String, created: Date, thumbnail: Data, tags: [String], attributes: NSDictionary) {
            self.name = name
            self.created = created
            self.thumbnail = thumbnail
            self.tags = tags
            self.attributes = attributes
        }

        func encode(with coder: NSCoder) {
            coder.encode(name as NSString, forKey: "name")
            coder.encode(created as NSDate, forKey: "created")
            coder.encode(thumbnail as NSData, forKey: "thumbnail")
            coder.encode(tags as NSArray, forKey: "tags")
            coder.encode(attributes, forKey: "attributes")
        }

        required init?(coder: NSCoder) {
            guard let name = coder.decodeObject(of: NSString.self, forKey: "name"),
                let created = coder.decodeObject(of: NSDate.self, forKey: "created"),
                let thumbnail = coder.decodeObject(forKey: "thumbnail") as? Data,
                let tags = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "tags") as? [String],
                let attributes = coder.decodeObject(
                    of: [NSDictionary.self, NSString.self, NSNumber.self], forKey: "attributes") as? NSDictionary
            else { return nil }
            self.name = name as String
            self.created = created as Date
            self.thumbnail = thumbnail
            self.tags = tags
            self.attributes = attributes
        }
    }

    /// Release 1.0's circle: its own keys (`r` before 2.0 renamed it) after its superclass's.
    final class LegacyCircle: LegacyShape {
        override class var supportsSecureCoding: Bool { true }

        let r: Double
        let count: Int64
        let filled: Bool
        let style: LegacyStyle
        /// Conditional: archived only when the style is archived elsewhere.
        weak var accent: LegacyStyle?
        /// Conditional too; in the tests' drawing its style is archived nowhere else.
        weak var highlight: LegacyStyle?

        init(shape: LegacyShape, r: Double, count: Int64, filled: Bool, style: LegacyStyle) {
            self.r = r
            self.count = count
            self.filled = filled
            self.style = style
            super.init(
                name: shape.name, created: shape.created, thumbnail: shape.thumbnail, tags: shape.tags,
                attributes: shape.attributes)
        }

        override func encode(with coder: NSCoder) {
            super.encode(with: coder)
            coder.encode(r, forKey: "r")
            coder.encode(count, forKey: "count")
            coder.encode(filled, forKey: "filled")
            coder.encode(style, forKey: "style")
            coder.encodeConditionalObject(accent, forKey: "accent")
            coder.encodeConditionalObject(highlight, forKey: "highlight")
        }

        required init?(coder: NSCoder) {
            r = coder.decodeDouble(forKey: "r")
            count = coder.decodeInt64(forKey: "count")
            filled = coder.decodeBool(forKey: "filled")
            guard let style = coder.decodeObject(of: LegacyStyle.self, forKey: "style") else { return nil }
            self.style = style
            accent = coder.decodeIfPresent(LegacyStyle.self, forKey: "accent")
            highlight = coder.decodeIfPresent(LegacyStyle.self, forKey: "highlight")
            super.init(coder: coder)
        }
    }

    extension NSCoder {
        /// `decodeObject(of:forKey:)`, or `nil` when the object has no such key. Foundation on
        /// Linux fails the whole unarchiving when `decodeObject` asks for a key the object does
        /// not have (Apple's returns `nil`); a conditional reference to an object archived
        /// nowhere else, or a `nil` optional, leaves its key out of a tree.
        func decodeIfPresent<Object: NSObject & NSCoding>(_ type: Object.Type, forKey key: String) -> Object? {
            containsValue(forKey: key) ? decodeObject(of: type, forKey: key) : nil
        }
    }

    /// Release 1.0's style (`color` before 2.0 renamed it).
    final class LegacyStyle: NSObject, NSSecureCoding {
        static var supportsSecureCoding: Bool { true }

        let color: String
        let width: Double

        init(color: String, width: Double) {
            self.color = color
            self.width = width
        }

        func encode(with coder: NSCoder) {
            coder.encode(color as NSString, forKey: "color")
            coder.encode(width, forKey: "width")
        }

        required init?(coder: NSCoder) {
            guard let color = coder.decodeObject(of: NSString.self, forKey: "color") else { return nil }
            self.color = color as String
            width = coder.decodeDouble(forKey: "width")
        }
    }

    /// Release 1.0's document root.
    final class LegacyDrawing: NSObject, NSSecureCoding {
        static var supportsSecureCoding: Bool { true }

        let title: String
        let shapes: [LegacyShape]
        let palette: [LegacyStyle]

        init(title: String, shapes: [LegacyShape], palette: [LegacyStyle]) {
            self.title = title
            self.shapes = shapes
            self.palette = palette
        }

        func encode(with coder: NSCoder) {
            coder.encode(title as NSString, forKey: "title")
            coder.encode(shapes as NSArray, forKey: "shapes")
            coder.encode(palette as NSArray, forKey: "palette")
        }

        required init?(coder: NSCoder) {
            guard let title = coder.decodeObject(of: NSString.self, forKey: "title"),
                let shapes = coder.decodeObject(of: [NSArray.self, LegacyShape.self], forKey: "shapes")
                    as? [LegacyShape],
                let palette = coder.decodeObject(of: [NSArray.self, LegacyStyle.self], forKey: "palette")
                    as? [LegacyStyle]
            else { return nil }
            self.title = title as String
            self.shapes = shapes
            self.palette = palette
        }
    }

    /// What Mantle's `-initWithCoder:` does for `MTLTestModel`: the version as an `NSNumber`
    /// object, then every property as an object (a property without a key stays `nil`).
    final class MantleTestModelStandIn: NSObject, NSSecureCoding {
        static var supportsSecureCoding: Bool { true }

        let modelVersion: NSNumber
        let name: String
        let count: NSNumber
        let nestedName: String?

        func encode(with coder: NSCoder) {}

        required init?(coder: NSCoder) {
            guard let modelVersion = coder.decodeObject(of: NSNumber.self, forKey: "MTLModelVersion"),
                let name = coder.decodeObject(of: NSString.self, forKey: "name"),
                let count = coder.decodeObject(of: NSNumber.self, forKey: "count")
            else { return nil }
            self.modelVersion = modelVersion
            self.name = name as String
            self.count = count
            nestedName = coder.decodeIfPresent(NSString.self, forKey: "nestedName").map { $0 as String }
        }
    }

    // MARK: - Release 2.0 (today): Codable models

    /// The same app today: Codable models whose release 1.0 archived the `Legacy…` classes.
    enum Notebook {
        final class Style: VersionedModel {
            var stroke: String
            var width: Double

            static let modelVersion = 2
            static let archiveTypeAliases = ["ModelVersioningTests.LegacyStyle"]
            static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.rename("color", to: "stroke")])]

            init(stroke: String, width: Double) {
                self.stroke = stroke
                self.width = width
            }
        }

        final class Circle: VersionedModel {
            var name: String
            var created: Date
            var thumbnail: Data
            var tags: [String]
            var attributes: [String: Int64]
            var radius: Double
            var count: Int64
            var filled: Bool
            var style: Style
            @WeakReference var accent: Style?
            @WeakReference var highlight: Style?

            static let modelVersion = 2
            static let archiveTypeAliases = ["ModelVersioningTests.LegacyCircle"]
            static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.rename("r", to: "radius")])]

            init(
                name: String, created: Date, thumbnail: Data, tags: [String], attributes: [String: Int64],
                radius: Double, count: Int64, filled: Bool, style: Style
            ) {
                self.name = name
                self.created = created
                self.thumbnail = thumbnail
                self.tags = tags
                self.attributes = attributes
                self.radius = radius
                self.count = count
                self.filled = filled
                self.style = style
            }
        }

        final class Drawing: VersionedModel {
            var title: String
            var shapes: [Circle]
            var palette: [Style]

            static let archiveTypeAliases = ["ModelVersioningTests.LegacyDrawing"]

            init(title: String, shapes: [Circle], palette: [Style]) {
                self.title = title
                self.shapes = shapes
                self.palette = palette
            }
        }

        static let document = DocumentMigrations(
            name: "Notebook", currentVersion: 2, steps: [MigrationStep(from: 1, to: 2, name: "app 2.0", rules: [])])

        /// Release 1.0 archived every type under its NSCoding class's name, as Foundation records
        /// it on Linux: module-qualified.
        static let releases = ReleaseManifest(
            document: "Notebook",
            releases: [
                AppRelease(
                    "1.0", documentVersion: 1,
                    types: [
                        "Drawing": .version(1, archivedAs: "ModelVersioningTests.LegacyDrawing"),
                        "Circle": .version(1, archivedAs: "ModelVersioningTests.LegacyCircle"),
                        "Style": .version(1, archivedAs: "ModelVersioningTests.LegacyStyle"),
                    ]),
                AppRelease("2.0", documentVersion: 2, types: ["Drawing": 1, "Circle": 2, "Style": 2]),
            ])

        static func registry() throws -> ModelRegistry {
            try ModelRegistry([Drawing.self, Circle.self, Style.self], documents: [document], releases: releases)
        }

        static func encoder() -> ArchiveEncoder {
            var encoder = ArchiveEncoder()
            encoder.document = "Notebook"
            encoder.documentVersion = 2
            return encoder
        }
    }

    /// Today's successor of Mantle's test model: release 1.0 archived it as `MTLTestModel` v1,
    /// 2.0 added a rating.
    enum MantleApp {
        struct Profile: VersionedModel {
            var name: String
            var count: Int
            var nestedName: String?
            var rating: Int

            static let modelVersion = 2
            static let archiveTypeAliases = ["MTLTestModel"]
            static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.add("rating", default: 0)])]
        }

        static let releases = ReleaseManifest(releases: [
            AppRelease("1.0", types: ["Profile": .version(1, archivedAs: "MTLTestModel")]),
            AppRelease("2.0", types: ["Profile": 2]),
        ])

        /// `profile` as release 1.0 reads it, written with `options`.
        static func archiveFor10(_ profile: Profile, options: KeyedArchiveOptions) throws -> Data {
            let registry = try ModelRegistry([Profile.self], releases: releases)
            var tree = try ArchiveEncoder().encodeTree(profile)
            try MigrationPass(catalog: registry.catalog).downgrade(&tree, toRelease: "1.0")
            return try ArchiveFormat.keyedArchive.write(tree, options: ArchiveWritingOptions(keyedArchive: options))
        }

        /// Decodes the root as an `MTLTestModel` with `MantleTestModelStandIn`.
        static func unarchive(_ data: Data) throws -> (MantleTestModelStandIn?, (any Error)?) {
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = true
            unarchiver.decodingFailurePolicy = .setErrorAndReturn
            unarchiver.setClass(MantleTestModelStandIn.self, forClassName: "MTLTestModel")
            let model = unarchiver.decodeObject(of: MantleTestModelStandIn.self, forKey: "root")
            return (model, unarchiver.error)
        }
    }

    @Suite("Keyed archives for a release, read by Foundation (Linux)")
    struct KeyedArchiveReleaseFoundationTests {
        /// Today's drawing: two circles sharing one style, a conditional reference to a style the
        /// palette archives and one to a style archived nowhere, every kind of value.
        struct Sample {
            let primary = Notebook.Style(stroke: "#E91E63", width: 2.5)
            let secondary = Notebook.Style(stroke: "#3F51B5", width: 0.1)
            let loose = Notebook.Style(stroke: "#000000", width: 1)
            let drawing: Notebook.Drawing

            init() {
                let sun = Notebook.Circle(
                    name: "Sun ☀︎", created: Date(timeIntervalSinceReferenceDate: 700_000_000.125),
                    thumbnail: Data([0, 1, 254, 255]), tags: ["warm", "日本"],
                    attributes: ["layer": 3, "max": .max, "min": .min], radius: 12.5, count: .max, filled: true,
                    style: primary)
                sun.accent = secondary
                sun.highlight = loose
                let moon = Notebook.Circle(
                    name: "Moon", created: Date(timeIntervalSinceReferenceDate: -1e9), thumbnail: Data(), tags: [],
                    attributes: [:], radius: 0.1, count: -42, filled: false, style: primary)
                drawing = Notebook.Drawing(title: "Sky — night", shapes: [sun, moon], palette: [primary, secondary])
            }
        }

        /// Today's drawing downgraded to release 1.0 and written as a keyed archive.
        static func archiveFor10(_ sample: Sample) throws -> Data {
            let registry = try Notebook.registry()
            var tree = try Notebook.encoder().encodeTree(sample.drawing)
            try MigrationPass(catalog: registry.catalog).downgrade(&tree, toRelease: "1.0")
            return try ArchiveFormat.keyedArchive.write(tree)
        }

        static func unarchive(_ data: Data) throws -> LegacyDrawing? {
            // NSDictionary is allowed at the root so that an archive whose root is a dictionary
            // (an envelope) fails the checks below instead of trapping in Foundation.
            try NSKeyedUnarchiver.unarchivedObject(ofClasses: [LegacyDrawing.self, NSDictionary.self], from: data)
                as? LegacyDrawing
        }

        @Test(
            "an archive written for release 1.0 is read by NSKeyedUnarchiver into 1.0's classes, every value kept, and by us"
        )
        func foundationReadsRelease() throws {
            let sample = Sample()
            let data = try Self.archiveFor10(sample)
            let drawing = try #require(try Self.unarchive(data))

            #expect(drawing.title == "Sky — night")
            #expect(drawing.shapes.count == 2 && drawing.palette.count == 2)
            let sun = try #require(drawing.shapes[0] as? LegacyCircle)
            let moon = try #require(drawing.shapes[1] as? LegacyCircle)
            // The subclass's own keys, under 1.0's names: inline numbers as decodeDouble,
            // decodeInt64 and decodeBool read them.
            #expect(sun.r == 12.5 && moon.r == 0.1)
            #expect(sun.count == .max && moon.count == -42)
            #expect(sun.filled && !moon.filled)
            // The superclass's keys, read by LegacyShape's initializer from the same object.
            #expect(sun.name == "Sun ☀︎" && moon.name == "Moon")
            #expect(sun.created == Date(timeIntervalSinceReferenceDate: 700_000_000.125))
            #expect(moon.created == Date(timeIntervalSinceReferenceDate: -1e9))
            #expect(sun.thumbnail == Data([0, 1, 254, 255]) && moon.thumbnail.isEmpty)
            #expect(sun.tags == ["warm", "日本"] && moon.tags.isEmpty)
            #expect(sun.attributes.count == 3 && moon.attributes.count == 0)
            #expect((sun.attributes["layer"] as? NSNumber)?.int64Value == 3)
            #expect((sun.attributes["max"] as? NSNumber)?.int64Value == .max)
            #expect((sun.attributes["min"] as? NSNumber)?.int64Value == .min)
            // One style instance, reached from both circles and the palette.
            #expect(sun.style === moon.style && sun.style === drawing.palette[0])
            #expect(sun.style.color == "#E91E63" && sun.style.width == 2.5)
            #expect(drawing.palette[1].color == "#3F51B5" && drawing.palette[1].width == 0.1)
            // Conditional references: one to a style archived elsewhere, one to a style that
            // is not, which stays nil.
            #expect(sun.accent === drawing.palette[1])
            #expect(moon.accent == nil)
            #expect(sun.highlight == nil && moon.highlight == nil)

            // And this library reads the archive back as release 1.0's document, which decodes
            // into today's models again, upgraded.
            let tree = try ArchiveFormat.keyedArchive.read(data)
            let envelope = try #require(try ArchiveEnvelope(tree: tree))
            #expect(envelope.document == "Notebook" && envelope.documentVersion == 1)
            #expect(envelope.root.objectValue?.typeName == "ModelVersioningTests.LegacyDrawing")
            #expect(envelope.root.objectValue?.version == 1)

            let today = try ArchiveDecoder(registry: try Notebook.registry()).decode(Notebook.Drawing.self, from: data)
            let sunToday = today.shapes[0]
            #expect(sunToday.radius == 12.5 && sunToday.count == .max && sunToday.filled)
            #expect(sunToday.style.stroke == "#E91E63")
            #expect(sunToday.attributes == ["layer": 3, "max": .max, "min": .min])
            #expect(sunToday.style === today.shapes[1].style && sunToday.accent === today.palette[1])
            #expect(sunToday.highlight == nil)
        }

        @Test("an archive for a Mantle release: the model in Mantle's form, entry for entry, read as Mantle reads it")
        func mantleRelease() throws {
            let profile = MantleApp.Profile(name: "foobar", count: 5, nestedName: "bar", rating: 4)
            let options = KeyedArchiveOptions(mantleModels: .classes(["MTLTestModel"]))
            let data = try MantleApp.archiveFor10(profile, options: options)
            // The objects of the archive Mantle writes for MTLTestModel, and the root where it is.
            let (objects, top) = try KeyedArchiveFixtures.table(data)
            let mantle = try KeyedArchiveFixtures.table(
                try Fixture.data("nskeyedarchiver/mantle/mtl-test-model-v1.plist"))
            #expect(objects == mantle.objects, "\(objects)")
            #expect(top["root"] == mantle.top["root"])

            let (model, error) = try MantleApp.unarchive(data)
            #expect(error == nil)
            let decoded = try #require(model)
            #expect(decoded.modelVersion == 1 && decoded.name == "foobar" && decoded.count == 5)
            #expect(decoded.nestedName == "bar")
            // A nil property has no key, as Mantle leaves it out.
            let unnamed = MantleApp.Profile(name: "x", count: Int(Int64.max), nestedName: nil, rating: 0)
            let (partial, partialError) = try MantleApp.unarchive(try MantleApp.archiveFor10(unnamed, options: options))
            #expect(partialError == nil && partial?.nestedName == nil && partial?.count.int64Value == .max)

            // NSCoding's form stores the count inline, which decodeObject cannot read: Foundation
            // fails the archive.
            let (inline, inlineError) = try MantleApp.unarchive(try MantleApp.archiveFor10(profile, options: .default))
            #expect(inline == nil && inlineError != nil)
        }

        @Test("a class chain Foundation archived survives our reader and writer, and Foundation reads it again")
        func classChainRoundTrip() throws {
            let style = LegacyStyle(color: "#111111", width: 3)
            let shape = LegacyShape(
                name: "chained", created: Date(timeIntervalSinceReferenceDate: 1.5), thumbnail: Data([9]),
                tags: ["t"], attributes: ["k": NSNumber(value: 1)])
            let circle = LegacyCircle(shape: shape, r: 4, count: Int64.max, filled: true, style: style)
            circle.accent = style
            let original = LegacyDrawing(title: "chain", shapes: [circle], palette: [style])
            let foundation = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)

            let tree = try ArchiveFormat.keyedArchive.read(foundation)
            let read = try #require(tree["shapes"]?[0]?.objectValue)
            #expect(read.typeName == "ModelVersioningTests.LegacyCircle")
            #expect(read.superclassNames == ["ModelVersioningTests.LegacyShape", "NSObject"])
            // The conditional object Foundation archived nowhere else is a nil reference.
            #expect(read.fields["highlight"] == .null)

            let ours = try ArchiveFormat.keyedArchive.write(tree)
            let plain = try ArchiveFormat.binaryPropertyList.read(ours, options: ArchiveReadingOptions(markup: .plain))
            let objects = try #require(plain["$objects"]?.arrayValue)
            let classes = objects.compactMap { $0["$classes"] }
            #expect(
                classes.contains([
                    "ModelVersioningTests.LegacyCircle", "ModelVersioningTests.LegacyShape", "NSObject",
                ]))

            let again = try #require(try Self.unarchive(ours))
            let circleAgain = try #require(again.shapes.first as? LegacyCircle)
            #expect(circleAgain.name == "chained" && circleAgain.count == .max && circleAgain.r == 4)
            #expect(circleAgain.style === again.palette[0] && circleAgain.accent === again.palette[0])
            #expect(circleAgain.highlight == nil)
        }
    }
#endif
