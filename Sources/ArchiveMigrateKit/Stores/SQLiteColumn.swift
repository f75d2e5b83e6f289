@_spi(Coders) import ArchiveFormats
import Foundation
import ModelVersioning

/// The archives of one column of one SQLite table: which rows there are, how they are read in
/// key order a batch at a time, and how one is written back.
///
/// Rows are identified by their rowid (shown under the name of its `INTEGER PRIMARY KEY` alias,
/// such as Core Data's `Z_PK`), or by the `--key` columns for a table without a rowid; those
/// must be the primary key or have a unique index, so that each names one row. Every table,
/// column and key name is quoted in the SQL, whatever characters it holds. Rows are read in key
/// order after the last key read (`WHERE key > ?`), never by offset, so rows written meanwhile
/// are neither skipped nor read twice. What SQLite answers is checked, not trusted: on a damaged
/// b-tree a seek past a key can land before it (SQLite answered `WHERE rowid > 14` with rows 12
/// to 14, and a loop that took the last of them as the next start read them for ever), so every
/// key read must come after the one before it, and a database whose keys do not is reported as
/// damaged, with what SQLite's own check of the file says.
///
/// The new archives of a window of rows are written by one `UPDATE` over the window's key
/// range, which asks the connection's own SQL functions (``PendingWrites``) whether each row of
/// the range has a new archive and what it is: one statement per window instead of one per row
/// (in `archive-bench --stores`, the statement per row took half the time of the thread that
/// reads and writes).
final class SQLiteColumn {
    /// What the command line names.
    struct Location: Sendable {
        /// Rows per transaction unless `--batch-size` says: many, because every commit waits
        /// for the disk (100,000 small rows in ten transactions took 0.83 s against 0.71 s in
        /// one, medians of eight alternating runs); ``SQLiteBatch/transactionBytes`` ends a
        /// transaction of large archives sooner.
        static let defaultBatchSize = 100_000
        static let defaultBusyTimeout = 5_000

        var url: URL
        /// The file as the user gave it.
        var shownAs: String
        var table: String
        var column: String
        /// `--key`: the columns that identify a row; empty for the rowid.
        var keys: [String]
        /// Rows per transaction.
        var batchSize = defaultBatchSize
        /// Milliseconds to wait for another connection's lock.
        var busyTimeout = defaultBusyTimeout
        /// `--skip-failed`.
        var skipsFailed = false
        /// `--shard I/N`: only the rows of that part of the key order.
        var shard: Shard?
    }

    /// One of `count` parts of a table's rows, by their place in key order (`--shard 2/4`): part
    /// `index` (from 1) holds the rows from position `(index - 1) * rows / count` up to
    /// `index * rows / count`. Its bounds are keys, found when the column is opened; an upgrade
    /// changes no key, so every shard of a table no one adds rows to finds the same bounds, and
    /// the shards hold every row once.
    struct Shard: Sendable, Equatable, CustomStringConvertible {
        var index: Int
        var count: Int

        /// `2/4`.
        var description: String { "\(index)/\(count)" }

        /// Reads `I/N`, 1 ≤ I ≤ N.
        init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
                (1...count).contains(index)
            else { return nil }
            self.index = index
            self.count = count
        }

