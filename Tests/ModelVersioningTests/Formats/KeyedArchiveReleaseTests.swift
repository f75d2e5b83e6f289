import Foundation
import SketchModel
import TestSupport
import Testing

@testable import ModelVersioning

/// Keyed archives an old app reads: the envelope's root is the archive's root object, and the
/// document name and version sit beside it in `$top`.
@Suite("Keyed archives for a release")
struct KeyedArchiveReleaseTests {
    static func table(_ data: Data) throws -> (objects: [ArchiveValue], top: ArchiveDictionary) {
        try KeyedArchiveFixtures.table(data)
    }

    static func entry(_ reference: ArchiveValue?, in objects: [ArchiveValue]) throws -> ArchiveValue {
        try KeyedArchiveFixtures.entry(reference, in: objects)
    }

    /// The `$classname` of the object a UID points to.
    static func className(_ reference: ArchiveValue?, in objects: [ArchiveValue]) throws -> String? {
        try entry(entry(reference, in: objects)["$class"], in: objects)["$classname"]?.stringValue
    }

    static let envelope: ArchiveValue = ArchiveEnvelope(
        root: .object(
            ArchiveObject(
                typeName: "Drawing", version: 1, id: 1,
                fields: ["title": "Kyoto", "shapes": [.reference(1)], "scale": 2])),
        document: "Sketch", documentVersion: 1
    ).tree

    // MARK: - The envelope

    @Test("an envelope's root is the archive's root object; its document and version sit beside it in $top")
    func envelopeUnwrapped() throws {
        let data = try ArchiveFormat.keyedArchive.write(Self.envelope)
        let (objects, top) = try Self.table(data)
        #expect(top.keys == ["root", "$archive", "$document", "$documentVersion"])
        #expect(try Self.className(top["root"], in: objects) == "Drawing")
        #expect(try Self.entry(top["root"], in: objects)["title"].map { try Self.entry($0, in: objects) } == "Kyoto")
        #expect(try Self.entry(top["$archive"], in: objects) == 1)
        #expect(try Self.entry(top["$document"], in: objects) == "Sketch")
        #expect(try Self.entry(top["$documentVersion"], in: objects) == 1)
        // No dictionary of the envelope anywhere.
        #expect(!objects.contains { $0["NS.keys"] != nil })

        // Read back: the same envelope, identities included.
        #expect(KeyedArchiveFixtures.difference(try ArchiveFormat.keyedArchive.read(data), Self.envelope) == nil)
        let (tree, format) = try ArchiveFormat.read(data)
        #expect(format == .keyedArchive && tree == Self.envelope)
    }

    @Test("under another root key the envelope reads back with that key")
    func envelopeUnderRootKey() throws {
        let options = ArchiveWritingOptions(keyedArchive: KeyedArchiveOptions(rootKey: "drawing"))
        let data = try ArchiveFormat.keyedArchive.write(Self.envelope, options: options)
        let (objects, top) = try Self.table(data)
        #expect(top.keys == ["drawing", "$archive", "$document", "$documentVersion"])
        #expect(try Self.className(top["drawing"], in: objects) == "Drawing")
        let reading = ArchiveReadingOptions(keyedArchive: KeyedArchiveOptions(rootKey: "drawing"))
        #expect(try ArchiveFormat.keyedArchive.read(data, options: reading) == Self.envelope)
    }

    @Test("an encoder writing a keyed archive puts the model at the root")
    func encoderWritesRootObject() throws {
        let registry = try SketchRegistry.registry()
        let drawing = try ArchiveDecoder(registry: registry).decode(
            Drawing.self, from: try Fixture.data("archives/Sketch/v4/moodboard.json"))
        let data = try SketchRegistry.encoder(format: .keyedArchive).encode(drawing)
        let (objects, top) = try Self.table(data)
        #expect(try Self.className(top["root"], in: objects) == "Drawing")
        #expect(try Self.entry(top["$documentVersion"], in: objects) == 4)
        let again = try ArchiveDecoder(registry: registry).decode(Drawing.self, from: data)
        #expect(
            try SketchRegistry.encoder().encodeTree(again) == (try SketchRegistry.encoder().encodeTree(drawing)))
    }

    /// A keyed archive of one string root and `$top` entries beside it, each a UID of an entry.
    static func archive(top extras: [(key: String, entry: ArchiveValue)]) throws -> Data {
        var objects: [ArchiveValue] = ["$null", "the root"]
        var top: ArchiveDictionary = ["root": .reference(1)]
        for (key, entry) in extras {
            objects.append(entry)
            top[key] = .reference(ArchiveObjectID(objects.count - 1))
        }
        let archive: ArchiveValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": .dictionary(top), "$objects": .array(objects),
        ]
        return try ArchiveFormat.binaryPropertyList.write(archive, options: ArchiveWritingOptions(markup: .plain))
    }

    @Test(
        "an envelope in $top that is not one is refused with its place",
        arguments: [
            ("$archive", "two"), ("$archive", 0), ("$document", 5), ("$documentVersion", -1), ("$documentVersion", 1.5),
        ] as [(String, ArchiveValue)])
    func malformedEnvelope(_ key: String, _ entry: ArchiveValue) throws {
        var extras: [(key: String, entry: ArchiveValue)] = key == "$archive" ? [] : [("$archive", 1)]
        extras.append((key, entry))
        let data = try Self.archive(top: extras)
        let error = try #require(throws: ArchiveError.self) { try ArchiveFormat.keyedArchive.read(data) }
        #expect(error.code == .malformedInput && error.path == [.key("$top"), .key(key)], "\(error)")
        // Read plainly, or as a plain property list, the archive is what it holds.
        #expect(try ArchiveFormat.keyedArchive.read(data, options: ArchiveReadingOptions(markup: .plain)) == "the root")
    }

    @Test("an envelope from a newer library reads as one, and decoding it says it is newer")
    func newerEnvelope() throws {
        let data = try Self.archive(top: [("$archive", 2), ("$documentVersion", 3)])
        #expect(
            try ArchiveFormat.keyedArchive.read(data) == ["$archive": 2, "documentVersion": 3, "root": "the root"])
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: ModelRegistry()).decode(String.self, from: data)
        }
        #expect(error.code == .newerVersion, "\(error)")
    }
}
