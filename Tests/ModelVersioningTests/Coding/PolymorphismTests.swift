import Foundation
import ModelVersioning
import TestModels
import Testing

/// A shape type the archive knows but `Contents.shapes` does not allow; counts its
/// initializations so tests can prove the allow list is checked first.
final class Hexagon: Shape {
    var side: Double
    init(side: Double) { self.side = side }
    var area: Double { 3 * 3.squareRoot() / 2 * side * side }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        side = try container.decode(Double.self, forKey: .side)
        InitializationLog.shared.record("Hexagon \(side)")
    }

    private enum CodingKeys: String, CodingKey { case side }
}

/// Thread-safe record of initializer calls.
final class InitializationLog: @unchecked Sendable {
    static let shared = InitializationLog()
    private let lock = NSLock()  // guards `names`
    private var names: [String] = []

    func record(_ name: String) {
        lock.withLock { names.append(name) }
    }

    func count(of name: String) -> Int {
        lock.withLock { names.filter { $0 == name }.count }
    }
}

/// A canvas whose single shape and optional selection are polymorphic, with no allow list.
struct Canvas: VersionedModel {
    @Polymorphic var main: any Shape
    @Polymorphic var selection: (any Shape)?
    @Polymorphic var layers: [String: [any Shape]]
}

extension UnknownModel: Shape {
    /// Unknown shapes draw nothing: no area.
    public var area: Double { 0 }
}

/// Holds a statically typed rectangle: a subclass is fine, a circle is not.
struct Frame: VersionedModel {
    var bounds: Rectangle
}

@Suite("Polymorphism and secure decoding")
struct PolymorphismTests {
    let registry: ModelRegistry = {
        do {
            return try ModelRegistry([
                Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self, Hexagon.self, Canvas.self,
                Frame.self,
            ])
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    func sampleContents() -> Contents {
        Contents(shapes: [
            Circle(center: Point(x: 10, y: 20), radius: 30),
            Rectangle(origin: Point(x: 40, y: 50), size: Size(width: 60, height: 70)),
            RoundedRectangle(origin: Point(x: 1, y: 2), size: Size(width: 3, height: 4), cornerRadius: 0.5),
        ])
    }

    @Test("polymorphic shapes: [Shape] of Circle, Rectangle and RoundedRectangle keeps concrete types and values")
    func shapesRoundTrip() throws {
        let tree = try ArchiveEncoder().encodeValue(sampleContents())
        #expect(
            tree["shapes"]?.arrayValue?.compactMap { $0.objectValue?.typeName } == [
                "Circle", "Rectangle", "RoundedRectangle",
            ])
        // The subclass writes its superclass's keys through superEncoder(), as [super encodeWithCoder:].
        #expect(tree["shapes"]?[2]?["super"]?["origin"]?["x"] == .double(1))

        let decoded = try ArchiveDecoder(registry: registry).decode(Contents.self, fromTree: tree)
        #expect(decoded.shapes.count == 3)
        let circle = try #require(decoded.shapes[0] as? Circle)
        #expect(circle.center == Point(x: 10, y: 20))
        #expect(circle.radius == 30)
        let rectangle = try #require(decoded.shapes[1] as? Rectangle)
        #expect(!(rectangle is RoundedRectangle))
        #expect(rectangle.size == Size(width: 60, height: 70))
        let rounded = try #require(decoded.shapes[2] as? RoundedRectangle)
        #expect(rounded.cornerRadius == 0.5)
        #expect(rounded.origin == Point(x: 1, y: 2))
        #expect(decoded.shapes.map(\.area) == sampleContents().shapes.map(\.area))
    }

    @Test("single, optional and dictionary-of-array polymorphic values round-trip")
    func polymorphicShapes() throws {
        let canvas = Canvas(
            main: Circle(center: Point(x: 0, y: 0), radius: 1), selection: nil,
            layers: ["top": [Hexagon(side: 2)], "bottom": [Circle(center: Point(x: 1, y: 1), radius: 2)]])
        let tree = try ArchiveEncoder().encodeValue(canvas)
        let decoded = try ArchiveDecoder(registry: registry).decode(Canvas.self, fromTree: tree)
        #expect(decoded.main is Circle)
        #expect(decoded.selection == nil)
        #expect(decoded.layers["top"]?.first is Hexagon)
        #expect((decoded.layers["bottom"]?.first as? Circle)?.radius == 2)

        var withSelection = canvas
        withSelection.selection = Hexagon(side: 5)
        let decodedSelection = try ArchiveDecoder(registry: registry).decode(
            Canvas.self, fromTree: try ArchiveEncoder().encodeValue(withSelection))
        #expect((decodedSelection.selection as? Hexagon)?.side == 5)
    }

    /// A drawing that codes its shapes by hand, with the container helpers instead of `@Polymorphic`.
    struct HandCodedDrawing: VersionedModel {
        var shapes: [any Shape]
        var selection: (any Shape)?

        init(shapes: [any Shape], selection: (any Shape)?) {
            self.shapes = shapes
            self.selection = selection
        }

        private enum CodingKeys: String, CodingKey { case shapes, selection }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            shapes = try container.decodePolymorphic([any Shape].self, forKey: .shapes)
            selection = try container.decodePolymorphic((any Shape)?.self, forKey: .selection)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodePolymorphic(shapes, forKey: .shapes)
            if let selection { try container.encodePolymorphic(selection, forKey: .selection) }
        }
    }

