import Foundation

/// What a keyed container reads: one reference, so that copying the container (which the
/// standard library's type-erasing box does for every call) costs one reference count.
final class KeyedDecodingState {
    let decoder: TreeDecoder
    let fields: ArchiveDictionary
    let model: ModelInfo?
    let object: ArchiveObject?
    /// The allow list of the key a plain container is under; models set their own per key.
    let allowed: Set<String>?
    let depth: Int
    /// Where the last look-up hit, so that the next starts there. Only this container's calls
    /// touch it, one at a time.
    @exclusivity(unchecked) var hint = 0

    init(
        decoder: TreeDecoder, fields: ArchiveDictionary, model: ModelInfo?, object: ArchiveObject?,
        allowed: Set<String>?, depth: Int
    ) {
        self.decoder = decoder
        self.fields = fields
        self.model = model
        self.object = object
        self.allowed = allowed
        self.depth = depth
    }
}

/// The keyed container of ``TreeDecoder``. For a model's own container it applies the model's
/// behaviours: excluded keys read as absent; conditional keys may point to objects that were
/// never archived, which read as `nil`.
struct TreeKeyedDecodingContainer<Key: CodingKey>: MadeKeyedDecodingContainer {
    let state: KeyedDecodingState

    init(parts state: KeyedDecodingState) {
        self.state = state
    }

    private var decoder: TreeDecoder { state.decoder }
    private var fields: ArchiveDictionary { state.fields }
    private var model: ModelInfo? { state.model }
    private var object: ArchiveObject? { state.object }
    private var allowed: Set<String>? { state.allowed }
    private var depth: Int { state.depth }

    var codingPath: [any CodingKey] { decoder.codingPath(depth: depth) }

    var allKeys: [Key] {
        fields.compactMap { entry in
            guard model?.behavior(forKey: entry.key) != .excluded else { return nil }
            return Key(stringValue: entry.key)
        }
    }

    @inline(__always)
    private func behavior(_ name: String) -> EncodingBehavior {
        guard let model = state.model, !model.behaviors.isEmpty else { return .unconditional }
        return model.behavior(forKey: name)
    }

    /// The value under `key`, or `nil` when absent or excluded. Starts where the previous
    /// look-up ended, so reading keys in archived order costs one comparison each.
    @inline(__always)
    private func lookup(_ key: Key) -> ArchiveValue? {
        let name = key.stringValue
        let state = self.state
        if let model = state.model, !model.behaviors.isEmpty, model.behaviors[name] == .excluded { return nil }
        guard let index = state.fields.index(forKey: name, startingAt: state.hint) else { return nil }
        state.hint = index + 1
        return state.fields.value(at: index)
    }

    private func require(_ key: Key) throws -> ArchiveValue {
        guard let value = lookup(key) else {
            if model != nil, behavior(key.stringValue) == .excluded {
                throw decoder.error(
                    .keyNotFound,
                    "'\(key.stringValue)' is excluded from archives, so it needs a default: make it Optional or leave "
                        + "it out of CodingKeys",
                    depth: depth, key: .key(key.stringValue))
            }
            throw decoder.error(
                .keyNotFound, "key '\(key.stringValue)' is missing", depth: depth, key: .key(key.stringValue))
        }
        return value
    }

    private func allowList(for key: Key) -> Set<String>? {
        guard let model else { return allowed }
        return model.allowedTypeNames.isEmpty ? nil : model.allowedTypeNames[key.stringValue]
    }

