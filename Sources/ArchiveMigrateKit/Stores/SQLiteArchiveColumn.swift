import Foundation
import ModelVersioning

/// The archives kept in one column of a SQLite table, upgraded in place from Swift exactly as
/// `archive-migrate upgrade --sqlite FILE --table T --column C` upgrades them: the same code,
/// the same transactions, the same bytes.
///
/// ```swift
/// let batch = try ArchiveBatch(catalog: registry.catalog)
/// let column = SQLiteArchiveColumn(path: "Drawings.sqlite", table: "ZDRAWING", column: "ZCONTENTS")
/// let summary = try column.upgrade(with: batch)
/// print(summary)   // 100000 rows: 99990 written, 10 already current, 0 NULL, 0 failed
/// for failure in summary.failures { print(failure.row, failure.error) }
/// ```
///
/// Each transaction begins `IMMEDIATE` and reads its rows inside it, so no other connection
/// changes a row between its reading and its writing. Rows are read in key order a window at a
/// time and migrated on every processor while the window before is written, by one `UPDATE`
/// per window; a row keeps its storage class (TEXT stays TEXT, BLOB stays BLOB) and its format.
/// Rows already current and NULL values are not written. A row that fails rolls its
/// transaction back, so every row of it stays as it was, and the next transaction goes on;
/// with ``skipsFailedRows`` the failed row alone is left and the others are written. A kill
/// at any moment leaves every row old or new (SQLite's journal): upgrading again finishes
/// the rows still old.
///
/// Where an app keeps archives in a store of its own, ``ArchiveBatch`` does the same on any
/// sequence of archives, and the app writes the rows back.
public struct SQLiteArchiveColumn: Sendable {
    /// The database file.
    public var path: String
    /// The table, matched as SQLite matches names (without regard to ASCII case).
    public var table: String
    /// The column that holds the archives.
    public var column: String
    /// The columns that identify a row (a primary key or a unique index), for a table without a
    /// rowid; empty for the rowid (the default).
    public var keyColumns: [String] = []
    /// Rows per transaction: many by default, because every commit waits for the disk. A
    /// transaction also ends once it has read 32 MiB of archives.
    public var rowsPerTransaction = 100_000
    /// Whether a row that fails is left as it was while the other rows of its transaction are
    /// written (`--skip-failed`); by default its whole transaction is rolled back.
    public var skipsFailedRows = false
    /// How long to wait for another connection's lock, in milliseconds.
    public var busyTimeout = 5_000
    /// Only one part of the rows, by key order (`--shard I/N`): N processes, each given another
    /// part, upgrade every row once between them. `nil` (the default) for every row.
    public var shard: Shard?

    /// Part ``index`` (from 1) of ``count`` parts of a table's rows by key order: the rows from
    /// position `(index - 1) * rows / count` up to `index * rows / count`, their bounds found
    /// when the column is opened. An upgrade changes no key, so the shards of a table no one adds
    /// rows to meanwhile hold every row once, whenever each runs; run a shard again after an
    /// interruption and it writes only the rows still old.
    public struct Shard: Sendable, Equatable {
        /// Which part, from 1.
        public var index: Int
        /// How many parts.
        public var count: Int

        /// Part `index` (from 1) of `count`.
        public init(_ index: Int, of count: Int) {
            self.index = index
            self.count = count
        }
    }

    /// The archives in `column` of `table` in the database at `path`.
    public init(path: String, table: String, column: String) {
        self.path = path
        self.table = table
        self.column = column
    }

    /// What an upgrade did.
    public struct Summary: Sendable, CustomStringConvertible {
        /// Rows read.
        public var rows = 0
        /// Rows whose archive the migration changed.
        public var changed = 0
        /// Rows written back (by committed transactions).
        public var written = 0
        /// Rows whose value is NULL (never written).
        public var nulls = 0
        /// Rows that failed, in key order, with the error of each; each names the row by its key.
        public var failures: [Failure] = []
        /// Rows left as they were because a row of their transaction failed (the failed ones
        /// included); zero with ``SQLiteArchiveColumn/skipsFailedRows``.
        public var rolledBack = 0