    @Test("decodePolymorphic and encodePolymorphic code protocol-typed values in a hand-written Codable")
    func containerHelpers() throws {
        let drawing = HandCodedDrawing(
            shapes: [
                Circle(center: Point(x: 1, y: 2), radius: 3),
                Rectangle(origin: Point(x: 0, y: 0), size: Size(width: 4, height: 5)),
            ],
            selection: nil)
        let tree = try ArchiveEncoder().encodeValue(drawing)
        #expect(tree["shapes"]?.arrayValue?.compactMap { $0.objectValue?.typeName } == ["Circle", "Rectangle"])
        #expect(tree["selection"] == nil)
        let decoded = try ArchiveDecoder(registry: registry).decode(HandCodedDrawing.self, fromTree: tree)
        #expect(decoded.shapes.map(\.area) == drawing.shapes.map(\.area))
        #expect(decoded.shapes[0] is Circle)
        #expect(decoded.selection == nil)

        let selected = HandCodedDrawing(shapes: [], selection: Circle(center: Point(x: 0, y: 0), radius: 2))
        let back = try ArchiveDecoder(registry: registry).decode(
            HandCodedDrawing.self, from: try ArchiveEncoder().encode(selected))
        #expect((back.selection as? Circle)?.radius == 2)
        // Another decoder than ArchiveDecoder cannot resolve archived type names.
        #expect(throws: ArchiveError.self) {
            try JSONDecoder().decode(HandCodedDrawing.self, from: Data(#"{"shapes": []}"#.utf8))
        }
    }

    @Test("a base-class property decodes a registered subclass")
    func baseClassProperty() throws {
        let frame = Frame(
            bounds: RoundedRectangle(origin: Point(x: 0, y: 0), size: Size(width: 1, height: 1), cornerRadius: 9))
        let decoded = try ArchiveDecoder(registry: registry).decode(
            Frame.self, fromTree: try ArchiveEncoder().encodeValue(frame))
        #expect((decoded.bounds as? RoundedRectangle)?.cornerRadius == 9)
    }

    @Test("a substituted type at an allow-listed key is rejected before its initializer runs")
    func substitutedTypeRejected() throws {
        var tree = try ArchiveEncoder().encodeValue(sampleContents())
        // A side no other test uses, so tests running in parallel cannot touch the count.
        let hexagon = try ArchiveEncoder().encodeValue(Hexagon(side: 424_242))
        guard case .object(var contents) = tree, case .array(var shapes) = contents["shapes"] else {
            Issue.record("unexpected tree")
            return
        }
        shapes[1] = hexagon
        contents["shapes"] = .array(shapes)
        tree = .object(contents)

        let before = InitializationLog.shared.count(of: "Hexagon 424242.0")
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: registry).decode(Contents.self, fromTree: tree)
        }
        #expect(error.code == .disallowedType)
        #expect(error.path == "shapes[1]")
        #expect(error.message.contains("Hexagon is not allowed here"))
        #expect(error.message.contains("allowed: Circle, Rectangle, RoundedRectangle"))
        #expect(InitializationLog.shared.count(of: "Hexagon 424242.0") == before, "Hexagon.init(from:) must not run")
    }

    @Test("a statically typed key rejects an unrelated type")
    func staticTypeSubstitution() throws {
        let tree: ArchiveValue = .object(
            ArchiveObject(
                typeName: "Frame", version: 1,
                fields: ["bounds": try ArchiveEncoder().encodeValue(Circle(center: Point(x: 0, y: 0), radius: 1))]))
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: registry).decode(Frame.self, fromTree: tree)
        }
        #expect(error.code == .disallowedType)
        #expect(error.path == "bounds")
        #expect(error.message.contains("expected Rectangle or a registered subclass, found Circle"))
    }

    @Test("requiresAllowedTypes refuses polymorphic keys without an allow list")
    func requiresAllowLists() throws {
        let tree = try ArchiveEncoder().encodeValue(
            Canvas(main: Circle(center: Point(x: 0, y: 0), radius: 1), selection: nil, layers: [:]))
        var options = DecodingOptions()
        options.requiresAllowedTypes = true
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: registry, options: options).decode(Canvas.self, fromTree: tree)
        }
        #expect(error.code == .disallowedType)
        #expect(error.path == "main")
    }

    @Test("an unknown type name is a typed error with its path")
    func unknownTypeError() throws {
        let tree = try unknownShapeTree()
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: try ModelRegistry([Contents.self, Circle.self]))
                .decode(Contents.self, fromTree: tree)
        }
        #expect(error.code == .unknownType)
        #expect(error.path == "shapes[1]")
        #expect(error.typeName == "Trapezoid")
        #expect(error.archivedVersion == 3)
    }

    @Test("an unknown type is kept whole when the caller opts in, and re-encodes losslessly")
    func unknownTypeFallback() throws {
        let tree = try unknownShapeTree()
        var options = DecodingOptions()
        options.unknownTypeStrategy = .keepArchivedObject
        let decoder = ArchiveDecoder(registry: try ModelRegistry([Contents.self, Circle.self]), options: options)
        let decoded = try decoder.decode(Contents.self, fromTree: tree)
        let unknown = try #require(decoded.shapes[1] as? UnknownModel)
        #expect(unknown.typeName == "Trapezoid")
        #expect(unknown.version == 3)
        #expect(decoded.shapes[0] is Circle)
        #expect(try ArchiveEncoder().encodeValue(decoded) == tree)
    }

    private func unknownShapeTree() throws -> ArchiveValue {
        let trapezoid = ArchiveObject(
            typeName: "Trapezoid", version: 3, fields: ["top": 1.5, "bottom": 3, "tags": ["x", ["nested": true]]])
        return .object(
            ArchiveObject(
                typeName: "Contents", version: 1,
                fields: [
                    "shapes": [
                        try ArchiveEncoder().encodeValue(Circle(center: Point(x: 0, y: 0), radius: 1)),
                        .object(trapezoid),
                    ]
                ]))
    }
}
