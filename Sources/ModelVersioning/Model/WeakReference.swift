/// A weak back-reference archived conditionally: written only when its object is archived
/// unconditionally elsewhere, and restored even when it closes a cycle (a child pointing back to
/// the parent that is still being decoded).
///
/// ```swift
/// final class Node: VersionedModel {
///     var name: String
///     var children: [Node]
///     @WeakReference var parent: Node?
/// }
/// ```
///
/// Encoding writes a reference to the parent's identity (or nothing when the parent is not part
/// of the archive). Decoding assigns the parent as soon as it has been built, so after the root
/// is decoded every `child.parent === parent`. With synthesized Codable this needs no
/// `encodingBehaviors` entry and no custom `init(from:)`; for a plain `weak var` use
/// `KeyedDecodingContainer.decodeConditional(_:forKey:assign:)` instead.
@propertyWrapper
public struct WeakReference<Object: AnyObject & Codable>: Codable {
    /// Holds the object weakly; a class so that the decoder can fill it in after the owner's
    /// initializer has returned.
    private final class Box {
        weak var object: Object?

        init(_ object: Object?) {
            self.object = object
        }
    }

    private let box: Box

    /// The referenced object, or `nil` once it has gone away.
    public var wrappedValue: Object? {
        get { box.object }
        nonmutating set { box.object = newValue }
    }

    public init(wrappedValue: Object?) {
        box = Box(wrappedValue)
    }

    public init(from decoder: any Decoder) throws {
        if let streaming = decoder as? StreamingJSONDecoder { throw streaming.unsupported() }
        let box = Box(nil)
        self.box = box
        if let treeDecoder = decoder as? TreeDecoder {
            try treeDecoder.decodeConditionalReference(Object.self) { box.object = $0 }
        } else {
            let single = try decoder.singleValueContainer()
            box.object = single.decodeNil() ? nil : try single.decode(Object.self)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if let treeEncoder = encoder as? TreeEncoder {
            guard let object = box.object else {
                treeEncoder.storage = .value(.null)
                return
            }
            treeEncoder.storage = .value(
                try treeEncoder.boxConditional(object, key: treeEncoder.key ?? ArchiveCodingKey("weak")))
            return
        }
        var single = encoder.singleValueContainer()
        if let object = box.object {
            try single.encode(object)
        } else {
            try single.encodeNil()
        }
    }
}

extension WeakReference: AbsentKeyDecodable {
    static func valueForAbsentKey() -> WeakReference<Object>? {
        WeakReference(wrappedValue: nil)
    }
}

/// Marks values that a keyed container leaves out when they encode to nothing: a decision the
/// tree encoder makes after encoding them, so they encode through the tree.
protocol OmittedWhenNull: EncodesThroughTree {}

extension WeakReference: OmittedWhenNull {}

extension KeyedDecodingContainer {
    /// Decodes a conditional reference, assigning it as soon as its object exists: now, or, when
    /// the reference closes a cycle (a child pointing back at the parent being decoded), right
    /// after the parent's initializer returns.
    ///
    /// ```swift
    /// init(from decoder: any Decoder) throws {
    ///     let container = try decoder.container(keyedBy: CodingKeys.self)
    ///     name = try container.decode(String.self, forKey: .name)
    ///     children = try container.decode([Node].self, forKey: .children)
    ///     try container.decodeConditional(Node.self, forKey: .parent) { [weak self] in self?.parent = $0 }
    /// }
    /// ```
    ///
    /// An absent key, a null value, or a reference to an object that was never archived
    /// unconditionally assigns `nil`. With decoders other than ``ArchiveDecoder`` it falls back to
    /// `decodeIfPresent`.
    public func decodeConditional<T: AnyObject & Decodable>(
        _ type: T.Type, forKey key: Key, assign: @escaping (T?) -> Void
    ) throws {
        guard contains(key) else {
            assign(nil)
            return
        }
        let nested = try superDecoder(forKey: key)
        guard let treeDecoder = nested as? TreeDecoder else {
            assign(try decodeIfPresent(T.self, forKey: key))
            return
        }
        try treeDecoder.decodeConditionalReference(T.self, assign: assign)
    }

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

extension WeakReference: DecodesArchivedObjectsItself {}
