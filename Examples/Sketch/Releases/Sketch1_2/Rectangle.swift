import ModelVersioning

/// An axis-aligned rectangle, as app 1.2 archived it: `Rectangle` v2
/// `{origin: {x, y}, size: {width, height}, style}`.
///
/// App 1.2 renamed the type from `Rect` (v1 `{x, y, w, h, style}`); the v1 → v2 step renames the
/// archived objects, and `"SketchApp.Rect"`, the name app 1.1 wrote for pasted rectangles, is an
/// alias. The superclass of ``RoundedRectangle``, so every versioning requirement is a
/// `class var`.
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

    /// App 1.2 opens the archives of apps 1.0 and 1.1.
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

    /// None: app 1.2 wrote for no older release.
    public class var downgradeFallback: DowngradeFallback? { nil }

    private enum CodingKeys: String, CodingKey {
        case origin, size, style
    }

    /// Decodes the archived shape.
    public required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        origin = try container.decode(Point.self, forKey: .origin)
        size = try container.decode(Size.self, forKey: .size)
        style = try container.decode(Style.self, forKey: .style)
    }

    /// Encodes the archived shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(origin, forKey: .origin)
        try container.encode(size, forKey: .size)
        try container.encode(style, forKey: .style)
    }

    /// Whether `other` is of the same class and holds the same values (`-isEqual:`);
    /// ``RoundedRectangle`` adds its corner radius.
    public func isEqual(to other: Rectangle) -> Bool {
        ObjectIdentifier(type(of: self)) == ObjectIdentifier(type(of: other)) && origin == other.origin
            && size == other.size && style == other.style
    }
}

extension Rectangle: Equatable {
    /// Equal classes and values (not necessarily the same instance).
    public static func == (lhs: Rectangle, rhs: Rectangle) -> Bool {
        lhs.isEqual(to: rhs)
    }
}
