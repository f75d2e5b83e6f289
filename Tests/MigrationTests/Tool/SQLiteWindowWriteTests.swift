import ArchiveFormats
import Foundation
import ModelVersioning
import TestSupport
import Testing

@testable import ArchiveMigrateKit

/// `upgrade --sqlite` writes a window's new archives with one `UPDATE` over the window's key
/// range, asking its own SQL functions which rows of the range have a new archive: only those
/// rows are written, each once, whatever the keys (rowids with gaps and below zero, text keys
/// in a case-insensitive collation, keys of two columns); a row that vanishes under the
/// `UPDATE`, or that a trigger keeps as it was, is named and its transaction rolled back; a key
/// holding NULL, which SQL cannot match, writes nothing.
@Suite("SQLite: one UPDATE per window")
struct SQLiteWindowWriteTests {
    /// The Shape chain: version 1 to 4 only moves keys.
    static let rules = """
        {"formatVersion": 1, "types": {"Shape": {"currentVersion": 4, "steps": [
          {"from": 1, "to": 2, "rules": [{"rename": "name", "to": "title"}]},
          {"from": 2, "to": 3, "rules": [{"nest": ["x", "y"], "into": "center"}]},
          {"from": 3, "to": 4, "rules": [{"add": "visible", "default": true}]}]}}}
        """

