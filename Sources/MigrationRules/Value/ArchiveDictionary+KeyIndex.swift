/// A hash index of a large ``ArchiveDictionary``'s keys: where each key is among its entries.
///
/// Open addressing with linear probing over a power-of-two table of 64-bit slots. An empty slot
/// is 0; an occupied one holds the low 32 bits of its key's hash in its high half and its entry's
/// position plus one in its low half, so that a probe rejects other keys without reading them and
/// a slot's home is known without hashing its key again (for deletion by backward shifting).
/// Keys hash by their exact Unicode scalars (``ExactString``) with the standard library's
/// randomly seeded `Hasher`, so that an archive cannot choose keys that collide.
///
/// When an indexed dictionary has a repeated key (readers build dictionaries first and reject
/// them after ``ArchiveDictionary/firstDuplicateKey()``), the index holds the first entry of
/// each key, as a scan finds it, and records the first repeat. Appending keeps it so; any other
/// edit of such a dictionary builds the index again, which costs linear time but only for input
/// a reader rejects.
///
/// Copy-on-write: a dictionary edits its index only when no other dictionary shares it
/// (`isKnownUniquelyReferenced`), and copies it otherwise. `@unchecked Sendable` is sound for
/// the same reason as ``ArchiveObject``'s storage: it is only changed while uniquely referenced,
/// so no other value, and so no other thread, can see it.
@usableFromInline
final class KeyIndex: @unchecked Sendable {
    /// The table's size minus one (the size is a power of two, at most 2³²).
    let mask: Int
    /// `mask + 1` slots; their memory, not the pointer, changes.
    let slots: UnsafeMutablePointer<UInt64>
    /// How many slots are occupied.
    @exclusivity(unchecked) var occupied = 0
    /// The first position whose key repeats an earlier entry's key, when there is one.
    @exclusivity(unchecked) var firstDuplicate: Int?

    static let positionBits: UInt64 = 0xFFFF_FFFF
    static let hashBits: UInt64 = 0xFFFF_FFFF_0000_0000

    /// An empty table of `size` slots (a power of two).
    init(size: Int) {
        mask = size - 1
        slots = .allocate(capacity: size)
        LargeMemory.preferHugePages(UnsafeMutableRawPointer(slots), bytes: size * MemoryLayout<UInt64>.stride)
        slots.initialize(repeating: 0, count: size)
    }

    deinit {
        slots.deallocate()
    }

    /// A table for `count` entries: at least twice as many slots, so that it starts at most half
    /// full, and at least 64.
    static func size(for count: Int) -> Int {
        var size = 64
        while size < count * 2 { size *= 2 }
        return size
    }

    /// Whether one more key would fill the table past three quarters.
    var isFull: Bool { (occupied + 1) * 4 > (mask + 1) * 3 }

    /// A table of `size` slots (a power of two, larger than this one's) holding this one's
    /// slots, each placed from its home bucket there: the low 32 bits of its key's hash, which
    /// the slot stores, give that bucket for any table of up to 2³² slots. No key is hashed or
    /// read again, and both tables are read and written nearly in order.
    func grown(to size: Int) -> KeyIndex {
        let grown = KeyIndex(size: size)
        let newMask = grown.mask
        for bucket in 0...mask {
            let slot = slots[bucket]
            guard slot != 0 else { continue }
            var target = Int(truncatingIfNeeded: slot >> 32) & newMask
            while grown.slots[target] != 0 { target = (target &+ 1) & newMask }
            grown.slots[target] = slot
        }
        grown.occupied = occupied
        grown.firstDuplicate = firstDuplicate
        return grown
    }

    func copy() -> KeyIndex {
        let copy = KeyIndex(size: mask + 1)
        copy.slots.update(from: slots, count: mask + 1)
        copy.occupied = occupied
        copy.firstDuplicate = firstDuplicate
        return copy
    }

    /// The hash of `key`'s exact scalars (see `String.hashScalars(into:)`).
    @inline(__always)
    static func hash(_ key: String) -> Int {
        var hasher = Hasher()
        key.hashScalars(into: &hasher)
        return hasher.finalize()
    }

