import Foundation
import ModelVersioning

// Minimal models of the Sketch sample app's releases 1.1 and 1.0, as those releases archived
// them (Examples/Sketch/History.md), for the tests of archives written for older releases
// (ForwardCompatibilityTests). Each model also keeps the keys it does not know
// (`UnknownFields`), as an app that opens archives from newer releases does: that is where what
// a way down kept for the way back survives the old app's decode → edit → encode.
//
// The releases' own models, kept as compiled code, live in Examples/Sketch/Releases once that
// work is merged; ForwardCompatibilityTests runs against them too when the test target can
// import them (`SketchRelease1_1`), and these stay as the models that keep unknown fields.

/// The shapes of app 1.0 and 1.1.
protocol OldSketchShape: VersionedModel, AnyObject {
    /// The shape's values, for comparisons.
    var values: [String] { get }
}

/// App 1.1: document `Sketch` v2 — `Drawing` v2, `Circle` v2, `Rect` v1, `Style` v2, `Model` v2.
enum Sketch1_1 {
    static let documentVersion = 2
    static let types: [any VersionedModel.Type] = [Drawing.self, Circle.self, Rect.self, Style.self, Model.self]

    static func registry() throws -> ModelRegistry {
        try ModelRegistry(
            types,
            documents: [
                DocumentMigrations(
                    name: "Sketch", currentVersion: 2,
                    steps: [MigrationStep(from: 1, to: 2, name: "app 1.1", rules: [])])
            ])
    }

    static func encoder() -> ArchiveEncoder {
        var encoder = ArchiveEncoder()
        encoder.document = "Sketch"
        encoder.documentVersion = documentVersion
        return encoder
    }

    final class Drawing: VersionedModel {
        var title: String
        var author: String
        var created: Date
        var canvasColor: String
        @Polymorphic var shapes: [any OldSketchShape]
        var models: [Model]
        var unknownFields = UnknownFields()

        static let archiveTypeName = "Drawing"
        static let modelVersion = 2
        static let allowedTypes: [String: [any VersionedModel.Type]] = ["shapes": [Circle.self, Rect.self]]
        static let migrationSteps = [
            MigrationStep(
                from: 1, to: 2, name: "app 1.1: canvas colour", rules: [.add("canvasColor", default: "#FFFFFF")])
        ]

        private enum CodingKeys: String, CodingKey {
            case title, meta, canvasColor, shapes, models, unknownFields
        }

        private enum MetaKeys: String, CodingKey {
            case author, created
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decode(String.self, forKey: .title)
            let meta = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
            author = try meta.decode(String.self, forKey: .author)
            created = try meta.decode(Date.self, forKey: .created)
            canvasColor = try container.decode(String.self, forKey: .canvasColor)
            _shapes = try container.decode(Polymorphic<[any OldSketchShape]>.self, forKey: .shapes)
            models = try container.decode([Model].self, forKey: .models)
            unknownFields = try container.decode(UnknownFields.self, forKey: .unknownFields)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
            try meta.encode(author, forKey: .author)
            try meta.encode(created, forKey: .created)
            try container.encode(canvasColor, forKey: .canvasColor)
            try container.encode(_shapes, forKey: .shapes)
            try container.encode(models, forKey: .models)
            try container.encode(unknownFields, forKey: .unknownFields)
        }

        /// The drawing's values, for comparisons.
        var values: [String] {
            ["title \(title)", "author \(author)", "created \(created.timeIntervalSinceReferenceDate)", canvasColor]
                + shapes.flatMap(\.values) + models.flatMap(\.values)
        }
    }

    final class Circle: OldSketchShape {
        var center: Point
        var r: Double
        var style: Style
        var unknownFields = UnknownFields()
        static let archiveTypeName = "Circle"
        static let modelVersion = 2
        static let migrationSteps = [
            MigrationStep(from: 1, to: 2, name: "app 1.1: center", rules: [.nest(["x", "y"], into: "center")])
        ]
        var values: [String] { ["Circle \(center.x) \(center.y) \(r)"] + style.values }
    }

    struct Point: Codable {
        var x: Double
        var y: Double
    }

    final class Rect: OldSketchShape {
        var x: Double
        var y: Double
        var w: Double
        var h: Double
        var style: Style
        var unknownFields = UnknownFields()
        static let archiveTypeName = "Rect"
        static let archiveTypeAliases = ["SketchApp.Rect"]
        static let modelVersion = 1
        var values: [String] { ["Rect \(x) \(y) \(w) \(h)"] + style.values }
    }

