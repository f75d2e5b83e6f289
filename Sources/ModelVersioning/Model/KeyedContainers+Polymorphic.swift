import Foundation

extension KeyedDecodingContainer {
    /// Decodes a protocol-typed value (or an array, optional or dictionary of them) by the
    /// archived type names, as ``Polymorphic`` does for a stored property.
    ///
    /// ```swift
    /// shapes = try container.decodePolymorphic([any Shape].self, forKey: .shapes)
    /// ```
    public func decodePolymorphic<Value>(_ type: Value.Type, forKey key: Key) throws -> Value {
        guard let treeDecoder = try superDecoder(forKey: key) as? TreeDecoder else {
            throw ArchiveError(
                .typeMismatch, "polymorphic values decode only with ArchiveDecoder",
                path: ArchivePath(codingPath: codingPath + [key]))
        }
        if !contains(key), let absent = (Value.self as? any PolymorphicContainer.Type)?.absentValue as? Value {
            return absent
        }
        return try treeDecoder.decodePolymorphic(Value.self)
    }
}

extension KeyedEncodingContainer {
    /// Encodes a protocol-typed value (or an array, optional or dictionary of them) with the
    /// concrete type of each element, as ``Polymorphic`` does for a stored property.
    public mutating func encodePolymorphic<Value>(_ value: Value, forKey key: Key) throws {
        try PolymorphicCoding.encode(value, to: superEncoder(forKey: key))
    }
}
