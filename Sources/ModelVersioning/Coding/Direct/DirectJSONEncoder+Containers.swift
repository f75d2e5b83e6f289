@_spi(Coders) import ArchiveFormats
import Foundation

/// The keyed container of ``DirectJSONEncoder``: writes each entry as it comes, applying
/// the model's encoding behaviours as ``TreeKeyedEncodingContainer`` does (excluded keys are
/// skipped; a conditional reference ends the direct run).
struct DirectKeyedEncodingContainer<Key: CodingKey>: MadeKeyedEncodingContainer {
    let encoder: DirectJSONEncoder
    /// The frame it writes into (see ``DirectJSONEncoder``).
    private(set) var serial: Int
    private(set) var model: ModelInfo?

    init(parts: consuming (encoder: DirectJSONEncoder, serial: Int, model: ModelInfo?)) {
        (encoder, serial, model) = parts
    }

    /// Points the container, kept in its maker's spare box (see ``SpareBox``), at the frame
    /// `serial` of the same encoder.
    @inline(__always)
    mutating func reuse(serial: Int, model: ModelInfo?) {
        self.serial = serial
        if self.model !== model { self.model = model }
    }

    var codingPath: [any CodingKey] { encoder.codingPath }

    /// Starts the entry for `key`; `false` when the model excludes the key.
    @inline(__always)
    private func begin(_ key: Key) throws -> Bool {
        let name = key.stringValue
        if let model, !model.behaviors.isEmpty, model.behavior(forKey: name) == .excluded { return false }
        try encoder.beginKey(name, in: serial)
        return true
    }

