import Foundation

/// State shared by every encoder of one encoding run.
final class EncodingSession {
    // Touched on every model object; never accessed overlappingly (one run, one thread).
    @exclusivity(unchecked) var infos: ModelInfoCache
    @exclusivity(unchecked) var graph = EncodingGraph()
    /// The makers of the keyed containers, by key type.
    @exclusivity(unchecked) var keyedContainerMakers = KeyedContainerMakers()
    /// The last key sequence each model wrote, known to hold no key twice: a model writes the
    /// same keys for every instance, so checking a new object against it is one comparison per
    /// key instead of one per pair of keys.
    @exclusivity(unchecked) private var checkedKeys: [ObjectIdentifier: [String]] = [:]
    @exclusivity(unchecked) private var lastChecked: (model: ObjectIdentifier, keys: [String])?
    /// The most keys a keyed container of each `CodingKey` type has written, so that the next
    /// one reserves that many entries: no regrowth while it fills, and little spare capacity
    /// left in the tree (a fixed reservation of eight leaves six empty slots in a 2-key point).
    @exclusivity(unchecked) private var keyCounts: [ObjectIdentifier: Int] = [:]
    /// The last key type and count looked up at each depth: objects at one depth tend to be of
    /// one type, so most containers find their count here without hashing.
    @exclusivity(unchecked) private var recentKeyCounts: [(keyType: ObjectIdentifier, count: Int)] = []
    let limits: ArchiveLimits
    let userInfo: [CodingUserInfoKey: Any]

    init(registry: ModelRegistry?, limits: ArchiveLimits, userInfo: [CodingUserInfoKey: Any]) {
        self.infos = ModelInfoCache(registry: registry)
        self.limits = limits
        self.userInfo = userInfo
    }

    /// A new keyed container's storage for keys of type `keyType`, sized for what the
    /// containers of that type wrote before (see `noteKeyCount(of:depth:)`).
    func keyedStorage(for keyType: Any.Type, depth: Int) -> KeyedEncodingStorage {
        let id = ObjectIdentifier(keyType)
        if depth < recentKeyCounts.count, recentKeyCounts[depth].keyType == id {
            return KeyedEncodingStorage(keyType: id, expectedCount: recentKeyCounts[depth].count)
        }
        let recent = (keyType: id, count: keyCounts[id] ?? 0)
        if depth < recentKeyCounts.count {
            recentKeyCounts[depth] = recent
        } else {
            recentKeyCounts.append(contentsOf: repeatElement(recent, count: depth + 1 - recentKeyCounts.count))
        }
        return KeyedEncodingStorage(keyType: id, expectedCount: recent.count)
    }

    /// Remembers how many keys `storage` wrote, for the next container of its key type.
    func noteKeyCount(of storage: KeyedEncodingStorage, depth: Int) {
        guard let keyType = storage.keyType, storage.entries.count > storage.expectedCount else { return }
        let count = storage.entries.count
        guard count > keyCounts[keyType] ?? 0 else { return }
        keyCounts[keyType] = count
        if depth < recentKeyCounts.count, recentKeyCounts[depth].keyType == keyType {
            recentKeyCounts[depth].count = count
        }
    }

    /// The fields of a model's keyed container, with repeated keys resolved (see
    /// ``KeyedEncodingStorage/finish(checkedKeys:)``).
    func fields(of storage: KeyedEncodingStorage, model: ModelInfo, depth: Int) throws -> ArchiveDictionary {
        noteKeyCount(of: storage, depth: depth)
        let id = ObjectIdentifier(model)
        let known = lastChecked?.model == id ? lastChecked?.keys : checkedKeys[id]
        let (fields, matched) = try storage.finish(checkedKeys: known)
        if !matched {
            let keys = fields.keys
            checkedKeys[id] = keys
            lastChecked = (id, keys)
        } else if lastChecked?.model != id, let known {
            lastChecked = (id, known)
        }
        return fields
    }
}

/// The `Encoder` that builds an `ArchiveValue` tree: one per encoded value that is not a
/// primitive, linked to its parent for the coding path.
///
/// Primitives (strings, numbers, Booleans, dates, data, URLs) become tree nodes directly
/// without an encoder. A ``VersionedModel`` becomes an `ArchiveValue.object(_:)` stamped with
/// its type name and version; a model class instance met again becomes a reference to the first
/// one, and the model's ``VersionedModel/encodingBehaviors`` decide which keys are skipped or
/// written conditionally.
final class TreeEncoder: Encoder {
    enum Storage {
        case empty
        case value(ArchiveValue)
        case keyed(KeyedEncodingStorage)
        case unkeyed(UnkeyedEncodingStorage)
    }

