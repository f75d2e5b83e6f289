import Foundation
import ModelVersioning
import TestSupport
import Testing

@testable import ArchiveMigrateKit

/// `archive-migrate upgrade|downgrade|inspect|check --sqlite FILE --table T --column C`: every
/// row's archive migrated and written back in its own format and storage class, in batched
/// transactions; rows already current are left alone; a failing row rolls back its
/// transaction; identifiers are quoted; another connection's lock is waited for, then named.
@Suite("SQLite stores")
struct SQLiteStoreTests {
    static let sketches = ["empty", "floor-plan", "kyoto-trip"]

    /// A version 1 Sketch archive, as JSON text.
    static func version1(_ index: Int) throws -> Data {
        try Fixture.data("archives/Sketch/v1/\(sketches[index % 3]).json")
    }

    /// The same archive as NSKeyedArchiver writes it.
    static func keyedVersion1(_ index: Int) throws -> Data {
        try ArchiveFormat.keyedArchive.write(try ArchiveFormat.json.read(try version1(index)))
    }

    static func golden(_ index: Int) throws -> ArchiveValue {
        try Fixture.tree("archives/Sketch/expected/v1/\(sketches[index % 3]).json")
    }

    /// The differences from the golden, as the fixture suite compares them (a key holding null
    /// equals a missing one).
    static func differences(_ data: Data, from index: Int) throws -> [ArchiveDifference] {
        let (tree, _) = try ArchiveFormat.read(data)
        return ArchiveDiff.differences(
            from: try golden(index), to: tree, options: ArchiveDiff.Options(nullMeansAbsent: true))
    }

    /// A table of `count` drawings: `doc` TEXT holds the JSON archive, `blob` BLOB a keyed
    /// archive (even rows) or the JSON bytes (odd rows); the last row is NULL in both.
    static func drawings(in scratch: ScratchFolder, count: Int) throws -> TestDatabase {
        let database = try TestDatabase.create(
            at: scratch.url.appendingPathComponent("sketch.sqlite"),
            schema: "CREATE TABLE drawings (id INTEGER PRIMARY KEY, name TEXT, doc TEXT, blob BLOB)")
        var rows: [[SQLiteValue]] = []
        for index in 0..<count {
            rows.append([
                .text(Data(sketches[index % 3].utf8)), .text(try version1(index)),
                .blob(index % 2 == 0 ? try keyedVersion1(index) : try version1(index)),
            ])
        }
        rows.append([.text(Data("nothing yet".utf8)), .null, .null])
        try database.insert("INSERT INTO drawings (name, doc, blob) VALUES (?, ?, ?)", rows: rows)
        try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        return database
    }

    /// A table `drawings` whose one column `doc` is TEXT, holding `values` in order (rowids 1,
    /// 2, …), and the Sketch rules file beside it unless `rules` are given.
    static func textColumn(_ values: [Data], in scratch: ScratchFolder, rules: String? = nil) throws -> TestDatabase {
        let database = try TestDatabase.create(
            at: scratch.url.appendingPathComponent("sketch.sqlite"),
            schema: "CREATE TABLE drawings (id INTEGER PRIMARY KEY, doc TEXT)")
        try database.insert("INSERT INTO drawings (doc) VALUES (?)", rows: values.map { [.text($0)] })
        if let rules {
            try Data(rules.utf8).write(to: scratch.url.appendingPathComponent("rules.json"))
        } else {
            try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        }
        return database
    }

    static func arguments(_ command: String, column: String, _ more: String...) -> [String] {
        [command, "--sqlite", "sketch.sqlite", "--table", "drawings", "--column", column, "--rules", "rules.json"]
            + more
    }

