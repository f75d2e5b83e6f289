import Foundation
import ModelVersioning
import TestSupport
import Testing

// Testable for the scratch database's own connection; the column is used through its public API.
@testable import ArchiveMigrateKit

/// An app that keeps archives in a SQLite column upgrades them from Swift with
/// `SQLiteArchiveColumn`, and gets what `archive-migrate upgrade --sqlite` gives: the same rows,
/// byte for byte, the same rows written, failed and rolled back.
@Suite("SQLite column: the Swift API and the tool")
struct SQLiteFrontDoorTests {
    /// Two copies of one table of drawings (JSON text in `doc`, keyed archives and JSON in `blob`,
    /// a NULL row), and the batch of the repository's rules file.
    static func copies(count: Int, broken: Set<Int> = []) throws -> (ScratchFolder, ArchiveBatch) {
        let scratch = try ScratchFolder()
        let database = try SQLiteStoreTests.drawings(in: scratch, count: count)
        for index in broken.sorted() {
            try database.execute("UPDATE drawings SET doc = '{\"$archive\": 1, \"root\": ' WHERE id = \(index)")
        }
        try FileManager.default.copyItem(at: database.url, to: scratch.url.appendingPathComponent("api.sqlite"))
        let rules = scratch.url.appendingPathComponent("rules.json")
        let catalog = try MigrationCatalog(
            rulesFile: ArchiveFormat.json.read(Data(contentsOf: rules), options: ArchiveReadingOptions(markup: .plain)),
            fileName: "rules.json")
        return (scratch, try ArchiveBatch(catalog: catalog))
    }

    static func rows(of path: URL) throws -> [[SQLiteValue]] {
        try TestDatabase(url: path).rows("SELECT id, typeof(doc), doc, typeof(blob), blob FROM drawings ORDER BY id")
    }

    @Test("both columns of a table, upgraded by each road: the same database, row for row and byte for byte")
    func sameRows() throws {
        let count = 9
        let (scratch, batch) = try Self.copies(count: count)
        let tool = scratch.url.appendingPathComponent("sketch.sqlite")
        let api = scratch.url.appendingPathComponent("api.sqlite")
        let original = try Self.rows(of: api)

        // A preview reads every row and writes none.
        for column in ["doc", "blob"] {
            let preview = try SQLiteArchiveColumn(path: api.path, table: "drawings", column: column)
                .upgradePreview(with: batch)
            #expect(preview.rows == count + 1 && preview.changed == count && preview.written == 0, "\(preview)")
        }
        #expect(try Self.rows(of: api) == original)

        for column in ["doc", "blob"] {
            let run = try ToolProcess.run(SQLiteStoreTests.arguments("upgrade", column: column), in: scratch.url)
            #expect(run.status == 0, "\(run.standardError)")
            let summary = try SQLiteArchiveColumn(path: api.path, table: "drawings", column: column)
                .upgrade(with: batch)
            #expect(run.standardError.contains("upgraded \(summary.written) of \(summary.rows) rows"), "\(summary)")
            #expect(summary.written == count && summary.nulls == 1 && summary.failures.isEmpty, "\(summary)")
        }
        let upgraded = try Self.rows(of: api)
        #expect(upgraded != original)
        #expect(upgraded == (try Self.rows(of: tool)))

        // Once current, neither road writes again.
        let again = try SQLiteArchiveColumn(path: api.path, table: "drawings", column: "doc").upgrade(with: batch)
        #expect(again.written == 0 && again.changed == 0 && again.rows == count + 1, "\(again)")
    }

    @Test("failed rows: the same rows named, the same transactions rolled back, the same database; or skipped")
    func sameFailures() throws {
        let (scratch, batch) = try Self.copies(count: 9, broken: [5, 8])
        let tool = scratch.url.appendingPathComponent("sketch.sqlite")
        let api = scratch.url.appendingPathComponent("api.sqlite")

        let run = try ToolProcess.run(
            SQLiteStoreTests.arguments("upgrade", column: "doc", "--batch-size", "3"), in: scratch.url)
        #expect(run.status == 2)
        var column = SQLiteArchiveColumn(path: api.path, table: "drawings", column: "doc")
        column.rowsPerTransaction = 3
        let summary = try column.upgrade(with: batch)
        #expect(summary.failures.map(\.row) == ["id 5", "id 8"])
        #expect(summary.failures.allSatisfy { $0.error.code == .malformedInput }, "\(summary.failures)")
        for failure in summary.failures {
            #expect(run.standardError.contains("\(failure.error)"), "\(failure.error)")
        }
        #expect(summary.written == 3 && summary.rolledBack == 6, "\(summary)")
        #expect(try Self.rows(of: api) == (try Self.rows(of: tool)))

        let skipping = try ToolProcess.run(
            SQLiteStoreTests.arguments("upgrade", column: "doc", "--batch-size", "3", "--skip-failed"), in: scratch.url)
        #expect(skipping.status == 1)
        column.skipsFailedRows = true
        let skipped = try column.upgrade(with: batch)
        #expect(skipped.written == 4 && skipped.rolledBack == 0 && skipped.failures.count == 2, "\(skipped)")
        #expect(try Self.rows(of: api) == (try Self.rows(of: tool)))
    }

    @Test("a table or column the database does not have is an error naming what it has")
    func unknownColumn() throws {
        let (scratch, batch) = try Self.copies(count: 1)
        let api = scratch.url.appendingPathComponent("api.sqlite")
        let error = try #require(throws: ArchiveError.self) {
            try SQLiteArchiveColumn(path: api.path, table: "drawings", column: "archive").upgrade(with: batch)
        }
        #expect(error.code == .invalidValue && error.message.contains("it has id, name, doc, blob"), "\(error)")
        let missing = try #require(throws: ArchiveError.self) {
            try SQLiteArchiveColumn(
                path: scratch.url.appendingPathComponent("none.sqlite").path, table: "t", column: "c"
            )
            .upgrade(with: batch)
        }
        #expect(missing.code == .io, "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("none.sqlite").path))
    }
}
