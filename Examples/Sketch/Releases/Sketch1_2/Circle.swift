import ModelVersioning

/// A circle, as app 1.2 archived it: `Circle` v3 `{center: {x, y}, radius, style}`.
///
/// ```swift
/// let dot = Circle(center: Point(x: 12.5, y: -3), radius: 4, style: Style(stroke: "#000000"))
/// ```
public final class Circle: SketchShape {
    /// The centre.
    public var center: Point
    /// The radius, in points.
    public var radius: Double
    /// How the outline is drawn.
    public var style: Style

    /// Creates a circle.
    public init(center: Point, radius: Double, style: Style) {
        self.center = center
        self.radius = radius
        self.style = style
    }

    /// The enclosed area.
    public var area: Double { Double.pi * radius * radius }

    /// v3 since app 1.2.
    public static let modelVersion = 3

    /// App 1.2 opens the archives of apps 1.0 and 1.1.
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, name: "app 1.1: center", rules: [.nest(["x", "y"], into: "center")]),
        MigrationStep(from: 2, to: 3, name: "app 1.2: radius", rules: [.rename("r", to: "radius")]),
    ]
}

extension Circle: Equatable {
    /// Equal values (not necessarily the same instance).
    public static func == (lhs: Circle, rhs: Circle) -> Bool {
        lhs.center == rhs.center && lhs.radius == rhs.radius && lhs.style == rhs.style
    }
}
