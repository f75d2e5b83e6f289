/// Where a ``Model`` sits on the canvas: the NSCoding-era `CGRect md_rt`, archived as a plain
/// dictionary `{"x", "y", "width", "height"}`.
public struct Frame: Codable, Hashable, Sendable {
    /// The left edge.
    public var x: Double
    /// The top edge.
    public var y: Double
    /// The width.
    public var width: Double
    /// The height.
    public var height: Double

    /// Creates a frame.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}
