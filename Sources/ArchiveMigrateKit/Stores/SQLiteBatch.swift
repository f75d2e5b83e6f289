import ArchiveFormats
import Foundation
import ModelVersioning

/// `--sqlite FILE --table T --column C`: every row's archive through the library's
/// ``MigrationEngine``, written back into the same row in its own format and storage class
/// (TEXT stays TEXT, BLOB stays BLOB), a transaction of ``SQLiteColumn/Location/batchSize``
/// rows (or ``transactionBytes`` of archives) at a time.
///
/// - Each transaction begins `IMMEDIATE` and reads its rows inside it, so no other connection
///   changes a row between reading and writing it; rows are read, migrated and held a window at
///   a time, so memory depends on the largest archive, not on the table, and a window's new
///   archives are written by one `UPDATE` (``SQLiteColumn/write(_:)``).
/// - Rows already at the target versions, and NULL values, are not written.
/// - A row that fails to migrate is reported with its key and the error, and its transaction
///   is rolled back: every row of it stays as it was, and the next transaction goes on. With
///   `--skip-failed` the row is skipped (and listed) and the others are written.
/// - A kill at any moment leaves every row old or new (SQLite's journal), and running the
///   command again migrates the rows still old.
/// - `--dry-run` opens the database read-only and writes nothing.
struct SQLiteBatch {
    /// Rows migrated at once inside a transaction, and the most archive bytes they may hold.
    static let windowRows = 1_000
    static let windowBytes = 16 << 20
    /// The archive bytes after which a transaction ends, however few rows it has: SQLite's
    /// rollback journal keeps a copy of every page a transaction changes, so this bounds the
    /// journal (and the time the write lock is held) for large archives, while small ones go
    /// ``SQLiteColumn/Location/batchSize`` rows at a time.
    static let transactionBytes = 32 << 20

    let location: SQLiteColumn.Location
    let context: ToolContext
    let dryRun: Bool

    /// One row's outcome.
    struct Outcome: Sendable {
        var key: SQLiteColumn.Key
        var entry: BatchReport.Entry
        /// The archive to write back, when it changed, and whether as TEXT.
        var output: (bytes: ArchiveBytes, isText: Bool)?
        var isNull = false
    }

    /// What a pass over the table did besides each row's outcome.
    struct Tally {
        /// Rows written by committed transactions.
        var written = 0
        /// Rows whose value is NULL.
        var nulls = 0
        /// Transactions rolled back because a row failed, and the rows they held.
        var rolledBack = (transactions: 0, rows: 0)
        /// The database error that stopped the pass, when one did.
        var stopped: ArchiveError?
    }

