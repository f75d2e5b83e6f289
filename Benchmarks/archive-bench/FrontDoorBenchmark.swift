import ArchiveMigrateKit
import Foundation
import ModelVersioning

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The two front doors of the one engine on the same archives: an app's code on the public Swift
/// API against `archive-migrate upgrade`, over the store benchmark's small Shape archives kept as
/// SQLite rows and as files. For the rows, the app calls `SQLiteArchiveColumn` (the code the
/// tool runs); beside it, as a reference, an app's own SQL on ``ArchiveBatch`` ("own SQL": rows
/// read in key order, each changed one written back by its own `UPDATE`, in one transaction),
/// which shows what the tool's one `UPDATE` per window saves. For the files, the app calls
/// `ArchiveFiles` (the code `--in-place` runs); beside it, as a reference, the app's own code on
/// ``ArchiveBatch`` ("own code": each changed file written to a flushed temporary file and
/// renamed over the original as it comes, without the tool's checks, metadata and all-or-nothing).
///
/// Each contender runs as a process of its own on a fresh copy (ours in `--run-api` mode),
/// alternating, timed from start to exit; the ratio is the API's speed over the tool's.
enum FrontDoorBenchmark {
    struct Results {
        /// Seconds (median), by store and front door.
        var seconds: [String: [String: Double]] = [:]

        /// Archives per store.
        var count = 0

        /// The API's speed over the tool's, per store (above 1: the API is faster).
        var ratios: [String: Double] {
            seconds.compactMapValues { doors in
                guard let api = doors["Swift API"], let tool = doors["archive-migrate"], api > 0 else { return nil }
                return tool / api
            }
        }

        /// The results as lines of the benchmark's table.
        func tableLines() -> [String] {
            var lines = [
                "front doors of the engine: the Swift API and archive-migrate, \(count) archives"
            ]
            for store in seconds.keys.sorted() {
                let doors = seconds[store] ?? [:]
                var line =
                    "  " + "\(store): Swift API".padding(toLength: 40, withPad: " ", startingAt: 0)
                    + String(
                        format: "%.3f s, archive-migrate %.3f s, API vs tool %.2f×", doors["Swift API"] ?? 0,
                        doors["archive-migrate"] ?? 0, ratios[store] ?? 0)
                if let own = doors["own SQL"] {
                    line += String(format: " (an app's own per-row UPDATE on ArchiveBatch: %.3f s)", own)
                }
                if let own = doors["own code"] {
                    line += String(format: " (an app's own file writes on ArchiveBatch: %.3f s)", own)
                }
                lines.append(line)
            }
            return lines
        }

        /// `api_vs_tool_sqlite`, `api_vs_tool_files` and the seconds behind them.
        func jsonEntries() -> [(String, ArchiveValue)] {
            var entries: [(String, ArchiveValue)] = seconds.keys.sorted().map { store in
                ("api_vs_tool_\(store)", ratios[store].map { .double(($0 * 100).rounded() / 100) } ?? .null)
            }
            entries.append(
                (
                    "front_door_seconds",
                    .dictionary(
                        ArchiveDictionary(
                            seconds.keys.sorted().map { store in
                                (
                                    store,
                                    .dictionary(
                                        ArchiveDictionary(
                                            (seconds[store] ?? [:]).sorted { $0.key < $1.key }.map {
                                                ($0.key, .double(($0.value * 1000).rounded() / 1000))
                                            }))
                                )
                            }))
                ))
            return entries
        }
    }

