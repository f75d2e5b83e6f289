import Foundation
import ModelVersioning

// A model as an Objective-C app archived it with NSCoding (`Model : NSObject <NSCoding>`): a
// thumbnail loaded from its own file and never archived, a rect, and reserved fields (an unsigned
// flag and two signed integers).

/// CGRect without CoreGraphics.
package struct Rect: Codable, Hashable, Sendable {
    package var x: Double
    package var y: Double
    package var width: Double
    package var height: Double

    package init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The original's `UIImage *md_image`: a thumbnail loaded from a separate file after the document,
/// never archived.
package struct Thumbnail: Codable, Hashable, Sendable {
    package var pixels: [UInt8]

    package init(pixels: [UInt8]) {
        self.pixels = pixels
    }

    /// Stands in for "read the thumbnail file named after the model".
    package static func load(named name: String) -> Thumbnail {
        Thumbnail(pixels: Array(name.utf8))
    }
}

/// An NSCoding-era model with a thumbnail, a rect and reserved fields: name, type, an excluded
/// image, a rect, an unsigned flag and two signed integers.
package final class Model: VersionedModel, Equatable {
    package var name: String
    package var type: String
    package var image: Thumbnail?
    package var rect: Rect
    package var flag: UInt
    package var kind: Int
    package var para: Int

    package static let encodingBehaviors: [String: EncodingBehavior] = ["image": .excluded]

    package init(name: String, type: String, image: Thumbnail?, rect: Rect, flag: UInt, kind: Int, para: Int) {
        self.name = name
        self.type = type
        self.image = image
        self.rect = rect
        self.flag = flag
        self.kind = kind
        self.para = para
    }

    /// As the original did after decoding: "if ([md_name length]) { load the thumbnail }".
    package func awakeFromArchive() throws {
        if !name.isEmpty {
            image = Thumbnail.load(named: name)
        }
    }

    package static func == (lhs: Model, rhs: Model) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.image == rhs.image && lhs.rect == rhs.rect
            && lhs.flag == rhs.flag && lhs.kind == rhs.kind && lhs.para == rhs.para
    }
}
