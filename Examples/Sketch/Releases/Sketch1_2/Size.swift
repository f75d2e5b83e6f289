/// A width and a height, archived as a plain dictionary inside ``Rectangle``
/// (`"size": {"width": 64.0, "height": 48.0}`).
public struct Size: Codable, Hashable, Sendable {
    /// The horizontal extent.
    public var width: Double
    /// The vertical extent.
    public var height: Double

    /// Creates a size.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}
