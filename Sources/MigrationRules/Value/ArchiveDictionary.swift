/// String-keyed archive values that keep the order in which their keys were archived.
///
/// Order matters for output (deterministic files, small fixture diffs) but not for meaning:
/// two dictionaries with the same entries in another order are equal and hash alike.
///
/// ```swift
/// var point: ArchiveDictionary = ["x": 10, "y": 20]
/// point["z"] = 0                          // appended at the end
/// point.renameKey("x", to: "left")        // keeps its position
/// point["y"] = nil                        // removes the entry
/// ```
///
/// Keys are identified by their exact Unicode scalars, as in every archive format and in
/// Foundation's `NSString`: `"\u{E9}"` (é) and `"e\u{301}"` (e and a combining accent) are two
/// keys, although Swift's `==` finds them equal (see ``ArchiveValue`` for values).
///
/// Look-ups in a small dictionary scan the entries; `index(forKey:startingAt:)` starts just
/// after a previous hit, which makes reading keys in their archived order (what decoders and
/// migrations do) cost one comparison per key. A dictionary of more than 32 entries also keeps a
/// hash index of its keys, so that look-ups, appends, renames and comparisons take the same
/// time per key whatever its size.
public struct ArchiveDictionary: Sendable {
    /// A key and its value.
    public typealias Element = (key: String, value: ArchiveValue)

    /// One stored entry. A struct rather than the public tuple `Element`, so that reading
    /// one key or one value never copies the whole entry.
    @usableFromInline
    package struct Entry: Sendable {
        @usableFromInline package var key: String
        @usableFromInline package var value: ArchiveValue

        @inlinable
        package init(key: String, value: ArchiveValue) {
            self.key = key
            self.value = value
        }
    }

    /// The entries, in order. Code of this module may change their values in place; keys and
    /// positions change only through the methods that keep ``keyIndex`` up to date
    /// (``removeEntry(at:)``, ``insertEntry(_:at:)``, ``setKey(_:at:)`` and the public ones).
    @usableFromInline
    internal var entries: [Entry]

    /// Where each key is, for dictionaries of more than ``indexedCount`` entries; `nil` for
    /// smaller ones, which scan (see `ArchiveDictionary+KeyIndex.swift`).
    @usableFromInline
    internal var keyIndex: KeyIndex?

    /// The number of entries above which a dictionary keeps a hash index of its keys.
    ///
    /// Measured with random look-ups of model-like keys (`id`, `title`, `backgroundColor`, …) in
    /// dictionaries of 4 to 64 entries: a look-up through the index (hashing the key with the
    /// seeded `Hasher`) costs about as much as scanning 24 to 32 entries, most of which are told
    /// apart by their length alone. The models most archives hold have fewer fields, so they never
    /// pay for an index. An index is dropped again when its dictionary shrinks to half of this.
    @inlinable
    package static var indexedCount: Int { 32 }

    /// Creates an empty dictionary.
    @inlinable
    public init() {
        entries = []
        keyIndex = nil
    }

    /// Creates an empty dictionary with room for `capacity` entries.
    @inlinable
    package init(minimumCapacity capacity: Int) {
        entries = []
        keyIndex = nil
        entries.reserveCapacity(capacity)
    }

    /// Creates a dictionary from entries the caller knows to have unique keys.
    ///
    /// Readers check uniqueness with ``firstDuplicateKey()``; when keys repeat anyway, look-ups
    /// find the first entry.
    @inlinable
    package init(uniqueEntries: [Element]) {
        entries = uniqueEntries.map { Entry(key: $0.key, value: $0.value) }
        keyIndex = nil
        if entries.count > Self.indexedCount { rebuildKeyIndex() }
    }

    /// Creates a dictionary from stored entries the caller knows to have unique keys (readers
    /// build these directly).
    @inlinable
    package init(uniqueStoredEntries: [Entry]) {
        entries = uniqueStoredEntries
        keyIndex = nil
        if entries.count > Self.indexedCount { rebuildKeyIndex() }
    }

