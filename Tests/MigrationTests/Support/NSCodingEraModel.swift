import Foundation
import ModelVersioning

// A model as an Objective-C app archived it with NSCoding (`Model : NSObject <NSCoding>`): a
// thumbnail loaded from its own file and never archived, a rect, and reserved fields (an unsigned
// flag and two signed integers).

/// CGRect without CoreGraphics.
struct Rect: Codable, Hashable, Sendable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
}

/// The original's `UIImage *md_image`: a thumbnail loaded from a separate file after the document,
/// never archived.
struct Thumbnail: Codable, Hashable, Sendable {
    var pixels: [UInt8]

    /// Stands in for "read the thumbnail file named after the model".
    static func load(named name: String) -> Thumbnail {
        Thumbnail(pixels: Array(name.utf8))
    }
}

/// An NSCoding-era model with a thumbnail, a rect and reserved fields: name, type, an excluded
/// image, a rect, an unsigned flag and two signed integers.
final class Model: VersionedModel, Equatable {
    var name: String
    var type: String
    var image: Thumbnail?
    var rect: Rect
    var flag: UInt
    var kind: Int
    var para: Int

    static let encodingBehaviors: [String: EncodingBehavior] = ["image": .excluded]

    init(name: String, type: String, image: Thumbnail?, rect: Rect, flag: UInt, kind: Int, para: Int) {
        self.name = name
        self.type = type
        self.image = image
        self.rect = rect
        self.flag = flag
        self.kind = kind
        self.para = para
    }

    /// As the original did after decoding: "if ([md_name length]) { load the thumbnail }".
    func awakeFromArchive() throws {
        if !name.isEmpty {
            image = Thumbnail.load(named: name)
        }
    }

    static func == (lhs: Model, rhs: Model) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.image == rhs.image && lhs.rect == rhs.rect
            && lhs.flag == rhs.flag && lhs.kind == rhs.kind && lhs.para == rhs.para
    }
}
