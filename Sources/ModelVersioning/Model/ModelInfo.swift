/// What the coders need to know about one model type, computed once per type and coding run
/// (or once per registry) so that the per-field paths never call the type's static members.
///
/// A class so that passing it along the hot paths costs one reference count, not a copy of
/// every member.
package final class ModelInfo: Sendable {
    package let type: any VersionedModel.Type
    package let typeName: String
    package let aliases: [String]
    package let version: Int
    package let isClass: Bool
    /// Behaviours by coding key; empty for the common case, which skips every look-up.
    package let behaviors: [String: EncodingBehavior]
    /// Allowed archive type names by coding key.
    package let allowedTypeNames: [String: Set<String>]
    /// Calls `awakeFromArchive()` on a value of exactly this type, in place.
    let awaken: @Sendable (UnsafeMutableRawPointer) throws -> Void

    package init(_ type: any VersionedModel.Type) {
        self.type = type
        self.typeName = type.archiveTypeName
        self.aliases = type.archiveTypeAliases
        self.version = type.modelVersion
        self.isClass = type is AnyObject.Type
        self.behaviors = type.encodingBehaviors.filter { $0.value != .unconditional }
        self.allowedTypeNames = type.allowedTypes.mapValues { Set($0.map { $0.archiveTypeName }) }
        self.awaken = Self.awakener(for: type)
    }

    private static func awakener<M: VersionedModel>(for type: M.Type)
        -> @Sendable (UnsafeMutableRawPointer) throws
        -> Void
    {
        { pointer in try pointer.assumingMemoryBound(to: M.self).pointee.awakeFromArchive() }
    }

    /// The behaviour of the property stored under `key`.
    @inline(__always)
    package func behavior(forKey key: String) -> EncodingBehavior {
        behaviors.isEmpty ? .unconditional : behaviors[key] ?? .unconditional
    }

    /// Whether `name` is this type's name or one of its aliases.
    func answers(to name: String) -> Bool {
        name == typeName || aliases.contains(name)
    }
}

/// Per-run cache from a metatype to its ``ModelInfo`` (or to `nil` for types that are not
/// models). Lives in one encoding or decoding run, so it needs no lock. The last type asked for
/// is remembered separately: arrays of one model type then skip the hash look-up. For encoding
/// traits the last two types are: an object and the struct inside it (a shape and its center)
/// alternate.
struct ModelInfoCache {
    private var cache: [ObjectIdentifier: ModelInfo?] = [:]
    private var lastType: ObjectIdentifier?
    private var lastInfo: ModelInfo?
    private var traits: [ObjectIdentifier: EncodingTraits] = [:]
    private var lastTraitsType: ObjectIdentifier?
    private var lastTraits = EncodingTraits.plain
    private var previousTraitsType: ObjectIdentifier?
    private var previousTraits = EncodingTraits.plain
    private let registry: ModelRegistry?

    init(registry: ModelRegistry?) {
        self.registry = registry
    }

    /// The model information of `type`, or `nil` when it is not a ``VersionedModel``.
    @inline(__always)
    mutating func info(for type: Any.Type) -> ModelInfo? {
        let key = ObjectIdentifier(type)
        if key == lastType { return lastInfo }
        let info = lookUp(key, type)
        lastType = key
        lastInfo = info
        return info
    }

    /// What the encoder does with values of `type`.
    @inline(__always)
    mutating func encodingTraits(for type: Any.Type) -> EncodingTraits {
        let key = ObjectIdentifier(type)
        // The last two types asked about, answered in place: a model and the model it nests
        // take turns (moving the one found to the front copied a model's information thrice).
        if key == lastTraitsType { return lastTraits }
        if key == previousTraitsType { return previousTraits }
        let found: EncodingTraits
        if let cached = traits[key] {
            found = cached
        } else {
            if type is any ArchivePrimitive.Type {
                found = .primitive
            } else if let info = info(for: type) {
                found = .model(info)
            } else if let unordered = type as? any UnorderedCollection.Type {
                found = .unordered(unordered.archiveOrder)
            } else if type is any EncodesThroughTree.Type {
                found = .needsTree
            } else {
                found = .plain
            }
            traits[key] = found
        }
        previousTraitsType = lastTraitsType
        previousTraits = lastTraits
        lastTraitsType = key
        lastTraits = found
        return found
    }

    private mutating func lookUp(_ key: ObjectIdentifier, _ type: Any.Type) -> ModelInfo? {
        if let cached = cache[key] { return cached }
        var info: ModelInfo?
        if let model = type as? any VersionedModel.Type {
            info = registry?.info(for: model) ?? ModelInfo(model)
        }
        cache[key] = info
        return info
    }
}

/// What the encoder does with the values of one type, found once per type and run.
enum EncodingTraits {
    /// A value with a tree node of its own (`Data`, `URL`, small integers…).
    case primitive
    /// A model: stamped with its type name and version.
    case model(ModelInfo)
    /// A dictionary or set: its contents are put in a stable order.
    case unordered(UnorderedCollectionOrder)
    /// Anything else: encoded by its own `encode(to:)`.
    case plain
    /// A value whose `encode(to:)` writes into the tree itself (``EncodesThroughTree``): encoded
    /// like ``plain`` by the tree encoder; the direct encoder leaves the run to it.
    case needsTree
}

/// How the encoder orders what an unordered collection encodes, so that the same value always
/// gives the same archive (Swift's dictionaries and sets iterate in a per-process order).
enum UnorderedCollectionOrder {
    /// Keyed entries sorted by key.
    case keys
    /// Elements sorted by their archived value.
    case elements
}

/// Collections whose iteration order is not part of their value.
protocol UnorderedCollection {
    static var archiveOrder: UnorderedCollectionOrder { get }
}

extension Dictionary: UnorderedCollection {
    static var archiveOrder: UnorderedCollectionOrder { .keys }
}

extension Set: UnorderedCollection {
    static var archiveOrder: UnorderedCollectionOrder { .elements }
}
