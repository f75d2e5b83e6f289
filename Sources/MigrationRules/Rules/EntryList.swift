/// The entries of a large keyed container under a run of `move` and `remove` rules: a doubly
/// linked list, so that removing an entry and inserting one before another take constant time
/// whatever the container's size, where an ``ArchiveDictionary`` moves every later entry (and
/// its place in the key index) each time. The run's rules edit the list as
/// ``MigrationRule/move(_:to:)`` and ``MigrationRule/remove(_:restoring:)`` edit a dictionary,
/// with the same results and errors (a test pins the two together); the list becomes a
/// dictionary again once, at the end of the run.
///
/// The entries the container had are found through its own key index (the dictionary is kept
/// for that, its values moved out); entries the run inserts, through a table of their own.
/// Nested containers a move reaches into are opened as lists of their own when first reached.
/// A class, so that nested lists are edited in place.
final class EntryList {
    /// A node's value: as it is, or opened as a list.
    private enum Payload {
        case value(ArchiveValue)
        case list(EntryList)
    }

    /// The container as the run found it: its keys, and its index to find them.
    private var original: ArchiveDictionary
    /// Per node (the original entries first, in order, then those the run inserted): its key,
    /// its value, whether it is still in the list, and its neighbours (`-1` for none).
    private var keys: [String] = []
    private var payloads: [Payload] = []
    private var isLive: [Bool]
    private var next: [Int]
    private var previous: [Int]
    private var head: Int
    private var tail: Int
    private(set) var count: Int
    /// The entries the run inserted that are still in the list, by key.
    private var inserted: [ExactString: Int] = [:]
    /// The object whose fields these are (its fields taken out), or `nil` for a dictionary.
    private var object: ArchiveObject?

    /// The entries of `dictionary`, taken over.
    init(_ dictionary: consuming ArchiveDictionary, object: ArchiveObject? = nil) {
        original = dictionary
        let count = dictionary.count
        self.count = count
        self.object = object
        payloads.reserveCapacity(count)
        for index in 0..<count {
            payloads.append(.value(original.takeEntry(at: index).value))
        }
        isLive = [Bool](repeating: true, count: count)
        next = count > 0 ? Array(1..<count) + [-1] : []
        previous = count > 0 ? [-1] + Array(0..<count - 1) : []
        head = count > 0 ? 0 : -1
        tail = count - 1
    }

    /// An empty list for a dictionary the run makes.
    private convenience init() {
        self.init(ArchiveDictionary())
    }

    /// The entries again, in their order, as a dictionary.
    func dictionary() -> ArchiveDictionary {
        var entries: [ArchiveDictionary.Entry] = []
        entries.reserveCapacity(count)
        var node = head
        while node >= 0 {
            entries.append(ArchiveDictionary.Entry(key: key(of: node), value: value(of: node)))
            node = next[node]
        }
        return ArchiveDictionary(uniqueStoredEntries: entries)
    }

    /// The container again: the dictionary, or the object with these fields.
    private func containerValue() -> ArchiveValue {
        guard var object else { return .dictionary(dictionary()) }
        object.fields = dictionary()
        return .object(object)
    }

    private func key(of node: Int) -> String {
        node < original.count ? original.entries[node].key : keys[node - original.count]
    }

    private func value(of node: Int) -> ArchiveValue {
        switch payloads[node] {
        case .value(let value): return value
        case .list(let list): return list.containerValue()
        }
    }

    // MARK: Look-ups and edits

    /// The node of `key`, if the list has it.
    private func node(forKey key: String) -> Int? {
        if !inserted.isEmpty, let node = inserted[ExactString(key)] { return node }
        guard let node = original.index(forKey: key), isLive[node] else { return nil }
        return node
    }

    /// Takes `node` out of the list; returns its value and the node that followed it.
    private func remove(_ node: Int) -> (payload: Payload, following: Int?) {
        let before = previous[node]
        let after = next[node]
        if before >= 0 { next[before] = after } else { head = after }
        if after >= 0 { previous[after] = before } else { tail = before }
        isLive[node] = false
        count -= 1
        if node >= original.count { inserted[ExactString(keys[node - original.count])] = nil }
        let payload = payloads[node]
        payloads[node] = .value(.null)
        return (payload, after >= 0 ? after : nil)
    }

    /// Puts `payload` under `key` (a key the list does not have) before `place`, or at the end.
    private func insert(_ key: String, _ payload: Payload, before place: Int?) {
        let node = payloads.count
        keys.append(key)
        payloads.append(payload)
        isLive.append(true)
        inserted[ExactString(key)] = node
        let after = place ?? -1
        let before = after >= 0 ? previous[after] : tail
        previous.append(before)
        next.append(after)
        if before >= 0 { next[before] = node } else { head = node }
        if after >= 0 { previous[after] = node } else { tail = node }
        count += 1
    }

