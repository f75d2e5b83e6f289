import Foundation
import ModelVersioning

// Polymorphic shapes: a drawing's `[any Shape]` of circles, rectangles and rounded rectangles (a
// subclass archived through its superclass's coder), whose concrete types must survive archiving.

struct Point: Codable, Hashable, Sendable {
    var x: Double
    var y: Double
}

struct Size: Codable, Hashable, Sendable {
    var width: Double
    var height: Double
}

/// What a drawing holds: a protocol, so an archive must record each shape's concrete type.
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

    // The versioning requirements as `class var`s: the registry refuses a subclass of a class that
    // leaves one to its default.
    class var archiveTypeName: String { String(describing: self) }
    class var archiveTypeAliases: [String] { [] }
    class var modelVersion: Int { 1 }
    class var migrationSteps: [MigrationStep] { [] }
    class var unversionedVersion: Int? { nil }
    class var encodingBehaviors: [String: EncodingBehavior] { [:] }
    class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }
    class var downgradeFallback: DowngradeFallback? { nil }

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

/// A subclass, archived through its superclass's coder (as `[super initWithCoder:]` did with
/// NSCoding).
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

/// A drawing's contents: polymorphic shapes, `[any Shape]`, allow-listed by key.
final class Contents: VersionedModel {
    @Polymorphic var shapes: [any Shape]

    init(shapes: [any Shape]) {
        self.shapes = shapes
    }

    static let allowedTypes: [String: [any VersionedModel.Type]] = [
        "shapes": [Circle.self, Rectangle.self, RoundedRectangle.self]
    ]
}

/// The registry the shapes are decoded with; it knows the NSCoding-era `Model` too.
let shapesRegistry: ModelRegistry = {
    do {
        return try ModelRegistry([Model.self, Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self])
    } catch {
        preconditionFailure("the shapes registry is consistent: \(error)")
    }
}()