    let session: EncodingSession
    let parent: TreeEncoder?
    let key: (any CodingKey)?
    let depth: Int
    /// The model whose own keys this encoder writes: its behaviours apply to the keyed container.
    let model: ModelInfo?
    /// Written once per value; never accessed overlappingly.
    @exclusivity(unchecked) var storage: Storage = .empty

    init(session: EncodingSession, parent: TreeEncoder?, key: (any CodingKey)?, depth: Int, model: ModelInfo?) {
        self.session = session
        self.parent = parent
        self.key = key
        self.depth = depth
        self.model = model
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var encoder: TreeEncoder? = self
        while let current = encoder {
            if let key = current.key { keys.append(key) }
            encoder = current.parent
        }
        return keys.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { session.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let keyed: KeyedEncodingStorage
        if case .keyed(let existing) = storage {
            keyed = existing
        } else {
            keyed = session.keyedStorage(for: Key.self, depth: depth)
            storage = .keyed(keyed)
        }
        return keyedContainer(storage: keyed, keyedBy: Key.self)
    }

    /// A keyed container that fills `storage` for this encoder's value (made by the session's
    /// makers, see ``KeyedContainerMakers``).
    func keyedContainer<Key: CodingKey>(storage: KeyedEncodingStorage, keyedBy type: Key.Type)
        -> KeyedEncodingContainer<Key>
    {
        session.keyedContainerMakers.maker(keyedBy: Key.self) {
            KeyedEncodingContainerMaker(TreeKeyedEncodingContainer<Key>.self)
        }.container((encoder: self, storage: storage, model: model))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let unkeyed: UnkeyedEncodingStorage
        if case .unkeyed(let existing) = storage {
            unkeyed = existing
        } else {
            unkeyed = UnkeyedEncodingStorage()
            storage = .unkeyed(unkeyed)
        }
        return TreeUnkeyedEncodingContainer(encoder: self, storage: unkeyed)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        TreeSingleValueEncodingContainer(encoder: self)
    }

    /// The tree this encoder built.
    func finish() throws -> ArchiveValue {
        switch storage {
        case .empty:
            return .dictionary([:])
        case .value(let value):
            return value
        case .keyed(let keyed):
            session.noteKeyCount(of: keyed, depth: depth)
            return .dictionary(try keyed.finish())
        case .unkeyed(let unkeyed):
            return .array(try unkeyed.finish())
        }
    }

    /// The path of this encoder followed by `key`, for errors.
    func path(appending key: (any CodingKey)?) -> ArchivePath {
        var keys = codingPath
        if let key { keys.append(key) }
        return ArchivePath(codingPath: keys)
    }

    func error(_ code: ArchiveError.Code, _ message: String, at key: (any CodingKey)?) -> ArchiveError {
        ArchiveError(code, message, path: path(appending: key))
    }
}

// MARK: - Boxing values

extension TreeEncoder {
    /// The tree of `value`, written as a child of this encoder under `key`.
    func box<T: Encodable>(_ value: T, key: (any CodingKey)?) throws -> ArchiveValue {
        let type = T.self
        if type == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if type == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
        if type == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
        if type == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if type == Date.self { return .date(unsafeBitCast(value, to: Date.self)) }
        let requested = ObjectIdentifier(type)
        if requested == KnownTypes.stringArray {
            return .array(unsafeBitCast(value, to: [String].self).map { .string($0) })
        }
        if requested == KnownTypes.doubleArray {
            return .array(unsafeBitCast(value, to: [Double].self).map { .double($0) })
        }
        if requested == KnownTypes.intArray {
            return .array(unsafeBitCast(value, to: [Int].self).map { .int(Int64($0)) })
        }
        switch session.infos.encodingTraits(for: Swift.type(of: value)) {
        case .primitive:
            guard let primitive = value as? any ArchivePrimitive else {
                return try boxComposite(value, info: nil, id: nil, key: key)
            }
            return primitive.primitiveValue
        case .model(let info):
            if info.isClass { return try boxModelInstance(value, info: info, key: key) }
            return try boxComposite(value, info: info, id: nil, key: key)
        case .unordered(let order):
            return try boxComposite(value, info: nil, id: nil, key: key).sorted(by: order)
        case .plain, .needsTree:
            return try boxComposite(value, info: nil, id: nil, key: key)
        }
    }

    /// A model class instance: written once, referenced afterwards.
    private func boxModelInstance<T: Encodable>(_ value: T, info: ModelInfo, key: (any CodingKey)?) throws
        -> ArchiveValue
    {
        let object = value as AnyObject
        switch session.graph.beginUnconditional(object) {
        case .reference(let id):
            return .reference(ArchiveObjectID(id))
        case .cycle:
            throw error(
                .referenceCycle,
                "this \(info.typeName) object refers back to itself through unconditional references; declare the "
                    + "back-reference (a parent, an owner) as .conditional in encodingBehaviors",
                at: key)
        case .write(let id):
            let tree = try boxComposite(value, info: info, id: ArchiveObjectID(id), key: key)
            session.graph.endUnconditional(object)
            return tree
        }
    }