    @inline(__always)
    static func tag(_ hash: Int) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: hash)) << 32
    }

    @inline(__always)
    static func position(_ slot: UInt64) -> Int {
        Int(truncatingIfNeeded: slot & positionBits) &- 1
    }

    /// The bucket holding `key`, or the empty bucket where it would go.
    @inline(__always)
    func bucket(of key: String, hash: Int, in entries: [ArchiveDictionary.Entry]) -> (bucket: Int, found: Bool) {
        let tag = Self.tag(hash)
        var bucket = hash & mask
        while true {
            let slot = slots[bucket]
            if slot == 0 { return (bucket, false) }
            if slot & Self.hashBits == tag {
                let position = Self.position(slot)
                if position < entries.count, entries[position].key.hasSameScalars(as: key) { return (bucket, true) }
            }
            bucket = (bucket &+ 1) & mask
        }
    }

    /// Indexes `key`, about to be appended to `entries` at `position`, unless it is there
    /// already: its position then, else `nil` (one probe for both). The table must not be full.
    func insertIfAbsent(_ key: String, at position: Int, in entries: [ArchiveDictionary.Entry]) -> Int? {
        let hash = Self.hash(key)
        return insertIfAbsent(key, hash: hash, homeSlot: slots[hash & mask], at: position, in: entries)
    }

    /// The position of `key` among `entries`.
    func position(of key: String, in entries: [ArchiveDictionary.Entry]) -> Int? {
        let (bucket, found) = self.bucket(of: key, hash: Self.hash(key), in: entries)
        return found ? Self.position(slots[bucket]) : nil
    }

    /// Indexes the entry at `position`; when its key is already indexed, records the repeat
    /// (the earlier entry keeps its slot) and returns `false`. The table must not be full.
    @discardableResult
    func insert(_ position: Int, in entries: [ArchiveDictionary.Entry]) -> Bool {
        let hash = Self.hash(entries[position].key)
        let (bucket, found) = self.bucket(of: entries[position].key, hash: hash, in: entries)
        if found {
            if firstDuplicate == nil { firstDuplicate = position }
            return false
        }
        slots[bucket] = Self.tag(hash) | UInt64(truncatingIfNeeded: position &+ 1)
        occupied &+= 1
        return true
    }

    /// The bucket of the slot for the entry at `position`, whose key is `key`; `nil` when that
    /// entry is not indexed (a repeated key).
    func bucket(ofPosition position: Int, key: String) -> Int? {
        let hash = Self.hash(key)
        let tag = Self.tag(hash)
        let stored = UInt64(truncatingIfNeeded: position &+ 1)
        var bucket = hash & mask
        while true {
            let slot = slots[bucket]
            if slot == 0 { return nil }
            if slot == tag | stored { return bucket }
            bucket = (bucket &+ 1) & mask
        }
    }

    /// Empties the slot at `bucket`, moving later slots of the same run back so that every key
    /// stays reachable from its home bucket.
    func removeSlot(at bucket: Int) {
        var hole = bucket
        var next = (hole &+ 1) & mask
        while slots[next] != 0 {
            let home = Int(truncatingIfNeeded: slots[next] >> 32) & mask
            // The slot may move into the hole when the hole lies between its home and it.
            if (next &- home) & mask >= (next &- hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next &+ 1) & mask
        }
        slots[hole] = 0
        occupied &-= 1
    }

    /// Adds `delta` to every indexed position from `start` on, by visiting every slot.
    func shiftPositions(from start: Int, by delta: Int) {
        for bucket in 0...mask {
            let slot = slots[bucket]
            guard slot != 0 else { continue }
            let position = Self.position(slot)
            if position >= start {
                slots[bucket] = (slot & Self.hashBits) | UInt64(truncatingIfNeeded: position &+ delta &+ 1)
            }
        }
    }

    /// Changes the slot of the entry now at `position`, which the index has at `position - delta`.
    func move(to position: Int, by delta: Int, in entries: [ArchiveDictionary.Entry]) {
        guard let bucket = bucket(ofPosition: position &- delta, key: entries[position].key) else { return }
        slots[bucket] = (slots[bucket] & Self.hashBits) | UInt64(truncatingIfNeeded: position &+ 1)
    }
}

