import ArchiveFormats
import Foundation
import TestSupport
import Testing

/// No conversion drops a type silently: a plain document converted to JSON keeps its dates, data
/// and the other values plain JSON has no type for in a plain envelope, and reads back as itself;
/// `MarkupMode.plain` drops them only when asked.
@Suite("Plain envelopes keep a plain document's types in JSON")
struct PlainEnvelopeTests {
    /// The real-shaped property lists of `Fixtures/plist`: a Terminal profile (XML, colours and
    /// font as keyed archives in data values) and an app's preferences (binary, with dates).
    static let propertyLists = ["plist/terminal/Harbor.terminal", "plist/preferences/com.example.Harbor.plist"]

    /// A plain document with one value of every kind plain JSON has no type for, and a `$` key
    /// of its own.
    static let everyKind: ArchiveValue = [
        "$schema": "own key",
        "name": "Basic",
        "created": .date(Date(timeIntervalSinceReferenceDate: 731_013_751.5)),
        "logo": .data(Data([0x89, 0x50, 0x4E, 0x47])),
        "ratio": .double(.infinity),
        "owner": .reference(ArchiveObjectID(3)),
        "shape": .object(ArchiveObject(typeName: "Circle", version: 2, fields: ["r": 1.5])),
    ]

    @Test(
        "a property list converted to JSON and back is the same property list, data and dates included",
        arguments: propertyLists)
    func propertyListThroughJSON(_ path: String) throws {
        let original = try ArchiveDocument(data: try Fixture.data(path))
        #expect(original.markup == .plain)
        let json = try original.data(as: .json)
        let converted = try ArchiveDocument(data: json)
        #expect(converted.format == .json)
        #expect(converted.markup == .plain)
        #expect(converted.usesPlainEnvelope)
        #expect(converted.tree == original.tree)
        let back = try ArchiveDocument(data: try converted.data(as: original.format))
        #expect(back.format == original.format)
        #expect(!back.usesPlainEnvelope)
        #expect(back.tree == original.tree)
        // Data stays data, dates stay dates, all the way down to the property list's own types.
        #expect(Self.kinds(back.tree) == Self.kinds(original.tree))
        #expect(Self.kinds(original.tree)[.data] != nil)
    }

    @Test("XML and binary property lists convert into each other with every type", arguments: propertyLists)
    func xmlAndBinary(_ path: String) throws {
        let original = try ArchiveDocument(data: try Fixture.data(path))
        let other: ArchiveFormat = original.format == .xmlPropertyList ? .binaryPropertyList : .xmlPropertyList
        let converted = try ArchiveDocument(data: try original.data(as: other))
        #expect(converted.format == other)
        #expect(converted.tree == original.tree)
        #expect(try ArchiveDocument(data: try converted.data(as: original.format)).tree == original.tree)
    }

