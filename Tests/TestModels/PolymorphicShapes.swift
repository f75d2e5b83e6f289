import Foundation
import ModelVersioning

// Polymorphic shapes: a drawing's `[any Shape]` of circles, rectangles and rounded rectangles (a
// subclass archived through its superclass's coder), whose concrete types must survive archiving.

package struct Point: Codable, Hashable, Sendable {
    package var x: Double
    package var y: Double

    package init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

package struct Size: Codable, Hashable, Sendable {
    package var width: Double
    package var height: Double

    package init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// What a drawing holds: a protocol, so an archive must record each shape's concrete type.
package protocol Shape: VersionedModel {
    var area: Double { get }
}

package final class Circle: Shape {
    package var center: Point
    package var radius: Double

    package init(center: Point, radius: Double) {
        self.center = center
        self.radius = radius
    }

    package var area: Double { Double.pi * radius * radius }
}

package class Rectangle: Shape {
    package var origin: Point
    package var size: Size

    package init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    package var area: Double { size.width * size.height }

    // The versioning requirements as `class var`s: the registry refuses a subclass of a class that
    // leaves one to its default.
    package class var archiveTypeName: String { String(describing: self) }
    package class var archiveTypeAliases: [String] { [] }
    package class var modelVersion: Int { 1 }
    package class var migrationSteps: [MigrationStep] { [] }
    package class var unversionedVersion: Int? { nil }
    package class var encodingBehaviors: [String: EncodingBehavior] { [:] }
    package class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }
    package class var downgradeFallback: DowngradeFallback? { nil }

    private enum CodingKeys: String, CodingKey {
        case origin, size
    }

    package required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        origin = try container.decode(Point.self, forKey: .origin)
        size = try container.decode(Size.self, forKey: .size)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(origin, forKey: .origin)
        try container.encode(size, forKey: .size)
    }
}

/// A subclass, archived through its superclass's coder (as `[super initWithCoder:]` did with
/// NSCoding).
package final class RoundedRectangle: Rectangle {
    package var cornerRadius: Double

    package init(origin: Point, size: Size, cornerRadius: Double) {
        self.cornerRadius = cornerRadius
        super.init(origin: origin, size: size)
    }

    private enum CodingKeys: String, CodingKey {
        case cornerRadius
    }

    package required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cornerRadius = try container.decode(Double.self, forKey: .cornerRadius)
        try super.init(from: container.superDecoder())
    }

    package override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cornerRadius, forKey: .cornerRadius)
        try super.encode(to: container.superEncoder())
    }
}

/// A drawing's contents: polymorphic shapes, `[any Shape]`, allow-listed by key.
package final class Contents: VersionedModel {
    @Polymorphic package var shapes: [any Shape]

    package init(shapes: [any Shape]) {
        self.shapes = shapes
    }

    package static let allowedTypes: [String: [any VersionedModel.Type]] = [
        "shapes": [Circle.self, Rectangle.self, RoundedRectangle.self]
    ]
}

/// The registry the shapes are decoded with; it knows the NSCoding-era `Model` too.
package let shapesRegistry: ModelRegistry = {
    do {
        return try ModelRegistry([Model.self, Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self])
    } catch {
        preconditionFailure("the shapes registry is consistent: \(error)")
    }
}()