    struct Style: VersionedModel {
        var stroke: String
        var width: Double
        var unknownFields = UnknownFields()
        static let archiveTypeName = "Style"
        static let modelVersion = 2
        static let migrationSteps = [
            MigrationStep(
                from: 1, to: 2, name: "app 1.1: stroke and width",
                rules: [.rename("color", to: "stroke"), .add("width", default: 1.0)])
        ]
        var values: [String] { ["Style \(stroke) \(width)"] }
    }

    struct Frame: Codable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double
    }

    final class Model: VersionedModel {
        var name: String
        var category: String
        var rect: Frame
        var flag: UInt
        var kind: Int
        var para: Int
        var unknownFields = UnknownFields()
        static let archiveTypeName = "Model"
        static let modelVersion = 2
        static let migrationSteps = [
            MigrationStep(from: 1, to: 2, name: "app 1.1: category", rules: [.rename("type", to: "category")])
        ]
        var values: [String] {
            ["Model \(name) \(category) \(rect.x) \(rect.y) \(rect.width) \(rect.height) \(flag) \(kind) \(para)"]
        }
    }
}

/// App 1.0: document `Sketch` v1 — `Drawing` v1, `Circle` v1, `Rect` v1, `Style` v1, `Model` v1.
enum Sketch1_0 {
    static let documentVersion = 1
    static let types: [any VersionedModel.Type] = [Drawing.self, Circle.self, Rect.self, Style.self, Model.self]

    static func registry() throws -> ModelRegistry {
        try ModelRegistry(types, documents: [DocumentMigrations(name: "Sketch", currentVersion: 1)])
    }

    static func encoder() -> ArchiveEncoder {
        var encoder = ArchiveEncoder()
        encoder.document = "Sketch"
        encoder.documentVersion = documentVersion
        return encoder
    }

    final class Drawing: VersionedModel {
        var title: String
        var author: String
        var created: Date
        @Polymorphic var shapes: [any OldSketchShape]
        var models: [Model]
        var unknownFields = UnknownFields()

        static let archiveTypeName = "Drawing"
        static let modelVersion = 1
        static let allowedTypes: [String: [any VersionedModel.Type]] = ["shapes": [Circle.self, Rect.self]]

        private enum CodingKeys: String, CodingKey {
            case title, meta, shapes, models, unknownFields
        }

        private enum MetaKeys: String, CodingKey {
            case author, created
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decode(String.self, forKey: .title)
            let meta = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
            author = try meta.decode(String.self, forKey: .author)
            created = try meta.decode(Date.self, forKey: .created)
            _shapes = try container.decode(Polymorphic<[any OldSketchShape]>.self, forKey: .shapes)
            models = try container.decode([Model].self, forKey: .models)
            unknownFields = try container.decode(UnknownFields.self, forKey: .unknownFields)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
            try meta.encode(author, forKey: .author)
            try meta.encode(created, forKey: .created)
            try container.encode(_shapes, forKey: .shapes)
            try container.encode(models, forKey: .models)
            try container.encode(unknownFields, forKey: .unknownFields)
        }

        var values: [String] {
            ["title \(title)", "author \(author)", "created \(created.timeIntervalSinceReferenceDate)"]
                + shapes.flatMap(\.values) + models.flatMap(\.values)
        }
    }

    final class Circle: OldSketchShape {
        var x: Double
        var y: Double
        var r: Double
        var style: Style
        var unknownFields = UnknownFields()
        static let archiveTypeName = "Circle"
        static let modelVersion = 1
        var values: [String] { ["Circle \(x) \(y) \(r)"] + style.values }
    }

    final class Rect: OldSketchShape {
        var x: Double
        var y: Double
        var w: Double
        var h: Double
        var style: Style
        var unknownFields = UnknownFields()
        static let archiveTypeName = "Rect"
        static let modelVersion = 1
        var values: [String] { ["Rect \(x) \(y) \(w) \(h)"] + style.values }
    }

    struct Style: VersionedModel {
        var color: String
        var unknownFields = UnknownFields()
        static let archiveTypeName = "Style"
        static let modelVersion = 1
        var values: [String] { ["Style \(color)"] }
    }

    struct Frame: Codable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double
    }

    final class Model: VersionedModel {
        var name: String
        var type: String
        var rect: Frame
        var flag: UInt
        var kind: Int
        var para: Int
        var unknownFields = UnknownFields()
        static let archiveTypeName = "Model"
        static let modelVersion = 1
        var values: [String] {
            ["Model \(name) \(type) \(rect.x) \(rect.y) \(rect.width) \(rect.height) \(flag) \(kind) \(para)"]
        }
    }
}
