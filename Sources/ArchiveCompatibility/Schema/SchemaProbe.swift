import Foundation
import ModelVersioning

/// Runs a model's `init(from:)` against a decoder that records the keys it asks for (with their
/// types and optionality) and answers with stand-in values; see ``ModelSchema``.
struct SchemaProbe {
    let root: ModelInfo
    private let recorder = ProbeRecorder()

    init(root: ModelInfo) {
        self.root = root
    }

    mutating func run(_ type: any VersionedModel.Type) throws -> [ModelSchema.Property] {
        let decoder = ProbeDecoder(recorder: recorder, root: root, prefix: "", recording: true, depth: 0)
        _ = try open(type, decoder)
        return recorder.properties
    }

    private func open<M: VersionedModel>(_ type: M.Type, _ decoder: ProbeDecoder) throws -> M {
        try M(from: decoder)
    }

    /// How a type is written in a schema.
    static func describe(_ type: Any.Type) -> String {
        if let model = type as? any VersionedModel.Type { return model.archiveTypeName }
        if let described = type as? any SchemaDescribing.Type { return described.schemaTypeDescription }
        return String(describing: type)
    }

    /// The deepest nesting the probe follows (a non-optional recursive class would never end).
    static let maxDepth = 32
}

/// Collects the root model's properties.
final class ProbeRecorder {
    var properties: [ModelSchema.Property] = []

    func record(_ property: ModelSchema.Property) {
        if let index = properties.firstIndex(where: { $0.name == property.name }) {
            properties[index] = property
        } else {
            properties.append(property)
        }
    }
}

/// Types that describe themselves in schemas from their generic arguments.
protocol SchemaDescribing {
    static var schemaTypeDescription: String { get }
}

extension Array: SchemaDescribing {
    static var schemaTypeDescription: String { "[\(SchemaProbe.describe(Element.self))]" }
}

extension Set: SchemaDescribing {
    static var schemaTypeDescription: String { "Set<\(SchemaProbe.describe(Element.self))>" }
}

extension Dictionary: SchemaDescribing {
    static var schemaTypeDescription: String {
        "[\(SchemaProbe.describe(Key.self)): \(SchemaProbe.describe(Value.self))]"
    }
}

extension Optional: SchemaDescribing {
    static var schemaTypeDescription: String { "\(SchemaProbe.describe(Wrapped.self))?" }
}

extension Polymorphic: SchemaDescribing {
    static var schemaTypeDescription: String { SchemaProbe.describe(Value.self) }
}

extension WeakReference: SchemaDescribing {
    static var schemaTypeDescription: String { "weak \(SchemaProbe.describe(Object.self))" }
}

/// Stand-in values for types the probe meets.
protocol SchemaProbeValue {
    static func probeValue(key: String, decoder: ProbeDecoder) throws -> Self
}

extension Polymorphic: SchemaProbeValue {
    static func probeValue(key: String, decoder: ProbeDecoder) throws -> Polymorphic<Value> {
        if let empty = Polymorphic.emptyContainerValue { return Polymorphic(wrappedValue: empty) }
        for candidate in decoder.root.type.allowedTypes[key] ?? [] {
            let nested = ProbeDecoder(
                recorder: decoder.recorder, root: decoder.root, prefix: "", recording: false, depth: decoder.depth + 1)
            if let value = try? candidate.init(from: nested) as? Value {
                return Polymorphic(wrappedValue: value)
            }
        }
        throw ArchiveError(
            .invalidValue,
            "cannot probe the polymorphic key '\(key)' of \(decoder.root.typeName): declare its allowedTypes")
    }
}

extension WeakReference: SchemaProbeValue {
    static func probeValue(key: String, decoder: ProbeDecoder) throws -> WeakReference<Object> {
        WeakReference(wrappedValue: nil)
    }
}

extension UnknownFields: SchemaProbeValue {
    static func probeValue(key: String, decoder: ProbeDecoder) throws -> UnknownFields { UnknownFields() }
}

extension ArchiveValue: SchemaProbeValue {
    static func probeValue(key: String, decoder: ProbeDecoder) throws -> ArchiveValue { .null }
}

extension UnknownModel: SchemaProbeValue {
    static func probeValue(key: String, decoder: ProbeDecoder) throws -> UnknownModel {
        UnknownModel(archivedObject: ArchiveObject(typeName: "Unknown", version: nil))
    }
}

/// The probing `Decoder`.
final class ProbeDecoder: Decoder {
    let recorder: ProbeRecorder
    let root: ModelInfo
    /// Prefix of recorded names: `""` for the model's own keys, `"super."`, `"center."`.
    let prefix: String
    /// Whether keys are recorded (only the root model's own, not those of nested values).
    let recording: Bool
    let depth: Int
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(recorder: ProbeRecorder, root: ModelInfo, prefix: String, recording: Bool, depth: Int) {
        self.recorder = recorder
        self.root = root
        self.prefix = prefix
        self.recording = recording
        self.depth = depth
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ProbeUnkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ProbeSingleValueContainer(decoder: self)
    }

    func record(_ key: String, _ type: Any.Type, optional: Bool) {
        guard recording else { return }
        let name = prefix + key
        let behavior = prefix.isEmpty ? root.behavior(forKey: key) : root.behavior(forKey: name)
        let allowed = prefix.isEmpty ? root.allowedTypeNames[key].map { $0.sorted() } : nil
        recorder.record(
            ModelSchema.Property(
                name: name, type: SchemaProbe.describe(type), optional: optional, behavior: behavior,
                allowedTypes: allowed))
    }