extension ArchiveDictionary {
    /// The position of `key`, through the index when there is one.
    @usableFromInline
    func indexedPosition(of key: String) -> Int? {
        guard let keyIndex else { return entries.firstIndex { $0.key.hasSameScalars(as: key) } }
        return keyIndex.position(of: key, in: entries)
    }

    /// Builds the index for the current entries, or drops it when there are at most half of
    /// ``indexedCount`` (or, beyond any real archive, more than 2³² − 2). `capacity`: the
    /// entries the table is sized for, when more are about to be appended.
    @usableFromInline
    mutating func rebuildKeyIndex(capacity: Int = 0) {
        let count = entries.count
        let sized = Swift.max(count, capacity)
        guard sized > Self.indexedCount / 2, sized < Int(UInt32.max) else {
            keyIndex = nil
            return
        }
        let index = KeyIndex(size: KeyIndex.size(for: sized))
        index.insertAll(of: entries)
        keyIndex = index
    }

    /// The index, not shared with any other dictionary, to change in place.
    private mutating func uniqueKeyIndex() -> KeyIndex? {
        guard keyIndex != nil else { return nil }
        if !isKnownUniquelyReferenced(&keyIndex) {
            keyIndex = keyIndex?.copy()
        }
        return keyIndex
    }

    /// Indexes the last entry, just appended (building the index when the dictionary has just
    /// grown past ``indexedCount``).
    @usableFromInline
    mutating func indexAppendedEntry() {
        // No reference to the index is held across `uniqueKeyIndex()`, which would copy it.
        guard let full = keyIndex?.isFull else {
            rebuildKeyIndex()
            return
        }
        if full, let index = keyIndex {
            keyIndex = index.grown(to: KeyIndex.size(for: entries.count))
        }
        uniqueKeyIndex()?.insert(entries.count - 1, in: entries)
    }

    /// Appends `value` for `key` unless the dictionary has `key` (the same Unicode scalars);
    /// `false` when it has. An indexed dictionary finds and indexes the key with one probe.
    @discardableResult
    package mutating func appendIfAbsent(_ value: ArchiveValue, forKey key: String) -> Bool {
        guard keyIndex?.isFull == false, uniqueKeyIndex() != nil else {
            guard index(forKey: key) == nil else { return false }
            appendUnchecked(value, forKey: key)
            return true
        }
        // No reference to the index is held across `uniqueKeyIndex()`, which would copy it.
        if keyIndex?.insertIfAbsent(key, at: entries.count, in: entries) != nil { return false }
        entries.append(Entry(key: key, value: value))
        return true
    }

    /// Removes the entry at `position` from an indexed dictionary.
    @usableFromInline
    mutating func removeIndexedEntry(at position: Int) -> Entry {
        let entry = entries[position]
        replaceIndexedEntries(position..<position + 1, with: EmptyCollection())
        return entry
    }

