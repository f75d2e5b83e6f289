import Foundation
import ModelVersioning

// Models from the seeds the project started from (../shared/seeds): seed 000's NSCoding `Model`
// and seed 002's polymorphic `[Shape]` drawing.

/// CGRect without CoreGraphics.
struct Rect: Codable, Hashable, Sendable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
}

/// Seed 000's `UIImage *md_image`: a thumbnail loaded from a separate file after the document,
/// never archived.
struct Thumbnail: Codable, Hashable, Sendable {
    var pixels: [UInt8]

    /// Stands in for "read the thumbnail file named after the model".
    static func load(named name: String) -> Thumbnail {
        Thumbnail(pixels: Array(name.utf8))
    }
}

/// Seed 000's `Model : NSObject <NSCoding>`: name, type, an excluded image, a rect, an unsigned
/// flag and two signed integers.
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

    /// Seed 000: "if ([md_name length]) { load the thumbnail }" after decoding.
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

struct Point: Codable, Hashable, Sendable {
    var x: Double
    var y: Double
}

struct Size: Codable, Hashable, Sendable {
    var width: Double
    var height: Double
}

/// Seed 002's `protocol Shape`.
protocol Shape: VersionedModel {
    var area: Double { get }
}

final class Circle: Shape {
    var center: Point
    var radius: Double

    init(center: Point, radius: Double) {
        self.center = center
        self.radius = radius
    }

    var area: Double { Double.pi * radius * radius }
}

class Rectangle: Shape {
    var origin: Point
    var size: Size

    init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    var area: Double { size.width * size.height }

    private enum CodingKeys: String, CodingKey {
        case origin, size
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        origin = try container.decode(Point.self, forKey: .origin)
        size = try container.decode(Size.self, forKey: .size)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(origin, forKey: .origin)
        try container.encode(size, forKey: .size)
    }
}

/// Seed 002's subclass: `class RoundedRectangle: Rectangle`, archived through the superclass's
/// coder (`[super initWithCoder:]` in seed 000).
final class RoundedRectangle: Rectangle {
    var cornerRadius: Double

    init(origin: Point, size: Size, cornerRadius: Double) {
        self.cornerRadius = cornerRadius
        super.init(origin: origin, size: size)
    }

    private enum CodingKeys: String, CodingKey {
        case cornerRadius
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cornerRadius = try container.decode(Double.self, forKey: .cornerRadius)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cornerRadius, forKey: .cornerRadius)
        try super.encode(to: container.superEncoder())
    }
}

/// Seed 002's `Contents` holding `[Shape]`.
final class Contents: VersionedModel {
    @Polymorphic var shapes: [any Shape]

    init(shapes: [any Shape]) {
        self.shapes = shapes
    }

    static let allowedTypes: [String: [any VersionedModel.Type]] = [
        "shapes": [Circle.self, Rectangle.self, RoundedRectangle.self]
    ]
}

let seedRegistry: ModelRegistry = {
    do {
        return try ModelRegistry([Model.self, Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self])
    } catch {
        preconditionFailure("the seed registry is consistent: \(error)")
    }
}()
