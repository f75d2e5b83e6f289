@_spi(Coders) import ArchiveFormats
import Foundation

/// The keyed container of ``DirectJSONDecoder``: ``TreeKeyedDecodingContainer``'s rules
/// (excluded keys read as absent, allow lists per key, absent-key values) over an object's
/// members in the text. What it cannot answer ends the run.
struct DirectKeyedDecodingContainer<Key: CodingKey>: MadeKeyedDecodingContainer {
    /// The object read, held by a retain of the container's own, taken when it is made or
    /// refilled and given back by ``exchange(_:)`` and ``close()``; `nil` once closed. Not a strong
    /// reference: the standard library's box copies the container on every call through it, a
    /// retain and a release each time a model decodes a key (21 of them per object of the
    /// benchmark's shapes). The maker closes every container it made when the run ends
    /// (``KeyedDecodingContainerMaker/close()``), the ones models kept too.
    private var held: Unmanaged<DirectObject>?

    /// A container over the object `held` (whose retain it takes over), whose header
    /// ``DirectObject/attach(to:model:allowed:depth:)`` has set.
    init(parts held: consuming Unmanaged<DirectObject>) {
        self.held = held
    }

    /// Reads the object `held` from now on (taking over its retain), the container kept in its
    /// maker's spare box (see ``SpareBox``); returns the object it read before, with its
    /// retain. No reference is counted.
    @inline(__always)
    mutating func exchange(_ held: Unmanaged<DirectObject>) -> Unmanaged<DirectObject>? {
        defer { self.held = held }
        return self.held
    }

    /// Lets go of the object: every later call ends the run or answers as for an empty object.
    mutating func close() {
        held?.release()
        held = nil
    }

    /// Calls `body` with the object and its decoder (set by `attach`), lent without a retain:
    /// this container holds the object, and the object its decoder. A closed container ends the
    /// run.
    @inline(__always)
    private func withParts<Result>(_ body: (DirectObject, DirectJSONDecoder) throws -> Result) throws -> Result {
        guard let held else { throw DirectJSONDecoder.Unsupported() }
        return try held._withUnsafeGuaranteedRef { object in
            try object.state.pointee.decoder.unsafelyUnwrapped._withUnsafeGuaranteedRef { try body(object, $0) }
        }
    }

    /// The object and its decoder, for the paths off the hot one; `nil` once closed.
    private var parts: (object: DirectObject, decoder: DirectJSONDecoder)? {
        guard let object = held?.takeUnretainedValue() else { return nil }
        return (object, object.state.pointee.decoder.unsafelyUnwrapped.takeUnretainedValue())
    }

    var codingPath: [any CodingKey] {
        guard let (object, decoder) = parts else { return [] }
        return decoder.codingPath(depth: object.state.pointee.depth)
    }

    var allKeys: [Key] {
        guard let (object, decoder) = parts, decoder.session.isOpen else { return [] }
        let model = object.state.pointee.model?.takeUnretainedValue()
        return object.keys.compactMap { name in
            guard model?.behavior(forKey: name) != .excluded else { return nil }
            return Key(stringValue: name)
        }
    }

    /// The value under `key`, or `nil` when absent or excluded.
    @inline(__always)
    private func lookup(_ key: Key, _ object: DirectObject, _ decoder: DirectJSONDecoder)
        -> DirectJSONDecoder.ValueRef?
    {
        lookup(named: key.stringValue, object, decoder)
    }

    /// The value under the key spelled `name`, or `nil` when absent or excluded.
    @inline(__always)
    private func lookup(named name: String, _ object: DirectObject, _ decoder: DirectJSONDecoder)
        -> DirectJSONDecoder.ValueRef?
    {
        let state = object.state
        if let model = state.pointee.model,
            model._withUnsafeGuaranteedRef({ !$0.behaviors.isEmpty && $0.behaviors[name] == .excluded })
        {
            return nil
        }
        guard decoder.session.isOpen else { return nil }
        // Keys are compared as bytes: a model key finds the archived key with exactly its
        // Unicode scalars, as in the tree decoder (every key here is plain ASCII).
        return object.find(name)
    }

    @inline(__always)
    private func require(_ key: Key, _ object: DirectObject, _ decoder: DirectJSONDecoder) throws
        -> DirectJSONDecoder.ValueRef
    {
        guard let value = lookup(key, object, decoder) else { throw decoder.unsupported() }
        return value
    }

    /// The allow list of the key spelled `name`.
    private func allowList(named name: String, _ object: DirectObject) -> Set<String>? {
        guard let model = object.state.pointee.model else { return object.state.pointee.allowed }
        return model._withUnsafeGuaranteedRef { $0.allowedTypeNames.isEmpty ? nil : $0.allowedTypeNames[name] }
    }

    func contains(_ key: Key) -> Bool {
        (try? withParts { lookup(key, $0, $1) != nil }) ?? false
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try withParts { $1.isNull(try require(key, $0, $1)) }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try withParts { try $1.bool(at: try require(key, $0, $1)) }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try withParts { try $1.string(at: try require(key, $0, $1)) }
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try withParts { try $1.double(at: try require(key, $0, $1)) }
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try withParts { try $1.float(at: try require(key, $0, $1)) }
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try withParts { try $1.int(at: try require(key, $0, $1)) }
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
        try withParts { try $1.integer(at: try require(key, $0, $1), as: I.self) }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try withParts { object, decoder in
            if T.self == UnknownFields.self { throw decoder.unsupported() }
            let name = key.stringValue
            guard let value = lookup(named: name, object, decoder) else {
                return try valueForAbsentKey(T.self, decoder)
            }
            return try decoder.decode(T.self, from: value, key: .key(name), allowed: allowList(named: name, object))
        }
    }