    /// Migrates every row of `store` through `engine`, a transaction of
    /// ``SQLiteColumn/Location/batchSize`` rows (or ``transactionBytes``) at a time, and hands each
    /// row's outcome to `record` in key order, once it is known whether its transaction goes on
    /// (a failed row's entry is marked skipped under ``SQLiteColumn/Location/skipsFailed``).
    ///
    /// This is the whole of `upgrade --sqlite` but for what it prints, and of
    /// ``SQLiteArchiveColumn/upgrade(with:)``: both take this road.
    static func migrateRows(
        of store: SQLiteColumn, location: SQLiteColumn.Location, engine: MigrationEngine, dryRun: Bool,
        record: (inout Outcome) -> Void
    ) -> Tally {
        let database = store.database
        let place = "\(store.table).\(store.column)"
        let keyNames = store.keyNames
        var lastKey: SQLiteColumn.Key?
        var tally = Tally()
        var finished = false
        let process: @Sendable (SQLiteColumn.Row) -> Outcome = { row in
            Self.process(row, keyNames: keyNames, place: place, engine: engine)
        }
        while !finished {
            var rows = 0
            // The bytes of the archives read in this transaction.
            var bytes = 0
            var writtenHere = 0
            var failedHere = false
            do {
                if !dryRun { try database.execute("BEGIN IMMEDIATE", purpose: "start a transaction") }
                // A window migrates on the other threads while this one reads the next window and
                // writes the one before, until the transaction has its rows or bytes.
                try Parallel.pipeline(
                    windows: {
                        guard rows < location.batchSize, bytes < Self.transactionBytes, !finished else { return nil }
                        let next = try store.rows(
                            after: lastKey, limit: min(Self.windowRows, location.batchSize - rows),
                            byteLimit: Self.windowBytes, sharingBuffer: true)
                        guard let last = next.last else {
                            finished = true
                            return nil
                        }
                        lastKey = last.key
                        rows += next.count
                        for row in next { bytes += row.value.byteCount }
                        return next
                    },
                    work: process,
                    handle: { done in
                        var outcomes = done
                        var writes: [SQLiteColumn.Write] = []
                        // By index, in place: an outcome holds the row's report, too large to copy.
                        for index in outcomes.indices {
                            if outcomes[index].isNull { tally.nulls += 1 }
                            if outcomes[index].entry.error == nil, let output = outcomes[index].output, !dryRun,
                                !failedHere || location.skipsFailed
                            {
                                writes.append(
                                    SQLiteColumn.Write(
                                        key: outcomes[index].key, bytes: output.bytes, isText: output.isText))
                                outcomes[index].output = nil
                            }
                            if outcomes[index].entry.error != nil {
                                if location.skipsFailed {
                                    outcomes[index].entry.skipped = true
                                } else {
                                    failedHere = true
                                }
                            }
                            record(&outcomes[index])
                        }
                        // One UPDATE for the window's new archives.
                        try store.write(writes)
                        writtenHere += writes.count
                        Parallel.releaseElsewhere((consume outcomes, consume writes))
                    })
                if !dryRun {
                    if failedHere {
                        try database.execute("ROLLBACK", purpose: "roll back a transaction")
                        tally.rolledBack.transactions += 1
                        tally.rolledBack.rows += rows
                    } else {
                        try database.execute("COMMIT", purpose: "commit a transaction")
                        tally.written += writtenHere
                    }
                }
            } catch {
                // The database failed (not an archive): stop, leaving this transaction's rows as
                // they were (the window in flight, which only migrates, is done by then).
                if database.inTransaction { try? database.execute("ROLLBACK", purpose: "roll back a transaction") }
                tally.stopped =
                    (error as? ArchiveError) ?? ArchiveError(.io, "\(location.shownAs) failed", underlyingError: error)
                break
            }
        }
        return tally
    }

    func run(_ engine: MigrationEngine, report: BatchReport) throws -> ExitStatus {
        let store = try SQLiteColumn(location, readOnly: dryRun)
        // The total is for the progress line alone, drawn only on a terminal: counting the rows
        // reads the whole table (10 ms for 100,000 small rows).
        let progress = ProgressLine(
            total: context.console.errorIsTerminal ? try store.shardRowCount ?? store.count() : nil,
            console: context.console)
        let place = "\(store.table).\(store.column)" + (location.shard.map { " (shard \($0))" } ?? "")
        // Only the JSON report lists each row, with its name and its migration report.
        let keepsReports = report.format == .json
        let tally = Self.migrateRows(of: store, location: location, engine: engine, dryRun: dryRun) { outcome in
            progress.advance(changed: outcome.entry.changed, failed: outcome.entry.error != nil)
            if keepsReports { outcome.entry.name = store.describe(outcome.key) }
            report.add(outcome.entry)
        }
        let (written, nulls, rolledBack) = (tally.written, tally.nulls, tally.rolledBack)
        progress.finish()
        var notes: [String] = []
        if let stopped = tally.stopped {
            report.fail(stopped)
            notes.append(
                "stopped: \(written) rows written by earlier transactions stay \(report.verb); run the command again "
                    + "to finish")
        }
        let unchanged = report.count - report.changed - report.failed - report.skipped - nulls
        var summary =
            dryRun
            ? "dry run: \(report.changed) of \(report.count) rows of \(place) in \(location.shownAs) would change"
            : "\(report.verb) \(written) of \(report.count) rows of \(place) in \(location.shownAs)"
        var parts: [String] = []
        if unchanged > 0 { parts.append("\(unchanged) already \(report.verb)") }
        if nulls > 0 { parts.append("\(nulls) NULL") }
        if report.failed > 0 { parts.append("\(report.failed) failed") }
        if report.skipped > 0 { parts.append("\(report.skipped) skipped") }
        if !parts.isEmpty { summary += " (" + parts.joined(separator: ", ") + ")" }
        if dryRun { summary += "; nothing was written" }
        notes.append(summary)
        if rolledBack.transactions > 0 {
            let failedRows = report.failed == 1 ? "1 row failed: its" : "\(report.failed) rows failed: their"
            let transactions =
                rolledBack.transactions == 1
                ? "1 transaction (\(rolledBack.rows) rows) was rolled back and is as it was"
                : "\(rolledBack.transactions) transactions (\(rolledBack.rows) rows) were rolled back and are as they were"
            notes.append(
                "\(failedRows) \(transactions); fix \(report.failed == 1 ? "it" : "them") and run again, or give --skip-failed to write "
                    + "the other rows")
        }
        return report.finish(notes: notes, wrote: written > 0)
    }