    mutating func encodeNil(forKey key: Key) throws {
        if try begin(key) { encoder.writeNull() }
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        if try begin(key) { encoder.writeBool(value) }
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeString(value) }
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        if try begin(key) { try encoder.emitter.writeDouble(value) }
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        if try begin(key) { try encoder.emitter.writeDouble(Double(value)) }
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(Int64(value)) }
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(Int64(value)) }
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(Int64(value)) }
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(Int64(value)) }
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(value) }
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(UInt64(value)) }
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(Int64(value)) }
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(Int64(value)) }
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(Int64(value)) }
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        if try begin(key) { encoder.emitter.writeInteger(value) }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if T.self == UnknownFields.self {
            // Archived keys and versions to write back: the tree encoder merges them in.
            guard let extras = value as? UnknownFields, extras.isEmpty, extras.archivedVersion == nil else {
                throw DirectJSONEncoder.Unsupported()
            }
            return
        }
        let name = key.stringValue
        if let model, !model.behaviors.isEmpty {
            switch model.behavior(forKey: name) {
            case .excluded: return
            case .conditional: throw DirectJSONEncoder.Unsupported()
            case .unconditional: break
            }
        }
        // Values the tree leaves out when they encode to null (`OmittedWhenNull`) never get
        // here: they encode through the tree (`EncodesThroughTree`).
        try encoder.beginKey(name, in: serial)
        try encoder.box(value, key: .key(key))
    }

    mutating func encodeConditional<T: AnyObject & Encodable>(_ object: T, forKey key: Key) throws {
        throw DirectJSONEncoder.Unsupported()
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.markUnsupported()
        return KeyedEncodingContainer(
            DirectKeyedEncodingContainer<NestedKey>(
                parts: (encoder: encoder, serial: DirectJSONEncoder.noContainer, model: nil)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.markUnsupported()
        return DirectUnkeyedEncodingContainer(encoder: encoder, serial: DirectJSONEncoder.noContainer)
    }

    mutating func superEncoder() -> any Encoder {
        makeSuperEncoder(key: ArchiveCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        makeSuperEncoder(key: key)
    }

    /// A super encoder writing under `key`. A model's super encoder applies the model's
    /// behaviours to what it writes (see ``TreeKeyedEncodingContainer``): the tree's job.
    private func makeSuperEncoder(key: any CodingKey) -> any Encoder {
        guard model == nil, (try? encoder.beginKey(key.stringValue, in: serial)) != nil else {
            return encoder.unsupportedEncoder()
        }
        return encoder.superEncoder(key: .key(key), frame: serial)
    }
}

/// The unkeyed container of ``DirectJSONEncoder``.
struct DirectUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: DirectJSONEncoder
    /// The frame it writes into (see ``DirectJSONEncoder``).
    let serial: Int

    var codingPath: [any CodingKey] { encoder.codingPath }

    var count: Int { encoder.elementCount(serial) }

    mutating func encodeNil() throws {
        _ = try encoder.beginElement(serial)
        encoder.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        _ = try encoder.beginElement(serial)
        encoder.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        _ = try encoder.beginElement(serial)
        try encoder.emitter.writeDouble(value)
    }

    mutating func encode(_ value: Float) throws {
        _ = try encoder.beginElement(serial)
        try encoder.emitter.writeDouble(Double(value))
    }

    mutating func encode(_ value: Int) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: Int8) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: Int16) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: Int32) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: Int64) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(value)
    }

    mutating func encode(_ value: UInt) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(UInt64(value))
    }

    mutating func encode(_ value: UInt8) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: UInt16) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: UInt32) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: UInt64) throws {
        _ = try encoder.beginElement(serial)
        encoder.emitter.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = try encoder.beginElement(serial)
        try encoder.box(value, key: .index(index))
    }

    mutating func encodeConditional<T: AnyObject & Encodable>(_ object: T) throws {
        throw DirectJSONEncoder.Unsupported()
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.markUnsupported()
        return KeyedEncodingContainer(
            DirectKeyedEncodingContainer<NestedKey>(
                parts: (encoder: encoder, serial: DirectJSONEncoder.noContainer, model: nil)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.markUnsupported()
        return DirectUnkeyedEncodingContainer(encoder: encoder, serial: DirectJSONEncoder.noContainer)
    }

    mutating func superEncoder() -> any Encoder {
        guard let index = try? encoder.beginElement(serial) else {
            return encoder.unsupportedEncoder()
        }
        return encoder.superEncoder(key: .index(index), frame: serial)
    }
}

/// The single-value container of ``DirectJSONEncoder``: writes the value in place of the
/// running value, once.
struct DirectSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: DirectJSONEncoder
    /// The serial of the level it writes.
    let level: Int

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws {
        try encoder.beginSingleValue(level: level)
        encoder.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try encoder.beginSingleValue(level: level)
        encoder.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        try encoder.beginSingleValue(level: level)
        try encoder.emitter.writeDouble(value)
    }

    mutating func encode(_ value: Float) throws {
        try encoder.beginSingleValue(level: level)
        try encoder.emitter.writeDouble(Double(value))
    }

    mutating func encode(_ value: Int) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: Int8) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: Int16) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: Int32) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: Int64) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(value)
    }

    mutating func encode(_ value: UInt) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(UInt64(value))
    }

    mutating func encode(_ value: UInt8) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: UInt16) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: UInt32) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(Int64(value))
    }

    mutating func encode(_ value: UInt64) throws {
        try encoder.beginSingleValue(level: level)
        encoder.emitter.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.beginSingleValue(level: level)
        try encoder.box(value, key: .noKey)
    }
}

/// The `Encoder` a running value's `encode(to:)` gets, and a super encoder's value: the
/// direct encoder, for as long as its level is the innermost one. Reused for the next value
/// at the same depth when nothing else holds it.
final class DirectLevelEncoder: Encoder {
    /// Strong: a level encoder kept after the run keeps the (finished) run alive, harmlessly;
    /// the run lets go of its own level encoders when it ends.
    let encoder: DirectJSONEncoder
    /// The serial of its level.
    var level: Int

    init(encoder: DirectJSONEncoder, level: Int) {
        self.encoder = encoder
        self.level = level
    }

    var codingPath: [any CodingKey] { encoder.codingPath }

    var userInfo: [CodingUserInfoKey: Any] { encoder.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        _ = encoder.prepareRequest(from: level)
        return encoder.innermostKeyedContainer(keyedBy: Key.self)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        _ = encoder.prepareRequest(from: level)
        return encoder.innermostUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        _ = encoder.prepareRequest(from: level)
        return DirectSingleValueEncodingContainer(encoder: encoder, level: level)
    }
}
