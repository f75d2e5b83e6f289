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

    /// A weak reference to `wrappedValue`.
    public init(wrappedValue: Object?) {
        box = Box(wrappedValue)
    }

    /// Decodes the reference; with ``ArchiveDecoder`` the object is assigned once it has been built, even
    /// when it closes a cycle.
    public init(from decoder: any Decoder) throws {
        if let direct = decoder as? DirectJSONDecoder { throw direct.unsupported() }
        let box = Box(nil)
        self.box = box
        if let treeDecoder = decoder as? TreeDecoder {
            try treeDecoder.decodeConditionalReference(Object.self) { box.object = $0 }
        } else {
            let single = try decoder.singleValueContainer()
            box.object = single.decodeNil() ? nil : try single.decode(Object.self)
        }
    }

    /// Encodes a conditional reference to the object (`null` once it has gone); other encoders get the
    /// object itself, or `nil`.
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

extension WeakReference: OmittedWhenNull {}

extension WeakReference: DecodesArchivedObjectsItself {}
