import ModelVersioning

/// A circle, as app 1.0 archived it: `Circle` v1 `{x, y, r, style}`.
///
/// ```swift
/// let dot = Circle(x: 12.5, y: -3, r: 4, style: Style(color: "#000000"))
/// ```
public final class Circle: SketchShape {
    /// The centre's horizontal position.
    public var x: Double
    /// The centre's vertical position.
    public var y: Double
    /// The radius, in points.
    public var r: Double
    /// How the outline is drawn.
    public var style: Style
    /// What the archive held that this release does not know (values a later release kept
    /// for its way back), written back unchanged.
    public var unknownFields = UnknownFields()

    /// Creates a circle.
    public init(x: Double, y: Double, r: Double, style: Style) {
        self.x = x
        self.y = y
        self.r = r
        self.style = style
    }

    /// The enclosed area.
    public var area: Double { Double.pi * r * r }

    /// The first version.
    public static let modelVersion = 1
}

extension Circle: Equatable {
    /// Equal values (not necessarily the same instance).
    public static func == (lhs: Circle, rhs: Circle) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y && lhs.r == rhs.r && lhs.style == rhs.style
    }
}
