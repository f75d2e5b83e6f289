import Foundation
import ModelVersioning

@testable import ArchiveMigrateKit

/// A scratch SQLite database, through the tool's own connection type.
struct TestDatabase {
    let url: URL

    /// Creates the file and runs `schema` in it.
    static func create(at url: URL, schema: String) throws -> TestDatabase {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let database = TestDatabase(url: url)
        try database.execute(schema)
        return database
    }

    func connection(readOnly: Bool = false) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: url.path, shownAs: url.lastPathComponent, readOnly: readOnly, busyTimeout: 10_000)
    }

    /// Runs statements without parameters.
    func execute(_ sql: String) throws {
        try connection().execute(sql, purpose: "set up")
    }

    /// Inserts rows with one statement, in one transaction.
    func insert(_ sql: String, rows: [[SQLiteValue]]) throws {
        let database = try connection()
        try database.execute("BEGIN", purpose: "insert")
        let statement = try database.prepare(sql, purpose: "insert")
        for row in rows {
            try statement.bind(row)
            _ = try statement.step()
            statement.reset()
        }
        try database.execute("COMMIT", purpose: "insert")
    }

    /// Every row of a query. (A read-write connection: after a kill, the first connection rolls
    /// the interrupted transaction back from its journal, which a read-only one cannot.)
    func rows(_ sql: String) throws -> [[SQLiteValue]] {
        let database = try connection()
        let statement = try database.prepare(sql, purpose: "query")
        var rows: [[SQLiteValue]] = []
        while try statement.step() {
            var row: [SQLiteValue] = []
            var index: Int32 = 0
            while true {
                // Columns past the last read as NULL; stop at the statement's width.
                guard index < statement.columnCount else { break }
                row.append(statement.value(at: index))
                index += 1
            }
            rows.append(row)
        }
        return rows
    }

    /// `PRAGMA integrity_check`'s answer (`ok` for a sound database).
    func integrityCheck() throws -> String {
        guard case .text(let text) = try rows("PRAGMA integrity_check").first?.first else { return "no answer" }
        return String(decoding: text, as: UTF8.self)
    }
}

extension SQLiteValue {
    /// The bytes of a TEXT or BLOB value.
    var bytes: Data? {
        switch self {
        case .text(let data), .blob(let data): return data
        default: return nil
        }
    }
}
