import Foundation
import ModelVersioning
import TestSupport
import Testing

@testable import ArchiveMigrateKit

/// `--sqlite` over a damaged database file: what SQLite answers is checked, so a b-tree that
/// answers rows out of key order is reported as damaged instead of being read for ever.
@Suite("damaged SQLite stores")
struct DamagedStoreTests {
    /// A table of `count` version 1 archives in pages of 1 KiB (a root page over a few leaves),
    /// whose root's second child pointer is made the first's: a seek past the first leaf's last
    /// rowid lands in the first leaf again, and SQLite answers `WHERE rowid > last` with rows up
    /// to `last`. Returns that rowid, the last one the first leaf holds.
    static func damagedDrawings(in scratch: ScratchFolder, count: Int) throws -> Int64 {
        let database = try TestDatabase.create(
            at: scratch.url.appendingPathComponent("sketch.sqlite"),
            schema: "PRAGMA page_size = 1024; CREATE TABLE drawings (id INTEGER PRIMARY KEY, doc TEXT)")
        try database.insert(
            "INSERT INTO drawings (doc) VALUES (?)",
            rows: try (0..<count).map { [.text(try SQLiteStoreTests.version1($0))] })
        try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        let roots = try database.rows("SELECT rootpage FROM sqlite_master WHERE name = 'drawings'")
        guard case .integer(let root) = roots.first?.first else { throw CocoaError(.fileReadCorruptFile) }

        var bytes = [UInt8](try Data(contentsOf: database.url))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let page = (Int(root) - 1) * pageSize
        // An interior table page (type 5): a 12-byte header, then a 2-byte offset per cell; a cell
        // is a 4-byte child page number and the largest rowid under it, as a varint.
        #expect(bytes[page] == 5, "the table needs a root page over leaves")
        func cell(_ index: Int) -> Int {
            page + (Int(bytes[page + 12 + 2 * index]) << 8 | Int(bytes[page + 13 + 2 * index]))
        }
        var lastRowid: Int64 = 0
        var offset = cell(0) + 4
        while true {
            let byte = bytes[offset]
            lastRowid = lastRowid << 7 | Int64(byte & 0x7F)
            offset += 1
            if byte < 0x80 { break }
        }
        let first = cell(0)
        let second = cell(1)
        bytes.replaceSubrange(second..<second + 4, with: bytes[first..<first + 4])
        try Data(bytes).write(to: database.url)
        return lastRowid
    }

    @Test("a b-tree that answers rows before the last one read stops the upgrade as a damaged database")
    func rowsOutOfOrder() throws {
        let scratch = try ScratchFolder()
        let lastOfFirstLeaf = try Self.damagedDrawings(in: scratch, count: 40)
        // Transactions of exactly the first leaf's rows: the second starts after its last rowid.
        // A dry run: the writes of a run that writes would meet the first leaf twice too (its
        // window UPDATE says a rowid names two rows), and the reads are what is tested here.
        let started = try ToolProcess.start(
            SQLiteStoreTests.arguments(
                "upgrade", column: "doc", "--batch-size", String(lastOfFirstLeaf), "--dry-run"),
            in: scratch.url)
        let run = try #require(try started.wait(seconds: 60), "the upgrade was still running after a minute")
        #expect(run.status == 2, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "sketch.sqlite is damaged: reading drawings in key order, id 1 came after id \(lastOfFirstLeaf)"),
            "\(run.standardError)")
        #expect(run.standardError.contains("SQLite's check of the file says: "))
        #expect(run.standardError.contains("out of order"), "\(run.standardError)")
    }

    @Test("inspect --sqlite over the same damaged table reports it as damaged too")
    func inspectRowsOutOfOrder() throws {
        let scratch = try ScratchFolder()
        _ = try Self.damagedDrawings(in: scratch, count: 40)
        let started = try ToolProcess.start(SQLiteStoreTests.arguments("inspect", column: "doc"), in: scratch.url)
        let run = try #require(try started.wait(seconds: 60), "inspect was still running after a minute")
        // One window of 1,000 rows reads the whole table: the first leaf comes twice within it.
        #expect(run.status != 0, "\(run.output)")
        #expect(run.standardError.contains("sketch.sqlite is damaged"), "\(run.standardError)")
    }
}
