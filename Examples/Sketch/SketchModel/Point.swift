/// A position on the canvas, in points; `y` grows downwards.
///
/// Not a model of its own: archived as a plain dictionary inside the shape that holds it
/// (`"center": {"x": 120.0, "y": -40.5}`), so it has no type name and no version; the
/// shapes' migration steps build it (`nest(["x", "y"], into: "center")`).
public struct Point: Codable, Hashable, Sendable {
    /// The horizontal position.
    public var x: Double
    /// The vertical position.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