    func contains(_ key: Key) -> Bool {
        lookup(key) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let value = try require(key)
        switch value {
        case .null:
            return true
        case .reference(let id) where behavior(key.stringValue) == .conditional:
            // A conditional reference reads as nil when its object is not (yet) available.
            let graph = decoder.session.graph
            if graph.instance(for: id) != nil { return false }
            if graph.isInProgress(id) { return true }
            let definition = try decoder.session.graph.definition(
                of: id, in: decoder.session.root, limits: decoder.session.options.limits)
            return definition == nil
        default:
            return false
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        guard let value = lookup(key) else { return try decoder.unboxBool(try require(key)) }
        if case .bool(let bool) = value { return bool }
        return try decoder.unboxBool(value, key: .key(key.stringValue))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        guard let value = lookup(key) else { return try decoder.unboxString(try require(key)) }
        if case .string(let string) = value { return string }
        return try decoder.unboxString(value, key: .key(key.stringValue))
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        guard let value = lookup(key) else { return try decoder.unboxDouble(try require(key)) }
        switch value {
        case .double(let number): return number
        case .int(let number): return Double(number)
        default: return try decoder.unboxDouble(value, key: .key(key.stringValue))
        }
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.unboxFloat(try require(key), key: .key(key.stringValue))
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        guard let value = lookup(key) else { return try decoder.unboxInteger(try require(key), as: Int.self) }
        if case .int(let number) = value, let int = Int(exactly: number) { return int }
        return try decoder.unboxInteger(value, as: Int.self, key: .key(key.stringValue))
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try decoder.unboxInteger(try require(key), as: Int8.self, key: .key(key.stringValue))
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try decoder.unboxInteger(try require(key), as: Int16.self, key: .key(key.stringValue))
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try decoder.unboxInteger(try require(key), as: Int32.self, key: .key(key.stringValue))
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try decoder.unboxInteger(try require(key), as: Int64.self, key: .key(key.stringValue))
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try decoder.unboxInteger(try require(key), as: UInt.self, key: .key(key.stringValue))
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try decoder.unboxInteger(try require(key), as: UInt8.self, key: .key(key.stringValue))
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try decoder.unboxInteger(try require(key), as: UInt16.self, key: .key(key.stringValue))
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try decoder.unboxInteger(try require(key), as: UInt32.self, key: .key(key.stringValue))
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try decoder.unboxInteger(try require(key), as: UInt64.self, key: .key(key.stringValue))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if T.self == UnknownFields.self {
            return unsafeBitCast(unknownFields(), to: T.self)
        }
        guard let value = lookup(key) else {
            return try valueForAbsentKey(T.self, key)
        }
        return try decoder.decode(
            T.self, from: value, key: .key(key.stringValue), allowed: allowList(for: key),
            conditional: behavior(key.stringValue) == .conditional)
    }

    /// Property wrappers that stand for an absent key (``WeakReference``, an optional
    /// ``Polymorphic``), or the key-not-found error.
    private func valueForAbsentKey<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        if let absent = T.self as? any AbsentKeyDecodable.Type, let value = absent.valueForAbsentKey() as? T {
            return value
        }
        _ = try require(key)
        throw decoder.error(.keyNotFound, "key '\(key.stringValue)' is missing", depth: depth)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = lookup(key), !value.isNull else { return nil }
        return try decoder.unboxString(value, key: .key(key.stringValue))
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let value = lookup(key), !value.isNull else { return nil }
        return try decoder.unboxInteger(value, as: Int.self, key: .key(key.stringValue))
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = lookup(key), !value.isNull else { return nil }
        return try decoder.unboxDouble(value, key: .key(key.stringValue))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = lookup(key), !value.isNull else { return nil }
        return try decoder.unboxBool(value, key: .key(key.stringValue))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        if T.self == UnknownFields.self { return unknownFields() as? T }
        guard let value = lookup(key), !value.isNull else { return nil }
        let conditional = behavior(key.stringValue) == .conditional
        if case .reference(let id) = value, conditional {
            let saved = decoder.currentIsConditional
            decoder.currentIsConditional = true
            defer { decoder.currentIsConditional = saved }
            return try decoder.decodeReferenceIfPresent(id, as: T.self, key: .key(key.stringValue))
        }
        return try decoder.decode(
            T.self, from: value, key: .key(key.stringValue), allowed: allowList(for: key), conditional: conditional)
    }

    /// The fields a model does not know, for its ``UnknownFields`` property.
    private func unknownFields() -> UnknownFields {
        guard let object, let model else { return UnknownFields() }
        let version = (object.version ?? 0) > model.version ? object.version : nil
        return UnknownFields(fields: object.fields, version: version)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let value = try require(key)
        let nested = decoder.nestedDecoder(value: value, key: .key(key.stringValue), depth: depth)
        return try nested.container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try require(key)
        let nested = decoder.nestedDecoder(value: value, key: .key(key.stringValue), depth: depth)
        return try nested.unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try makeSuperDecoder(name: ArchiveCodingKey.superKey.stringValue)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try makeSuperDecoder(name: key.stringValue)
    }

    /// A decoder for the value under `name` (null when absent); the subclass's behaviours and
    /// object carry over, as for `superEncoder()`.
    private func makeSuperDecoder(name: String) throws -> any Decoder {
        let value = fields[name] ?? .null
        let nested = decoder.nestedDecoder(value: value, key: .key(name), depth: depth)
        if case .dictionary = value {
            nested.currentModel = model
            nested.currentObject = object
        }
        nested.currentAllowed = model == nil ? allowed : model?.allowedTypeNames[name]
        nested.currentIsConditional = behavior(name) == .conditional
        return nested
    }
}

extension TreeDecoder {
    /// A separate decoder for a value one level down (nested containers and super decoders
    /// outlive the current decode, so they cannot share this decoder's stack).
    func nestedDecoder(value: ArchiveValue, key: PathKey, depth: Int) -> TreeDecoder {
        var path = Array(keys.prefix(depth))
        path.append(key)
        let nested = TreeDecoder(session: session, value: value, keys: path)
        nested.currentAllowed = currentAllowed
        return nested
    }