    /// Runs the comparison on `count` archives per store (`stores`: `sqlite`, `files`, or both).
    static func run(count: Int, runs: Int, stores: Set<String> = ["sqlite", "files"], progress: (String) -> Void)
        throws -> Results
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("archive-bench-doors-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = folder.appendingPathComponent("rules.json")
        try Data(StoreBenchmark.rules.utf8).write(to: rules)
        var results = Results(count: count)
        let me = CommandLine.arguments[0]

        if stores.contains("sqlite") { try runRows() }
        if stores.contains("files") { try runFiles() }
        return results

        func runRows() throws {
            progress("front doors: \(count) SQLite rows, the Swift API and archive-migrate")
            let pristine = folder.appendingPathComponent("pristine.sqlite")
            try StoreBenchmark.makeDatabase(at: pristine, rows: count)
            let work = folder.appendingPathComponent("work.sqlite")
            results.seconds["sqlite"] = try alternate(
                runs: runs,
                prepare: {
                    try? FileManager.default.removeItem(at: work)
                    try FileManager.default.copyItem(at: pristine, to: work)
                },
                contenders: [
                    (
                        "archive-migrate",
                        [
                            me, "--run-tool", "upgrade", "--sqlite", work.path, "--table", "shapes", "--column",
                            "archive",
                            "--rules", rules.path,
                        ]
                    ),
                    ("Swift API", [me, "--run-api", "sqlite", work.path, rules.path]),
                    ("own SQL", [me, "--run-api", "own-sql", work.path, rules.path]),
                ],
                check: { name in try StoreBenchmark.checkUpgraded(work, rows: count, contender: name) })
        }

        func runFiles() throws {
            progress("front doors: \(count) files, the Swift API and archive-migrate")
            let files = folder.appendingPathComponent("files")
            let copy = folder.appendingPathComponent("copy")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            for index in 0..<count {
                try Data(StoreBenchmark.shapeArchive(index).utf8).write(
                    to: files.appendingPathComponent(String(format: "s%07d.json", index)))
            }
            results.seconds["files"] = try alternate(
                runs: runs,
                prepare: {
                    try? FileManager.default.removeItem(at: copy)
                    try FileManager.default.copyItem(at: files, to: copy)
                },
                contenders: [
                    (
                        "archive-migrate",
                        [
                            me, "--run-tool", "upgrade", copy.path, "--include", "*.json", "--rules", rules.path,
                            "--in-place",
                        ]
                    ),
                    ("Swift API", [me, "--run-api", "files", copy.path, rules.path]),
                    ("own code", [me, "--run-api", "own-files", copy.path, rules.path]),
                ],
                check: { name in
                    let sample = try Data(
                        contentsOf: copy.appendingPathComponent(String(format: "s%07d.json", count - 1)))
                    guard case .object(let shape) = try ArchiveFormat.json.read(sample), shape.version == 4 else {
                        throw ArchiveError(.io, "\(name) did not upgrade the files")
                    }
                })
        }
    }

    /// Each contender once per round after a warm-up round, in turns, on a fresh copy; the median
    /// seconds of each.
    private static func alternate(
        runs: Int, prepare: () throws -> Void, contenders: [(String, [String])], check: (String) throws -> Void
    ) throws -> [String: Double] {
        var seconds: [String: [Double]] = [:]
        for round in 0..<(runs + 1) {
            for offset in 0..<contenders.count {
                let (name, command) = contenders[(round + offset) % contenders.count]
                try prepare()
                let run = try ChildProcess.run(command)
                guard run.status == 0 else { throw ArchiveError(.io, "\(name) failed with status \(run.status)") }
                try check(name)
                if round > 0 { seconds[name, default: []].append(run.seconds) }
            }
        }
        return seconds.mapValues { $0.sorted()[$0.count / 2] }
    }

    // MARK: The app's side

    /// Child mode: what an app writes with the public API. `sqlite DATABASE RULES` upgrades the
    /// benchmark table's rows with `SQLiteArchiveColumn`, `own-sql DATABASE RULES` with its own
    /// SQL on ``ArchiveBatch``; `files FOLDER RULES` every `.json` file of the folder in place with
    /// `ArchiveFiles`, `own-files FOLDER RULES` with its own code on ``ArchiveBatch``.
    static func runAPI(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3 else { return 2 }
        let done = DispatchSemaphore(value: 0)
        let status = Status()
        Task {
            do {
                let catalog = try MigrationCatalog(
                    rulesFile: ArchiveFormat.json.read(Data(contentsOf: URL(fileURLWithPath: arguments[2]))),
                    fileName: arguments[2])
                let batch = try ArchiveBatch(catalog: catalog)
                switch arguments[0] {
                case "sqlite":
                    _ = try SQLiteArchiveColumn(path: arguments[1], table: "shapes", column: "archive").upgrade(
                        with: batch)
                case "own-sql": try await upgradeRows(of: arguments[1], with: batch)
                case "files":
                    _ = try ArchiveFiles([arguments[1]], include: ["*.json"]).upgrade(with: batch)
                case "own-files": try await upgradeFiles(in: arguments[1], with: batch)
                default: status.value = 2
                }
            } catch {
                FileHandle.standardError.write(Data("archive-bench --run-api: \(error)\n".utf8))
                status.value = 1
            }
            done.signal()
        }
        done.wait()
        return status.value
    }

