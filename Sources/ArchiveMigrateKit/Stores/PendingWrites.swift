/// The new archives of one window of rows, for the one `UPDATE` that writes them over the
/// window's key range (``SQLiteColumn/write(_:)``): two SQL functions of the connection answer,
/// for each row of the range, whether it has a new archive (``pendingName``, in the `WHERE`
/// clause, so that rows without one are not written at all) and what it is (``valueName``).
///
/// A row is found by its key: by rowid, the one after the last found or a binary search (rows
/// come in key order); by `--key` columns, a dictionary. A row the `UPDATE` reaches without a
/// new archive is left alone. A key that names two rows — possible with `--key` columns whose
/// unique index lets NULLs repeat, or is partial — fails the statement (``value(_:)``) instead of
/// writing one row's archive into the other, as the `UPDATE` of one row by its key failed by
/// changing two.
///
/// Used on the connection's thread only: SQLite calls the functions inside `sqlite3_step`. So no
/// two accesses to its state overlap, and the run-time exclusivity checks are off for it (two
/// SQL function calls per row each made several).
final class PendingWrites {
    static let pendingName = "archive_migrate_pending"
    static let valueName = "archive_migrate_value"

    private let byRowid: Bool
    /// The key's names, for messages.
    private let keyNames: [String]
    @exclusivity(unchecked) private var writes: [SQLiteColumn.Write] = []
    /// By rowid: each write's rowid, ascending.
    @exclusivity(unchecked) private var rowids: [Int64] = []
    /// By `--key` columns: each write's index.
    @exclusivity(unchecked) private var indexByKey: [SQLiteColumn.Key: Int] = [:]
    /// Which writes the `UPDATE` has asked the value of.
    @exclusivity(unchecked) private var taken: [Bool] = []
    /// The write found last.
    @exclusivity(unchecked) private var last = 0

    init(byRowid: Bool, keyNames: [String]) {
        self.byRowid = byRowid
        self.keyNames = keyNames
    }

    /// Holds `writes`, in key order, until ``finish()``; answers a key two of them have, if any
    /// (then nothing may be written).
    func start(_ writes: [SQLiteColumn.Write]) -> SQLiteColumn.Key? {
        self.writes = writes
        taken = Array(repeating: false, count: writes.count)
        last = 0
        if byRowid {
            rowids = writes.map { write in
                if case .rowid(let rowid) = write.key { return rowid }
                return .min
            }
            // Ascending, as read; an equal neighbour is a repeated key.
            for index in rowids.indices.dropFirst() where rowids[index] <= rowids[index - 1] {
                return writes[index].key
            }
        } else {
            indexByKey.reserveCapacity(writes.count)
            for (index, write) in writes.enumerated() where indexByKey.updateValue(index, forKey: write.key) != nil {
                return write.key
            }
        }
        return nil
    }

    /// Lets go of the writes.
    func finish() {
        writes = []
        taken.removeAll(keepingCapacity: true)
        rowids.removeAll(keepingCapacity: true)
        indexByKey = [:]
    }

    /// `pendingName(key…)`: whether the row has a new archive.
    func isPending(_ call: SQLiteFunctionCall) {
        call.setResult(index(of: call) != nil)
    }

    /// `valueName(key…)`: the row's new archive. It fails the statement, so that nothing is
    /// written, for a row without one (the `WHERE` clause leaves those out) and for a second
    /// row with the same key.
    func value(_ call: SQLiteFunctionCall) {
        guard let index = index(of: call) else {
            call.fail("archive-migrate has no new archive for this row")
            return
        }
        guard !taken[index] else {
            call.fail(
                "two rows have the key \(SQLiteColumn.describe(writes[index].key, keyNames: keyNames)), which must "
                    + "name one row; nothing of this transaction was written")
            return
        }
        taken[index] = true
        call.setResult(bytes: writes[index].bytes, isText: writes[index].isText)
    }

    private func index(of call: SQLiteFunctionCall) -> Int? {
        guard byRowid else {
            return indexByKey[.columns((0..<call.count).map { call.value(at: $0) })]
        }
        guard let rowid = call.integer(at: 0) else { return nil }
        if last < rowids.count, rowids[last] == rowid { return last }
        if last + 1 < rowids.count, rowids[last + 1] == rowid {
            last += 1
            return last
        }
        var low = 0
        var high = rowids.count
        while low < high {
            let middle = low + (high - low) / 2
            if rowids[middle] < rowid { low = middle + 1 } else { high = middle }
        }
        guard low < rowids.count, rowids[low] == rowid else { return nil }
        last = low
        return low
    }
}