    static func old(_ index: Int) -> Data {
        Data(#"{"$type":"Shape","$version":1,"id":\#(index),"name":"s\#(index)","x":\#(index),"y":2}"#.utf8)
    }

    static func current(_ index: Int) -> Data {
        Data(
            #"{"$type":"Shape","$version":4,"id":\#(index),"title":"s\#(index)","center":{"x":\#(index),"y":2},"visible":false}"#
                .utf8)
    }

    static func upgraded(_ index: Int) -> Data {
        Data(
            #"{"$type":"Shape","$version":4,"id":\#(index),"title":"s\#(index)","center":{"x":\#(index),"y":2},"visible":true}"#
                .utf8)
    }

    /// Every third row is already current; the others are version 1.
    static func isOld(_ index: Int) -> Bool { index % 3 != 0 }

    static func archive(_ index: Int) -> Data { isOld(index) ? old(index) : current(index) }

    /// A scratch folder with the Shape rules and the database `shapes.sqlite` made by `schema`.
    static func store(_ schema: String) throws -> (scratch: ScratchFolder, database: TestDatabase) {
        let scratch = try ScratchFolder()
        try scratch.write(rules, to: "rules.json")
        let database = try TestDatabase.create(at: scratch.url.appendingPathComponent("shapes.sqlite"), schema: schema)
        return (scratch, database)
    }

    /// `upgrade --sqlite shapes.sqlite --table shapes --column archive --rules rules.json`, then `more`.
    static func upgrade(_ more: String..., in scratch: ScratchFolder) throws -> ToolProcess.Run {
        try ToolProcess.run(
            [
                "upgrade", "--sqlite", "shapes.sqlite", "--table", "shapes", "--column", "archive", "--rules",
                "rules.json",
            ]
                + more, in: scratch.url)
    }

    @Test("rowids with gaps and below zero, over several windows: only the old rows are written, each once")
    func rowidTable() throws {
        let (scratch, database) = try Self.store(
            """
            CREATE TABLE shapes (id INTEGER PRIMARY KEY, archive TEXT);
            CREATE TABLE log (id INTEGER);
            CREATE TRIGGER logged AFTER UPDATE ON shapes BEGIN INSERT INTO log VALUES (new.id); END;
            """)
        // 2,500 rows: three windows of the batch, rowids from -700 up with gaps of 1 to 4.
        let count = 2_500
        let ids: [Int64] = (0..<count).map { index -> Int64 in
            let spaced: Int64 = Int64(index) * 3 - 700
            return spaced + Int64(index % 2)
        }
        try database.insert(
            "INSERT INTO shapes (id, archive) VALUES (?, ?)",
            rows: (0..<count).map { [.integer(ids[$0]), .text(Self.archive($0))] })

        let run = try Self.upgrade(in: scratch)
        #expect(run.status == 0, "\(run.standardError)")
        let old = (0..<count).filter(Self.isOld)
        let summary = "upgraded \(old.count) of \(count) rows"
        #expect(run.standardError.contains(summary), "\(run.standardError)")

        let rows = try database.rows("SELECT id, archive FROM shapes ORDER BY id")
        #expect(rows.count == count)
        for (index, row) in rows.enumerated() {
            #expect(row[0] == .integer(ids[index]))
            let expected = Self.isOld(index) ? Self.upgraded(index) : Self.current(index)
            #expect(row[1] == .text(expected), "row \(ids[index])")
        }
        // The trigger saw each old row once, and no current one.
        let logged = try database.rows("SELECT id FROM log ORDER BY id").map { $0[0] }
        #expect(logged == old.map { .integer(ids[$0]) })
        #expect(try database.integrityCheck() == "ok")
    }

    @Test("keys of two columns, one of them text in a case-insensitive collation, in a table without rowid")
    func twoColumnKey() throws {
        let (scratch, database) = try Self.store(
            """
            CREATE TABLE shapes (owner TEXT COLLATE NOCASE, n INTEGER, archive BLOB, PRIMARY KEY (owner, n))
            WITHOUT ROWID;
            CREATE TABLE log (owner TEXT, n INTEGER);
            CREATE TRIGGER logged AFTER UPDATE ON shapes BEGIN INSERT INTO log VALUES (new.owner, new.n); END;
            """)
        // Owners differ in case only where the collation orders them together ("ann", "Bob", "bob2").
        let owners = ["ann", "Bob", "bob2", "Émile"]
        var keys: [(String, Int64)] = []
        for owner in owners {
            for n in [-2, 0, 7, 1_000] { keys.append((owner, Int64(n))) }
        }
        try database.insert(
            "INSERT INTO shapes VALUES (?, ?, ?)",
            rows: keys.enumerated().map { index, key in
                [.text(Data(key.0.utf8)), .integer(key.1), .blob(Self.archive(index))]
            })
        // Windows of 5 rows: the key ranges cut through an owner's rows.
        let run = try Self.upgrade("--key", "owner", "--key", "n", "--batch-size", "5", in: scratch)
        #expect(run.status == 0, "\(run.standardError)")
        let rows = try database.rows("SELECT owner, n, archive FROM shapes")
        #expect(rows.count == keys.count)
        for row in rows {
            let index = try #require(
                keys.firstIndex { .text(Data($0.0.utf8)) == row[0] && .integer($0.1) == row[1] })
            let expected = Self.isOld(index) ? Self.upgraded(index) : Self.current(index)
            #expect(row[2] == .blob(expected), "row \(keys[index])")
        }
        let logged = try database.rows("SELECT owner, n FROM log")
        #expect(logged.count == keys.indices.filter(Self.isOld).count)
        #expect(
            Set(logged.map { "\($0[0].literal) \($0[1].literal)" }).count == logged.count, "a row was written twice")
        #expect(try database.integrityCheck() == "ok")
    }

    @Test(
        "a row a trigger deletes or keeps as it was while its window is written is named, and its transaction is rolled back",
        arguments: [
            ("DELETE FROM shapes WHERE id = 14", "id 14 of shapes is gone: no row was written"),
            ("DELETE FROM shapes WHERE id = old.id", "id 12 of shapes is gone: no row was written"),
            ("SELECT RAISE(IGNORE)", "id 12 of shapes was not written: the UPDATE left it as it was"),
        ])
    func rowNotWrittenUnderTheUpdate(trigger: String, message: String) throws {
        let (scratch, database) = try Self.store(
            """
            CREATE TABLE shapes (id INTEGER PRIMARY KEY, archive TEXT);
            CREATE TRIGGER vanish BEFORE UPDATE ON shapes WHEN old.id = 12 BEGIN \(trigger); END;
            """)
        try database.insert(
            "INSERT INTO shapes (id, archive) VALUES (?, ?)",
            rows: (1...20).map { [.integer(Int64($0)), .text(Self.old($0))] })
        let before = try database.rows("SELECT id, archive FROM shapes ORDER BY id")

        // Transactions of 10 rows: 1–10 are written, 11–20 rolled back.
        let run = try Self.upgrade("--batch-size", "10", in: scratch)
        #expect(run.status == 2, "\(run.standardError)")
        #expect(run.standardError.contains(message), "\(run.standardError)")
        let after = try database.rows("SELECT id, archive FROM shapes ORDER BY id")
        #expect(after.count == 20, "the deletion was rolled back with its transaction")
        for (index, row) in after.enumerated() {
            let id = index + 1
            #expect(row == (id <= 10 ? [.integer(Int64(id)), .text(Self.upgraded(id))] : before[index]), "row \(id)")
        }
    }

    @Test(
        "a key holding NULL (a unique index lets NULLs repeat) is named and nothing of its transaction is written",
        arguments: [true, false])
    func keyHoldingNull(bothOld: Bool) throws {
        let (scratch, database) = try Self.store(
            "CREATE TABLE shapes (a INTEGER, b INTEGER, archive TEXT, UNIQUE (a, b))")
        // Two rows with the key (1, NULL): the unique index allows it.
        let rows: [[SQLiteValue]] = [
            [.integer(0), .integer(5), .text(Self.old(1))],
            [.integer(1), .null, .text(Self.old(2))],
            [.integer(1), .null, .text(bothOld ? Self.old(3) : Self.current(3))],
            [.integer(2), .integer(0), .text(Self.old(4))],
        ]
        try database.insert("INSERT INTO shapes VALUES (?, ?, ?)", rows: rows)
        let before = try database.rows("SELECT rowid, archive FROM shapes ORDER BY rowid")

        let run = try Self.upgrade("--key", "a", "--key", "b", in: scratch)
        #expect(run.status == 2, "\(run.standardError)")
        #expect(
            run.standardError.contains("a 1 and b NULL of shapes was not written: a key holding NULL names no row"),
            "\(run.standardError)")
        #expect(try database.rows("SELECT rowid, archive FROM shapes ORDER BY rowid") == before)
    }

    @Test("a partial unique index, or one with an expression, does not make --key columns name one row")
    func keysOfIndexesThatDoNotCoverTheColumns() throws {
        let (scratch, database) = try Self.store(
            """
            CREATE TABLE shapes (k INTEGER, j INTEGER, name TEXT, m INTEGER, archive TEXT);
            CREATE UNIQUE INDEX partly ON shapes (k) WHERE k > 0;
            CREATE UNIQUE INDEX computed ON shapes (j, lower(name));
            CREATE UNIQUE INDEX whole ON shapes (m);
            """)
        try database.insert(
            "INSERT INTO shapes VALUES (?, ?, ?, ?, ?)",
            rows: (0..<3).map { index in
                [
                    .integer(-1), .integer(7), .text(Data("n\(index)".utf8)), .integer(Int64(index)),
                    .text(Self.old(index)),
                ]
            })
        for key in ["k", "j"] {
            let run = try Self.upgrade("--key", key, in: scratch)
            #expect(run.status == 2, "--key \(key): \(run.standardError)")
            #expect(run.standardError.contains("may name several rows"), "--key \(key): \(run.standardError)")
        }
        let run = try Self.upgrade("--key", "m", in: scratch)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("upgraded 3 of 3 rows"), "\(run.standardError)")
        let rows = try database.rows("SELECT archive FROM shapes ORDER BY m")
        #expect(rows == (0..<3).map { [.text(Self.upgraded($0))] })
    }

    @Test("a window's writes with a repeated key are refused before the UPDATE runs")
    func repeatedKeysAmongWrites() {
        let bytes = ArchiveBytes.copy(of: Self.upgraded(1))
        let byRowid = PendingWrites(byRowid: true, keyNames: ["id"])
        #expect(
            byRowid.start([1, 2, 3].map { SQLiteColumn.Write(key: .rowid($0), bytes: bytes, isText: true) }) == nil)
        byRowid.finish()
        #expect(
            byRowid.start([1, 2, 2].map { SQLiteColumn.Write(key: .rowid($0), bytes: bytes, isText: true) })
                == .rowid(2))
        byRowid.finish()
        let byColumns = PendingWrites(byRowid: false, keyNames: ["a", "b"])
        let keys: [SQLiteColumn.Key] = [
            .columns([.integer(1), .text(Data("x".utf8))]), .columns([.integer(1), .text(Data("X".utf8))]),
            .columns([.integer(1), .text(Data("x".utf8))]),
        ]
        #expect(byColumns.start(keys.prefix(2).map { SQLiteColumn.Write(key: $0, bytes: bytes, isText: true) }) == nil)
        byColumns.finish()
        #expect(byColumns.start(keys.map { SQLiteColumn.Write(key: $0, bytes: bytes, isText: true) }) == keys[0])
    }
}
