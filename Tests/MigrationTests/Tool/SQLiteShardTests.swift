import Foundation
import ModelVersioning
import TestSupport
import Testing

@testable import ArchiveMigrateKit

/// `--shard I/N` with `--sqlite`: N processes take disjoint parts of a table's rows by key order;
/// together they upgrade every row once, and their censuses merge into the table's.
@Suite("SQLite shards")
struct SQLiteShardTests {
    static func rows(_ database: TestDatabase) throws -> [[SQLiteValue]] {
        try database.rows("SELECT id, doc FROM drawings ORDER BY id")
    }

    @Test("three shards upgrade every row once, as one unsharded run does; a shard run again writes nothing")
    func shardsCoverTheTable() throws {
        let scratch = try ScratchFolder()
        let database = try SQLiteStoreTests.drawings(in: scratch, count: 10)  // 11 rows: one NULL
        let whole = scratch.url.appendingPathComponent("whole.sqlite")
        try FileManager.default.copyItem(at: database.url, to: whole)
        let unsharded = try ToolProcess.run(
            ["upgrade", "--sqlite", "whole.sqlite", "--table", "drawings", "--column", "doc", "--rules", "rules.json"],
            in: scratch.url)
        #expect(unsharded.status == 0, "\(unsharded.standardError)")

        // 11 rows in 3 shards: positions 0..<3, 3..<7, 7..<11.
        var read: [Int] = []
        for index in 1...3 {
            let run = try ToolProcess.run(
                SQLiteStoreTests.arguments("upgrade", column: "doc", "--shard", "\(index)/3"), in: scratch.url)
            #expect(run.status == 0, "\(run.standardError)")
            let summary = try #require(run.standardError.split(separator: "\n").last { $0.contains(" rows of ") })
            #expect(summary.contains("(shard \(index)/3)"), "\(summary)")
            read.append(Int(summary.split(separator: " ")[3]) ?? -1)
        }
        #expect(read == [3, 4, 4])
        #expect(try Self.rows(database) == (try Self.rows(TestDatabase(url: whole))))

        let again = try ToolProcess.run(
            SQLiteStoreTests.arguments("upgrade", column: "doc", "--shard", "2/3"), in: scratch.url)
        #expect(again.standardError.contains("upgraded 0 of 4 rows"), "\(again.standardError)")
    }

    @Test("the censuses of the shards, merged, are the table's; more shards than rows leave some empty")
    func censusesMerge() throws {
        let scratch = try ScratchFolder()
        let database = try SQLiteStoreTests.drawings(in: scratch, count: 6)
        try database.execute("UPDATE drawings SET doc = '{\"$archive\": 1, \"root\": ' WHERE id = 4")
        func census(_ more: String...) throws -> ArchiveCensus {
            let run = try ToolProcess.run(
                SQLiteStoreTests.arguments("inspect", column: "doc", "--format", "json") + more, in: scratch.url)
            let census = try ArchiveCensus(json: run.standardOutput)
            #expect(run.status == census.exitStatus && census.exitStatus == (census.failed > 0 ? 1 : 0))
            return census
        }
        let whole = try census()
        #expect(whole.count == 7 && whole.failed == 1 && whole.empty == 1)
        for count in [2, 3, 10] {
            let parts = try (1...count).map { try census("--shard", "\($0)/\(count)") }
            #expect(parts.map(\.count).reduce(0, +) == 7)
            var merged = try #require(try ArchiveCensus.merged(parts))
            #expect(merged.sources.count == count && merged.sources[0].hasSuffix("drawings.doc (shard 1/\(count))"))
            merged.sources = whole.sources
            #expect(merged == whole, "\(count) shards")
        }
    }

