import Foundation

/// The keyed container of ``TreeEncoder``. For a model's own container it applies the model's
/// encoding behaviours: excluded keys are skipped, conditional keys become conditional
/// references.
struct TreeKeyedEncodingContainer<Key: CodingKey>: MadeKeyedEncodingContainer {
    let encoder: TreeEncoder
    let storage: KeyedEncodingStorage
    let model: ModelInfo?

    init(parts: consuming (encoder: TreeEncoder, storage: KeyedEncodingStorage, model: ModelInfo?)) {
        (encoder, storage, model) = parts
    }

    var codingPath: [any CodingKey] { encoder.codingPath }

    @inline(__always)
    private func behavior(_ key: Key) -> EncodingBehavior {
        guard let model else { return .unconditional }
        return model.behavior(forKey: key.stringValue)
    }

    @inline(__always)
    private func isWritten(_ key: Key) -> Bool {
        guard let model, !model.behaviors.isEmpty else { return true }
        return model.behavior(forKey: key.stringValue) != .excluded
    }

    mutating func encodeNil(forKey key: Key) throws {
        if isWritten(key) { storage.append(.null, forKey: key.stringValue) }
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        if isWritten(key) { storage.append(.bool(value), forKey: key.stringValue) }
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        if isWritten(key) { storage.append(.string(value), forKey: key.stringValue) }
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        if isWritten(key) { storage.append(.double(value), forKey: key.stringValue) }
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        if isWritten(key) { storage.append(.double(Double(value)), forKey: key.stringValue) }
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        if isWritten(key) { storage.append(.int(Int64(value)), forKey: key.stringValue) }
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        if isWritten(key) { storage.append(.int(Int64(value)), forKey: key.stringValue) }
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        if isWritten(key) { storage.append(.int(Int64(value)), forKey: key.stringValue) }
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        if isWritten(key) { storage.append(.int(Int64(value)), forKey: key.stringValue) }
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        if isWritten(key) { storage.append(.int(value), forKey: key.stringValue) }
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        if isWritten(key) { storage.append(ArchiveValue(UInt64(value)), forKey: key.stringValue) }
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        if isWritten(key) { storage.append(.int(Int64(value)), forKey: key.stringValue) }
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        if isWritten(key) { storage.append(.int(Int64(value)), forKey: key.stringValue) }
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        if isWritten(key) { storage.append(.int(Int64(value)), forKey: key.stringValue) }
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        if isWritten(key) { storage.append(ArchiveValue(value), forKey: key.stringValue) }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if T.self == UnknownFields.self, let extras = value as? UnknownFields {
            storage.extras = extras
            return
        }
        switch behavior(key) {
        case .excluded:
            return
        case .conditional:
            let reference = try encoder.boxConditional(value, key: key)
            if !reference.isNull { storage.append(reference, forKey: key.stringValue) }
        case .unconditional:
            let boxed = try encoder.box(value, key: key)
            if boxed.isNull, value is any OmittedWhenNull { return }
            storage.append(boxed, forKey: key.stringValue)
        }
    }