        init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }
    }

    /// A row's key: its rowid, or the values of its `--key` columns.
    enum Key: Sendable, Hashable {
        case rowid(Int64)
        case columns([SQLiteValue])

        /// Whether a value of the key is NULL (never for a rowid).
        var holdsNull: Bool {
            if case .columns(let values) = self { return values.contains(.null) }
            return false
        }

        /// The key's values, in the order of ``SQLiteColumn/keyNames``.
        var values: [SQLiteValue] {
            switch self {
            case .rowid(let rowid): return [.integer(rowid)]
            case .columns(let values): return values
            }
        }
    }

    /// One row: its key and its archive column's value.
    struct Row: Sendable {
        var key: Key
        var value: SQLiteValue
    }

    /// A new archive for the row with `key`.
    struct Write: Sendable {
        var key: Key
        /// The new archive, and whether it is stored as TEXT (else as a BLOB).
        var bytes: ArchiveBytes
        var isText: Bool

        /// The value as SQLite reads it back.
        var value: SQLiteValue { isText ? .text(bytes.data) : .blob(bytes.data) }
    }

    let database: SQLiteDatabase
    /// The table's and column's names as the schema spells them.
    let table: String
    let column: String
    /// The key's names, as messages show them (`Z_PK`, `rowid`, `id`).
    let keyNames: [String]
    /// The key as SQL reads it (`rowid`, `"id"`).
    private let keyExpressions: [String]
    /// Whether rows are known by their rowid (no `--key`).
    private let byRowid: Bool
    private let select: SQLiteStatement
    private let selectAfter: SQLiteStatement
    /// For `--key` columns: whether one key comes after another, as SQLite orders them (with
    /// each column's collation); rowids are compared here.
    private let follows: SQLiteStatement?
    /// The `UPDATE` of a window's key range, and what it writes.
    private var update: SQLiteStatement?
    /// With `--shard`: the last key before the shard (`nil`: from the first row), the shard's
    /// last key (`nil`: to the last row), and whether it holds no row.
    private var shardBounds: (after: Key?, through: Key?, isEmpty: Bool)?
    /// With `--shard`: the statements that read the shard's rows only (`… AND (key) <= (?)`).
    private var selectThrough: (first: SQLiteStatement, after: SQLiteStatement)?
    /// With `--shard`: how many rows it had when it was opened.
    private(set) var shardRowCount: Int?
    private var pending: PendingWrites?
    /// The bytes the last window read into its shared buffer.
    private var sharedCapacity = 1 << 16

    /// Opens the database and checks the table, column and key.
    ///
    /// - Throws: `ArchiveError` with code `io` for a database that cannot be opened, and
    ///   `UsageError` for a table, column or key it does not have (naming those it has).
    init(_ location: Location, readOnly: Bool) throws {
        database = try SQLiteDatabase(
            path: location.url.path, shownAs: location.shownAs, readOnly: readOnly, busyTimeout: location.busyTimeout)
        let table = try Self.resolveTable(location.table, in: database)
        let columns = try Self.columns(of: table, in: database)
        guard let column = columns.first(where: { $0.name.lowercased() == location.column.lowercased() }) else {
            throw UsageError(
                "'--column \(location.column)': \(table) has no such column (it has \(columns.map(\.name).joined(separator: ", ")))"
            )
        }
        self.table = table
        self.column = column.name
        if location.keys.isEmpty {
            let rowid = ["rowid", "_rowid_", "oid"].first { name in !columns.contains { $0.name.lowercased() == name } }
            let primaryKey = columns.filter { $0.primaryKeyPosition > 0 }
            guard let rowid,
                (try? database.prepare("SELECT \(rowid) FROM \(SQLiteDatabase.quoted(table)) LIMIT 0", purpose: "read"))
                    != nil
            else {
                throw UsageError(
                    "\(table) has no rowid (a WITHOUT ROWID table); name the column that identifies a row with --key"
                        + (primaryKey.isEmpty
                            ? "" : " (its primary key: \(primaryKey.map(\.name).joined(separator: ", ")))"))
            }
            // An INTEGER PRIMARY KEY is the rowid under another name: show that one.
            let alias =
                primaryKey.count == 1 && primaryKey[0].declaredType.uppercased() == "INTEGER" ? primaryKey[0].name : nil
            keyNames = [alias ?? rowid]
            keyExpressions = [rowid]
            byRowid = true
        } else {
            var names: [String] = []
            for key in location.keys {
                guard let found = columns.first(where: { $0.name.lowercased() == key.lowercased() }) else {
                    throw UsageError(
                        "'--key \(key)': \(table) has no such column (it has \(columns.map(\.name).joined(separator: ", ")))"
                    )
                }
                guard !names.contains(found.name) else { throw UsageError("'--key \(key)' is given twice") }
                names.append(found.name)
            }
            guard !names.contains(column.name) else {
                throw UsageError("'--key \(column.name)' is the column being migrated; name the row's identifier")
            }
            try Self.checkUnique(names, table: table, columns: columns, in: database)
            keyNames = names
            keyExpressions = names.map(SQLiteDatabase.quoted)
            byRowid = false
        }
        let keyList = keyExpressions.joined(separator: ", ")
        let quotedTable = SQLiteDatabase.quoted(table)
        let quotedColumn = SQLiteDatabase.quoted(self.column)
        let base = "SELECT \(keyList), \(quotedColumn) FROM \(quotedTable)"
        let order = "ORDER BY \(keyList) LIMIT ?"
        select = try database.prepare("\(base) \(order)", purpose: "read \(table).\(self.column)")
        let placeholders = keyExpressions.map { _ in "?" }.joined(separator: ", ")
        selectAfter = try database.prepare(
            "\(base) WHERE (\(keyList)) > (\(placeholders)) \(order)", purpose: "read \(table).\(self.column)")
        if byRowid {
            follows = nil
        } else {
            // `(?1 COLLATE "NOCASE", ?2 COLLATE "BINARY") > (?3, ?4)`: parameters have no collation
            // of their own, so each takes its column's, as the ORDER BY does.
            let (names, database) = (keyNames, database)
            let collated = try names.enumerated().map { offset, name in
                let collation = try database.collation(ofColumn: name, in: table)
                return "?\(offset + 1) COLLATE \(SQLiteDatabase.quoted(collation))"
            }
            let later = names.indices.map { "?\($0 + 1 + names.count)" }
            follows = try database.prepare(
                "SELECT (\(collated.joined(separator: ", "))) > (\(later.joined(separator: ", ")))",
                purpose: "compare keys of \(table)")
        }
        if let shard = location.shard {
            let count = try self.count()
            let firstPosition = (shard.index - 1) * count / shard.count
            let lastPosition = shard.index * count / shard.count  // one past the shard's last row
            let after = firstPosition == 0 ? nil : try key(atPosition: firstPosition - 1, shard: shard)
            let through = lastPosition == count ? nil : try key(atPosition: lastPosition - 1, shard: shard)
            shardBounds = (after, lastPosition == 0 ? nil : through, firstPosition == lastPosition)
            shardRowCount = lastPosition - firstPosition
            if through != nil {
                let bound = "(\(keyList)) <= (\(placeholders))"
                selectThrough = (
                    try database.prepare("\(base) WHERE \(bound) \(order)", purpose: "read \(table).\(self.column)"),
                    try database.prepare(
                        "\(base) WHERE (\(keyList)) > (\(placeholders)) AND \(bound) \(order)",
                        purpose: "read \(table).\(self.column)")
                )
            }
        }
        if !readOnly {
            let pending = PendingWrites(byRowid: byRowid, keyNames: keyNames)
            try database.createFunction(PendingWrites.pendingName, arguments: keyExpressions.count, pending.isPending)
            try database.createFunction(PendingWrites.valueName, arguments: keyExpressions.count, pending.value)
            let from = keyExpressions.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
            let to = keyExpressions.indices.map { "?\($0 + 1 + keyExpressions.count)" }.joined(separator: ", ")
            update = try database.prepare(
                "UPDATE \(quotedTable) SET \(quotedColumn) = \(PendingWrites.valueName)(\(keyList)) "
                    + "WHERE (\(keyList)) >= (\(from)) AND (\(keyList)) <= (\(to)) "
                    + "AND \(PendingWrites.pendingName)(\(keyList))",
                purpose: "write \(table).\(self.column)")
            self.pending = pending
        }
    }

    /// The key of the row at `position` (from 0) in key order, a bound of `shard`.
    ///
    /// - Throws: `UsageError` when it holds NULL (a NULL compares with nothing, so it bounds no
    ///   range), or when the row is gone.
    private func key(atPosition position: Int, shard: Shard) throws -> Key {
        let keyList = keyExpressions.joined(separator: ", ")
        let statement = try database.prepare(
            "SELECT \(keyList) FROM \(SQLiteDatabase.quoted(table)) ORDER BY \(keyList) LIMIT 1 OFFSET ?",
            purpose: "find the bounds of shard \(shard) of \(table)")
        defer { statement.reset() }
        try statement.bind([.integer(Int64(position))])
        guard try statement.step() else {
            throw ArchiveError(.io, "\(database.shownAs): \(table) lost rows while shard \(shard) was found")
        }
        let width = Int32(keyExpressions.count)
        let key = byRowid ? Key.rowid(statement.integer(at: 0)) : .columns((0..<width).map { statement.value(at: $0) })
        guard !key.holdsNull else {
            throw UsageError(
                "'--shard \(shard)': the row at the shard's bound has a key holding NULL (\(describe(key))), which "
                    + "bounds no range; give --key columns that hold no NULL")
        }
        return key
    }

    /// How many rows the table has.
    func count() throws -> Int {
        let statement = try database.prepare(
            "SELECT count(*) FROM \(SQLiteDatabase.quoted(table))", purpose: "count the rows of \(table)")
        guard try statement.step(), case .integer(let count) = statement.value(at: 0) else { return 0 }
        return Int(count)
    }

    /// The next rows in key order after `key` (from the first when `nil`): at most `limit`, and
    /// no more once their archives hold `byteLimit` bytes (at least one row).
    ///
    /// With `sharingBuffer`, the rows' text and blob values are slices of one buffer that holds
    /// the bytes of all of them (their indices do not start at 0): one allocation per window
    /// instead of two per row on the thread that reads, which a batch's other threads wait for.
    ///
    /// - Throws: `ArchiveError` with code `io` when SQLite fails, and when it answers a key that
    ///   does not come after the one before it (or after `key`), or more rows than asked for: the
    ///   database is damaged, and the error says what SQLite's check of the file finds.
    func rows(after key: Key?, limit: Int, byteLimit: Int, sharingBuffer: Bool = false) throws -> [Row] {
        if shardBounds?.isEmpty == true { return [] }
        // A shard starts after the key before it, and ends at its own last key.
        let key = key ?? shardBounds?.after
        let statement: SQLiteStatement
        if let selectThrough {
            statement = key == nil ? selectThrough.first : selectThrough.after
        } else {
            statement = key == nil ? select : selectAfter
        }
        defer { statement.reset() }
        try statement.bind(
            (key?.values ?? []) + (shardBounds?.through?.values ?? []) + [.integer(Int64(limit))])
        var rows: [Row] = []
        var previous = key
        var bytes = 0
        let width = Int32(keyExpressions.count)
        // With a shared buffer, a row's text or blob is known by its place in `shared` until the
        // buffer holds every row's bytes and can be sliced. It starts as large as the last one.
        var shared = ByteBuffer(capacity: sharingBuffer ? sharedCapacity : 0)
        var places: [(row: Int, range: Range<Int>, isText: Bool)] = []
        while try statement.step() {
            let key =
                byRowid ? Key.rowid(statement.integer(at: 0)) : .columns((0..<width).map { statement.value(at: $0) })
            if let previous, try !self.key(key, follows: previous) {
                throw damaged("\(describe(key)) came after \(describe(previous))")
            }
            guard rows.count < limit else {
                throw damaged("SQLite answered more than the \(limit) rows asked for")
            }
            previous = key
            if sharingBuffer, let (range, isText) = try statement.appendBytes(at: width, to: &shared) {
                places.append((rows.count, range, isText))
                rows.append(Row(key: key, value: .null))
                bytes += range.count
            } else {
                let row = Row(key: key, value: statement.value(at: width))
                rows.append(row)
                switch row.value {
                case .text(let data), .blob(let data): bytes += data.count
                default: break
                }
            }
            if bytes >= byteLimit { break }
        }
        sharedCapacity = Swift.max(shared.count, 1 << 12)
        let buffer = shared.takeData()
        for place in places {
            rows[place.row].value = place.isText ? .text(buffer[place.range]) : .blob(buffer[place.range])
        }
        return rows
    }

    /// Whether `key` comes after `earlier` in the order rows are read. A key holding NULL
    /// follows any: SQL orders no row value with a NULL in it (`WHERE key > ?` after it reads
    /// nothing), and a unique index lets such keys repeat; the window's write names them.
    private func key(_ key: Key, follows earlier: Key) throws -> Bool {
        switch (key, earlier) {
        case (.rowid(let rowid), .rowid(let earlierRowid)):
            return rowid > earlierRowid
        default:
            if key.holdsNull || earlier.holdsNull { return true }
            guard let follows else { return false }
            defer { follows.reset() }
            try follows.bind(key.values + earlier.values)
            guard try follows.step(), case .integer(let answer) = follows.value(at: 0) else { return false }
            return answer == 1
        }
    }

    /// The error for a database whose answers cannot be right: `problem`, and what SQLite's own
    /// check of the file says (`On tree page 2 cell 0: Rowid 3 out of order`, …).
    private func damaged(_ problem: String) -> ArchiveError {
        let findings = database.quickCheck()
        return ArchiveError(
            .io,
            "\(database.shownAs) is damaged: reading \(table) in key order, \(problem)"
                + (findings.isEmpty ? "" : "; SQLite's check of the file says: " + findings.joined(separator: "; "))
                + "; restore it from a backup, or recover it with sqlite3's .recover")
    }

    /// Writes each new archive into the archive column of the row with its key; `writes` are
    /// in key order, as ``rows(after:limit:byteLimit:sharingBuffer:)`` read them.
    ///
    /// - Throws: `ArchiveError` with code `io` when the write fails, when a key holds NULL or
    ///   names two rows, or when a row was not written (gone, or kept as it was by a trigger),
    ///   naming the first.
    func write(_ writes: [Write]) throws {
        guard let first = writes.first, let last = writes.last else { return }
        guard let update, let pending else { throw ArchiveError(.io, "\(database.shownAs) was opened read-only") }
        // SQL compares nothing equal to NULL: such a key names no row to write (and, as a bound
        // of the window's range, would leave every row out of it).
        if let unnamed = writes.first(where: \.key.holdsNull) {
            throw ArchiveError(
                .io,
                "\(describe(unnamed.key)) of \(table) was not written: a key holding NULL names no row; give --key "
                    + "columns that hold no NULL")
        }
        defer { pending.finish() }
        if let repeated = pending.start(writes) {
            throw ArchiveError(
                .io,
                "two rows of \(table) have the key \(describe(repeated)), which must name one row; none was written")
        }
        do {
            defer { update.reset() }
            try update.bind(first.key.values + last.key.values)
            _ = try update.step()
        }
        guard database.changes == writes.count else { throw try unwritten(writes) }
    }

    /// The error for a write the `UPDATE` did not make: the first row whose archive is not the
    /// new one, read back by its key. SQLite asks a row's new value before its `BEFORE UPDATE`
    /// triggers run, and one of those may delete the row or keep it as it is.
    private func unwritten(_ writes: [Write]) throws -> ArchiveError {
        let condition = keyExpressions.enumerated().map { "\($0.element) = ?\($0.offset + 1)" }.joined(
            separator: " AND ")
        let statement = try database.prepare(
            "SELECT \(SQLiteDatabase.quoted(column)) FROM \(SQLiteDatabase.quoted(table)) WHERE \(condition)",
            purpose: "read \(table).\(column)")
        for write in writes {
            defer { statement.reset() }
            try statement.bind(write.key.values)
            guard try statement.step() else {
                return ArchiveError(.io, "\(describe(write.key)) of \(table) is gone: no row was written")
            }
            if statement.value(at: 0) != write.value {
                return ArchiveError(
                    .io, "\(describe(write.key)) of \(table) was not written: the UPDATE left it as it was (a trigger?)"
                )
            }
        }
        return ArchiveError(.io, "\(table) changed other rows than the \(writes.count) written: nothing was written")
    }

    /// `Z_PK 42`, `id 'a' and n 3`: a row's key as messages show it.
    func describe(_ key: Key) -> String {
        Self.describe(key, keyNames: keyNames)
    }

    static func describe(_ key: Key, keyNames: [String]) -> String {
        zip(keyNames, key.values).map { "\($0) \($1.literal)" }.joined(separator: " and ")
    }

    // MARK: The schema

    struct Column {
        var name: String
        var declaredType: String
        /// Its position in the primary key (1-based); 0 when it is not part of it.
        var primaryKeyPosition: Int
    }

    /// The table's name as the schema spells it.
    private static func resolveTable(_ name: String, in database: SQLiteDatabase) throws -> String {
        let statement = try database.prepare(
            "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name",
            purpose: "read the schema")
        var tables: [String] = []
        while try statement.step() {
            guard let found = statement.string(at: 0), let type = statement.string(at: 1) else { continue }
            if found.lowercased() == name.lowercased() {
                guard type == "table" else {
                    throw UsageError("'--table \(name)': \(found) is a view; name the table that holds the archives")
                }
                return found
            }
            if type == "table", !found.hasPrefix("sqlite_") { tables.append(found) }
        }
        throw UsageError(
            "'--table \(name)': \(database.shownAs) has no such table"
                + (tables.isEmpty ? " (it has no tables)" : " (it has \(tables.joined(separator: ", ")))"))
    }

    private static func columns(of table: String, in database: SQLiteDatabase) throws -> [Column] {
        let statement = try database.prepare(
            "SELECT name, type, pk FROM pragma_table_info(?)", purpose: "read the columns of \(table)")
        try statement.bind([.text(Data(table.utf8))])
        var columns: [Column] = []
        while try statement.step() {
            var position = 0
            if case .integer(let number) = statement.value(at: 2) { position = Int(number) }
            columns.append(
                Column(
                    name: statement.string(at: 0) ?? "", declaredType: statement.string(at: 1) ?? "",
                    primaryKeyPosition: position))
        }
        return columns
    }

    /// Refuses key columns that may name several rows: they must be the primary key, or the
    /// columns of a unique index that covers every row (not a partial one) and holds no
    /// expression (`UNIQUE (k, lower(name))` does not make `k` unique). Keys with NULLs, which a
    /// unique index lets repeat, are caught when a window is written (``PendingWrites``).
    private static func checkUnique(_ names: [String], table: String, columns: [Column], in database: SQLiteDatabase)
        throws
    {
        let wanted = Set(names.map { $0.lowercased() })
        let primaryKey = Set(columns.filter { $0.primaryKeyPosition > 0 }.map { $0.name.lowercased() })
        if primaryKey == wanted { return }
        let indexes = try database.prepare(
            "SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1 AND partial = 0",
            purpose: "read the indexes of \(table)")
        try indexes.bind([.text(Data(table.utf8))])
        var unique: [String] = []
        while try indexes.step() {
            if let name = indexes.string(at: 0) { unique.append(name) }
        }
        for index in unique {
            let info = try database.prepare(
                "SELECT name FROM pragma_index_info(?)", purpose: "read the index \(index)")
            try info.bind([.text(Data(index.utf8))])
            var indexed: Set<String> = []
            var hasExpression = false
            while try info.step() {
                // An expression's column has no name.
                if let name = info.string(at: 0) { indexed.insert(name.lowercased()) } else { hasExpression = true }
            }
            if indexed == wanted && !hasExpression { return }
        }
        throw UsageError(
            "'--key \(names.joined(separator: " --key "))' may name several rows of \(table): a key must be its primary "
                + "key or have a unique index")
    }
}
