import ArchiveCompatibility
import Foundation
import ModelVersioning
import TestModels
import Testing

enum Palette: String, Codable, CaseIterable {
    case red, green
}

struct Styled: VersionedModel {
    var color: Palette
    var note: String?
    var points: [Point]
    var weights: [String: Double]
    var circle: Circle
    static let modelVersion = 3
}

@Suite("Schema snapshots")
struct SchemaTests {
    @Test("a model's schema lists its keys with types, optionality and behaviours, in initializer order")
    func modelSchema() throws {
        let schema = try ModelSchema(of: Model.self)
        #expect(schema.typeName == "Model")
        #expect(schema.version == 1)
        #expect(
            schema.properties.map(\.description) == [
                "name: String", "type: String", "image: Thumbnail? (excluded)", "rect: Rect", "flag: UInt",
                "kind: Int", "para: Int",
            ])
    }

    @Test("collections, enums, nested models and optionals are described from their declarations")
    func composite() throws {
        let schema = try ModelSchema(of: Styled.self)
        #expect(
            schema.properties.map(\.description) == [
                "color: Palette", "note: String?", "points: [Point]", "weights: [String: Double]", "circle: Circle",
            ])
    }

    @Test("polymorphic keys record their allow lists; superclass keys their prefix")
    func polymorphicAndSuper() throws {
        let contents = try ModelSchema(of: Contents.self)
        #expect(contents.properties.count == 1)
        #expect(contents.properties[0].name == "shapes")
        #expect(contents.properties[0].type == "[Shape]")
        #expect(contents.properties[0].allowedTypes == ["Circle", "Rectangle", "RoundedRectangle"])
        let rounded = try ModelSchema(of: RoundedRectangle.self)
        #expect(rounded.properties.map(\.name) == ["cornerRadius", "super.origin", "super.size"])
        let node = try ModelSchema(of: Node.self)
        #expect(node.properties.map(\.description) == ["name: String", "children: [Node]", "parent: weak Node"])
    }

    @Test("differences read as added, removed and changed properties")
    func differences() throws {
        let old = ModelSchema(
            typeName: "Model", version: 1,
            properties: [
                .init(name: "name", type: "String", optional: false, behavior: .unconditional),
                .init(name: "para", type: "Int", optional: false, behavior: .unconditional),
            ])
        let new = ModelSchema(
            typeName: "Model", version: 1,
            properties: [
                .init(name: "name", type: "String", optional: true, behavior: .unconditional),
                .init(name: "color", type: "String", optional: false, behavior: .unconditional),
            ])
        #expect(new.differences(from: old) == ["- para: Int", "~ name: String → String?", "+ color: String"])
    }
}