    mutating func encodeConditional<T: AnyObject & Encodable>(_ object: T, forKey key: Key) throws {
        guard isWritten(key) else { return }
        storage.append(try encoder.boxConditional(object, key: key), forKey: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = KeyedEncodingStorage()
        storage.appendNested(.keyed(nested), forKey: key.stringValue)
        let child = TreeEncoder(
            session: encoder.session, parent: encoder, key: key, depth: encoder.depth + 1, model: nil)
        return child.keyedContainer(storage: nested, keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = UnkeyedEncodingStorage()
        storage.appendNested(.unkeyed(nested), forKey: key.stringValue)
        let child = TreeEncoder(
            session: encoder.session, parent: encoder, key: key, depth: encoder.depth + 1, model: nil)
        return TreeUnkeyedEncodingContainer(encoder: child, storage: nested)
    }

    mutating func superEncoder() -> any Encoder {
        makeSuperEncoder(key: ArchiveCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        makeSuperEncoder(key: key)
    }

    /// A superclass writes its keys in a nested dictionary; the subclass's behaviours (which
    /// include the superclass's, as in Mantle) still apply there.
    private func makeSuperEncoder(key: any CodingKey) -> any Encoder {
        let child = TreeEncoder(
            session: encoder.session, parent: encoder, key: key, depth: encoder.depth + 1, model: model)
        storage.appendNested(.encoder(child), forKey: key.stringValue)
        return child
    }
}

/// The unkeyed container of ``TreeEncoder``.
struct TreeUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: TreeEncoder
    let storage: UnkeyedEncodingStorage

    var codingPath: [any CodingKey] { encoder.codingPath }

    var count: Int { storage.elements.count }

    private var nextKey: ArchiveCodingKey { ArchiveCodingKey(index: storage.elements.count) }

    mutating func encodeNil() throws { storage.elements.append(.null) }

    mutating func encode(_ value: Bool) throws { storage.elements.append(.bool(value)) }

    mutating func encode(_ value: String) throws { storage.elements.append(.string(value)) }

    mutating func encode(_ value: Double) throws { storage.elements.append(.double(value)) }

    mutating func encode(_ value: Float) throws { storage.elements.append(.double(Double(value))) }

    mutating func encode(_ value: Int) throws { storage.elements.append(.int(Int64(value))) }

    mutating func encode(_ value: Int8) throws { storage.elements.append(.int(Int64(value))) }

    mutating func encode(_ value: Int16) throws { storage.elements.append(.int(Int64(value))) }

    mutating func encode(_ value: Int32) throws { storage.elements.append(.int(Int64(value))) }

    mutating func encode(_ value: Int64) throws { storage.elements.append(.int(value)) }

    mutating func encode(_ value: UInt) throws { storage.elements.append(ArchiveValue(UInt64(value))) }

    mutating func encode(_ value: UInt8) throws { storage.elements.append(.int(Int64(value))) }

    mutating func encode(_ value: UInt16) throws { storage.elements.append(.int(Int64(value))) }

    mutating func encode(_ value: UInt32) throws { storage.elements.append(.int(Int64(value))) }

    mutating func encode(_ value: UInt64) throws { storage.elements.append(ArchiveValue(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        storage.elements.append(try encoder.box(value, key: nextKey))
    }

    mutating func encodeConditional<T: AnyObject & Encodable>(_ object: T) throws {
        storage.elements.append(try encoder.boxConditional(object, key: nextKey))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = KeyedEncodingStorage()
        let child = TreeEncoder(
            session: encoder.session, parent: encoder, key: nextKey, depth: encoder.depth + 1, model: nil)
        storage.appendNested(.keyed(nested))
        return child.keyedContainer(storage: nested, keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = UnkeyedEncodingStorage()
        let child = TreeEncoder(
            session: encoder.session, parent: encoder, key: nextKey, depth: encoder.depth + 1, model: nil)
        storage.appendNested(.unkeyed(nested))
        return TreeUnkeyedEncodingContainer(encoder: child, storage: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let child = TreeEncoder(
            session: encoder.session, parent: encoder, key: nextKey, depth: encoder.depth + 1, model: nil)
        storage.appendNested(.encoder(child))
        return child
    }
}

/// The single-value container of ``TreeEncoder``: the value replaces the encoder's storage.
struct TreeSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: TreeEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: ArchiveValue) {
        encoder.storage = .value(value)
    }

    mutating func encodeNil() throws { set(.null) }

    mutating func encode(_ value: Bool) throws { set(.bool(value)) }

    mutating func encode(_ value: String) throws { set(.string(value)) }

    mutating func encode(_ value: Double) throws { set(.double(value)) }

    mutating func encode(_ value: Float) throws { set(.double(Double(value))) }

    mutating func encode(_ value: Int) throws { set(.int(Int64(value))) }

    mutating func encode(_ value: Int8) throws { set(.int(Int64(value))) }

    mutating func encode(_ value: Int16) throws { set(.int(Int64(value))) }

    mutating func encode(_ value: Int32) throws { set(.int(Int64(value))) }

    mutating func encode(_ value: Int64) throws { set(.int(value)) }

    mutating func encode(_ value: UInt) throws { set(ArchiveValue(UInt64(value))) }

    mutating func encode(_ value: UInt8) throws { set(.int(Int64(value))) }

    mutating func encode(_ value: UInt16) throws { set(.int(Int64(value))) }

    mutating func encode(_ value: UInt32) throws { set(.int(Int64(value))) }

    mutating func encode(_ value: UInt64) throws { set(ArchiveValue(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        set(try encoder.box(value, key: nil))
    }
}
