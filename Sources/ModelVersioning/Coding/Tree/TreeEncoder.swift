import Foundation

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
