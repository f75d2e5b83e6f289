import Foundation

// MARK: - Storage

/// The entries of a keyed container while it is being filled; nested containers and super
/// encoders are resolved when the owner finishes.
final class KeyedEncodingStorage {
    // Appended to once per encoded key; never accessed overlappingly.
    enum Nested {
        case keyed(KeyedEncodingStorage)
        case unkeyed(UnkeyedEncodingStorage)
        case encoder(TreeEncoder)
    }

    @exclusivity(unchecked) var entries: [ArchiveDictionary.Entry] = []
    @exclusivity(unchecked) var nested: [(index: Int, node: Nested)] = []
    /// Archived keys to write back (``UnknownFields``).
    var extras: UnknownFields?
    /// The `CodingKey` type of the container, when the session sizes it (see
    /// ``EncodingSession/keyedStorage(for:depth:)``).
    let keyType: ObjectIdentifier?
    /// How many entries to reserve on the first append; 0 for the default growth.
    let expectedCount: Int

    init(keyType: ObjectIdentifier? = nil, expectedCount: Int = 0) {
        self.keyType = keyType
        self.expectedCount = expectedCount
    }

    @inline(__always)
    func append(_ value: ArchiveValue, forKey key: String) {
        if entries.capacity == 0 { reserveEntries() }
        entries.append(ArchiveDictionary.Entry(key: key, value: value))
    }

    func appendNested(_ node: Nested, forKey key: String) {
        if entries.capacity == 0 { reserveEntries() }
        entries.append(ArchiveDictionary.Entry(key: key, value: .null))
        nested.append((entries.count - 1, node))
    }

    /// Room for the expected keys, at least three: measured with archive-bench, two-entry
    /// blocks (112 bytes) made encoding ~8% slower, as glibc keeps blocks that small in its
    /// fast bins and pays to consolidate them; a third entry costs 40 bytes and no time. With no
    /// expectation yet, eight.
    private func reserveEntries() {
        entries.reserveCapacity(expectedCount > 0 ? max(expectedCount, 3) : 8)
    }

    func finish() throws -> ArchiveDictionary {
        try finish(checkedKeys: nil).fields
    }

    /// The entries as a dictionary. A key written twice keeps its first position and its last
    /// value (JSONEncoder's rule). `checkedKeys`, keys known to be distinct, spares the check
    /// when the entries have exactly those keys (`matched`).
    func finish(checkedKeys: [String]?) throws -> (fields: ArchiveDictionary, matched: Bool) {
        for (index, node) in nested {
            entries[index].value = try node.finish()
        }
        nested = []
        let dictionary = ArchiveDictionary(uniqueStoredEntries: entries)
        if let checkedKeys, checkedKeys.count == entries.count,
            entries.indices.allSatisfy({ entries[$0].key.hasSameScalars(as: checkedKeys[$0]) })
        {
            return (dictionary, true)
        }
        if dictionary.firstDuplicateKey() == nil {
            return (dictionary, false)
        }
        return (ArchiveDictionary(entries.lazy.map { ($0.key, $0.value) }), false)
    }
}

/// The elements of an unkeyed container while it is being filled.
final class UnkeyedEncodingStorage {
    // Appended to once per element; never accessed overlappingly.
    @exclusivity(unchecked) var elements: [ArchiveValue] = []
    @exclusivity(unchecked) var nested: [(index: Int, node: KeyedEncodingStorage.Nested)] = []

    func appendNested(_ node: KeyedEncodingStorage.Nested) {
        elements.append(.null)
        nested.append((elements.count - 1, node))
    }

    func finish() throws -> [ArchiveValue] {
        for (index, node) in nested {
            elements[index] = try node.finish()
        }
        nested = []
        return elements
    }
}

extension KeyedEncodingStorage.Nested {
    func finish() throws -> ArchiveValue {
        switch self {
        case .keyed(let keyed): return .dictionary(try keyed.finish())
        case .unkeyed(let unkeyed): return .array(try unkeyed.finish())
        case .encoder(let encoder): return try encoder.finish()
        }
    }
}

extension ArchiveValue {
    /// The same dictionary with its keys sorted, or array with its elements in
    /// `ArchiveValue.canonicallyPrecedes(_:)` order.
    func sorted(by order: UnorderedCollectionOrder) -> ArchiveValue {
        switch (self, order) {
        case (.dictionary(let dictionary), .keys):
            return .dictionary(ArchiveDictionary(uniqueEntries: dictionary.sorted { $0.key < $1.key }))
        case (.array(let elements), .elements):
            return .array(elements.sorted { $0.canonicallyPrecedes($1) })
        default:
            return self
        }
    }
}
