/// The new archives of one window of rows, for the one `UPDATE` that writes them over the
/// window's key range (``SQLiteColumn/write(_:)``): two SQL functions of the connection answer,
/// for each row of the range, whether it has a new archive (``pendingName``, in the `WHERE`
/// clause, so that rows without one are not written at all) and what it is (``valueName``).
///
/// A row is found by its key: by rowid, the one after the last found or a binary search (rows
/// come in key order); by `--key` columns, a dictionary. A row the `UPDATE` reaches without a
/// new archive is left alone; ``firstUnwritten`` names a row the `UPDATE` did not write (one a
/// trigger deleted).
///
/// Used on the connection's thread only: SQLite calls the functions inside `sqlite3_step`.
final class PendingWrites {
    static let pendingName = "archive_migrate_pending"
    static let valueName = "archive_migrate_value"

    private let byRowid: Bool
    private var writes: [SQLiteColumn.Write] = []
    /// By rowid: each write's rowid, ascending.
    private var rowids: [Int64] = []
    /// By `--key` columns: each write's index.
    private var indexByKey: [SQLiteColumn.Key: Int] = [:]
    /// Which writes the `UPDATE` took.
    private var taken: [Bool] = []
    /// The write found last.
    private var last = 0

    init(byRowid: Bool) {
        self.byRowid = byRowid
    }

    /// Holds `writes`, in key order, until ``finish()``.
    func start(_ writes: [SQLiteColumn.Write]) {
        self.writes = writes
        taken = Array(repeating: false, count: writes.count)
        last = 0
        if byRowid {
            rowids = writes.map { write in
                if case .rowid(let rowid) = write.key { return rowid }
                return .min
            }
        } else {
            indexByKey = Dictionary(
                writes.enumerated().map { ($0.element.key, $0.offset) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Lets go of the writes.
    func finish() {
        writes = []
        taken.removeAll(keepingCapacity: true)
        rowids.removeAll(keepingCapacity: true)
        indexByKey = [:]
    }

    /// The key of the first write the `UPDATE` did not take.
    var firstUnwritten: SQLiteColumn.Key? {
        taken.firstIndex(of: false).map { writes[$0].key }
    }

    /// `pendingName(key…)`: whether the row has a new archive.
    func isPending(_ call: SQLiteFunctionCall) {
        call.setResult(index(of: call) != nil)
    }

    /// `valueName(key…)`: the row's new archive, which the row then takes; an error for a row
    /// without one, which fails the statement rather than writing anything else.
    ///
    /// The row is counted as taken here, not in ``isPending(_:)``: SQLite may evaluate the
    /// `WHERE` clause of every row first and write them after, skipping a row a trigger
    /// deleted in between.
    func value(_ call: SQLiteFunctionCall) {
        guard let index = index(of: call) else {
            call.fail("archive-migrate has no new archive for this row")
            return
        }
        taken[index] = true
        call.setResult(writes[index].value)
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
