/// What the coders need to know about one model type, computed once per type and coding run
/// (or once per registry) so that the per-field paths never call the type's static members.
struct ModelInfo: Sendable {
    let type: any VersionedModel.Type
    let typeName: String
    let aliases: [String]
    let version: Int
    let isClass: Bool
    /// Behaviours by coding key; empty for the common case, which skips every look-up.
    let behaviors: [String: EncodingBehavior]
    /// Allowed archive type names by coding key.
    let allowedTypeNames: [String: Set<String>]

    init(_ type: any VersionedModel.Type) {
        self.type = type
        self.typeName = type.archiveTypeName
        self.aliases = type.archiveTypeAliases
        self.version = type.modelVersion
        self.isClass = type is AnyObject.Type
        self.behaviors = type.encodingBehaviors.filter { $0.value != .unconditional }
        self.allowedTypeNames = type.allowedTypes.mapValues { Set($0.map { $0.archiveTypeName }) }
    }

    /// The behaviour of the property stored under `key`.
    @inline(__always)
    func behavior(forKey key: String) -> EncodingBehavior {
        behaviors.isEmpty ? .unconditional : behaviors[key] ?? .unconditional
    }

    /// Whether `name` is this type's name or one of its aliases.
    func answers(to name: String) -> Bool {
        name == typeName || aliases.contains(name)
    }
}

/// Per-run cache from a metatype to its ``ModelInfo`` (or to `nil` for types that are not
/// models). Lives in one encoding or decoding run, so it needs no lock.
struct ModelInfoCache {
    private var cache: [ObjectIdentifier: ModelInfo?] = [:]
    private let registry: ModelRegistry?

    init(registry: ModelRegistry?) {
        self.registry = registry
    }

    /// The model information of `type`, or `nil` when it is not a ``VersionedModel``.
    mutating func info(for type: Any.Type) -> ModelInfo? {
        let key = ObjectIdentifier(type)
        if let cached = cache[key] { return cached }
        var info: ModelInfo?
        if let model = type as? any VersionedModel.Type {
            info = registry?.info(for: model) ?? ModelInfo(model)
        }
        cache[key] = info
        return info
    }
}