    @Test("v1 Sketch archives in a TEXT and a BLOB column (JSON and keyed archives) upgrade to the goldens, once")
    func upgradeToGoldens() throws {
        let scratch = try ScratchFolder()
        let count = 12
        let database = try Self.drawings(in: scratch, count: count)
        let file = database.url
        let original = try Data(contentsOf: file)

        // --dry-run reports what would change and writes nothing.
        for column in ["doc", "blob"] {
            let dry = try ToolProcess.run(Self.arguments("upgrade", column: column, "--dry-run"), in: scratch.url)
            #expect(dry.status == 1, "\(dry.standardError)")
            #expect(dry.standardError.contains("dry run: \(count) of \(count + 1) rows of drawings.\(column)"))
            #expect(try Data(contentsOf: file) == original)
        }

        for column in ["doc", "blob"] {
            let run = try ToolProcess.run(Self.arguments("upgrade", column: column), in: scratch.url)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError.contains("upgraded \(count) of \(count + 1) rows of drawings.\(column)"))
        }
        let rows = try database.rows("SELECT id, typeof(doc), doc, typeof(blob), blob FROM drawings ORDER BY id")
        #expect(rows.count == count + 1)
        for (index, row) in rows.prefix(count).enumerated() {
            #expect(row[1] == .text(Data("text".utf8)) && row[3] == .text(Data("blob".utf8)), "row \(index + 1)")
            let doc = try #require(row[2].bytes)
            let blob = try #require(row[4].bytes)
            #expect(try ArchiveDocument(data: doc).format == .json)
            #expect(try ArchiveDocument(data: blob).format == (index % 2 == 0 ? .keyedArchive : .json))
            let docDifferences = try Self.differences(doc, from: index)
            let blobDifferences = try Self.differences(blob, from: index)
            #expect(docDifferences.isEmpty, "row \(index + 1): \(docDifferences)")
            #expect(blobDifferences.isEmpty, "row \(index + 1): \(blobDifferences)")
        }
        #expect(rows.last?[2] == .null && rows.last?[4] == .null)