        /// `10 rows: 3 written, 5 already current, 1 NULL, 1 failed`, and how many rolled back, if any.
        public var description: String {
            "\(rows) rows: \(written) written, \(rows - changed - failures.count - nulls) already current, "
                + "\(nulls) NULL, \(failures.count) failed" + (rolledBack > 0 ? ", \(rolledBack) rolled back" : "")
        }
    }

    /// A row that failed to migrate.
    public struct Failure: Sendable {
        /// The row, by its key (`id 42`, `rowid 7`, `owner 'ann' and name 'x'`).
        public var row: String
        /// Why, located in the row's archive.
        public var error: ArchiveError
    }

    /// Upgrades every row through `batch`'s ``ArchiveBatch/engine``, as described above.
    ///
    /// - Returns: What was read, written and failed.
    /// - Throws: `ArchiveError` when the database cannot be opened, has no such table, column
    ///   or key (code `invalidValue`, naming those it has), or fails while rows are written
    ///   (code `io`): rows written by earlier transactions stay written, and upgrading again
    ///   finishes the others.
    public func upgrade(with batch: ArchiveBatch) throws -> Summary {
        try run(batch.engine, dryRun: false)
    }

    /// What ``upgrade(with:)`` would do, without writing anything: the database is opened
    /// read-only, and ``Summary/written`` is zero (`--dry-run`).
    public func upgradePreview(with batch: ArchiveBatch) throws -> Summary {
        try run(batch.engine, dryRun: true)
    }

    /// The census of the column (`inspect --sqlite … --rules`): every row read, counted by
    /// format, document version and type version, and upgraded in memory with `batch`'s
    /// catalog to count what an upgrade would change and which rows fail. Nothing is written.
    ///
    /// - Throws: What ``upgrade(with:)`` throws before any row is read.
    public func census(with batch: ArchiveBatch) throws -> ArchiveCensus {
        let engine = try StoreCensus.censusEngine(batch.engine.catalog, document: batch.engine.options.document)
        do {
            return try StoreCensus.take(.sqlite(try location()), context: .library, engine: engine)
        } catch let error as UsageError {
            throw ArchiveError(.invalidValue, error.message)
        }
    }

    private func location() throws -> SQLiteColumn.Location {
        var location = SQLiteColumn.Location(
            url: URL(fileURLWithPath: path), shownAs: path, table: table, column: column, keys: keyColumns)
        location.batchSize = max(1, rowsPerTransaction)
        location.busyTimeout = busyTimeout
        location.skipsFailed = skipsFailedRows
        if let shard {
            guard shard.count >= 1, (1...shard.count).contains(shard.index) else {
                throw ArchiveError(
                    .invalidValue, "shard \(shard.index) of \(shard.count): a part from 1 to the number of parts")
            }
            location.shard = SQLiteColumn.Shard(index: shard.index, count: shard.count)
        }
        return location
    }

    private func run(_ engine: MigrationEngine, dryRun: Bool) throws -> Summary {
        let location = try location()
        let store: SQLiteColumn
        do {
            store = try SQLiteColumn(location, readOnly: dryRun)
        } catch let error as UsageError {
            throw ArchiveError(.invalidValue, error.message)
        }
        var summary = Summary()
        let tally = SQLiteBatch.migrateRows(of: store, location: location, engine: engine, dryRun: dryRun) { outcome in
            summary.rows += 1
            if let error = outcome.entry.error {
                summary.failures.append(Failure(row: store.describe(outcome.key), error: error))
            } else if outcome.entry.changed {
                summary.changed += 1
            }
        }
        if let stopped = tally.stopped { throw stopped }
        summary.written = tally.written
        summary.nulls = tally.nulls
        summary.rolledBack = tally.rolledBack.rows
        return summary
    }
}
