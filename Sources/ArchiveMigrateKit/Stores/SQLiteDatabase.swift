@_spi(Coders) import ArchiveFormats
import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// One connection to a SQLite database file, through the system's SQLite library, with its own
/// locking and nothing else assumed: other connections and processes may have the file open.
///
/// Opening never creates a file; a connection waits up to its busy timeout for a lock another
/// connection holds, then fails with a message that says so. Every failure is an
/// `ArchiveError` with code `io` naming the file as the user gave it.
///
/// Not `Sendable`: a connection is used from the thread that opened it.
final class SQLiteDatabase {
    /// The file as the user named it, for messages.
    let shownAs: String
    private let handle: OpaquePointer
    /// How long a statement waits for another connection's lock, in milliseconds.
    let busyTimeout: Int

    /// Opens the database at `path`, read-only or for reading and writing.
    ///
    /// - Throws: `ArchiveError` with code `io` for a missing file, a file that is not a database,
    ///   or one that cannot be opened.
    init(path: String, shownAs: String, readOnly: Bool, busyTimeout: Int) throws {
        self.shownAs = shownAs
        self.busyTimeout = busyTimeout
        let status: FileStatus
        do {
            status = try FileStatus.of(path)
        } catch {
            throw ArchiveError(
                .io,
                error.code == ENOENT ? "\(shownAs) does not exist" : "cannot open the database \(shownAs): \(error)")
        }
        guard status.kind == .regular else {
            throw ArchiveError(.io, "\(shownAs) is \(status.kind.phrase), not a database")
        }
        var connection: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            let message =
                connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_close_v2(connection)
            throw ArchiveError(.io, "cannot open the database \(shownAs): \(message)")
        }
        handle = connection
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(clamping: busyTimeout))
        // A file that is not a database fails on its first read, not when it is opened.
        _ = try prepare("SELECT count(*) FROM sqlite_master", purpose: "read")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Prepares one statement; `purpose` completes "cannot … in FILE" in messages.
    func prepare(_ sql: String, purpose: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw error(result, purpose)
        }
        return SQLiteStatement(statement, database: self, purpose: purpose)
    }

    /// Runs statements that return no rows (`BEGIN IMMEDIATE`, `COMMIT`).
    func execute(_ sql: String, purpose: String) throws {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw error(result, purpose) }
    }

    /// Defines the SQL function `name` of `arguments` arguments on this connection, run by
    /// `body` on the thread that steps the statement calling it. It is `SQLITE_DIRECTONLY`: SQL
    /// in the database file (a trigger, a view) cannot call it.
    ///
    /// - Throws: `ArchiveError` with code `io` when SQLite refuses it.
    func createFunction(_ name: String, arguments: Int, _ body: @escaping (SQLiteFunctionCall) -> Void) throws {
        // The connection holds the box until the function is replaced or the connection
        // closes; SQLite calls the destructor then, and also when the definition fails.
        let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
        let result = sqlite3_create_function_v2(
            handle, name, Int32(clamping: arguments), SQLITE_UTF8 | SQLITE_DIRECTONLY, box,
            { context, count, values in
                guard let context, let user = sqlite3_user_data(context) else { return }
                let box = Unmanaged<FunctionBox>.fromOpaque(user).takeUnretainedValue()
                box.body(SQLiteFunctionCall(context: context, arguments: values, count: Int(count)))
            }, nil, nil,
            { user in
                if let user { Unmanaged<FunctionBox>.fromOpaque(user).release() }
            })
        guard result == SQLITE_OK else { throw error(result, "define the SQL function \(name)") }
    }

    private final class FunctionBox {
        let body: (SQLiteFunctionCall) -> Void
        init(_ body: @escaping (SQLiteFunctionCall) -> Void) { self.body = body }
    }

    /// The collation the table's column is declared with (`BINARY` when it names none).
    ///
    /// - Throws: `ArchiveError` with code `io` when SQLite does not know the column.
    func collation(ofColumn column: String, in table: String) throws -> String {
        var collation: UnsafePointer<CChar>?
        let result = sqlite3_table_column_metadata(handle, nil, table, column, nil, &collation, nil, nil, nil)
        guard result == SQLITE_OK else { throw error(result, "read the column \(column) of \(table)") }
        return collation.map { String(cString: $0) } ?? "BINARY"
    }

    /// What `PRAGMA quick_check` finds wrong with the file, a finding per line (at most
    /// `limit`); empty when it finds nothing or cannot run.
    func quickCheck(limit: Int = 8) -> [String] {
        guard let statement = try? prepare("PRAGMA quick_check(\(limit))", purpose: "check the file") else { return [] }
        var findings: [String] = []
        while (try? statement.step()) == true {
            guard let text = statement.string(at: 0) else { continue }
            for line in text.split(separator: "\n") where line != "ok" && !line.hasPrefix("*** in database") {
                findings.append(String(line))
            }
        }
        return findings
    }

    /// How many rows the last `UPDATE` changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a transaction is open.
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The error of the last call that returned `result`: `database is locked` says how long it
    /// waited and that another connection holds the lock.
    func error(_ result: Int32, _ purpose: String) -> ArchiveError {
        let message = String(cString: sqlite3_errmsg(handle))
        let primary = result & 0xFF
        if primary == SQLITE_BUSY || primary == SQLITE_LOCKED {
            return ArchiveError(
                .io,
                "cannot \(purpose) in \(shownAs): another connection holds a lock on the database and did not "
                    + "release it within \(busyTimeout) ms (\(message)); try again when it is done, or give a "
                    + "longer --busy-timeout")
        }
        if primary == SQLITE_NOTADB {
            return ArchiveError(.io, "\(shownAs) is not a SQLite database (\(message))")
        }
        if primary == SQLITE_CORRUPT {
            return ArchiveError(
                .io,
                "cannot \(purpose) in \(shownAs): the database is damaged (\(message)); restore it from a backup, or "
                    + "recover it with sqlite3's .recover")
        }
        // SQLITE_READONLY_ROLLBACK: a hot journal a read-only connection cannot roll back.
        if result == SQLITE_READONLY | (3 << 8) {
            return ArchiveError(
                .io,
                "cannot \(purpose) in \(shownAs): a run that was interrupted left a transaction to roll back, which a "
                    + "read-only run (--dry-run, inspect, check) cannot do; run the upgrade again, or open the database "
                    + "once with sqlite3")
        }
        if primary == SQLITE_READONLY {
            return ArchiveError(.io, "cannot \(purpose) in \(shownAs): the database is read-only (\(message))")
        }
        return ArchiveError(.io, "cannot \(purpose) in \(shownAs): \(message)")
    }

    /// `"name"`, with `"` doubled: an identifier SQL reads as that name whatever it holds.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// One value of a SQLite row, in its storage class.
enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    /// The text's bytes as stored (UTF-8 in the databases SQLite makes by default).
    case text(Data)
    case blob(Data)

    /// The storage class, as SQL's `typeof()` names it.
    var typeName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }

    /// The bytes of a text or blob (0 for the other storage classes).
    var byteCount: Int {
        switch self {
        case .text(let data), .blob(let data): return data.count
        case .null, .integer, .real: return 0
        }
    }

    /// The value as a SQL literal reads it: `42`, `'Kyoto'`, `x'0A1B'`.
    var literal: String {
        switch self {
        case .null: return "NULL"
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .text(let bytes):
            return "'" + String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes): return "x'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}

/// One call of a SQL function defined with ``SQLiteDatabase/createFunction(_:arguments:_:)``:
/// its arguments, and its result to set.
struct SQLiteFunctionCall {
    fileprivate let context: OpaquePointer
    fileprivate let arguments: UnsafeMutablePointer<OpaquePointer?>?
    let count: Int

    /// Argument `index` when it is an integer.
    func integer(at index: Int) -> Int64? {
        guard index < count, let argument = arguments?[index], sqlite3_value_type(argument) == SQLITE_INTEGER else {
            return nil
        }
        return sqlite3_value_int64(argument)
    }

    /// Argument `index` (NULL past the last).
    func value(at index: Int) -> SQLiteValue {
        guard index < count, let argument = arguments?[index] else { return .null }
        switch sqlite3_value_type(argument) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(argument))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(argument))
        case SQLITE_TEXT:
            // The pointer first, then the count: SQLite's documented order.
            guard let text = sqlite3_value_text(argument) else { return .text(Data()) }
            return .text(Data(bytes: text, count: Int(sqlite3_value_bytes(argument))))
        case SQLITE_BLOB:
            let bytes = sqlite3_value_blob(argument)
            let count = Int(sqlite3_value_bytes(argument))
            guard let bytes, count > 0 else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// Sets the result to `bytes` as TEXT or a BLOB (SQLite copies them).
    func setResult(bytes: ArchiveBytes, isText: Bool) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                if isText {
                    sqlite3_result_text(context, "", 0, sqliteTransient)
                } else {
                    sqlite3_result_zeroblob(context, 0)
                }
                return
            }
            if isText {
                sqlite3_result_text64(
                    context, base.assumingMemoryBound(to: CChar.self), UInt64(buffer.count), sqliteTransient,
                    UInt8(SQLITE_UTF8))
            } else {
                sqlite3_result_blob64(context, base, UInt64(buffer.count), sqliteTransient)
            }
        }
    }

    /// Sets the result to 1 or 0.
    func setResult(_ value: Bool) {
        sqlite3_result_int(context, value ? 1 : 0)
    }

    /// Fails the call, and so the statement, with `message`.
    func fail(_ message: String) {
        sqlite3_result_error(context, message, -1)
    }
}

