/// A width and a height, in points.
///
/// Archived as a plain dictionary inside ``Rectangle`` (`"size": {"width": 64.0, "height": 48.0}`);
/// app 1.2 built it from the `w` and `h` keys of the old `Rect`.
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