    /// `decodeIfPresent` of a conditional reference: `nil` when its object is absent or still
    /// being built.
    func decodeReferenceIfPresent<T: Decodable>(_ id: ArchiveObjectID, as type: T.Type, key: PathKey) throws -> T? {
        try push(key, value: .reference(id), allowed: currentAllowed, conditional: true)
        defer { pop() }
        return try resolveReference(id, as: T.self)
    }
}

/// The unkeyed container of ``TreeDecoder``.
struct TreeUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: TreeDecoder
    let elements: [ArchiveValue]
    let allowed: Set<String>?
    let depth: Int
    private(set) var currentIndex = 0

    init(decoder: TreeDecoder, elements: [ArchiveValue], allowed: Set<String>?, depth: Int) {
        self.decoder = decoder
        self.elements = elements
        self.allowed = allowed
        self.depth = depth
    }

    var codingPath: [any CodingKey] { decoder.codingPath(depth: depth) }

    var count: Int? { elements.count }

    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> ArchiveValue {
        guard currentIndex < elements.count else {
            throw decoder.error(
                .valueNotFound, "the array has only \(elements.count) elements", depth: depth, key: .index(currentIndex)
            )
        }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count else { _ = try next(); return false }
        if elements[currentIndex].isNull {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let key = TreeDecoder.PathKey.index(currentIndex)
        return try decoder.unboxBool(try next(), key: key)
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let key = TreeDecoder.PathKey.index(currentIndex)
        return try decoder.unboxString(try next(), key: key)
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let key = TreeDecoder.PathKey.index(currentIndex)
        return try decoder.unboxDouble(try next(), key: key)
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        let key = TreeDecoder.PathKey.index(currentIndex)
        return try decoder.unboxFloat(try next(), key: key)
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(UInt.self) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }

    private mutating func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let key = TreeDecoder.PathKey.index(currentIndex)
        return try decoder.unboxInteger(try next(), as: I.self, key: key)
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let key = TreeDecoder.PathKey.index(currentIndex)
        let value = try next()
        return try decoder.decode(T.self, from: value, key: key, allowed: allowed)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let key = TreeDecoder.PathKey.index(currentIndex)
        let value = try next()
        return try decoder.nestedDecoder(value: value, key: key, depth: depth).container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let key = TreeDecoder.PathKey.index(currentIndex)
        let value = try next()
        return try decoder.nestedDecoder(value: value, key: key, depth: depth).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let key = TreeDecoder.PathKey.index(currentIndex)
        let value = try next()
        return decoder.nestedDecoder(value: value, key: key, depth: depth)
    }
}

/// The single-value container of ``TreeDecoder``.
struct TreeSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: TreeDecoder
    let value: ArchiveValue
    let allowed: Set<String>?
    let depth: Int

    var codingPath: [any CodingKey] { decoder.codingPath(depth: depth) }

    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool { try decoder.unboxBool(value) }

    func decode(_ type: String.Type) throws -> String { try decoder.unboxString(value) }

    func decode(_ type: Double.Type) throws -> Double { try decoder.unboxDouble(value) }

    func decode(_ type: Float.Type) throws -> Float { try decoder.unboxFloat(value) }

    func decode(_ type: Int.Type) throws -> Int { try decoder.unboxInteger(value, as: Int.self) }

    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.unboxInteger(value, as: Int8.self) }

    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.unboxInteger(value, as: Int16.self) }

    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.unboxInteger(value, as: Int32.self) }

    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.unboxInteger(value, as: Int64.self) }

    func decode(_ type: UInt.Type) throws -> UInt { try decoder.unboxInteger(value, as: UInt.self) }

    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.unboxInteger(value, as: UInt8.self) }

    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.unboxInteger(value, as: UInt16.self) }

    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.unboxInteger(value, as: UInt32.self) }

    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.unboxInteger(value, as: UInt64.self) }

    /// A single value container reads the same value at the same depth: its model type is
    /// decoded in place (a wrapper around one model, a property wrapper).
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let savedValue = decoder.currentValue
        let savedModel = decoder.currentModel
        let savedObject = decoder.currentObject
        let savedAllowed = decoder.currentAllowed
        defer {
            decoder.currentValue = savedValue
            decoder.currentModel = savedModel
            decoder.currentObject = savedObject
            decoder.currentAllowed = savedAllowed
        }
        decoder.currentValue = value
        decoder.currentAllowed = allowed
        return try decoder.unbox(value, as: T.self)
    }
}