/// SQLite's `SQLITE_TRANSIENT`: it copies the bytes before the bind or result call returns.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement of a ``SQLiteDatabase``.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let database: SQLiteDatabase
    private let purpose: String

    fileprivate init(_ handle: OpaquePointer, database: SQLiteDatabase, purpose: String) {
        self.handle = handle
        self.database = database
        self.purpose = purpose
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds values to the parameters `?1`, `?2`, … (the blob and text values are copied).
    func bind(_ values: [SQLiteValue], from first: Int32 = 1) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: first + Int32(offset))
        }
    }

    /// Binds `value` to the parameter `?index` (a blob or text value is copied).
    func bind(_ value: SQLiteValue, at index: Int32) throws {
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(handle, index)
        case .integer(let number): result = sqlite3_bind_int64(handle, index, number)
        case .real(let number): result = sqlite3_bind_double(handle, index, number)
        case .text(let bytes):
            result = bytes.withUnsafeBytes { bindBytes($0, at: index, isText: true) }
        case .blob(let bytes):
            result = bytes.withUnsafeBytes { bindBytes($0, at: index, isText: false) }
        }
        guard result == SQLITE_OK else { throw database.error(result, purpose) }
    }

    /// Binds text or blob bytes, which SQLite copies (empty bytes: an empty text, a
    /// zero-length blob).
    private func bindBytes(_ buffer: UnsafeRawBufferPointer, at index: Int32, isText: Bool) -> Int32 {
        guard let base = buffer.baseAddress, !buffer.isEmpty else {
            return isText
                ? sqlite3_bind_text(handle, index, "", 0, sqliteTransient) : sqlite3_bind_zeroblob(handle, index, 0)
        }
        let count = Int32(clamping: buffer.count)
        return isText
            ? sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), count, sqliteTransient)
            : sqlite3_bind_blob(handle, index, base, count, sqliteTransient)
    }

    /// Runs the statement one step: `true` when it produced a row.
    func step() throws -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(result, purpose)
        }
    }

    /// Makes the statement ready to run again with new bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// How many columns the statement's rows have.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Column `index` of the current row as an integer (a rowid).
    func integer(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The value of column `index` of the current row.
    func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, index) else { return .text(Data()) }
            return .text(Data(bytes: text, count: Int(sqlite3_column_bytes(handle, index))))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// Appends the bytes of column `index` of the current row to `buffer` when it is text or a
    /// blob: where they went, and whether it is text; `nil` for other values.
    ///
    /// - Throws: `ArchiveError` with code `io` when the buffer cannot grow to hold them.
    func appendBytes(at index: Int32, to buffer: inout ByteBuffer) throws -> (range: Range<Int>, isText: Bool)? {
        let isText: Bool
        switch sqlite3_column_type(handle, index) {
        case SQLITE_TEXT: isText = true
        case SQLITE_BLOB: isText = false
        default: return nil
        }
        // The pointer first, then the count: SQLite's documented order.
        let bytes = isText ? UnsafeRawPointer(sqlite3_column_text(handle, index)) : sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        let start = buffer.count
        if let bytes, count > 0 {
            buffer.append(UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: UInt8.self), count: count))
        }
        // SQLite answers no pointer for a non-empty value only when it ran out of memory.
        guard !buffer.allocationFailed, bytes != nil || count == 0 else {
            throw ArchiveError(
                .io, "cannot hold \(start + count) bytes of archives read from \(database.shownAs) in memory")
        }
        return (start..<start + count, isText)
    }

    /// The text of column `index` of the current row (`nil` for NULL).
    func string(at index: Int32) -> String? {
        guard sqlite3_column_type(handle, index) != SQLITE_NULL, let text = sqlite3_column_text(handle, index) else {
            return nil
        }
        return String(cString: text)
    }

}

/// Runs SQL on a database file, creating it when it does not exist: for the package's benchmark,
/// which builds its tables with the same SQLite library the tool uses.
package enum SQLiteScript {
    /// - Throws: `ArchiveError` with code `io`.
    package static func run(_ sql: String, creating path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        let database = try SQLiteDatabase(path: path, shownAs: path, readOnly: false, busyTimeout: 5_000)
        try database.execute(sql, purpose: "run the script")
    }
}
