/// The small preview image of a ``Model``: never archived, kept in a file named after the model.
public struct Thumbnail: Codable, Hashable, Sendable {
    /// The image's bytes.
    public var pixels: [UInt8]

    /// Creates a thumbnail from its bytes.
    public init(pixels: [UInt8]) {
        self.pixels = pixels
    }

    /// Loads the thumbnail file of the model named `name` (the sample derives the bytes from the
    /// name, so a test can tell that the thumbnail was loaded).
    public static func load(named name: String) -> Thumbnail {
        Thumbnail(pixels: Array(name.utf8))
    }
}
