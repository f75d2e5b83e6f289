import Foundation
import ModelVersioning

/// A Sketch document as app 1.2 archived it: `Drawing` v3
/// `{title, author, created, canvasColor, shapes, models}`.
///
/// App 1.2 moved the author and the creation date out of the `meta` dictionary, which
/// disappeared.
///
/// ```swift
/// let drawing = Drawing(title: "Trip", author: "Aiko", created: Date(), shapes: [], models: [])
/// let data = try SketchRegistry.encoder().encode(drawing)
/// ```
public final class Drawing: VersionedModel {
    /// The title.
    public var title: String
    /// Who drew it.
    public var author: String
    /// When the drawing was created.
    public var created: Date
    /// The canvas colour, as `#RRGGBB`.
    public var canvasColor: String
    /// The shapes, back to front; one shape may be placed several times.
    @Polymorphic public var shapes: [any SketchShape]
    /// The placed models.
    public var models: [Model]

    /// Creates a drawing.
    public init(
        title: String, author: String, created: Date, canvasColor: String = "#FFFFFF", shapes: [any SketchShape],
        models: [Model]
    ) {
        self.title = title
        self.author = author
        self.created = created
        self.canvasColor = canvasColor
        self.shapes = shapes
        self.models = models
    }

    /// v3 since app 1.2.
    public static let modelVersion = 3

    /// The shapes app 1.2 drew.
    public static let allowedTypes: [String: [any VersionedModel.Type]] = [
        "shapes": [Circle.self, Rectangle.self, RoundedRectangle.self]
    ]

    /// App 1.2 opens the archives of apps 1.0 and 1.1.
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, name: "app 1.1: canvas colour", rules: [.add("canvasColor", default: "#FFFFFF")]),
        MigrationStep(
            from: 2, to: 3, name: "app 1.2: author and created out of meta",
            rules: [.hoist(["author", "created"], from: "meta")]),
    ]

    private enum CodingKeys: String, CodingKey {
        case title, author, created, canvasColor, shapes, models
    }
}

extension Drawing: Equatable {
    /// Equal values, shape by shape (not whether shapes are shared).
    public static func == (lhs: Drawing, rhs: Drawing) -> Bool {
        lhs.title == rhs.title && lhs.author == rhs.author && lhs.created == rhs.created
            && lhs.canvasColor == rhs.canvasColor && lhs.shapes.count == rhs.shapes.count
            && zip(lhs.shapes, rhs.shapes).allSatisfy(isSameShape) && lhs.models == rhs.models
    }
}
