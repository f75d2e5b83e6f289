import ModelVersioning

/// A placed item with a thumbnail, as app 1.0 archived it: `Model` v1
/// `{name, type, rect: {x, y, width, height}, flag, kind, para}`, the NSCoding-era
/// `Model : NSObject <NSCoding>`'s fields exactly.
///
/// `kind` is the NSCoding-era `NSInteger md_kind` (`0` photo, `1` drawing, `2` text); `para` is
/// the "option parameter kept for the future", always `0`. The thumbnail (``image``) is never
/// archived: ``awakeFromArchive()`` loads it when the name is non-empty, as `initWithCoder:` did
/// (`if ([md_name length])`).
///
/// ```swift
/// let photo = Model(name: "Kyoto 1", type: "travel", rect: Frame(x: 0, y: 0, width: 64, height: 48),
///                   flag: 0, kind: 0)
/// ```
public final class Model: VersionedModel {
    /// The model's name; its thumbnail file is named after it.
    public var name: String
    /// A free-form category.
    public var type: String
    /// The thumbnail, loaded after decoding; never archived.
    public var image: Thumbnail?
    /// Where the model sits on the canvas.
    public var rect: Frame
    /// Option bits (`NSUInteger md_flag`).
    public var flag: UInt
    /// What the model holds: `0` photo, `1` drawing, `2` text.
    public var kind: Int
    /// Reserved for the future; always `0`.
    public var para: Int
    /// What the archive held that this release does not know (values a later release kept
    /// for its way back), written back unchanged.
    public var unknownFields = UnknownFields()

    /// Creates a model; the thumbnail is loaded from its file.
    public init(name: String, type: String, rect: Frame, flag: UInt, kind: Int, para: Int = 0) {
        self.name = name
        self.type = type
        self.image = name.isEmpty ? nil : Thumbnail.load(named: name)
        self.rect = rect
        self.flag = flag
        self.kind = kind
        self.para = para
    }

    /// The first version.
    public static let modelVersion = 1

    /// The thumbnail lives in its own file.
    public static let encodingBehaviors: [String: EncodingBehavior] = ["image": .excluded]

    private enum CodingKeys: String, CodingKey {
        case name, type, image, rect, flag, kind, para, unknownFields
    }

    /// Loads the thumbnail, as `initWithCoder:` did when the name was non-empty.
    public func awakeFromArchive() throws {
        if !name.isEmpty {
            image = Thumbnail.load(named: name)
        }
    }
}

extension Model: Equatable {
    /// Equal values, the thumbnail included (not necessarily the same instance).
    public static func == (lhs: Model, rhs: Model) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.image == rhs.image && lhs.rect == rhs.rect
            && lhs.flag == rhs.flag && lhs.kind == rhs.kind && lhs.para == rhs.para
    }
}