    @Test("the plain envelope: archive markup for the values plain JSON has no type for, the document's $ keys escaped")
    func spelling() throws {
        let options = ArchiveWritingOptions(prettyPrinted: false, markup: .plain, plainEnvelope: .whenNeeded)
        let text = String(decoding: try ArchiveFormat.json.write(Self.everyKind, options: options), as: UTF8.self)
        #expect(
            text
                == #"{"$archive":1,"plain":true,"root":{"$$schema":"own key","name":"Basic","#
                + #""created":{"$date":"2024-03-01T19:22:31.500Z"},"logo":{"$data":"iVBORw=="},"#
                + #""ratio":{"$double":"inf"},"owner":{"$ref":3},"shape":{"$type":"Circle","$version":2,"r":1.5}}}"#)
        // Every reader gives back the plain document itself, references to nothing included (a
        // plain document's references are its own, property-list UIDs).
        #expect(try ArchiveFormat.json.read(Data(text.utf8)) == Self.everyKind)
        #expect(try ArchiveFormat.read(Data(text.utf8)).0 == Self.everyKind)
        let document = try ArchiveDocument(data: Data(text.utf8))
        #expect(document.tree == Self.everyKind)
        #expect(document.markup == .plain && document.usesPlainEnvelope && !document.isPrettyPrinted)
        // Read literally, it is what it says.
        #expect(
            try ArchiveFormat.json.read(Data(text.utf8), options: ArchiveReadingOptions(markup: .plain))["plain"]
                == true)
    }

    @Test("each kind plain JSON has no type for takes the envelope, found with its path in document order")
    func eachKind() throws {
        let entries = try #require(Self.everyKind.dictionaryValue)
        for (key, value) in entries where !["$schema", "name"].contains(key) {
            let tree: ArchiveValue = ["list": [1, ["a": "b", key: value]]]
            let found = ArchiveMarkup.firstValuePlainJSONCannotHold(in: tree)
            #expect(found?.path.description == "list[1].\(key)", "\(key)")
            #expect(found?.kind == value.kind, "\(key)")
            let options = ArchiveWritingOptions(markup: .plain, plainEnvelope: .whenNeeded)
            #expect(try ArchiveDocument(data: try ArchiveFormat.json.write(tree, options: options)).tree == tree)
        }
        #expect(ArchiveMarkup.firstValuePlainJSONCannotHold(in: ["a": [1, 2.5, "x", true, .null, [:]]]) == nil)
        #expect(ArchiveMarkup.firstValuePlainJSONCannotHold(in: .data(Data()))?.path == .root)
    }

    @Test("a plain document without such values stays plain JSON, with no $ key of the library's")
    func staysPlain() throws {
        let tree: ArchiveValue = ["name": "Basic", "columnCount": 100, "spacing": 1.004, "flags": [true, false]]
        let plist = try ArchiveDocument(
            data: try ArchiveFormat.xmlPropertyList.write(tree, options: ArchiveWritingOptions(markup: .plain)))
        let json = try plist.data(as: .json)
        #expect(json == (try plist.data(as: .json, markup: .plain)))
        #expect(!String(decoding: json, as: UTF8.self).contains("$"))
        #expect(try ArchiveDocument(data: json).usesPlainEnvelope == false)
        // The writer's default never wraps: plain means plain.
        let written = try ArchiveFormat.json.write(Self.everyKind.removingInfinity, options: .init(markup: .plain))
        #expect(!String(decoding: written, as: UTF8.self).contains("$archive"))
    }

    @Test("MarkupMode.plain drops the types on request: data as base64 text, dates as ISO 8601 text")
    func plainOnRequest() throws {
        let preferences = try ArchiveDocument(data: try Fixture.data(Self.propertyLists[1]))
        let text = try ArchiveDocument(data: try preferences.data(as: .json, markup: .plain))
        #expect(!text.usesPlainEnvelope)
        #expect(text.tree["SULastCheckTime"] == "2024-03-01T10:22:31.123456Z")
        #expect(
            text.tree["HighlightColor"]?.stringValue.flatMap { Data(base64Encoded: $0) }
                == preferences.tree["HighlightColor"]?.dataValue)
        // NaN and infinity have no plain spelling at all: an error at their path, not a guess.
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveFormat.json.write(["a": ["ratio": .double(.nan)]], options: .init(markup: .plain))
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.path.description == "a.ratio")
    }

    @Test("a document read from a plain envelope is written in one again, in its own layout")
    func writtenBackInTheEnvelope() throws {
        for prettyPrinted in [true, false] {
            let options = ArchiveWritingOptions(prettyPrinted: prettyPrinted, markup: .plain, plainEnvelope: .always)
            let data = try ArchiveFormat.json.write(["count": 1], options: options)
            var document = try ArchiveDocument(data: data)
            #expect(document.usesPlainEnvelope)
            #expect(try document.data() == data)
            #expect(try document.data(as: .json, prettyPrinted: prettyPrinted) == data)
            // Edited (a migration): still a plain envelope, though nothing needs it now.
            document.tree = ["count": 2]
            #expect(try ArchiveDocument(data: try document.data()).usesPlainEnvelope)
        }
    }

    @Test("an error inside a plain envelope names the path in the document, not in the envelope")
    func errorPaths() throws {
        let tree: ArchiveValue = ["when": ["later": .date(Date(timeIntervalSinceReferenceDate: .infinity))]]
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveFormat.json.write(tree, options: .init(markup: .plain, plainEnvelope: .whenNeeded))
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.path.description == "when.later")
    }

    @Test(
        "a damaged plain envelope is a malformed-input error at its key",
        arguments: [
            (#"{"$archive": 1, "plain": 1, "root": {}}"#, "plain", ArchiveError.Code.malformedInput),
            (#"{"$archive": 1, "plain": false, "root": {}}"#, "plain", .malformedInput),
            (#"{"$archive": 1, "plain": true, "document": "x", "root": {}}"#, "document", .malformedInput),
            (#"{"$archive": 1, "plain": true, "documentVersion": 2, "root": {}}"#, "documentVersion", .malformedInput),
            (#"{"$archive": 1, "plain": true}"#, "", .malformedInput),
            (#"{"$archive": 2, "plain": true, "root": {}}"#, "$archive", .newerVersion),
        ])
    func damaged(_ text: String, path: String, code: ArchiveError.Code) throws {
        let error = #expect(throws: ArchiveError.self) { try ArchiveDocument(data: Data(text.utf8)) }
        #expect(error?.code == code, "\(text)")
        #expect(error?.path == ArchivePath(path.isEmpty ? [] : [.key(path)]), "\(text)")
    }

    /// Every kind of value in `tree`, counted.
    static func kinds(_ tree: ArchiveValue) -> [ArchiveValue.Kind: Int] {
        var counts: [ArchiveValue.Kind: Int] = [:]
        func visit(_ value: ArchiveValue) {
            counts[value.kind, default: 0] += 1
            switch value {
            case .array(let elements): elements.forEach(visit)
            case .dictionary(let entries): entries.values.forEach(visit)
            case .object(let object): object.fields.values.forEach(visit)
            default: break
            }
        }
        visit(tree)
        return counts
    }
}

extension ArchiveValue {
    /// The tree without its `ratio` (plain JSON cannot spell infinity at all).
    fileprivate var removingInfinity: ArchiveValue {
        guard case .dictionary(var entries) = self else { return self }
        entries.removeValue(forKey: "ratio")
        return .dictionary(entries)
    }
}