    /// Creates a dictionary from a sequence of entries; a later entry replaces an earlier one with
    /// the same key, in the earlier one's position.
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        for (key, value) in elements {
            updateValue(value, forKey: key)
        }
    }

    /// The number of entries.
    @inlinable
    public var count: Int { entries.count }

    /// Whether the dictionary has no entries.
    @inlinable
    public var isEmpty: Bool { entries.isEmpty }

    /// The keys in their archived order.
    public var keys: [String] { entries.map(\.key) }

    /// The values in their archived order.
    public var values: [ArchiveValue] { entries.map(\.value) }

    /// The position of `key` (the same Unicode scalars), or `nil` when it is absent.
    @inlinable
    public func index(forKey key: String) -> Int? {
        if keyIndex != nil { return indexedPosition(of: key) }
        return entries.firstIndex { $0.key.hasSameScalars(as: key) }
    }

    /// The position of `key`, searching from `start` to the end and then from the beginning.
    ///
    /// Pass the position after the previous hit when reading keys in order: each look-up then
    /// costs one comparison.
    @inlinable
    package func index(forKey key: String, startingAt start: Int) -> Int? {
        if start >= 0 && start < entries.count && entries[start].key.hasSameScalars(as: key) { return start }
        return index(forKey: key, after: start)
    }

    /// The position of `key` when it is not at `skipped`: through the index, or by scanning
    /// from `skipped + 1` to the end and then from the beginning. Out of line, so that the
    /// look-ups that hit at once stay short.
    @usableFromInline
    func index(forKey key: String, after skipped: Int) -> Int? {
        if keyIndex != nil { return indexedPosition(of: key) }
        let count = entries.count
        guard skipped >= 0 && skipped < count else { return index(forKey: key) }
        for index in skipped + 1..<count where entries[index].key.hasSameScalars(as: key) {
            return index
        }
        for index in 0..<skipped where entries[index].key.hasSameScalars(as: key) {
            return index
        }
        return nil
    }

    /// The value for `key`; assigning `nil` removes the entry, assigning a value replaces it in
    /// place or appends it.
    @inlinable
    public subscript(key: String) -> ArchiveValue? {
        get {
            guard let index = index(forKey: key) else { return nil }
            return entries[index].value
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets the value for `key` (in place when present, appended otherwise) and returns the old
    /// value.
    @inlinable
    @discardableResult
    public mutating func updateValue(_ value: ArchiveValue, forKey key: String) -> ArchiveValue? {
        if let index = index(forKey: key) {
            let old = entries[index].value
            entries[index].value = value
            return old
        }
        appendUnchecked(value, forKey: key)
        return nil
    }

    /// Inserts `value` under `key` at `position` (clamped to the valid range), replacing any
    /// existing entry for `key`.
    public mutating func insert(_ value: ArchiveValue, forKey key: String, at position: Int) {
        if let existing = index(forKey: key) {
            removeEntry(at: existing)
        }
        insertEntry(Entry(key: key, value: value), at: Swift.max(0, Swift.min(position, entries.count)))
    }

    /// Removes the entry for `key` and returns its value.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: String) -> ArchiveValue? {
        guard let index = index(forKey: key) else { return nil }
        return removeEntry(at: index).value
    }

    /// Renames a key in place, keeping its position. Returns `false` when `old` is absent.
    ///
    /// An existing entry under `new` is replaced.
    @discardableResult
    public mutating func renameKey(_ old: String, to new: String) -> Bool {
        guard var index = index(forKey: old) else { return false }
        if old.hasSameScalars(as: new) { return true }
        if let existing = self.index(forKey: new) {
            removeEntry(at: existing)
            if existing < index { index -= 1 }
        }
        setKey(new, at: index)
        return true
    }

    /// Appends an entry without looking for an existing one: for builders that know the key is
    /// new (encoders, readers that check ``firstDuplicateKey()``).
    @inlinable
    package mutating func appendUnchecked(_ value: ArchiveValue, forKey key: String) {
        entries.append(Entry(key: key, value: value))
        if keyIndex != nil || entries.count > Self.indexedCount { indexAppendedEntry() }
    }

    /// Appends entries whose keys the caller knows to be new: when they are many beside the
    /// dictionary, the index is built once for all of them, a group of keys at a time.
    package mutating func appendUnchecked(contentsOf newEntries: [Entry]) {
        let total = entries.count + newEntries.count
        guard total > Self.indexedCount, newEntries.count * 4 > entries.count else {
            entries.reserveCapacity(total)
            for entry in newEntries { appendUnchecked(entry.value, forKey: entry.key) }
            return
        }
        entries.append(contentsOf: newEntries)
        rebuildKeyIndex()
    }

    /// Removes the entry at `position` (a valid position) and returns it.
    @inlinable
    @discardableResult
    package mutating func removeEntry(at position: Int) -> Entry {
        if keyIndex == nil { return entries.remove(at: position) }
        return removeIndexedEntry(at: position)
    }

    /// Removes the entries at `positions` (valid positions, in any order; a position given twice
    /// is removed once), keeping the others in order: one pass over the entries and one new index,
    /// where removing them one at a time moves every later entry (and its place in the index)
    /// each time.
    package mutating func removeEntries(at positions: some Collection<Int>) {
        guard positions.count > 1 else {
            if let position = positions.first { removeEntry(at: position) }
            return
        }
        var isRemoved = [Bool](repeating: false, count: entries.count)
        var removed = 0
        for position in positions where !isRemoved[position] {
            isRemoved[position] = true
            removed += 1
        }
        if removed * 2 >= entries.count {
            // Most of them: the rest in a new array, so that a dictionary whose entries another
            // value shares (an object kept to compare) copies what stays, not what goes.
            var rest: [Entry] = []
            rest.reserveCapacity(entries.count - removed)
            for position in entries.indices where !isRemoved[position] { rest.append(entries[position]) }
            entries = rest
        } else {
            var kept = 0
            for position in entries.indices where !isRemoved[position] {
                if kept != position { entries.swapAt(kept, position) }
                kept += 1
            }
            entries.removeSubrange(kept...)
        }
        if keyIndex != nil || entries.count > Self.indexedCount { rebuildKeyIndex() }
    }

    /// The entry at `position` (a valid position), its value moved out: `null` stays in its
    /// place, so that the caller holds the only reference to the value until it removes the
    /// entry or puts a value back.
    package mutating func takeEntry(at position: Int) -> Entry {
        let value = entries[position].value
        entries[position].value = .null
        return Entry(key: entries[position].key, value: value)
    }

    /// Inserts `entry` at `position` (from 0 to ``count``), without looking for its key: the
    /// caller knows it is new.
    package mutating func insertEntry(_ entry: Entry, at position: Int) {
        replaceEntries(position..<position, with: CollectionOfOne(entry))
    }

    /// Replaces the entries in `range` with `newEntries`, whose keys the caller knows to be new.
    package mutating func replaceEntries(_ range: Range<Int>, with newEntries: some Collection<Entry>) {
        if keyIndex == nil && entries.count - range.count + newEntries.count <= Self.indexedCount {
            entries.replaceSubrange(range, with: newEntries)
            return
        }
        replaceIndexedEntries(range, with: newEntries)
    }

    /// Changes the key of the entry at `position` (a valid position) to `key`, keeping its
    /// value and position; the caller knows `key` to be new.
    package mutating func setKey(_ key: String, at position: Int) {
        if keyIndex == nil {
            entries[position].key = key
        } else {
            setIndexedKey(key, at: position)
        }
    }

    /// Reserves room for `capacity` entries.
    @inlinable
    package mutating func reserveCapacity(_ capacity: Int) {
        entries.reserveCapacity(capacity)
    }

    /// Removes every entry.
    public mutating func removeAll(keepingCapacity: Bool = false) {
        entries.removeAll(keepingCapacity: keepingCapacity)
        keyIndex = nil
    }

    /// Changes every value in place, keeping keys and order.
    package mutating func updateValues(_ body: (String, inout ArchiveValue) throws -> Void) rethrows {
        for index in entries.indices {
            try body(entries[index].key, &entries[index].value)
        }
    }

    /// The first key that occurs more than once (the same Unicode scalars), if any: readers
    /// reject such input.
    ///
    /// Small dictionaries (the common case) compare keys pairwise; larger ones use a set, and
    /// indexed ones remember what building their index found.
    package func firstDuplicateKey() -> String? {
        if let keyIndex {
            return keyIndex.firstDuplicate.map { entries[$0].key }
        }
        return entries.withUnsafeBufferPointer { buffer -> String? in
            let count = buffer.count
            if count < 2 { return nil }
            if count <= 16 {
                for i in 1..<count {
                    for j in 0..<i where buffer[j].key.hasSameScalars(as: buffer[i].key) {
                        return buffer[i].key
                    }
                }
                return nil
            }
            var seen = Set<ExactString>(minimumCapacity: count)
            for entry in buffer where !seen.insert(ExactString(entry.key)).inserted {
                return entry.key
            }
            return nil
        }
    }
}

