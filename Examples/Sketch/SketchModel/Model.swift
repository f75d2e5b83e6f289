import ModelVersioning

/// A placed item with a thumbnail: an NSCoding-era `Model : NSObject <NSCoding>`, as the sample
/// app grew it.
///
/// | App | Version | Archived shape |
/// |---|---|---|
/// | 1.0 | v1 | `{name, type, rect: {x, y, width, height}, flag, kind: Int, para}` |
/// | 1.1, 1.2 | v2 | `{name, category, rect, flag, kind: Int, para}` |
/// | 2.0 | v3 | `{name, category, rect, flag, kind: "photo" \| "drawing" \| "text", tags}` |
///
/// App 1.1 renamed `type` to `category`. App 2.0 removed `para` — a parameter the NSCoding-era
/// model reserved ("an option parameter kept for the future"), which no version ever set to
/// anything but `0`, so a downgrade restores `0` — added `tags`, and archives `kind` as
/// ``ModelKind``'s raw value instead of a number.
///
/// The thumbnail (``image``) is never archived: ``awakeFromArchive()`` loads it after
/// decoding, as the original NSCoding `initWithCoder:` did when the name was non-empty
/// (`if ([md_name length])`).
///
/// A class: ``Drawing/focus`` refers to one instance of ``Drawing/models``.
///
/// ```swift
/// let photo = Model(name: "Kyoto 1", category: "travel", rect: Frame(x: 0, y: 0, width: 64, height: 48),
///                   flag: 0, kind: .photo, tags: ["2009"])
/// ```
public final class Model: VersionedModel {
    /// The model's name; its thumbnail file is named after it.
    public var name: String
    /// A free-form category (`type` before app 1.1).
    public var category: String
    /// The thumbnail, loaded after decoding; never archived.
    public var image: Thumbnail?
    /// Where the model sits on the canvas.
    public var rect: Frame
    /// Option bits (the NSCoding-era `NSUInteger md_flag`).
    public var flag: UInt
    /// What the model holds.
    public var kind: ModelKind
    /// Tags, new in app 2.0.
    public var tags: [String]

    /// Creates a model; the thumbnail is loaded from its file.
    public init(
        name: String, category: String, rect: Frame, flag: UInt, kind: ModelKind, tags: [String] = []
    ) {
        self.name = name
        self.category = category
        self.image = name.isEmpty ? nil : Thumbnail.load(named: name)
        self.rect = rect
        self.flag = flag
        self.kind = kind
        self.tags = tags
    }

    /// v3 since app 2.0.
    public static let modelVersion = 3

    /// The thumbnail lives in its own file.
    public static let encodingBehaviors: [String: EncodingBehavior] = ["image": .excluded]

    /// Frozen steps: literal keys only.
    public static let migrationSteps = [
        MigrationStep(from: 1, to: 2, name: "app 1.1: category", rules: [.rename("type", to: "category")]),
        MigrationStep(
            from: 2, to: 3, name: "app 2.0: tags, kind by name",
            rules: [
                .remove("para", restoring: 0),
                .add("tags", default: []),
                .convert("kind", .map([0: "photo", 1: "drawing", 2: "text"])),
            ]),
    ]

    private enum CodingKeys: String, CodingKey {
        case name, category, image, rect, flag, kind, tags
    }

    /// Loads the thumbnail, as the original NSCoding `initWithCoder:` did when the name was non-empty.
    public func awakeFromArchive() throws {
        if !name.isEmpty {
            image = Thumbnail.load(named: name)
        }
    }
}
