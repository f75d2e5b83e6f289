import Foundation
import ModelVersioning

/// A Sketch document as app 1.0 archived it: `Drawing` v1
/// `{title, meta: {author, created}, shapes, models}`.
///
/// `meta` is a plain dictionary, not a model: the app kept the author and the creation date in
/// their own properties and archived them together under one key.
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
    /// The shapes, back to front.
    @Polymorphic public var shapes: [any SketchShape]
    /// The placed models.
    public var models: [Model]
    /// What the archive held that this release does not know (values a later release kept
    /// for its way back), written back unchanged.
    public var unknownFields = UnknownFields()

    /// Creates a drawing.
    public init(title: String, author: String, created: Date, shapes: [any SketchShape], models: [Model]) {
        self.title = title
        self.author = author
        self.created = created
        self.shapes = shapes
        self.models = models
    }

    /// The first version.
    public static let modelVersion = 1

    /// The shapes app 1.0 drew.
    public static let allowedTypes: [String: [any VersionedModel.Type]] = ["shapes": [Circle.self, Rect.self]]

    private enum CodingKeys: String, CodingKey {
        case title, meta, shapes, models, unknownFields
    }

    private enum MetaKeys: String, CodingKey {
        case author, created
    }

    /// Decodes the archived shape, the author and date from `meta`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        let meta = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        author = try meta.decode(String.self, forKey: .author)
        created = try meta.decode(Date.self, forKey: .created)
        _shapes = try container.decode(Polymorphic<[any SketchShape]>.self, forKey: .shapes)
        models = try container.decode([Model].self, forKey: .models)
        unknownFields = try container.decode(UnknownFields.self, forKey: .unknownFields)
    }

    /// Encodes the archived shape, the author and date into `meta`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        try meta.encode(author, forKey: .author)
        try meta.encode(created, forKey: .created)
        try container.encode(_shapes, forKey: .shapes)
        try container.encode(models, forKey: .models)
        try container.encode(unknownFields, forKey: .unknownFields)
    }
}

extension Drawing: Equatable {
    /// Equal values, shape by shape (not whether shapes are shared).
    public static func == (lhs: Drawing, rhs: Drawing) -> Bool {
        lhs.title == rhs.title && lhs.author == rhs.author && lhs.created == rhs.created
            && lhs.shapes.count == rhs.shapes.count && zip(lhs.shapes, rhs.shapes).allSatisfy(isSameShape)
            && lhs.models == rhs.models
    }
}
