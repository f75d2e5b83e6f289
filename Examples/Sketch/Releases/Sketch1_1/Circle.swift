import ModelVersioning

/// A circle, as app 1.1 archived it: `Circle` v2 `{center: {x, y}, r, style}`.
///
/// ```swift
/// let dot = Circle(center: Point(x: 12.5, y: -3), r: 4, style: Style(stroke: "#000000"))
/// ```
public final class Circle: SketchShape {
    /// The centre.
    public var center: Point
    /// The radius, in points.
    public var r: Double
    /// How the outline is drawn.
    public var style: Style
    /// What the archive held that this release does not know (values a later release kept
    /// for its way back), written back unchanged.
    public var unknownFields = UnknownFields()

    /// Creates a circle.
    public init(center: Point, r: Double, style: Style) {
        self.center = center
        self.r = r
        self.style = style
    }

    /// The enclosed area.
    public var area: Double { Double.pi * r * r }

    /// v2 since app 1.1.
    public static let modelVersion = 2

    /// App 1.1 opens app 1.0's archives.
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, name: "app 1.1: center", rules: [.nest(["x", "y"], into: "center")])
    ]
}

extension Circle: Equatable {
    /// Equal values (not necessarily the same instance).
    public static func == (lhs: Circle, rhs: Circle) -> Bool {
        lhs.center == rhs.center && lhs.r == rhs.r && lhs.style == rhs.style
    }
}
