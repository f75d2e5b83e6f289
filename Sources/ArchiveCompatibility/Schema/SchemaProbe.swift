import Foundation
import ModelVersioning

/// Runs a model's `init(from:)` against a decoder that records the keys it asks for (with their
/// types and optionality) and answers with stand-in values; see ``ModelSchema``.
///
/// The nested non-model types those keys reach (structs, classes, enums, through optionals and
/// collections) are probed the same way, once each, and recorded as
/// ``ModelSchema/NestedType``s: their own `init(from:)` runs against the probe, and enums that
/// are `CaseIterable` are recorded with the archived value of every case. Models reached from
/// the root are recorded by name only: each has its own snapshot.
struct SchemaProbe {
    let root: ModelInfo
    private let recorder = ProbeRecorder()

    init(root: ModelInfo) {
        self.root = root
    }

    mutating func run(_ type: any VersionedModel.Type) throws -> (
        properties: [ModelSchema.Property], nestedTypes: [ModelSchema.NestedType]
    ) {
        let decoder = ProbeDecoder(recorder: recorder, root: root, sink: .root, prefix: "", depth: 0)
        _ = try open(type, decoder)
        return (recorder.properties, try recorder.nestedTypes())
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

/// Where a probing decoder records the keys it is asked for.
enum ProbeSink {
    /// The root model's own keys, with their behaviours and allow lists.
    case root
    /// The keys of a nested type being probed.
    case nested(NestedShape)
}

/// A nested type while it is probed.
final class NestedShape {
    let name: String
    let isClass: Bool
    var properties: [ModelSchema.Property] = []
    /// The type of the single value the type decodes itself from, if it does.
    var valueType: String?
    /// For a type whose values the probe cannot list (an enum that is not `CaseIterable`, a type
    /// that rejects the stand-ins): its `SchemaSampleProviding` sample, if any. `nil` otherwise.
    var unlistedSamples: [ModelSchema.NestedType.Case]?

    init(name: String, isClass: Bool) {
        self.name = name
        self.isClass = isClass
    }

    func record(_ property: ModelSchema.Property) {
        if let index = properties.firstIndex(where: { $0.name == property.name }) {
            properties[index] = property
        } else {
            properties.append(property)
        }
    }

    var definition: ModelSchema.NestedType {
        if let unlistedSamples {
            return ModelSchema.NestedType(
                name: name, kind: .enum, cases: unlistedSamples, valueType: valueType, listsEveryCase: false)
        }
        if let valueType, properties.isEmpty {
            return ModelSchema.NestedType(name: name, kind: .value, valueType: valueType)
        }
        return ModelSchema.NestedType(name: name, kind: isClass ? .class : .struct, properties: properties)
    }
}

/// Collects the root model's properties and the nested types they reach.
final class ProbeRecorder {
    var properties: [ModelSchema.Property] = []
    private var shapes: [String: NestedShape] = [:]
    private var enums: [String: ModelSchema.NestedType] = [:]
    /// Which Swift type owns each recorded name, so that two types with one name are an error.
    private var owners: [String: ObjectIdentifier] = [:]
    private var clashes: [String] = []

    func record(_ property: ModelSchema.Property) {
        if let index = properties.firstIndex(where: { $0.name == property.name }) {
            properties[index] = property
        } else {
            properties.append(property)
        }
    }

    /// Whether `name` is recorded or being recorded; notes a second Swift type with that name.
    func isKnown(_ name: String, type: Any.Type) -> Bool {
        guard let owner = owners[name] else { return false }
        if owner != ObjectIdentifier(type) { clashes.append(name) }
        return true
    }

    /// Starts recording the nested type `name`.
    func begin(_ name: String, type: Any.Type) -> NestedShape {
        owners[name] = ObjectIdentifier(type)
        let shape = NestedShape(name: name, isClass: type is AnyObject.Type)
        shapes[name] = shape
        return shape
    }

    /// Records an enum with the archived value of each case.
    func recordEnum(_ name: String, type: Any.Type, cases: [ModelSchema.NestedType.Case]) {
        owners[name] = ObjectIdentifier(type)
        enums[name] = ModelSchema.NestedType(name: name, kind: .enum, cases: cases)
    }

    /// Every nested type recorded, sorted by name.
    ///
    /// - Throws: `ArchiveError` when two Swift types are written with the same name.
    func nestedTypes() throws -> [ModelSchema.NestedType] {
        if let clash = clashes.first {
            throw ArchiveError(
                .invalidValue,
                "two nested types are both named \(clash): schema snapshots name nested types by their type name; "
                    + "rename one")
        }
        let all = shapes.values.map(\.definition) + enums.values
        return all.sorted { $0.name < $1.name }
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

/// Generic containers whose element types the probe explores without decoding any element
/// (collections probe as empty).
protocol SchemaComponents {
    static func exploreComponents(with decoder: ProbeDecoder) throws
}

extension Array: SchemaComponents where Element: Decodable {
    static func exploreComponents(with decoder: ProbeDecoder) throws {
        try decoder.explore(Element.self)
    }
}

extension Set: SchemaComponents where Element: Decodable {
    static func exploreComponents(with decoder: ProbeDecoder) throws {
        try decoder.explore(Element.self)
    }
}

extension Dictionary: SchemaComponents where Key: Decodable, Value: Decodable {
    static func exploreComponents(with decoder: ProbeDecoder) throws {
        try decoder.explore(Key.self)
        try decoder.explore(Value.self)
    }
}

extension Optional: SchemaComponents where Wrapped: Decodable {
    static func exploreComponents(with decoder: ProbeDecoder) throws {
        try decoder.explore(Wrapped.self)
    }
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
                recorder: decoder.recorder, root: decoder.root, sink: nil, prefix: "", depth: decoder.depth + 1)
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
    /// Where keys are recorded: the root model's, a nested type's, or nowhere (`nil`: the keys of
    /// a model value inside the root, or of a collection).
    let sink: ProbeSink?
    /// Prefix of recorded names: `""` for the type's own keys, `"super."`, `"center."`.
    let prefix: String
    let depth: Int
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(recorder: ProbeRecorder, root: ModelInfo, sink: ProbeSink?, prefix: String, depth: Int) {
        self.recorder = recorder
        self.root = root
        self.sink = sink
        self.prefix = prefix
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

    /// A decoder one level down that records into `sink`.
    func nested(sink: ProbeSink?, prefix: String = "", deeper: Bool = true) -> ProbeDecoder {
        ProbeDecoder(recorder: recorder, root: root, sink: sink, prefix: prefix, depth: depth + (deeper ? 1 : 0))
    }

    /// Records the key `key` of type `type`, and the nested types it reaches (unless the key is
    /// never archived). An ``UnknownFields`` property is no key of the archive (it holds the keys
    /// the model does not know, written back beside its own): nothing is recorded for it.
    func record<T: Decodable>(_ key: String, _ type: T.Type, optional: Bool) throws {
        if T.self == UnknownFields.self { return }
        guard record(key, typeName: SchemaProbe.describe(type), optional: optional) else { return }
        try explore(T.self)
    }

    /// Records the key `key`; returns whether the nested types of its type are to be explored
    /// (not for a key that is never archived, nor when nothing is recorded).
    @discardableResult
    func record(_ key: String, typeName: String, optional: Bool) -> Bool {
        guard let sink else { return false }
        let name = prefix + key
        switch sink {
        case .root:
            let behavior = prefix.isEmpty ? root.behavior(forKey: key) : root.behavior(forKey: name)
            let allowed = prefix.isEmpty ? root.allowedTypeNames[key].map { $0.sorted() } : nil
            recorder.record(
                ModelSchema.Property(
                    name: name, type: typeName, optional: optional, behavior: behavior, allowedTypes: allowed))
            return behavior != .excluded
        case .nested(let shape):
            shape.record(ModelSchema.Property(name: name, type: typeName, optional: optional, behavior: .unconditional))
            return true
        }
    }

    /// Records `T`'s shape when it is a nested type, or the nested types it holds when it is a
    /// collection or an optional; models, primitives and the library's own wrappers need nothing.
    func explore<T: Decodable>(_ type: T.Type) throws {
        guard sink != nil, Self.primitive(T.self) == nil, !(T.self is any VersionedModel.Type),
            !(T.self is any SchemaProbeValue.Type)
        else { return }
        if let components = T.self as? any SchemaComponents.Type {
            try components.exploreComponents(with: self)
            return
        }
        guard !recorder.isKnown(SchemaProbe.describe(T.self), type: T.self) else { return }
        // A type that rejects the stand-ins keeps the keys it asked for before; the key that
        // needs a value of it reports the problem.
        _ = try? nestedValue(T.self, key: "")
    }

    /// A stand-in `T` for the key `key`.
    func standIn<T: Decodable>(_ type: T.Type, key: String) throws -> T {
        if let value = Self.primitive(T.self) { return value }
        if let special = T.self as? any SchemaProbeValue.Type,
            let value = try special.probeValue(key: key, decoder: self) as? T
        {
            return value
        }
        if let components = T.self as? any SchemaComponents.Type, sink != nil {
            try components.exploreComponents(with: self)
        }
        if !(T.self is any VersionedModel.Type), !(T.self is any SchemaComponents.Type) {
            return try nestedValue(T.self, key: key)
        }
        return try decodedStandIn(T.self, key: key, into: nil)
    }

    /// A stand-in for a nested type, recording its shape the first time (when recording).
    private func nestedValue<T: Decodable>(_ type: T.Type, key: String) throws -> T {
        let name = SchemaProbe.describe(T.self)
        if let cases = T.self as? any CaseIterable.Type, let value = Self.firstCase(of: cases) as? T {
            if sink != nil, !recorder.isKnown(name, type: T.self) {
                recorder.recordEnum(name, type: T.self, cases: Self.archivedCases(of: cases))
            }
            return value
        }
        guard sink != nil, !recorder.isKnown(name, type: T.self) else {
            return try decodedStandIn(T.self, key: key, into: nil)
        }
        let shape = recorder.begin(name, type: T.self)
        let samples = Self.archivedSamples(of: T.self)
        let value: T
        do {
            value = try decodedStandIn(T.self, key: key, into: .nested(shape))
        } catch {
            // It rejects the stand-in of the value it decodes itself from (an enum without that raw
            // value), or rejects the probe before asking for anything (an enum with associated
            // values): which values it holds is unknown.
            if shape.valueType != nil || shape.properties.isEmpty { shape.unlistedSamples = samples }
            throw error
        }
        // An enum that is not CaseIterable (the probe found one case of it, or its sample), or a
        // type that turned the stand-ins down and offered a sample: the generator must not make
        // up values of its raw type.
        let rejectedTheProbe = shape.valueType == nil && shape.properties.isEmpty && !samples.isEmpty
        if Mirror(reflecting: value).displayStyle == .enum || rejectedTheProbe {
            shape.unlistedSamples = samples
        }
        return value
    }

    /// The `SchemaSampleProviding` sample of `type` as archived, or none.
    private static func archivedSamples<T>(of type: T.Type) -> [ModelSchema.NestedType.Case] {
        guard let sample = (T.self as? any SchemaSampleProviding.Type)?.schemaSample,
            let encodable = sample as? any Encodable, let archived = try? ArchiveEncoder().encodeValue(encodable)
        else { return [] }
        return [ModelSchema.NestedType.Case(name: String(describing: sample), value: archived)]
    }

    /// A sample, or `T` decoded from the probe (recording into `sink`).
    private func decodedStandIn<T: Decodable>(_ type: T.Type, key: String, into sink: ProbeSink?) throws -> T {
        let sample = (T.self as? any SchemaSampleProviding.Type)?.schemaSample as? T
        if sink == nil, let sample { return sample }
        if sink == nil, let cases = T.self as? any CaseIterable.Type, let value = Self.firstCase(of: cases) as? T {
            return value
        }
        guard depth < SchemaProbe.maxDepth else {
            throw ArchiveError(
                .invalidValue,
                "cannot probe \(root.typeName): '\(key)' nests \(T.self) more than \(SchemaProbe.maxDepth) levels deep")
        }
        do {
            return try T(from: nested(sink: sink))
        } catch {
            if let sample { return sample }
            throw ArchiveError(
                .invalidValue,
                "cannot probe \(root.typeName).\(key): \(T.self) rejects stand-in values; make it CaseIterable or "
                    + "conform it to SchemaSampleProviding", underlyingError: error)
        }
    }

    private static func firstCase<C: CaseIterable>(of type: C.Type) -> Any? {
        type.allCases.first
    }

    /// Every case of an enum with its archived value: what `ArchiveEncoder` writes for it, or its
    /// raw value, or its name.
    private static func archivedCases<C: CaseIterable>(of type: C.Type) -> [ModelSchema.NestedType.Case] {
        type.allCases.map { value in
            let name = String(describing: value)
            if let encodable = value as? any Encodable, let archived = try? ArchiveEncoder().encodeValue(encodable) {
                return ModelSchema.NestedType.Case(name: name, value: archived)
            }
            if let raw = (value as? any RawRepresentable)?.rawValue {
                if let text = raw as? String { return ModelSchema.NestedType.Case(name: name, value: .string(text)) }
                if let number = raw as? Int {
                    return ModelSchema.NestedType.Case(name: name, value: .int(Int64(number)))
                }
            }
            return ModelSchema.NestedType.Case(name: name, value: .string(name))
        }
    }

    /// Records the type of the single value a nested type decodes itself from.
    func recordSingleValue(_ type: Any.Type) {
        guard case .nested(let shape) = sink, prefix.isEmpty, shape.valueType == nil else { return }
        shape.valueType = SchemaProbe.describe(type)
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
        try decoder.record(key.stringValue, T.self, optional: false)
        return try decoder.standIn(T.self, key: key.stringValue)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try decoder.record(key.stringValue, T.self, optional: true)
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
        try decoder.record(key.stringValue, T.self, optional: false)
        guard let value = ProbeDecoder.primitive(T.self) else {
            return try decoder.standIn(T.self, key: key.stringValue)
        }
        return value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try absent(Bool.self, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try absent(String.self, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try absent(Double.self, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try absent(Float.self, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try absent(Int.self, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try absent(Int8.self, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try absent(Int16.self, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try absent(Int32.self, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try absent(Int64.self, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try absent(UInt.self, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try absent(UInt8.self, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try absent(UInt16.self, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try absent(UInt32.self, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try absent(UInt64.self, key) }

    private func absent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        try decoder.record(key.stringValue, T.self, optional: true)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let nested = ProbeDecoder(
            recorder: decoder.recorder, root: decoder.root, sink: decoder.sink,
            prefix: decoder.prefix + key.stringValue + ".", depth: decoder.depth)
        return KeyedDecodingContainer(ProbeKeyedContainer<NestedKey>(decoder: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        decoder.record(key.stringValue, typeName: "[Any]", optional: false)
        return ProbeUnkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ProbeDecoder(
            recorder: decoder.recorder, root: decoder.root, sink: decoder.sink, prefix: decoder.prefix + "super.",
            depth: decoder.depth)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ProbeDecoder(
            recorder: decoder.recorder, root: decoder.root, sink: decoder.sink,
            prefix: decoder.prefix + key.stringValue + ".", depth: decoder.depth)
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
        decoder.recordSingleValue(T.self)
        if let value = ProbeDecoder.primitive(T.self) { return value }
        return try decoder.standIn(T.self, key: "")
    }
}