        // Every row is at today's versions: nothing left to migrate, and a second run writes nothing.
        let inspect = try ToolProcess.run(Self.arguments("inspect", column: "blob"), in: scratch.url)
        #expect(inspect.output.contains("Sketch v4: \(count) rows"), "\(inspect.output)")
        #expect(inspect.output.contains("upgrade: nothing to migrate"))
        #expect(!inspect.output.contains("Sketch v1"))
        let upgraded = try Data(contentsOf: file)
        for column in ["doc", "blob"] {
            let again = try ToolProcess.run(Self.arguments("upgrade", column: column), in: scratch.url)
            #expect(again.status == 0, "\(again.standardError)")
            #expect(again.standardError.contains("upgraded 0 of \(count + 1) rows"), "\(again.standardError)")
            let dry = try ToolProcess.run(Self.arguments("upgrade", column: column, "--dry-run"), in: scratch.url)
            #expect(dry.status == 0, "nothing would change: \(dry.standardError)")
        }
        #expect(try Data(contentsOf: file) == upgraded)
        #expect(try database.integrityCheck() == "ok")
    }

    @Test("a keyed archive kept as TEXT is not written back as binary: the row fails, and is left as it was")
    func keyedArchiveAsText() throws {
        let scratch = try ScratchFolder()
        // SQLite keeps any bytes in a TEXT value, a binary keyed archive's too.
        let keyed = try Self.keyedVersion1(0)
        #expect(ArchiveFormat.detect(keyed) == .keyedArchive)
        let database = try Self.textColumn([keyed], in: scratch)
        let before = try database.rows("SELECT doc FROM drawings")

        let run = try ToolProcess.run(Self.arguments("upgrade", column: "doc"), in: scratch.url)
        #expect(run.status == 2, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "a keyed-archive kept as TEXT would be written back binary; store it as a BLOB (of drawings.doc, row id 1)"
            ), "\(run.standardError)")
        #expect(try database.rows("SELECT doc FROM drawings") == before)
    }

    @Test("a row that fails is reported with its key and the located error, and its transaction is rolled back")
    func failingRowRollsBackItsTransaction() throws {
        let scratch = try ScratchFolder()
        // Row 5: a model kind release 2.0's map does not have; row 8: not an archive at all.
        let bad =
            #"{"$archive": 1, "document": "Sketch", "documentVersion": 2, "root": {"$type": "Drawing", "$version": 2, "#
            + ##""title": "t", "meta": {"author": "a"}, "canvasColor": "#FFF", "shapes": [], "models": [{"$type": "##
            + #""Model", "$version": 2, "name": "x", "category": "photo", "kind": 9, "para": 0}]}}"#
        let texts = try (0..<9).map { index in
            index == 4
                ? Data(bad.utf8) : index == 7 ? Data(#"{"$archive": 1, "root": "#.utf8) : try Self.version1(index)
        }
        let database = try Self.textColumn(texts, in: scratch)
        let before = try database.rows("SELECT doc FROM drawings ORDER BY id")

        // Transactions of 3 rows: 1–3 are written, 4–6 (row 5 fails) and 7–9 (row 8) rolled back.
        let run = try ToolProcess.run(Self.arguments("upgrade", column: "doc", "--batch-size", "3"), in: scratch.url)
        #expect(run.status == 2)
        #expect(run.standardError.contains("at models[0].kind (of drawings.doc, row id 5)"), "\(run.standardError)")
        #expect(run.standardError.contains("no mapping for 9"))
        #expect(run.standardError.contains("(line 1, column 25 of drawings.doc, row id 8)"), "\(run.standardError)")
        #expect(run.standardError.contains("2 rows failed: their 2 transactions (6 rows) were rolled back"))
        let after = try database.rows("SELECT doc FROM drawings ORDER BY id")
        for index in 0..<9 {
            if index < 3 {
                #expect(try Self.differences(try #require(after[index][0].bytes), from: index).isEmpty)
            } else {
                #expect(after[index] == before[index], "row \(index + 1) was written")
            }
        }
        let json = try ToolProcess.run(
            Self.arguments("upgrade", column: "doc", "--dry-run", "--format", "json"), in: scratch.url)
        let report = try ArchiveFormat.json.read(Data(json.standardError.utf8))
        let failed = try #require(report["rows"]?.arrayValue?.filter { $0["ok"] == false })
        #expect(failed.map { $0["row"] } == ["id 5", "id 8"])
        #expect(failed.first?["path"] == "models[0].kind" && failed.first?["code"] == "migrationFailed")

        // --skip-failed writes every other row and lists the failing ones.
        let skipping = try ToolProcess.run(
            Self.arguments("upgrade", column: "doc", "--batch-size", "3", "--skip-failed"), in: scratch.url)
        #expect(skipping.status == 1, "rows were skipped: \(skipping.standardError)")
        #expect(skipping.standardError.contains("skipped: ") && skipping.standardError.contains("row id 5"))
        #expect(
            skipping.standardError.contains(
                "upgraded 4 of 9 rows of drawings.doc in sketch.sqlite (3 already upgraded, 2 skipped)"),
            "\(skipping.standardError)")
        let final = try database.rows("SELECT doc FROM drawings ORDER BY id")
        #expect(final[4] == before[4] && final[7] == before[7])
        for index in [3, 5, 6, 8] {
            #expect(try Self.differences(try #require(final[index][0].bytes), from: index).isEmpty, "row \(index + 1)")
        }
    }

    @Test(
        "a failing row rolls back a transaction of several windows, whether it is in the first window or the last",
        arguments: [100, 2_400])
    func failingRowRollsBackEveryWindow(failing: Int) throws {
        // 2,500 rows in one transaction (the default batch of 100,000) are read, migrated and
        // written a window of 1,000 at a time, the next window migrated while the one before is
        // written: a failure in any window leaves every row of the transaction as it was.
        #expect(SQLiteBatch.windowRows < 2_500)
        let scratch = try ScratchFolder()
        let database = try Self.textColumn(
            try (0..<2_500).map { index in
                index == failing ? Data(#"{"$archive": 1, "root": "#.utf8) : try Self.version1(index)
            }, in: scratch)
        let before = try database.rows("SELECT doc FROM drawings ORDER BY id")

        let run = try ToolProcess.run(Self.arguments("upgrade", column: "doc"), in: scratch.url)
        #expect(run.status == 2)
        #expect(run.standardError.contains("row id \(failing + 1))"), "\(run.standardError)")
        #expect(run.standardError.contains("1 row failed: its 1 transaction (2500 rows) was rolled back"))
        #expect(try database.rows("SELECT doc FROM drawings ORDER BY id") == before)
        #expect(try database.integrityCheck() == "ok")
    }

    @Test("a transaction of large archives ends after 32 MiB of them, however few rows that is")
    func transactionsOfLargeArchives() throws {
        // 40 archives of 1 MiB: the first transaction reads two windows of 16 (16 MiB each), the
        // second the last 8, one of which fails: only those 8 are rolled back.
        #expect(SQLiteBatch.transactionBytes == 32 << 20 && SQLiteBatch.windowBytes == 16 << 20)
        let scratch = try ScratchFolder()
        let large = Data(
            #"{"$type":"Board","$version":1,"user":"\#(String(repeating: "a", count: 1 << 20))","shapes":[]}"#.utf8)
        let broken = Data(#"{"$type": "Board""#.utf8)
        let database = try Self.textColumn(
            (0..<40).map { $0 == 35 ? broken : large }, in: scratch, rules: KeyMovingArchives.rules)
        let run = try ToolProcess.run(Self.arguments("upgrade", column: "doc"), in: scratch.url)
        #expect(run.status == 2)
        #expect(
            run.standardError.contains("1 row failed: its 1 transaction (8 rows) was rolled back"),
            "\(run.standardError)")
        let rows = try database.rows("SELECT doc FROM drawings ORDER BY id")
        for (index, row) in rows.enumerated() {
            let upgraded = row[0].bytes.map { String(decoding: $0.prefix(40), as: UTF8.self).contains("\"owner\"") }
            #expect(upgraded == (index < 32), "row \(index + 1)")
        }
    }

    @Test("identifiers are quoted; a table without a rowid needs --key, which must name one row")
    func identifiersAndKeys() throws {
        let scratch = try ScratchFolder()
        let table = #"my "odd" table; DROP TABLE x"#
        let database = try TestDatabase.create(
            at: scratch.url.appendingPathComponent("sketch.sqlite"),
            schema: """
                CREATE TABLE "my ""odd"" table; DROP TABLE x" ("the id" TEXT PRIMARY KEY, "the doc" BLOB, n INTEGER)
                WITHOUT ROWID;
                CREATE TABLE x (a);
                """)
        try database.insert(
            #"INSERT INTO "my ""odd"" table; DROP TABLE x" VALUES (?, ?, ?)"#,
            rows: try (0..<3).map { [.text(Data("drawing '\($0)'".utf8)), .blob(try Self.version1($0)), .integer(1)] })
        try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        let base = [
            "upgrade", "--sqlite", "sketch.sqlite", "--table", table, "--column", "the doc", "--rules", "rules.json",
        ]

        let noKey = try ToolProcess.run(base, in: scratch.url)
        #expect(noKey.status == 2)
        #expect(noKey.standardError.contains("has no rowid"), "\(noKey.standardError)")
        #expect(noKey.standardError.contains("--key") && noKey.standardError.contains("its primary key: the id"))
        let notUnique = try ToolProcess.run(base + ["--key", "n"], in: scratch.url)
        #expect(notUnique.status == 2)
        #expect(notUnique.standardError.contains("may name several rows"), "\(notUnique.standardError)")
        let noTable = try ToolProcess.run(
            [
                "upgrade", "--sqlite", "sketch.sqlite", "--table", "drawings", "--column", "doc", "--rules",
                "rules.json",
            ],
            in: scratch.url)
        #expect(noTable.status == 2)
        #expect(
            noTable.standardError.contains("has no such table (it has my \"odd\" table; DROP TABLE x, x)"),
            "\(noTable.standardError)")

        let run = try ToolProcess.run(base + ["--key", "the id"], in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("upgraded 3 of 3 rows"))
        #expect(try database.rows("SELECT count(*) FROM x") == [[.integer(0)]], "the table x is still there")
        let rows = try database.rows(#"SELECT "the doc" FROM "my ""odd"" table; DROP TABLE x" ORDER BY "the id""#)
        for (index, row) in rows.enumerated() {
            #expect(try Self.differences(try #require(row[0].bytes), from: index).isEmpty)
        }
    }

    @Test("a database another connection holds locked is waited for, then named in a clear error")
    func busyDatabase() throws {
        let scratch = try ScratchFolder()
        let database = try Self.drawings(in: scratch, count: 3)
        let original = try Data(contentsOf: database.url)
        let holder = try database.connection()
        try holder.execute("BEGIN EXCLUSIVE", purpose: "lock")
        let started = Date()
        let run = try ToolProcess.run(
            Self.arguments("upgrade", column: "doc", "--busy-timeout", "300"), in: scratch.url)
        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(run.status == 2)
        #expect(run.standardError.contains("another connection holds a lock on the database"), "\(run.standardError)")
        #expect(run.standardError.contains("within 300 ms"))
        try holder.execute("ROLLBACK", purpose: "unlock")
        #expect(try Data(contentsOf: database.url) == original)
        let again = try ToolProcess.run(Self.arguments("upgrade", column: "doc"), in: scratch.url)
        #expect(again.status == 0, "\(again.standardError)")
    }

    @Test("inspect --sqlite shows the histogram of formats, document and type versions; check --sqlite gates on it")
    func inspectAndCheck() throws {
        let scratch = try ScratchFolder()
        let database = try Self.drawings(in: scratch, count: 6)
        let inspect = try ToolProcess.run(Self.arguments("inspect", column: "blob"), in: scratch.url)
        #expect(inspect.status == 0, "\(inspect.standardError)")
        for line in [
            "sketch.sqlite drawings.blob: 7 rows (1 NULL)", "json:          3", "keyed-archive: 3", "Sketch v1: 6 rows",
            "Circle v1:  4 objects in 2 rows", "upgrade would change 6 rows:", "document Sketch v1 → v4: 6",
        ] {
            #expect(inspect.output.contains(line), "\(line) in:\n\(inspect.output)")
        }
        let json = try ToolProcess.run(Self.arguments("inspect", column: "blob", "--format", "json"), in: scratch.url)
        let census = try ArchiveFormat.json.read(json.standardOutput)
        #expect(census["rows"] == 7 && census["empty"] == 1 && census["wouldChange"] == 6)
        #expect(census["documents"]?["Sketch v1"] == 6)
        #expect(census["formats"]?["keyed-archive"] == 3)

        let check = try ToolProcess.run(
            ["check", "--sqlite", "sketch.sqlite", "--table", "drawings", "--column", "doc", "--rules", "rules.json"],
            in: scratch.url)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("check passed"))
        try database.execute(#"UPDATE drawings SET doc = '{"$archive": 1, "documentVersion": "one"' WHERE id = 2"#)
        let failing = try ToolProcess.run(
            ["check", "--sqlite", "sketch.sqlite", "--table", "drawings", "--column", "doc", "--rules", "rules.json"],
            in: scratch.url)
        #expect(failing.status == 1)
        #expect(failing.output.contains("id 2:"), "\(failing.output)")
        #expect(failing.output.contains("check failed: 1 of 7 rows"))
    }

    @Test("the Core Data store of the article 'Migrating archives in stores': its commands, as written, upgrade it")
    func coreDataStore() throws {
        let article = try String(
            contentsOf: Fixture.root.deletingLastPathComponent().appendingPathComponent(
                "Sources/ModelVersioning/ModelVersioning.docc/MigratingArchivesInStores.md"), encoding: .utf8)
        let section = try #require(article.components(separatedBy: "## Archives in a SQLite column").last)
        let block = try #require(
            section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        let commands = block.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(commands.count == 3 && commands.allSatisfy { $0.first == "archive-migrate" })
        let schema = try #require(
            section.components(separatedBy: "```sql\n").dropFirst().first?.components(separatedBy: "```").first)

        let scratch = try ScratchFolder()
        try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        let database = try TestDatabase.create(
            at: scratch.url.appendingPathComponent("Drawings.sqlite"), schema: schema)
        try database.insert(
            "INSERT INTO ZDRAWING (Z_ENT, Z_OPT, ZTITLE, ZCONTENTS) VALUES (1, 3, ?, ?)",
            rows: try (0..<6).map { [.text(Data(Self.sketches[$0 % 3].utf8)), .blob(try Self.keyedVersion1($0))] })
        let statuses = try commands.map { command in
            let run = try ToolProcess.run(Array(command.dropFirst()), in: scratch.url)
            #expect(!run.standardError.contains("error"), "\(command): \(run.standardError)")
            return run.status
        }
        #expect(statuses == [0, 1, 0])
        let rows = try database.rows("SELECT Z_PK, Z_ENT, Z_OPT, ZCONTENTS FROM ZDRAWING ORDER BY Z_PK")
        for (index, row) in rows.enumerated() {
            #expect(row[1] == .integer(1) && row[2] == .integer(3), "Core Data's own columns are left alone")
            let bytes = try #require(row[3].bytes)
            #expect(try ArchiveDocument(data: bytes).format == .keyedArchive)
            #expect(try Self.differences(bytes, from: index).isEmpty)
        }
    }

    @Test("a downgrade writes the rows back for release 1.0 in their own formats")
    func downgrade() throws {
        let scratch = try ScratchFolder()
        let database = try Self.drawings(in: scratch, count: 3)
        #expect(try ToolProcess.run(Self.arguments("upgrade", column: "blob"), in: scratch.url).status == 0)
        let run = try ToolProcess.run(Self.arguments("downgrade", column: "blob", "--to", "1.0"), in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        let rows = try database.rows("SELECT blob FROM drawings WHERE blob IS NOT NULL ORDER BY id")
        for (index, row) in rows.enumerated() {
            let bytes = try #require(row[0].bytes)
            let original = index % 2 == 0 ? try Self.keyedVersion1(index) : try Self.version1(index)
            #expect(try ArchiveDocument(data: bytes).format == (index % 2 == 0 ? .keyedArchive : .json))
            let differences = ArchiveDiff.differences(
                from: try ArchiveFormat.read(original).0, to: try ArchiveFormat.read(bytes).0)
            #expect(differences.isEmpty, "row \(index + 1): \(differences)")
        }
    }

    @Test("options that do not go together are usage errors, before the database is opened")
    func usageErrors() throws {
        let scratch = try ScratchFolder()
        let cases: [([String], String)] = [
            (
                ["upgrade", "--sqlite", "x.sqlite", "--table", "t"],
                "'--sqlite' needs '--table <name>' and '--column <name>'"
            ),
            (["upgrade", "--table", "t", "a.json"], "'--table' goes with '--sqlite <file>'"),
            (
                ["upgrade", "--sqlite", "x.sqlite", "--table", "t", "--column", "c", "--in-place"],
                "'--in-place' is for files"
            ),
            (["upgrade", "--sqlite", "x.sqlite", "--table", "t", "--column", "c", "a.json"], "give no files"),
            (["upgrade", "--sqlite", "x.sqlite", "--table", "t", "--column", "c", "--ndjson"], "exclude each other"),
            (["upgrade", "--sqlite", "x.sqlite", "--table", "t", "--column", "c", "--batch-size", "0"], "at least 1"),
            (
                ["upgrade", "--sqlite", "missing.sqlite", "--table", "t", "--column", "c"],
                "missing.sqlite does not exist"
            ),
        ]
        for (arguments, message) in cases {
            let run = try ToolProcess.run(
                arguments + ["--rules", Fixture.url("archives/rules.json").path], in: scratch.url)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.standardError.contains(message), "\(arguments): \(run.standardError)")
        }
    }
}
