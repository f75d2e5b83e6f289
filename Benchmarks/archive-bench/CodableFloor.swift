import Foundation
import ModelVersioning

// Codable's own part, with no bytes at all: the benchmark's models' synthesized `init(from:)`
// and `encode(to:)` run against a decoder and an encoder that do nothing of their own. The
// decoder hands back constants (the same count of shapes and tags as the real document, so the
// same models and arrays are built) and the encoder drops every value. What is left is what any
// coder going through Codable pays for these types: the existential containers and their boxes,
// a protocol call per property, the models' initialisers, the arrays. So
// `…_codable_floor_vs_…` (Foundation's time over this one's) is the most a Codable coder could
// reach against Foundation if reading or writing the bytes cost nothing. A reference row of
// `archive-bench`, not part of the library.

/// The decoder and encoder that do no work of their own.
enum CodableFloor {
    static let name = "Codable alone (no bytes)"

    /// `BenchDocument(from:)` with `shapes` shapes of two tags each.
    static func decode(shapes: Int) throws -> BenchDocument {
        try BenchDocument(from: NullDecoder(level: 0, shapes: shapes))
    }

    /// `document.encode(to:)` into nothing.
    static func encode(_ document: BenchDocument) throws {
        try document.encode(to: NullEncoder())
    }
}

/// A decoder whose values are constants. The document's array (level 1) has `shapes` elements
/// and every array below it two, as the benchmark's document has: counts known without a look-up,
/// so that what is measured is Codable's part alone. Each container holds two integers, which an
/// existential container keeps inline.
private struct NullDecoder: Decoder {
    /// How deep this decoder is: 0 for the document, 1 for its array of shapes, 2 for a shape.
    let level: Int
    let shapes: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(level: level, shapes: shapes))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        Unkeyed(level: level, shapes: shapes)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(level: level, shapes: shapes) }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let level: Int
        let shapes: Int
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { true }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { "x" }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { 1 }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { 1 }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if let value = constant(T.self) { return value }
            return try T(from: NullDecoder(level: level + 1, shapes: shapes))
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(level: level + 1, shapes: shapes))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            Unkeyed(level: level + 1, shapes: shapes)
        }
        func superDecoder() throws -> any Decoder { NullDecoder(level: level, shapes: shapes) }
        func superDecoder(forKey key: Key) throws -> any Decoder { NullDecoder(level: level + 1, shapes: shapes) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let level: Int
        let shapes: Int
        var currentIndex = 0
        var codingPath: [any CodingKey] { [] }
        var count: Int? { level == 1 ? shapes : 2 }
        var isAtEnd: Bool { currentIndex >= (count ?? 0) }

        init(level: Int, shapes: Int) {
            self.level = level
            self.shapes = shapes
        }

        mutating func decodeNil() throws -> Bool { false }
        mutating func decode(_ type: Bool.Type) throws -> Bool { next(true) }
        mutating func decode(_ type: String.Type) throws -> String { next("x") }
        mutating func decode(_ type: Double.Type) throws -> Double { next(1) }
        mutating func decode(_ type: Int.Type) throws -> Int { next(1) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            next(try constant(T.self) ?? T(from: NullDecoder(level: level + 1, shapes: shapes)))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> {
            next(KeyedDecodingContainer(Keyed<NestedKey>(level: level + 1, shapes: shapes)))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            next(Unkeyed(level: level + 1, shapes: shapes))
        }
        mutating func superDecoder() throws -> any Decoder { next(NullDecoder(level: level + 1, shapes: shapes)) }

        private mutating func next<T>(_ value: T) -> T {
            currentIndex += 1
            return value
        }
    }

    struct Single: SingleValueDecodingContainer {
        let level: Int
        let shapes: Int
        var codingPath: [any CodingKey] { [] }
        func decodeNil() -> Bool { false }
        func decode(_ type: Bool.Type) throws -> Bool { true }
        func decode(_ type: String.Type) throws -> String { "x" }
        func decode(_ type: Double.Type) throws -> Double { 1 }
        func decode(_ type: Int.Type) throws -> Int { 1 }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try constant(T.self) ?? T(from: NullDecoder(level: level, shapes: shapes))
        }
    }
}

/// The constant for a scalar asked for through a generic `decode`, as a fast decoder answers
/// those without a nested decoder: `nil` for anything else.
@inline(__always)
private func constant<T>(_ type: T.Type) -> T? {
    if T.self == String.self { return unsafeBitCast("x", to: T.self) }
    if T.self == Double.self { return unsafeBitCast(1.0, to: T.self) }
    if T.self == Int.self { return unsafeBitCast(1, to: T.self) }
    if T.self == Bool.self { return unsafeBitCast(true, to: T.self) }
    return nil
}

/// An encoder that drops every value (and still asks every model to encode itself).
private struct NullEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Keyed<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed() }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single() }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode(_ value: Bool, forKey key: Key) throws {}
        mutating func encode(_ value: String, forKey key: Key) throws {}
        mutating func encode(_ value: Double, forKey key: Key) throws {}
        mutating func encode(_ value: Int, forKey key: Key) throws {}
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if isScalar(T.self) { return }
            try value.encode(to: NullEncoder())
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Keyed<NestedKey>())
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { Unkeyed() }
        mutating func superEncoder() -> any Encoder { NullEncoder() }
        mutating func superEncoder(forKey key: Key) -> any Encoder { NullEncoder() }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count = 0
        mutating func encodeNil() throws { count += 1 }
        mutating func encode(_ value: Bool) throws { count += 1 }
        mutating func encode(_ value: String) throws { count += 1 }
        mutating func encode(_ value: Double) throws { count += 1 }
        mutating func encode(_ value: Int) throws { count += 1 }
        mutating func encode<T: Encodable>(_ value: T) throws {
            count += 1
            if isScalar(T.self) { return }
            try value.encode(to: NullEncoder())
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            count += 1
            return KeyedEncodingContainer(Keyed<NestedKey>())
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            count += 1
            return Unkeyed()
        }
        mutating func superEncoder() -> any Encoder { NullEncoder() }
    }

    struct Single: SingleValueEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil() throws {}
        mutating func encode(_ value: Bool) throws {}
        mutating func encode(_ value: String) throws {}
        mutating func encode(_ value: Double) throws {}
        mutating func encode(_ value: Int) throws {}
        mutating func encode<T: Encodable>(_ value: T) throws {
            if isScalar(T.self) { return }
            try value.encode(to: NullEncoder())
        }
    }
}

/// Whether a value given to a generic `encode` is a scalar a fast encoder writes without a
/// nested encoder.
@inline(__always)
private func isScalar<T>(_ type: T.Type) -> Bool {
    T.self == String.self || T.self == Double.self || T.self == Int.self || T.self == Bool.self
}