    /// Replaces the entries in `range` with `newEntries` and brings the index up to date: the
    /// removed keys' slots are emptied, the positions after the range shifted (slot by slot when
    /// few entries follow it, else in one pass over the table), the new keys indexed.
    mutating func replaceIndexedEntries(_ range: Range<Int>, with newEntries: some Collection<Entry>) {
        let oldCount = entries.count
        let newCount = oldCount - range.count + newEntries.count
        guard newCount > Self.indexedCount / 2, canEditIndex(removing: range.count, adding: newEntries.count)
        else {
            // No index yet, one to drop, grow or shrink, or a repeated key: build it again.
            entries.replaceSubrange(range, with: newEntries)
            rebuildKeyIndex()
            return
        }
        guard let index = uniqueKeyIndex() else { return }
        for position in range {
            if let bucket = index.bucket(ofPosition: position, key: entries[position].key) {
                index.removeSlot(at: bucket)
            }
        }
        entries.replaceSubrange(range, with: newEntries)
        let delta = newEntries.count - range.count
        let firstMoved = range.lowerBound + newEntries.count
        if delta != 0 && firstMoved < newCount {
            if (newCount - firstMoved) * 32 < index.mask + 1 {
                // In the order that never leaves two slots with one position: a slot is found by
                // its position alone, whatever the hashes of other keys.
                if delta > 0 {
                    for position in (firstMoved..<newCount).reversed() {
                        index.move(to: position, by: delta, in: entries)
                    }
                } else {
                    for position in firstMoved..<newCount {
                        index.move(to: position, by: delta, in: entries)
                    }
                }
            } else {
                index.shiftPositions(from: range.upperBound, by: delta)
            }
        }
        for position in range.lowerBound..<firstMoved where !index.insert(position, in: entries) {
            // A new key that repeats one already there: let the index say which comes first.
            rebuildKeyIndex()
            return
        }
    }

    /// Whether the index can take an edit that removes and adds keys in place: it has no
    /// repeated key, stays at most three quarters full and keeps at least an eighth of its
    /// table (or is of the smallest size).
    private func canEditIndex(removing removed: Int, adding added: Int) -> Bool {
        guard let keyIndex, keyIndex.firstDuplicate == nil else { return false }
        let size = keyIndex.mask + 1
        let newCount = entries.count - removed + added
        return (keyIndex.occupied - removed + added) * 4 <= size * 3 && (newCount * 8 >= size || size <= 64)
    }

    /// Changes the key at `position` in an indexed dictionary.
    mutating func setIndexedKey(_ key: String, at position: Int) {
        guard let index = uniqueKeyIndex(), index.firstDuplicate == nil,
            let bucket = index.bucket(ofPosition: position, key: entries[position].key)
        else {
            entries[position].key = key
            rebuildKeyIndex()
            return
        }
        index.removeSlot(at: bucket)
        entries[position].key = key
        if !index.insert(position, in: entries) {
            rebuildKeyIndex()
        }
    }

    /// Whether the index (if any) finds every key at its first position, holds nothing else,
    /// and records the first repeated key: for tests.
    package var keyIndexIsConsistent: Bool {
        guard let keyIndex else { return entries.count <= Self.indexedCount }
        var first: [ExactString: Int] = [:]
        var firstDuplicate: Int?
        for (position, entry) in entries.enumerated() {
            if first[ExactString(entry.key)] == nil {
                first[ExactString(entry.key)] = position
            } else if firstDuplicate == nil {
                firstDuplicate = position
            }
        }
        guard keyIndex.occupied == first.count, keyIndex.firstDuplicate == firstDuplicate else { return false }
        return first.allSatisfy { key, position in keyIndex.position(of: key.string, in: entries) == position }
    }
}

// MARK: - Group look-ups

extension KeyIndex {
    /// How many keys a group look-up reads at once.
    static let groupSize = 32

    /// Starts the look-ups of a group of `count` keys (at most ``groupSize``, `key(0)` to
    /// `key(count - 1)`): hashes every key into `hashes` and reads its home slot into `homes`
    /// before any key is probed. In a table larger than the processor's caches each of those
    /// reads waits for memory; issued back to back, with nothing depending on one another, they
    /// overlap, and the probes that follow find their slots in the cache.
    @inline(__always)
    func startGroup(
        count: Int, hashes: UnsafeMutablePointer<Int>, homes: UnsafeMutablePointer<UInt64>, key: (Int) -> String
    ) {
        for member in 0..<count { hashes[member] = Self.hash(key(member)) }
        for member in 0..<count { homes[member] = slots[hashes[member] & mask] }
    }