    /// The list of the container at `node`, opening it; `nil` when the value is not keyed.
    private func open(_ node: Int) -> EntryList? {
        switch payloads[node] {
        case .list(let list):
            return list
        case .value(var value):
            payloads[node] = .value(.null)
            let list: EntryList
            if let entries = value.takeDictionary() {
                list = EntryList(entries)
            } else if var object = value.takeObject() {
                list = EntryList(object.takeFields(), object: object)
            } else {
                payloads[node] = .value(value)
                return nil
            }
            payloads[node] = .list(list)
            return list
        }
    }

    /// Whether `node` holds a dictionary (which a move that empties it removes), not an object.
    private func holdsDictionary(_ node: Int) -> Bool {
        switch payloads[node] {
        case .list(let list): return list.object == nil
        case .value(let value):
            if case .dictionary = value { return true }
            return false
        }
    }

    /// Whether something is at `keys` (looking through dictionaries and objects), as
    /// `ArchiveDictionary.value(atKeys:)` finds it.
    private func has(_ keys: [String]) -> Bool {
        guard let first = keys.first, let node = node(forKey: first) else { return false }
        var list: EntryList?
        var value: ArchiveValue?
        switch payloads[node] {
        case .list(let opened): list = opened
        case .value(let found): value = found
        }
        for key in keys.dropFirst() {
            if let opened = list {
                guard let found = opened.node(forKey: key) else { return false }
                switch opened.payloads[found] {
                case .list(let inner): (list, value) = (inner, nil)
                case .value(let inner): (list, value) = (nil, inner)
                }
            } else {
                guard let inner = value?.keyedEntries?[key] else { return false }
                value = inner
            }
        }
        return true
    }

    // MARK: Rules

    /// Runs `remove(key)`.
    func remove(_ key: String) {
        if let node = node(forKey: key) { _ = remove(node) }
    }

    /// Runs `move(from → to)` (key paths, both non-empty) on the list of a container at `base`.
    ///
    /// - Throws: What ``MigrationRule/move(_:to:)`` throws, at the same paths.
    func move(_ from: [String], to: [String], base: ArchivePath) throws {
        guard !from.elementsEqual(to, by: { $0.hasSameScalars(as: $1) }), has(from) else { return }
        if has(to) {
            throw ArchiveError(
                .migrationFailed, "the key '\(ArchiveDictionary.path(of: to[...]))' already exists", path: base)
        }
        guard let (payload, place) = try take(from, from: 0, base: base) else { return }
        try store(payload, at: to, from: 0, before: place, base: base)
    }

    /// As `ArchiveDictionary.takeValue(atKeys:from:base:)`: the value at `keys[offset...]`,
    /// removed, and where the top-level entry it was found under is (the entry that followed
    /// it when that is gone too).
    private func take(_ keys: [String], from offset: Int, base: ArchivePath) throws -> (Payload, Int?)? {
        guard offset < keys.count, let node = node(forKey: keys[offset]) else { return nil }
        if offset == keys.count - 1 { return remove(node) }
        if case .value(.null) = payloads[node] { return nil }
        guard let inner = open(node) else {
            guard case .value(let value) = payloads[node] else { return nil }
            throw ArchiveError(
                .migrationFailed, "expected a dictionary or object, found \(value.kindAndValue)",
                path: base.appending(ArchiveDictionary.path(of: keys[...offset])))
        }
        guard let (payload, _) = try inner.take(keys, from: offset + 1, base: base) else { return nil }
        if inner.count == 0, holdsDictionary(node) {
            return (payload, remove(node).following)
        }
        return (payload, node)
    }

    /// As `ArchiveDictionary.storeValue(_:atKeys:from:position:replacing:base:)` with
    /// `replacing: false`: stores `payload` at `keys[offset...]`, making missing dictionaries
    /// (and replacing `null` ones); a new top-level entry goes before `place`.
    private func store(
        _ payload: Payload, at keys: [String], from offset: Int, before place: Int?, base: ArchivePath
    ) throws {
        guard offset < keys.count else { return }
        let key = keys[offset]
        let existing = node(forKey: key)
        if offset == keys.count - 1 {
            if existing != nil {
                throw ArchiveError(
                    .migrationFailed, "the key '\(key)' already exists",
                    path: base.appending(ArchiveDictionary.path(of: keys[...offset])))
            }
            insert(key, payload, before: place)
            return
        }
        guard let existing else {
            let inner = EntryList()
            try inner.store(payload, at: keys, from: offset + 1, before: nil, base: base)
            insert(key, .list(inner), before: place)
            return
        }
        if case .value(.null) = payloads[existing] { payloads[existing] = .list(EntryList()) }
        guard let inner = open(existing) else {
            guard case .value(let value) = payloads[existing] else { return }
            throw ArchiveError(
                .migrationFailed, "expected a dictionary or object, found \(value.kindAndValue)",
                path: base.appending(ArchiveDictionary.path(of: keys[...offset])))
        }
        try inner.store(payload, at: keys, from: offset + 1, before: nil, base: base)
    }
}
