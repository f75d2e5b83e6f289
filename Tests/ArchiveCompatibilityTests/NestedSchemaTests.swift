import ArchiveCompatibility
import Foundation
import ModelVersioning
import TestModels
import TestSupport
import Testing

/// Nested non-model types of the schema tests: a struct holding an array of structs holding an
/// enum, a recursive struct, a class, and a type that archives itself as one string.
struct Gradient: Codable {
    var stops: [Stop]
    var name: String?
}

struct Stop: Codable {
    var offset: Double
    var color: Palette
}

struct Branch: Codable {
    var label: String
    var children: [Branch]
}

final class Margin: Codable {
    var top: Float
    var bottom: Float
}

/// Archived as a plain string; rejects the probe's empty stand-in, so it offers a sample.
struct Email: Codable, SchemaSampleProviding {
    var address: String

    init(address: String) {
        self.address = address
    }

    init(from decoder: any Decoder) throws {
        address = try decoder.singleValueContainer().decode(String.self)
        guard address.contains("@") else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an email"))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(address)
    }

    static var schemaSample: Email { Email(address: "a@b") }
}

struct Emblem: VersionedModel {
    var gradient: Gradient?
    var outline: Branch
    var lookup: [String: Stop]
    var flags: Set<Int>
    var margin: Margin
    var contact: Email
    var preview: Thumbnail?
    var circle: Circle
    static let modelVersion = 2
    static let encodingBehaviors: [String: EncodingBehavior] = ["preview": .excluded]
}

/// A second model holding `Stop`: a change to it needs a bump of both.
struct Swatch: VersionedModel {
    var stop: Stop
}

@Suite("Complete schema snapshots: nested types")
struct NestedSchemaTests {
    @Test("every nested non-model type a model reaches is recorded once, with its keys or cases")
    func nestedTypesAreRecorded() throws {
        let schema = try ModelSchema(of: Emblem.self)
        #expect(schema.nestedTypes.map(\.name) == ["Branch", "Email", "Gradient", "Margin", "Palette", "Stop"])
        #expect(schema.nestedType(named: "Gradient")?.description == "Gradient: stops: [Stop], name: String?")
        #expect(schema.nestedType(named: "Stop")?.description == "Stop: offset: Double, color: Palette")
        #expect(schema.nestedType(named: "Palette")?.description == #"Palette: enum red = "red" | green = "green""#)
        #expect(schema.nestedType(named: "Branch")?.description == "Branch: label: String, children: [Branch]")
        #expect(schema.nestedType(named: "Margin")?.kind == .class)
        #expect(schema.nestedType(named: "Email")?.kind == .value)
        #expect(schema.nestedType(named: "Email")?.valueType == "String")
        // Never archived: its shape does not matter. Models are named, not described.
        #expect(schema.nestedType(named: "Thumbnail") == nil)
        #expect(schema.nestedType(named: "Circle") == nil)
        #expect(schema.nestedType(named: "Point") == nil)
    }

    @Test("a snapshot is readable, deterministic JSON that reads back to the same schema")
    func jsonRoundTrip() throws {
        let schema = try ModelSchema(of: Emblem.self)
        let data = try schema.jsonData()
        #expect(try ModelSchema(jsonData: data) == schema)
        #expect(try ModelSchema(of: Emblem.self).jsonData() == data)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""format": 2"#))
        #expect(text.contains(#""kind": "enum""#))
        #expect(text.contains(#""value": "green""#))
    }

    @Test("a snapshot written before nested types were recorded reads as format 1")
    func legacySnapshot() throws {
        let legacy =
            #"{"type": "Model", "version": 1, "properties": [{"name": "rect", "type": "Rect", "optional": false, "behavior": "unconditional"}]}"#
        let schema = try ModelSchema(jsonData: Data(legacy.utf8))
        #expect(schema.isLegacy)
        #expect(schema.nestedTypes.isEmpty)
    }

