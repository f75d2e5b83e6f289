import Foundation
import ModelVersioning
import TestSupport
import Testing

/// What the engine writes is what the document was: a plain document keeps its own `$` keys,
/// a property list holds only what XML can, and an archive's references point to objects.
@Suite("Document fidelity")
struct DocumentFidelityTests {
    /// A JSON Schema-like document with MongoDB-style `$` keys, at version 1 of a "schema" chain.
    static let plainDocument = Data(
        #"""
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "$id": "https://example.com/person",
          "version": 1,
          "name": "Ada",
          "owner": {"$ref": "#/definitions/user", "$oid": "5f1d"},
          "tags": [{"$date": "not markup here"}]
        }
        """#.utf8)

    static let rules = Data(
        #"""
        {"formatVersion": 1,
         "document": {"name": "schema", "versionPath": "version", "currentVersion": 2,
                      "steps": [{"from": 1, "rules": [{"rename": "name", "to": "title"}]}]}}
        """#.utf8)

    static func dollarKeys(_ value: ArchiveValue) -> [String] {
        switch value {
        case .dictionary(let entries):
            return entries.flatMap { key, value in (key.hasPrefix("$") ? [key] : []) + dollarKeys(value) }
        case .array(let elements):
            return elements.flatMap(dollarKeys)
        default:
            return []
        }
    }

    @Test("a plain document's $ keys survive an upgrade and every format round trip, unescaped")
    func plainDollarKeys() throws {
        var document = try ArchiveDocument(data: Self.plainDocument)
        #expect(document.markup == .plain)
        let catalog = try MigrationCatalog(
            rulesFile: try ArchiveFormat.json.read(Self.rules, options: .init(markup: .plain)))
        try MigrationPass(catalog: catalog).upgrade(&document.tree, document: "schema")
        for _ in 0..<3 {
            // Upgraded output read back again: never a second `$`.
            let written = try document.data()
            let text = String(decoding: written, as: UTF8.self)
            #expect(!text.contains("$$"), "\(text)")
            document = try ArchiveDocument(data: written)
        }
        #expect(document.tree["title"] == "Ada")
        #expect(document.tree["version"] == 2)
        let keys = Self.dollarKeys(document.tree)
        #expect(keys == ["$schema", "$id", "$ref", "$oid", "$date"])
        for format in [ArchiveFormat.xmlPropertyList, .binaryPropertyList, .json] {
            let converted = try format.write(document.tree, options: document.writingOptions)
            let back = try ArchiveDocument(data: converted)
            #expect(back.markup == .plain, "\(format)")
            #expect(back.tree == document.tree, "\(format)")
            #expect(Self.dollarKeys(back.tree) == keys, "\(format)")
        }
    }

    @Test("an archive stays an archive: its markup is read and written back")
    func archiveMarkupKept() throws {
        let data = try Data(contentsOf: Fixture.url("archives/Sketch/v4/moodboard.json"))
        let document = try ArchiveDocument(data: data)
        #expect(document.markup == .archive)
        #expect(document.isPrettyPrinted)
        #expect(try ArchiveDocument(data: try document.data()).tree == document.tree)
    }

    @Test("a document written on one line is written back on one line")
    func compactStaysCompact() throws {
        let document = try ArchiveDocument(data: Data(#"{"version":1,"name":"Ada"}"#.utf8 + [0x0A]))
        #expect(!document.isPrettyPrinted)
        #expect(!(try document.data()).contains(0x0A))
    }

    @Test("archive-migrate upgrade and convert write a plain document without $ escaping")
    func plainDocumentThroughTheTool() throws {
        let folder = try ScratchFolder()
        let input = folder.url.appendingPathComponent("person.json")
        let rules = folder.url.appendingPathComponent("rules.json")
        try Self.plainDocument.write(to: input)
        try Self.rules.write(to: rules)
        let upgrade = try ToolProcess.run(["upgrade", input.path, "--rules", rules.path, "--document", "schema"])
        #expect(upgrade.status == 0, "\(upgrade.standardError)")
        #expect(!upgrade.output.contains("$$"), "\(upgrade.output)")
        let upgraded = try ArchiveDocument(data: upgrade.standardOutput)
        #expect(Self.dollarKeys(upgraded.tree) == ["$schema", "$id", "$ref", "$oid", "$date"])
        #expect(upgraded.tree["version"] == 2)

        let plist = folder.url.appendingPathComponent("person.plist")
        let toPlist = try ToolProcess.run(["convert", input.path, "--to", "xml-plist", "-o", plist.path])
        #expect(toPlist.status == 0, "\(toPlist.standardError)")
        let back = try ToolProcess.run(["convert", plist.path, "--to", "json"])
        #expect(back.status == 0, "\(back.standardError)")
        #expect(!back.output.contains("$$"), "\(back.output)")
        #expect(
            try ArchiveDocument(data: back.standardOutput).tree == (try ArchiveDocument(data: Self.plainDocument).tree))
    }

    @Test("an XML property list refuses characters XML 1.0 forbids, naming the path; binary keeps them")
    func xmlControlCharacters() throws {
        let tree: ArchiveValue = ["notes": ["fine\ttab\nnewline", "bell\u{7}"], "key\u{1}": 1]
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveFormat.xmlPropertyList.write(tree)
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.path.description == "notes[1]")
        #expect(error?.message.contains("U+0007") == true)
        #expect(error?.message.contains("binary property list") == true)

        let keyError = #expect(throws: ArchiveError.self) {
            try ArchiveFormat.xmlPropertyList.write(["key\u{1}": 1] as ArchiveValue)
        }
        #expect(keyError?.path.description == #"["key\u{1}"]"#)
        #expect(try ArchivePath(parsing: #"["key\u{1}"]"#) == ArchivePath([.key("key\u{1}")]))

        let binary = try ArchiveFormat.binaryPropertyList.write(tree)
        #expect(try ArchiveFormat.binaryPropertyList.read(binary) == tree)
        // What the writer does write, tab, line feed and carriage return included, reads back.
        let fine: ArchiveValue = ["text": "tab\t, line\n, return\r, <&>"]
        #expect(try ArchiveFormat.xmlPropertyList.read(try ArchiveFormat.xmlPropertyList.write(fine)) == fine)
    }

    @Test("a reference to no object is a located error when an archive is read, in every format")
    func danglingReference() throws {
        let text =
            #"{"$archive": 1, "root": {"shapes": [{"$type": "Dot", "$id": 1}, {"$ref": 1}], "owner": {"$ref": 7}}}"#
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveFormat.read(Data(text.utf8))
        }
        #expect(error?.code == .unresolvedReference)
        #expect(error?.path.description == "root.owner")
        #expect(throws: ArchiveError.self) { try ArchiveDocument(data: Data(text.utf8)) }
        #expect(throws: ArchiveError.self) { try ArchiveDecoder().decode([String: Int].self, from: Data(text.utf8)) }

        // The same tree in a property list.
        let tree = try ArchiveFormat.json.read(Data(text.utf8))
        let plist = try ArchiveFormat.binaryPropertyList.write(tree)
        let plistError = #expect(throws: ArchiveError.self) { try ArchiveFormat.read(plist) }
        #expect(plistError?.path.description == "root.owner")

        // Resolved references read as before.
        let resolved = #"{"$archive": 1, "root": [{"$type": "Dot", "$id": 1}, {"$ref": 1}]}"#
        #expect(throws: Never.self) { try ArchiveFormat.read(Data(resolved.utf8)) }

        let folder = try ScratchFolder()
        let file = folder.url.appendingPathComponent("dangling.json")
        try Data(text.utf8).write(to: file)
        let run = try ToolProcess.run(["convert", file.path, "--to", "binary-plist"])
        #expect(run.status == 2)
        #expect(run.standardError.contains("points to no object"))
        #expect(run.standardError.contains("root.owner"))
    }
}