    /// Any other encodable: encoded by its own `encode(to:)` into a child encoder.
    private func boxComposite<T: Encodable>(_ value: T, info: ModelInfo?, id: ArchiveObjectID?, key: (any CodingKey)?)
        throws -> ArchiveValue
    {
        guard depth < session.limits.maxDepth else {
            throw ArchiveError.limitExceeded(
                .depth, "the value nests deeper than \(session.limits.maxDepth) levels", path: path(appending: key))
        }
        let child = TreeEncoder(session: session, parent: self, key: key, depth: depth + 1, model: info)
        try value.encode(to: child)
        guard let info else {
            return try child.finish()
        }
        var extras: UnknownFields?
        var fields: ArchiveDictionary
        switch child.storage {
        case .empty:
            fields = [:]
        case .keyed(let keyed):
            fields = try session.fields(of: keyed, model: info, depth: child.depth)
            extras = keyed.extras
        case .value(.object(let object)) where object.typeName == info.typeName:
            // A model that encodes itself as an archived object (a wrapper around one).
            return .object(object)
        case .value, .unkeyed:
            throw error(
                .invalidValue,
                "\(info.typeName) is a VersionedModel but encodes a single value or an array; a model must encode a "
                    + "keyed container (drop the VersionedModel conformance for plain values such as enums)",
                at: key)
        }
        var version = info.version
        if let extras {
            for (archivedKey, archivedValue) in extras.archivedFields where fields.index(forKey: archivedKey) == nil {
                fields.appendUnchecked(archivedValue, forKey: archivedKey)
            }
            if let archived = extras.archivedVersion, archived > version { version = archived }
        }
        return .object(ArchiveObject(typeName: info.typeName, version: version, id: id, fields: fields))
    }

    /// A conditional reference to `value` (see ``EncodingBehavior/conditional``).
    func boxConditional<T: Encodable>(_ value: T, key: any CodingKey) throws -> ArchiveValue {
        if let optional = value as? any OptionalProtocol {
            guard let wrapped = optional.wrappedEncodable else { return .null }
            return try boxConditionalExistential(wrapped, key: key)
        }
        let info = session.infos.info(for: Swift.type(of: value))
        guard let info, info.isClass else {
            throw error(
                .invalidValue,
                "'\(key.stringValue)' is declared .conditional but holds a \(Swift.type(of: value)); conditional "
                    + "references need an instance of a VersionedModel class",
                at: key)
        }
        return .reference(ArchiveObjectID(session.graph.conditionalReference(to: value as AnyObject)))
    }

    private func boxConditionalExistential(_ value: any Encodable, key: any CodingKey) throws -> ArchiveValue {
        try boxConditional(value, key: key)
    }
}

/// Optionals seen through a generic `T`, so a conditional `T?` can be unwrapped.
protocol OptionalProtocol {
    var wrappedEncodable: (any Encodable)? { get }
}

extension Optional: OptionalProtocol {
    var wrappedEncodable: (any Encodable)? {
        switch self {
        case .some(let wrapped): return wrapped as? any Encodable
        case .none: return nil
        }
    }
}

/// Types the coders map to a tree node of their own instead of calling their `encode(to:)`.
protocol ArchivePrimitive {
    /// The node the value is written as.
    var primitiveValue: ArchiveValue { get }
}

extension Data: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .data(self) }
}

extension URL: ArchivePrimitive {
    var primitiveValue: ArchiveValue {
        .string(absoluteString)
    }
}

extension Decimal: ArchivePrimitive {
    var primitiveValue: ArchiveValue {
        .string(description)
    }
}

extension ArchiveValue: ArchivePrimitive {
    var primitiveValue: ArchiveValue { self }
}

extension UnknownModel: ArchivePrimitive {
    var primitiveValue: ArchiveValue {
        .object(archivedObject)
    }
}

extension Int8: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension Int16: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension Int32: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension UInt: ArchivePrimitive {
    var primitiveValue: ArchiveValue {
        ArchiveValue(UInt64(self))
    }
}

extension UInt8: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension UInt16: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension UInt32: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension Float: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .double(Double(self)) }
}

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
            entries.indices.allSatisfy({ entries[$0].key == checkedKeys[$0] })
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
    /// ``ArchiveValue/canonicallyPrecedes(_:)`` order.
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