    /// A stand-in `T` for the key `key`.
    func standIn<T: Decodable>(_ type: T.Type, key: String) throws -> T {
        if let value = Self.primitive(T.self) { return value }
        if let special = T.self as? any SchemaProbeValue.Type,
            let value = try special.probeValue(key: key, decoder: self) as? T
        {
            return value
        }
        if let sample = T.self as? any SchemaSampleProviding.Type, let value = sample.schemaSample as? T {
            return value
        }
        if let cases = T.self as? any CaseIterable.Type, let value = Self.firstCase(of: cases) as? T {
            return value
        }
        guard depth < SchemaProbe.maxDepth else {
            throw ArchiveError(
                .invalidValue,
                "cannot probe \(root.typeName): '\(key)' nests \(T.self) more than \(SchemaProbe.maxDepth) levels deep")
        }
        let nested = ProbeDecoder(recorder: recorder, root: root, prefix: "", recording: false, depth: depth + 1)
        do {
            return try T(from: nested)
        } catch {
            throw ArchiveError(
                .invalidValue,
                "cannot probe \(root.typeName).\(key): \(T.self) rejects stand-in values; make it CaseIterable or "
                    + "conform it to SchemaSampleProviding", underlyingError: error)
        }
    }

    private static func firstCase<C: CaseIterable>(of type: C.Type) -> Any? {
        type.allCases.first
    }

    static func primitive<T>(_ type: T.Type) -> T? {
        switch type {
        case is String.Type: return "" as? T
        case is Bool.Type: return false as? T
        case is Int.Type: return 0 as Int as? T
        case is Int8.Type: return 0 as Int8 as? T
        case is Int16.Type: return 0 as Int16 as? T
        case is Int32.Type: return 0 as Int32 as? T
        case is Int64.Type: return 0 as Int64 as? T
        case is UInt.Type: return 0 as UInt as? T
        case is UInt8.Type: return 0 as UInt8 as? T
        case is UInt16.Type: return 0 as UInt16 as? T
        case is UInt32.Type: return 0 as UInt32 as? T
        case is UInt64.Type: return 0 as UInt64 as? T
        case is Double.Type: return 0 as Double as? T
        case is Float.Type: return 0 as Float as? T
        case is Date.Type: return Date(timeIntervalSinceReferenceDate: 0) as? T
        case is Data.Type: return Data() as? T
        case is URL.Type: return URL(string: "about:blank") as? T
        case is Decimal.Type: return Decimal(0) as? T
        case is UUID.Type: return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? T
        default: return nil
        }
    }
}

private struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        decoder.record(key.stringValue, T.self, optional: false)
        return try decoder.standIn(T.self, key: key.stringValue)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        decoder.record(key.stringValue, T.self, optional: true)
        return nil
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(Bool.self, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(String.self, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(Double.self, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(Float.self, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(Int.self, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(Int8.self, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(Int16.self, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(Int32.self, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(Int64.self, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(UInt.self, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(UInt8.self, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(UInt16.self, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(UInt32.self, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(UInt64.self, key) }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        decoder.record(key.stringValue, T.self, optional: false)
        guard let value = ProbeDecoder.primitive(T.self) else {
            return try decoder.standIn(T.self, key: key.stringValue)
        }
        return value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { absent(Bool.self, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { absent(String.self, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { absent(Double.self, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { absent(Float.self, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { absent(Int.self, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { absent(Int8.self, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { absent(Int16.self, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { absent(Int32.self, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { absent(Int64.self, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { absent(UInt.self, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { absent(UInt8.self, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { absent(UInt16.self, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { absent(UInt32.self, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { absent(UInt64.self, key) }

    private func absent<T>(_ type: T.Type, _ key: Key) -> T? {
        decoder.record(key.stringValue, T.self, optional: true)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let nested = ProbeDecoder(
            recorder: decoder.recorder, root: decoder.root, prefix: decoder.prefix + key.stringValue + ".",
            recording: decoder.recording, depth: decoder.depth)
        return KeyedDecodingContainer(ProbeKeyedContainer<NestedKey>(decoder: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        decoder.record(key.stringValue, [Any].self, optional: false)
        return ProbeUnkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ProbeDecoder(
            recorder: decoder.recorder, root: decoder.root, prefix: decoder.prefix + "super.",
            recording: decoder.recording, depth: decoder.depth)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ProbeDecoder(
            recorder: decoder.recorder, root: decoder.root, prefix: decoder.prefix + key.stringValue + ".",
            recording: decoder.recording, depth: decoder.depth)
    }
}

/// Always empty: collections probe as empty, so element types come from the declared type.
private struct ProbeUnkeyedContainer: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    private func end() -> ArchiveError {
        ArchiveError(.valueNotFound, "the schema probe's arrays are empty")
    }

    mutating func decodeNil() throws -> Bool { throw end() }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw end() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    { throw end() }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw end() }
    mutating func superDecoder() throws -> any Decoder { throw end() }
}

private struct ProbeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let value = ProbeDecoder.primitive(T.self) { return value }
        return try decoder.standIn(T.self, key: "")
    }
}
