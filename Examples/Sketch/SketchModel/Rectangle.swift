import ModelVersioning

/// An axis-aligned rectangle: an origin and a size. Archived as `"Rectangle"`, formerly `"Rect"`.
///
/// | App | Version | Archived as |
/// |---|---|---|
/// | 1.0, 1.1 | v1 | `"Rect"` `{x, y, w, h, style}` |
/// | 1.2 – 2.0 | v2 | `"Rectangle"` `{origin: {x, y}, size: {width, height}, style}` |
///
/// App 1.2 renamed the type (its archived objects are renamed by the v1 → v2 step's
/// `renameType`, and a downgrade writes `"Rect"` again). App 1.1 also put shapes on the
/// pasteboard under their Objective-C class names, and documents that pasted a rectangle
/// archived it as `"SketchApp.Rect"` (v1): that name is an alias.
///
/// The superclass of ``RoundedRectangle``, which archives these keys through
/// `superEncoder()` (Objective-C's `[super encodeWithCoder:]`). Every versioning requirement is
/// a `class var` so that the subclass can override it.
///
/// ```swift
/// let frame = Rectangle(origin: Point(x: 0, y: 0), size: Size(width: 320, height: 240),
///                       style: Style(stroke: "#333333"))
/// ```
public class Rectangle: SketchShape {
    /// The top-left corner.
    public var origin: Point
    /// The width and height.
    public var size: Size
    /// How the outline is drawn.
    public var style: Style

    /// Creates a rectangle.
    public init(origin: Point, size: Size, style: Style) {
        self.origin = origin
        self.size = size
        self.style = style
    }

    /// The enclosed area.
    public var area: Double { size.width * size.height }

    /// v2 since app 1.2.
    public class var modelVersion: Int { 2 }

    /// The Objective-C class name app 1.1 wrote for pasted rectangles.
    public class var archiveTypeAliases: [String] { ["SketchApp.Rect"] }

    /// Frozen steps: literal keys only.
    public class var migrationSteps: [MigrationStep] {
        [
            MigrationStep(
                from: 1, to: 2, name: "app 1.2: Rect becomes Rectangle",
                rules: [
                    .renameType(from: "Rect", to: "Rectangle"),
                    .nest(["x", "y"], into: "origin"),
                    .move("w", to: "size.width"),
                    .move("h", to: "size.height"),
                ])
        ]
    }

    /// None: rectangles exist in every release. A `class var` so that ``RoundedRectangle``
    /// can declare its own.
    public class var downgradeFallback: DowngradeFallback? { nil }

    /// The class name, so that ``RoundedRectangle`` is archived under its own. Like the other
    /// requirements below, declared here as a `class var` only so that a subclass can override
    /// it: the registry refuses a subclass of a class that leaves one to its default.
    public class var archiveTypeName: String { String(describing: self) }

    /// Every key is archived.
    public class var encodingBehaviors: [String: EncodingBehavior] { [:] }

    /// No allow lists.
    public class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }

    /// Every archive of a rectangle has a version.
    public class var unversionedVersion: Int? { nil }

    private enum CodingKeys: String, CodingKey {
        case origin, size, style
    }

    /// Decodes the current shape.
    public required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        origin = try container.decode(Point.self, forKey: .origin)
        size = try container.decode(Size.self, forKey: .size)
        style = try container.decode(Style.self, forKey: .style)
    }

    /// Encodes the current shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(origin, forKey: .origin)
        try container.encode(size, forKey: .size)
        try container.encode(style, forKey: .style)
    }
}
