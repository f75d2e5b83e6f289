/// The small preview image of a ``Model``: the `UIImage *md_image` of an NSCoding-era model.
///
/// Never archived (``Model`` declares it `EncodingBehavior.excluded`): every version of the app
/// kept thumbnails in separate files named after the model and loaded them after the document,
/// in ``Model/awakeFromArchive()``.
public struct Thumbnail: Codable, Hashable, Sendable {
    /// The image's bytes.
    public var pixels: [UInt8]

    /// Creates a thumbnail from its bytes.
    public init(pixels: [UInt8]) {
        self.pixels = pixels
    }

    /// Loads the thumbnail file of the model named `name`.
    ///
    /// Stands in for reading the image file next to the document: the sample derives the bytes
    /// from the name, so a test can tell that the thumbnail was rebuilt.
    ///
    /// ```swift
    /// Thumbnail.load(named: "ab").pixels   // [0x61, 0x62]
    /// ```
    public static func load(named name: String) -> Thumbnail {
        Thumbnail(pixels: Array(name.utf8))
    }
}
