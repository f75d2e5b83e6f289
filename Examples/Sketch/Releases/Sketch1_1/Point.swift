/// A position on the canvas, archived as a plain dictionary inside the shape that holds it
/// (`"center": {"x": 120.0, "y": -40.5}`).
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