    @Test("a snapshot of a newer format is refused, not read by this format's rules")
    func newerSnapshotFormat() throws {
        let newer =
            #"{"type": "Model", "version": 1, "format": 3, "properties": [{"name": "rect", "type": "Rect", "optional": false, "behavior": "unconditional"}]}"#
        let error = try #require(throws: ArchiveError.self) { try ModelSchema(jsonData: Data(newer.utf8)) }
        #expect(error.code == .newerVersion)
        #expect(error.path == "format")
        for bad in [#""format": 0"#, #""format": "2""#, #""format": 1.5"#] {
            let text = newer.replacingOccurrences(of: #""format": 3"#, with: bad)
            let malformed = try #require(throws: ArchiveError.self) { try ModelSchema(jsonData: Data(text.utf8)) }
            #expect(malformed.code == .malformedInput, "\(bad)")
        }
        let current = newer.replacingOccurrences(of: #""format": 3"#, with: #""format": 2"#)
        #expect(try ModelSchema(jsonData: Data(current.utf8)).isLegacy == false)
    }

    @Test("a key added deep inside a nested type is a change of the model, with its path")
    func deepChangeHasAPath() throws {
        let current = try ModelSchema(of: Emblem.self)
        var snapshot = current
        let index = try #require(snapshot.nestedTypes.firstIndex { $0.name == "Stop" })
        snapshot.nestedTypes[index].properties.removeLast()  // the snapshot's Stop had no color
        let changes = current.changes(from: snapshot)
        #expect(
            changes.map(\.description) == [
                "+ gradient: Gradient.stops[*]: Stop.color: Palette", "+ lookup.*: Stop.color: Palette",
            ])
        #expect(changes.first?.nestedType == "Stop")
        #expect(changes.first?.path == "gradient.stops[*].color")
        #expect(changes.last?.path == "lookup.*.color")
    }

    @Test("an enum case added or removed is a change, and a changed key type names both types")
    func casesAndTypes() throws {
        let current = try ModelSchema(of: Emblem.self)
        var snapshot = current
        let palette = try #require(snapshot.nestedTypes.firstIndex { $0.name == "Palette" })
        snapshot.nestedTypes[palette].cases = [.init(name: "red", value: "red"), .init(name: "blue", value: "blue")]
        let margin = try #require(snapshot.nestedTypes.firstIndex { $0.name == "Margin" })
        snapshot.nestedTypes[margin].properties[0].type = "Double"
        let lines = current.changes(from: snapshot).map(\.description)
        #expect(lines.contains(#"- gradient: Gradient.stops[*]: Stop.color: Palette case blue = "blue""#))
        #expect(lines.contains(#"+ gradient: Gradient.stops[*]: Stop.color: Palette case green = "green""#))
        #expect(lines.contains("~ margin: Margin.top: Double → Float"))
    }

    @Test("nested types compare by shape: a renamed Swift type with the same keys is no change")
    func renamedNestedTypeIsNoChange() throws {
        let current = try ModelSchema(of: Emblem.self)
        var snapshot = current
        let index = try #require(snapshot.nestedTypes.firstIndex { $0.name == "Branch" })
        snapshot.nestedTypes[index].name = "Tree"
        snapshot.nestedTypes[index].properties[1].type = "[Tree]"
        let outline = try #require(snapshot.properties.firstIndex { $0.name == "outline" })
        snapshot.properties[outline].type = "Tree"
        #expect(current.changes(from: snapshot).isEmpty)
    }

    @Test("a recursive type is compared without looping, and a change inside it is found once per path")
    func recursiveTypes() throws {
        let current = try ModelSchema(of: Emblem.self)
        var snapshot = current
        let index = try #require(snapshot.nestedTypes.firstIndex { $0.name == "Branch" })
        snapshot.nestedTypes[index].properties[0].name = "title"
        #expect(
            current.changes(from: snapshot).map(\.description) == [
                "- outline: Branch.title: String", "+ outline: Branch.label: String",
            ])
    }

    @Test("the check lists every model that archives a changed nested type")
    func sharedNestedTypeNamesEveryModel() throws {
        let scratch = try ScratchFolder()
        let store = SchemaStore(directory: scratch.url)
        for type in [Emblem.self, Swatch.self] as [any VersionedModel.Type] {
            var schema = try ModelSchema(of: type)
            if let index = schema.nestedTypes.firstIndex(where: { $0.name == "Stop" }) {
                schema.nestedTypes[index].properties.removeFirst()
            }
            try store.record(schema)
        }
        let registry = try ModelRegistry([Emblem.self, Swatch.self, Circle.self])
        let report = try CompatibilityCheck(
            registry: registry, fixtures: nil, schemas: store, records: false, laws: nil
        ).run()
        let swatch = try #require(report.items.first { $0.subject == "Swatch v1" })
        guard case .failed(let reasons) = swatch.outcome else {
            Issue.record("Swatch passed: \(report)")
            return
        }
        #expect(reasons.contains("  + stop: Stop.offset: Double"))
        #expect(reasons.contains("Stop is archived by Emblem and Swatch: each of them needs a version bump"))
        #expect(report.proposals.map(\.typeName) == ["Emblem", "Swatch"])
    }

    @Test("the tool upgrades snapshots of the old format, adding the shapes of the nested types they name")
    func snapshotsAreUpgradedByTheTool() throws {
        let scratch = try ScratchFolder()
        let store = SchemaStore(directory: scratch.url)
        try scratch.write(
            #"{"type": "Swatch", "version": 1, "properties": [{"name": "stop", "type": "Stop", "optional": false, "behavior": "unconditional"}]}"#,
            to: "Swatch/v1.json")
        try scratch.write(
            #"{"type": "Swatch", "version": 0, "properties": [{"name": "old", "type": "Gone", "optional": false, "behavior": "unconditional"}]}"#,
            to: "Swatch/v0.json")
        let upgrades = try store.upgradeSnapshots(from: [try ModelSchema(of: Swatch.self)], isModel: { _ in false })
        #expect(
            upgrades.map(\.description) == [
                "Swatch v0: format 2; no type of today is named Gone: describe it in the snapshot by hand",
                "Swatch v1: format 2, nested types added from today's: Palette, Stop",
            ])
        let upgraded = try #require(try store.snapshot(typeName: "Swatch", version: 1))
        #expect(!upgraded.isLegacy)
        #expect(upgraded == (try ModelSchema(of: Swatch.self)))
        #expect(try store.upgradeSnapshots(from: [], isModel: { _ in false }).isEmpty)
    }
}