    /// The child's exit status, set by its task. `@unchecked Sendable`: written by the task before
    /// it signals, read after the wait.
    private final class Status: @unchecked Sendable {
        var value: Int32 = 0
    }

    /// Every row in key order, changed ones written back in one transaction.
    private static func upgradeRows(of path: String, with batch: ArchiveBatch) async throws {
        let database = try Database(path: path)
        try database.execute("BEGIN IMMEDIATE")
        let rows = try database.rows("SELECT id, archive FROM shapes ORDER BY id")
        let update = try database.prepare("UPDATE shapes SET archive = ?1 WHERE id = ?2")
        try await batch.run(rows, data: { $0.archive }) { row, outcome in
            guard let upgraded = try outcome.get().data else { return }
            try update.run(text: upgraded, id: row.id)
        }
        try database.execute("COMMIT")
    }

    /// Every `.json` file of `folder`, each changed one written to a flushed temporary file and
    /// renamed over the original.
    private static func upgradeFiles(in folder: String, with batch: ArchiveBatch) async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
            .sorted()
        let urls = names.map { URL(fileURLWithPath: folder).appendingPathComponent($0) }
        try await batch.run(urls, data: { try Data(contentsOf: $0) }) { url, outcome in
            guard let upgraded = try outcome.get().data else { return }
            try writeDurably(upgraded, to: url)
        }
    }

    private static func writeDurably(_ data: Data, to url: URL) throws {
        let temporary = url.path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw ArchiveError(.io, "cannot write \(temporary)") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let flushed = fsync(descriptor)
        close(descriptor)
        guard written == data.count, flushed == 0, rename(temporary, url.path) == 0 else {
            throw ArchiveError(.io, "cannot write \(url.path)")
        }
    }

    /// One connection through the C API, as an app's own thin layer over SQLite.
    private final class Database {
        let handle: OpaquePointer

        init(path: String) throws {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
                throw ArchiveError(.io, "cannot open \(path)")
            }
            self.handle = handle
        }

        deinit { sqlite3_close_v2(handle) }

        func execute(_ sql: String) throws {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
                throw ArchiveError(.io, String(cString: sqlite3_errmsg(handle)))
            }
        }

        func prepare(_ sql: String) throws -> Statement {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                throw ArchiveError(.io, String(cString: sqlite3_errmsg(handle)))
            }
            return Statement(statement, database: self)
        }

        /// The rows of a query, read lazily as the batch takes them.
        func rows(_ sql: String) throws -> RowSequence {
            RowSequence(statement: try prepare(sql))
        }
    }

    private final class Statement {
        let pointer: OpaquePointer
        let database: Database

        init(_ pointer: OpaquePointer, database: Database) {
            self.pointer = pointer
            self.database = database
        }

        deinit { sqlite3_finalize(pointer) }

        func run(text: Data, id: Int64) throws {
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            _ = text.withUnsafeBytes { sqlite3_bind_text(pointer, 1, $0.baseAddress, Int32($0.count), transient) }
            sqlite3_bind_int64(pointer, 2, id)
            defer { sqlite3_reset(pointer) }
            guard sqlite3_step(pointer) == SQLITE_DONE else {
                throw ArchiveError(.io, String(cString: sqlite3_errmsg(database.handle)))
            }
        }
    }

    private struct Row: Sendable {
        var id: Int64
        var archive: Data
    }

    private struct RowSequence: Sequence {
        let statement: Statement

        func makeIterator() -> AnyIterator<Row> {
            AnyIterator {
                guard sqlite3_step(statement.pointer) == SQLITE_ROW else { return nil }
                let id = sqlite3_column_int64(statement.pointer, 0)
                let count = Int(sqlite3_column_bytes(statement.pointer, 1))
                let bytes = sqlite3_column_blob(statement.pointer, 1)
                return Row(id: id, archive: bytes.map { Data(bytes: $0, count: count) } ?? Data())
            }
        }
    }
}
