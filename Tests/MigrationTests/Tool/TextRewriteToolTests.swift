import Foundation
import ModelVersioning
import TestSupport
import Testing

@testable import ArchiveMigrateKit

/// `upgrade --ndjson` and `upgrade --sqlite` rewrite the text of JSON archives whose old objects
/// only move keys, when no one reads their migration reports (the text report counts rows and
/// lines); the JSON report takes every archive through the tree. Both must write the same bytes,
/// and those must be what reading, migrating and writing the tree gives.
@Suite("Rows and lines upgraded by rewriting their text")
struct TextRewriteToolTests {
    static func writeRules(in scratch: ScratchFolder) throws {
        try Data(KeyMovingArchives.rules.utf8).write(to: scratch.url.appendingPathComponent("rules.json"))
    }

    /// What a line or row must become: the tree path's bytes when it changed, the same bytes
    /// when it did not; `nil` when the tree path fails.
    static func expected(_ archive: String, catalog: MigrationCatalog) -> String? {
        guard let tree = KeyMovingArchives.treePath(Data(archive.utf8), catalog: catalog) else { return nil }
        return tree.changed ? String(decoding: tree.output, as: UTF8.self) : archive
    }

    @Test("--ndjson: the text report's run and the JSON report's run write the same lines, the tree path's")
    func ndjsonLines() throws {
        let scratch = try ScratchFolder()
        try Self.writeRules(in: scratch)
        var generator = ArchiveTextGenerator(seed: 0x11E5, singleLine: true)
        let lines = (0..<400).map { _ in generator.document() }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: scratch.url.appendingPathComponent("in.ndjson"))
        let arguments = ["upgrade", "--ndjson", "in.ndjson", "--rules", "rules.json"]
        let rewritten = try ToolProcess.run(arguments, in: scratch.url)
        let tree = try ToolProcess.run(arguments + ["--format", "json"], in: scratch.url)
        #expect(rewritten.status == 2 && tree.status == 2, "some lines are broken on purpose")
        #expect(rewritten.standardOutput == tree.standardOutput)

        let catalog = try KeyMovingArchives.catalog()
        let output = rewritten.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(output.count == lines.count + 1)
        var changed = 0
        for (index, line) in lines.enumerated() {
            guard let expected = Self.expected(line, catalog: catalog) else { continue }
            #expect(String(output[index]) == expected, "line \(index + 1): \(line)")
            if expected != line { changed += 1 }
        }
        #expect(changed > lines.count / 3)
    }

    @Test("--sqlite: TEXT and BLOB rows, any layout, come out as the tree path writes them, in either report")
    func sqliteRows() throws {
        let scratch = try ScratchFolder()
        try Self.writeRules(in: scratch)
        var generator = ArchiveTextGenerator(seed: 0x5011)
        let archives = (0..<300).map { _ in generator.document() }
        let first = try TestDatabase.create(
            at: scratch.url.appendingPathComponent("text.sqlite"),
            schema: "CREATE TABLE items (id INTEGER PRIMARY KEY, doc TEXT, data BLOB)")
        try first.insert(
            "INSERT INTO items (doc, data) VALUES (?, ?)",
            rows: archives.map { [.text(Data($0.utf8)), .blob(Data($0.utf8))] })
        try FileManager.default.copyItem(
            at: first.url, to: scratch.url.appendingPathComponent("tree.sqlite"))
        let second = TestDatabase(url: scratch.url.appendingPathComponent("tree.sqlite"))
        for column in ["doc", "data"] {
            let arguments = [
                "upgrade", "--table", "items", "--column", column, "--rules", "rules.json", "--skip-failed",
            ]
            let rewritten = try ToolProcess.run(arguments + ["--sqlite", "text.sqlite"], in: scratch.url)
            let tree = try ToolProcess.run(
                arguments + ["--sqlite", "tree.sqlite", "--format", "json"], in: scratch.url)
            #expect(rewritten.status == 1 && tree.status == 1, "broken rows are skipped: \(rewritten.standardError)")
        }
        let rows = try first.rows("SELECT doc, data, typeof(doc), typeof(data) FROM items ORDER BY id")
        #expect(try second.rows("SELECT doc, data, typeof(doc), typeof(data) FROM items ORDER BY id") == rows)

        let catalog = try KeyMovingArchives.catalog()
        var changed = 0
        for (archive, row) in zip(archives, rows) {
            guard let expected = Self.expected(archive, catalog: catalog) else { continue }
            #expect(row[0].bytes.map { String(decoding: $0, as: UTF8.self) } == expected, "\(archive)")
            #expect(row[1].bytes.map { String(decoding: $0, as: UTF8.self) } == expected, "\(archive)")
            #expect(row[2] == .text(Data("text".utf8)) && row[3] == .text(Data("blob".utf8)))
            if expected != archive { changed += 1 }
        }
        #expect(changed > archives.count / 3)
    }
}