    /// Property wrappers that stand for an absent key, as in ``TreeKeyedDecodingContainer``.
    /// Apart, because naming `T?` makes the runtime look up its metadata on every call.
    @inline(never)
    private func valueForAbsentKey<T: Decodable>(_ type: T.Type, _ decoder: DirectJSONDecoder) throws -> T {
        if let absent = T.self as? any AbsentKeyDecodable.Type, let value = absent.valueForAbsentKey() as? T {
            return value
        }
        throw decoder.unsupported()
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try withParts { object, decoder in
            guard let value = lookup(key, object, decoder), !decoder.isNull(value) else { return nil }
            return try decoder.string(at: value)
        }
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try withParts { object, decoder in
            guard let value = lookup(key, object, decoder), !decoder.isNull(value) else { return nil }
            return try decoder.int(at: value)
        }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try withParts { object, decoder in
            guard let value = lookup(key, object, decoder), !decoder.isNull(value) else { return nil }
            return try decoder.double(at: value)
        }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try withParts { object, decoder in
            guard let value = lookup(key, object, decoder), !decoder.isNull(value) else { return nil }
            return try decoder.bool(at: value)
        }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try withParts { object, decoder in
            if T.self == UnknownFields.self { throw decoder.unsupported() }
            let name = key.stringValue
            guard let value = lookup(named: name, object, decoder), !decoder.isNull(value) else { return nil }
            return try decoder.decode(T.self, from: value, key: .key(name), allowed: allowList(named: name, object))
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try withParts { object, decoder in
            let value = try require(key, object, decoder)
            return try decoder.nestedDecoder(
                value: value, key: .key(key.stringValue), depth: object.state.pointee.depth
            )
            .container(keyedBy: NestedKey.self)
        }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try withParts { object, decoder in
            let value = try require(key, object, decoder)
            return try decoder.nestedDecoder(
                value: value, key: .key(key.stringValue), depth: object.state.pointee.depth
            )
            .unkeyedContainer()
        }
    }

    func superDecoder() throws -> any Decoder {
        try withParts { throw $1.unsupported() }
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try withParts { throw $1.unsupported() }
    }
}

/// The unkeyed container of ``DirectJSONDecoder``: the elements of an array, in order.
struct DirectUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: DirectJSONDecoder
    private var elements: DirectDecodingSession.ElementCursor
    let allowed: Set<String>?
    let depth: Int

    init(decoder: DirectJSONDecoder, array: DirectJSONDecoder.ValueRef, allowed: Set<String>?, depth: Int) {
        self.decoder = decoder
        self.elements = decoder.session.elements(of: array)
        self.allowed = allowed
        self.depth = depth
    }

    var codingPath: [any CodingKey] { decoder.codingPath(depth: depth) }

    var count: Int? { elements.count }

    var isAtEnd: Bool { elements.isAtEnd }

    var currentIndex: Int { elements.index }

    private mutating func next() throws -> DirectJSONDecoder.ValueRef {
        guard decoder.session.isOpen, let value = elements.next() else { throw decoder.unsupported() }
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard decoder.session.isOpen, !elements.isAtEnd else { throw decoder.unsupported() }
        if decoder.session.text.bytes[elements.offset] == UInt8(ascii: "n") {
            _ = elements.next()
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(at: try next()) }
    mutating func decode(_ type: String.Type) throws -> String { try decoder.string(at: try next()) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decoder.double(at: try next()) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decoder.float(at: try next()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decoder.int(at: try next()) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    private mutating func integer<I: FixedWidthInteger>() throws -> I {
        try decoder.integer(at: try next(), as: I.self)
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let key = TreeDecoder.PathKey.index(currentIndex)
        return try decoder.decode(T.self, from: try next(), key: key, allowed: allowed)
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
        throw decoder.unsupported()
    }
}

/// The single-value container of ``DirectJSONDecoder``.
struct DirectSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: DirectJSONDecoder
    let value: DirectJSONDecoder.ValueRef
    let allowed: Set<String>?
    let depth: Int

    var codingPath: [any CodingKey] { decoder.codingPath(depth: depth) }

    func decodeNil() -> Bool { decoder.isNull(value) }

    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(at: value) }
    func decode(_ type: String.Type) throws -> String { try decoder.string(at: value) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.double(at: value) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.float(at: value) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.int(at: value) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(at: value, as: Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(at: value, as: Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(at: value, as: Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(at: value, as: Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(at: value, as: UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(at: value, as: UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(at: value, as: UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(at: value, as: UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(at: value, as: UInt64.self) }

    /// The same value at the same depth, as ``TreeSingleValueDecodingContainer`` decodes it.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let saved = decoder.current
        defer { decoder.current = saved }
        decoder.current.value = value
        decoder.current.object = nil
        decoder.current.allowed = allowed
        return try decoder.unbox(value, as: T.self)
    }
}