    @Test("shards of a table keyed by two columns without a rowid")
    func compositeKey() throws {
        let scratch = try ScratchFolder()
        let database = try TestDatabase.create(
            at: scratch.url.appendingPathComponent("sketch.sqlite"),
            schema: "CREATE TABLE drawings (owner TEXT, name TEXT, doc TEXT, PRIMARY KEY (owner, name)) WITHOUT ROWID")
        let archive = try SQLiteStoreTests.version1(0)
        var rows: [[SQLiteValue]] = []
        for owner in ["ann", "bob", "cy"] {
            for name in ["a", "b", "c"] {
                rows.append([.text(Data(owner.utf8)), .text(Data(name.utf8)), .text(archive)])
            }
        }
        try database.insert("INSERT INTO drawings (owner, name, doc) VALUES (?, ?, ?)", rows: rows)
        try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        var upgraded = 0
        for index in 1...2 {
            let run = try ToolProcess.run(
                SQLiteStoreTests.arguments(
                    "upgrade", column: "doc", "--key", "owner", "--key", "name", "--shard", "\(index)/2"),
                in: scratch.url)
            #expect(run.status == 0, "\(run.standardError)")
            upgraded +=
                run.standardError.contains("upgraded 4 of 4 rows")
                ? 4 : run.standardError.contains("upgraded 5 of 5") ? 5 : 0
        }
        #expect(upgraded == 9)
        let docs = try database.rows("SELECT doc FROM drawings").map { $0[0] }
        #expect(docs.allSatisfy { $0 != .text(archive) } && Set(docs).count == 1)
    }

    @Test("--shard must be I/N with 1 ≤ I ≤ N, and goes with --sqlite")
    func refusals() throws {
        let scratch = try ScratchFolder()
        _ = try SQLiteStoreTests.drawings(in: scratch, count: 2)
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2"] {
            let run = try ToolProcess.run(
                SQLiteStoreTests.arguments("upgrade", column: "doc", "--shard", bad), in: scratch.url)
            #expect(
                run.status == 2 && run.standardError.contains("'--shard' must be I/N"), "\(bad): \(run.standardError)")
        }
        let files = try ToolProcess.run(
            ["upgrade", "x.json", "--shard", "1/2", "--rules", "rules.json"], in: scratch.url)
        #expect(files.status == 2 && files.standardError.contains("'--shard' goes with '--sqlite <file>'"))
    }

    @Test("from Swift, SQLiteArchiveColumn takes the same shards and the same census as the tool")
    func swiftAPI() throws {
        let scratch = try ScratchFolder()
        let database = try SQLiteStoreTests.drawings(in: scratch, count: 10)
        let api = scratch.url.appendingPathComponent("api.sqlite")
        try FileManager.default.copyItem(at: database.url, to: api)
        let batch = try ArchiveBatch(catalog: try Fixture.rules("archives/rules.json"))

        let toolCensus = try ToolProcess.run(
            SQLiteStoreTests.arguments("inspect", column: "doc", "--format", "json", "--shard", "2/3"), in: scratch.url)
        var column = SQLiteArchiveColumn(path: api.path, table: "drawings", column: "doc")
        column.shard = .init(2, of: 3)
        var census = try column.census(with: batch)
        census.sources = try ArchiveCensus(json: toolCensus.standardOutput).sources
        #expect(census == (try ArchiveCensus(json: toolCensus.standardOutput)))
        #expect(census.count == 4 && census.wouldChange == 4)

        for index in 1...3 {
            let run = try ToolProcess.run(
                SQLiteStoreTests.arguments("upgrade", column: "doc", "--shard", "\(index)/3"), in: scratch.url)
            #expect(run.status == 0, "\(run.standardError)")
            column.shard = .init(index, of: 3)
            let summary = try column.upgrade(with: batch)
            #expect(summary.rows == [3, 4, 4][index - 1] && summary.failures.isEmpty, "\(summary)")
        }
        #expect(try Self.rows(database) == (try Self.rows(TestDatabase(url: api))))
        column.shard = .init(4, of: 3)
        #expect(throws: ArchiveError.self) { try column.upgrade(with: batch) }
    }
}