    /// The positions of a group of `count` keys (at most ``groupSize``) among `entries`, written
    /// to `positions` (`-1` for a key that is not there). The home slots are read first
    /// (``startGroup(count:hashes:homes:key:)``), then the entries they point to, then any
    /// longer probe: each stage's reads overlap, where one look-up after another would wait for
    /// memory two or three times per key.
    func positions(
        ofGroup count: Int, key: (Int) -> String, in entries: [ArchiveDictionary.Entry],
        into positions: UnsafeMutablePointer<Int>
    ) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: Self.groupSize) { hashes in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.groupSize) { homes in
                guard let hashes = hashes.baseAddress, let homes = homes.baseAddress else { return }
                startGroup(count: count, hashes: hashes, homes: homes, key: key)
                // The entry each home slot points to, when the slot has the key's hash.
                for member in 0..<count {
                    let home = homes[member]
                    positions[member] =
                        home != 0 && home & Self.hashBits == Self.tag(hashes[member]) ? Self.position(home) : -1
                }
                for member in 0..<count {
                    let candidate = positions[member]
                    if candidate >= 0 && candidate < entries.count
                        && entries[candidate].key.hasSameScalars(as: key(member))
                    {
                        continue
                    }
                    if homes[member] == 0 {  // an empty home slot: not there
                        positions[member] = -1
                        continue
                    }
                    let (bucket, found) = self.bucket(of: key(member), hash: hashes[member], in: entries)
                    positions[member] = found ? Self.position(slots[bucket]) : -1
                }
            }
        }
    }

    /// Indexes every entry of `entries` into this empty table, a group at a time (see
    /// ``startGroup(count:hashes:homes:key:)``): a table larger than the caches then fills at
    /// the same cost per key as a small one, where one insert after another waits for memory at
    /// each. A repeated key keeps its first entry's slot and is recorded, as ``insert(_:in:)``
    /// does.
    func insertAll(of entries: [ArchiveDictionary.Entry]) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: Self.groupSize) { hashes in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.groupSize) { homes in
                guard let hashes = hashes.baseAddress, let homes = homes.baseAddress else { return }
                var start = 0
                while start < entries.count {
                    let members = Swift.min(Self.groupSize, entries.count - start)
                    startGroup(count: members, hashes: hashes, homes: homes) { entries[start + $0].key }
                    for member in 0..<members {
                        let position = start + member
                        if insertIfAbsent(
                            entries[position].key, hash: hashes[member], homeSlot: homes[member], at: position,
                            in: entries) != nil, firstDuplicate == nil
                        {
                            firstDuplicate = position
                        }
                    }
                    start += members
                }
            }
        }
    }

    /// Indexes `key` (hashed `hash`, its home slot read as `homeSlot` by
    /// ``startGroup(count:hashes:homes:key:)``), about to be appended to `entries` at
    /// `position`, unless it is there already: its position then, else `nil`. The table must
    /// not be full.
    @inline(__always)
    func insertIfAbsent(
        _ key: String, hash: Int, homeSlot: UInt64, at position: Int, in entries: [ArchiveDictionary.Entry]
    ) -> Int? {
        let home = hash & mask
        // The slot read with the group may have been filled since by a key of the same group:
        // it counts as empty only if it still is.
        let bucket: Int
        if homeSlot == 0 && slots[home] == 0 {
            bucket = home
        } else {
            let (probed, found) = self.bucket(of: key, hash: hash, in: entries)
            if found { return Self.position(slots[probed]) }
            bucket = probed
        }
        slots[bucket] = Self.tag(hash) | UInt64(truncatingIfNeeded: position &+ 1)
        occupied &+= 1
        return nil
    }
}