extension ArchiveDictionary: RandomAccessCollection {
    /// A position is an entry's offset in archived order, from 0.
    public typealias Index = Int

    /// The position of the first entry: 0.
    @inlinable
    public var startIndex: Int { 0 }

    /// The position after the last entry: the number of entries.
    @inlinable
    public var endIndex: Int { entries.count }

    /// The key and value of the entry at `position`, in archived order.
    @inlinable
    public subscript(position: Int) -> Element {
        (entries[position].key, entries[position].value)
    }

    /// The value at `position` (without copying its key).
    @inlinable
    public func value(at position: Int) -> ArchiveValue {
        entries[position].value
    }

    /// Calls `body` with the value at `position` so it can be changed in place without a copy.
    @inlinable
    package mutating func withValue<R>(at position: Int, _ body: (inout ArchiveValue) throws -> R) rethrows -> R {
        try body(&entries[position].value)
    }
}

extension ArchiveDictionary: ExpressibleByDictionaryLiteral {
    /// The literal's entries in their order; a key written twice keeps its first position and its last value.
    public init(dictionaryLiteral elements: (String, ArchiveValue)...) {
        self.init()
        reserveCapacity(elements.count)
        for (key, value) in elements {
            updateValue(value, forKey: key)
        }
    }
}

extension ArchiveDictionary: Equatable {
    /// Two dictionaries are equal when they hold the same keys (the same Unicode scalars) with
    /// equal values, in any order.
    public static func == (lhs: ArchiveDictionary, rhs: ArchiveDictionary) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var hint = 0
        for entry in lhs.entries {
            let key = entry.key
            let value = entry.value
            guard let index = rhs.index(forKey: key, startingAt: hint), rhs.entries[index].value == value else {
                return false
            }
            hint = index + 1
        }
        return true
    }
}

extension ArchiveDictionary: Hashable {
    /// Hashes the entries in any order, each key by its Unicode scalars, so that equal dictionaries hash alike.
    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine per-entry hashes commutatively.
        var combined = 0
        for entry in entries {
            let key = entry.key
            let value = entry.value
            var entryHasher = Hasher()
            key.hashScalars(into: &entryHasher)
            entryHasher.combine(value)
            combined ^= entryHasher.finalize()
        }
        hasher.combine(entries.count)
        hasher.combine(combined)
    }
}
