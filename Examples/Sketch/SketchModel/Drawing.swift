import Foundation
import ModelVersioning

/// A Sketch document: the root of every archive the app writes.
///
/// | App | Version | Archived shape |
/// |---|---|---|
/// | 1.0 | v1 | `{title, meta: {author, created}, shapes, models}` |
/// | 1.1 | v2 | `{title, meta: {author, created}, canvasColor, shapes, models}` |
/// | 1.2 | v3 | `{title, author, created, canvasColor, shapes, models}` |
/// | 2.0 | v4 | `{title, author, created, canvasColor, shapes, models, focus?}` |
///
/// App 1.1 added the canvas colour (white before); app 1.2 moved the author and creation date
/// out of the `meta` dictionary, which disappeared; app 2.0 added ``focus``, the model the
/// drawing is centred on.
///
/// ``focus`` is a *conditional* reference (`EncodingBehavior.conditional`, NSKeyedArchiver's
/// `encodeConditionalObject`): it is written, as a reference, only when the focused model is
/// also in ``models``; a focus on a model that was removed from the drawing is not archived and
/// decodes as `nil`.
///
/// ```swift
/// let photo = Model(name: "Kyoto 1", category: "travel", rect: Frame(x: 0, y: 0, width: 64, height: 48),
///                   flag: 0, kind: .photo)
/// let drawing = Drawing(title: "Trip", author: "Aiko", created: Date(), shapes: [], models: [photo])
/// drawing.focus = photo
/// let data = try SketchRegistry.encoder().encode(drawing)
/// ```
public final class Drawing: VersionedModel {
    /// The title.
    public var title: String
    /// Who drew it.
    public var author: String
    /// The canvas colour, as `#RRGGBB`.
    public var canvasColor: String
    /// When the drawing was created.
    public var created: Date
    /// The shapes, back to front.
    @Polymorphic public var shapes: [any SketchShape]
    /// The placed models.
    public var models: [Model]
    /// The model the drawing is centred on: one of ``models``, or `nil`.
    public weak var focus: Model?

    /// Creates a drawing.
    public init(
        title: String, author: String, canvasColor: String = "#FFFFFF", created: Date, shapes: [any SketchShape],
        models: [Model], focus: Model? = nil
    ) {
        self.title = title
        self.author = author
        self.canvasColor = canvasColor
        self.created = created
        self.shapes = shapes
        self.models = models
        self.focus = focus
    }

    /// v4 since app 2.0.
    public static let modelVersion = 4

    /// The focus is written only when its model is archived too.
    public static let encodingBehaviors: [String: EncodingBehavior] = ["focus": .conditional]

    /// The shapes every app version drew; anything else in `shapes` is rejected before any
    /// initializer runs.
    public static let allowedTypes: [String: [any VersionedModel.Type]] = [
        "shapes": [Circle.self, Rectangle.self, RoundedRectangle.self]
    ]

    /// Frozen steps: literal keys only.
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, name: "app 1.1: canvas colour", rules: [.add("canvasColor", default: "#FFFFFF")]),
        MigrationStep(
            from: 2, to: 3, name: "app 1.2: author and created out of meta",
            rules: [.hoist(["author", "created"], from: "meta")]),
        // Archives before app 2.0 have no focus. The downgrade drops it: app 1.2 has nowhere to keep it.
        MigrationStep(from: 3, to: 4, name: "app 2.0: focus", rules: [.add("focus", default: nil)]),
    ]

    private enum CodingKeys: String, CodingKey {
        case title, author, canvasColor, created, shapes, models, focus
    }

    /// Decodes the current shape; ``focus`` is assigned once its model exists.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        author = try container.decode(String.self, forKey: .author)
        canvasColor = try container.decode(String.self, forKey: .canvasColor)
        created = try container.decode(Date.self, forKey: .created)
        _shapes = try container.decode(Polymorphic<[any SketchShape]>.self, forKey: .shapes)
        models = try container.decode([Model].self, forKey: .models)
        try container.decodeConditional(Model.self, forKey: .focus) { [weak self] in self?.focus = $0 }
    }

    /// Encodes the current shape; ``focus`` as a conditional reference.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(author, forKey: .author)
        try container.encode(canvasColor, forKey: .canvasColor)
        try container.encode(created, forKey: .created)
        try container.encode(_shapes, forKey: .shapes)
        try container.encode(models, forKey: .models)
        try container.encodeIfPresent(focus, forKey: .focus)
    }
}