extension ArchiveDictionary {
    /// The position of each of `keys` (`-1` for a key that is not there), as
    /// ``index(forKey:)`` would give them one by one, for a rule that takes a list of keys.
    ///
    /// Each key is first tried at the position after the last one found, so that keys listed in
    /// the dictionary's order cost one comparison each; the others are looked up through the
    /// index a group at a time (see `KeyIndex.positions(ofGroup:key:in:into:)`), so that each
    /// key costs the same whatever the dictionary's size.
    package func positions(ofKeys keys: [String]) -> [Int] {
        var positions = [Int](repeating: -1, count: keys.count)
        guard let keyIndex else {
            // At most ``indexedCount`` entries: scanned from the start, so that a repeated key
            // (input a reader rejects) is found at its first entry.
            for (offset, key) in keys.enumerated() { positions[offset] = index(forKey: key) ?? -1 }
            return positions
        }
        // The keys not where the order predicted, looked up a group at a time.
        var pending: [Int] = []
        pending.reserveCapacity(KeyIndex.groupSize)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: KeyIndex.groupSize) { found in
            guard let found = found.baseAddress else { return }
            func lookUpPending() {
                keyIndex.positions(ofGroup: pending.count, key: { keys[pending[$0]] }, in: entries, into: found)
                for (member, offset) in pending.enumerated() { positions[offset] = found[member] }
                pending.removeAll(keepingCapacity: true)
            }
            // With a repeated key (input a reader rejects), only the index knows which is first.
            var next = keyIndex.firstDuplicate == nil ? 0 : entries.count
            for (offset, key) in keys.enumerated() {
                if next < entries.count && entries[next].key.hasSameScalars(as: key) {
                    positions[offset] = next
                    next += 1
                    continue
                }
                pending.append(offset)
                if pending.count == KeyIndex.groupSize { lookUpPending() }
            }
            if !pending.isEmpty { lookUpPending() }
        }
        return positions
    }

    /// Appends, for each offset from 0 to `count - 1` whose `key(offset)` is not `nil`, that key
    /// with `value(offset)` unless the dictionary has it already (the same Unicode scalars),
    /// exactly as calling ``appendIfAbsent(_:forKey:)`` for each in turn would: a run of `add`
    /// rules. A dictionary that is or becomes large grows its index once for all of them and
    /// looks their keys up a group at a time (see `KeyIndex.startGroup`), so that each key costs
    /// the same whatever the dictionary's size; `value` is called only for keys appended.
    package mutating func appendIfAbsent(
        count: Int, key: (Int) -> String?, value: (Int) -> ArchiveValue
    ) {
        let total = entries.count + count
        guard count > 1, total > Self.indexedCount, total < Int(UInt32.max) else {
            appendEachIfAbsent(count: count, key: key, value: value)
            return
        }
        entries.reserveCapacity(total)
        LargeMemory.preferHugePages(for: &entries)
        // An index with room for every key, built or grown once.
        let size = KeyIndex.size(for: total)
        if keyIndex == nil {
            rebuildKeyIndex(capacity: total)
        } else if let index = keyIndex, index.mask + 1 < size {
            keyIndex = index.grown(to: size)
        }
        guard let index = uniqueKeyIndex(), index.firstDuplicate == nil else {
            // Repeated keys (input a reader rejects): one at a time, as the index records them.
            appendEachIfAbsent(count: count, key: key, value: value)
            return
        }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: KeyIndex.groupSize) { hashes in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: KeyIndex.groupSize) { homes in
                guard let hashes = hashes.baseAddress, let homes = homes.baseAddress else { return }
                var start = 0
                while start < count {
                    let members = Swift.min(KeyIndex.groupSize, count - start)
                    index.startGroup(count: members, hashes: hashes, homes: homes) { key(start + $0) ?? "" }
                    for member in 0..<members {
                        guard let added = key(start + member) else { continue }
                        if index.insertIfAbsent(
                            added, hash: hashes[member], homeSlot: homes[member], at: entries.count, in: entries)
                            == nil
                        {
                            entries.append(Entry(key: added, value: value(start + member)))
                        }
                    }
                    start += members
                }
            }
        }
    }

    /// ``appendIfAbsent(count:key:value:)`` one key after another.
    private mutating func appendEachIfAbsent(count: Int, key: (Int) -> String?, value: (Int) -> ArchiveValue) {
        for offset in 0..<count {
            guard let added = key(offset), index(forKey: added) == nil else { continue }
            appendUnchecked(value(offset), forKey: added)
        }
    }
}