    /// Migrates one row. Its name is built only for a message that says it (``Outcome/entry``'s
    /// name is left empty: the batch names the rows its JSON report lists), and its migration
    /// report is kept only for the JSON report (the text report counts rows).
    static func process(_ row: SQLiteColumn.Row, keyNames: [String], place: String, engine: MigrationEngine) -> Outcome
    {
        func shownAs() -> String { "\(place), row \(SQLiteColumn.describe(row.key, keyNames: keyNames))" }
        // Built once at the end (a var returned from several places was copied whole).
        var entry = BatchReport.Entry(name: "")
        let bytes: Data
        let isText: Bool
        switch row.value {
        case .null:
            return Outcome(key: row.key, entry: entry, output: nil, isNull: true)
        case .text(let data):
            (bytes, isText) = (data, true)
        case .blob(let data):
            (bytes, isText) = (data, false)
        case .integer, .real:
            entry.error = ArchiveError(
                .unsupportedFormat,
                "\(shownAs()) holds \(row.value.typeName == "integer" ? "an integer" : "a real"), not an archive")
            return Outcome(key: row.key, entry: entry, output: nil)
        }
        var output: (bytes: ArchiveBytes, isText: Bool)?
        // The engine's two halves, as `migrate` runs them, with the rewritten text's bytes kept in
        // memory of their own: no `Data` is made, opened or freed for them (1,000 instructions a
        // row). The rewrite writes JSON, which TEXT holds.
        if let rewritten = bytes.withUnsafeBytes({ raw in engine.rewriteText(raw) }) {
            entry.record(MigrationEngine.Outcome(rewrittenText: rewritten.changed), shownAs: shownAs())
            if let new = rewritten.output { output = (new, isText) }
            return Outcome(key: row.key, entry: entry, output: output)
        }
        do {
            var result = try engine.migrateTree(bytes)
            let data = result.data.take()
            let format = result.format
            entry.record(consume result, shownAs: shownAs())
            if let data {
                try checkStorable(format, isText: isText)
                output = (ArchiveBytes.copy(of: data), isText)
            }
        } catch {
            entry.error = ArchiveError.located(error, in: shownAs())
            entry.result = nil
        }
        return Outcome(key: row.key, entry: entry, output: output)
    }

    /// Throws unless a row can store a new archive in `format` in its own storage class: TEXT
    /// stays TEXT (only text formats can go back into it), BLOB stays BLOB. The caller adds the
    /// row to the error's location. (The text rewrite writes JSON, which both hold.)
    private static func checkStorable(_ format: ArchiveFormat, isText: Bool) throws {
        guard !isText || format == .json || format == .xmlPropertyList else {
            throw ArchiveError(
                .invalidValue, "a \(format) kept as TEXT would be written back binary; store it as a BLOB")
        }
    }
}
