/// The hub every coder consults: the model types an app archives, found by their archive names.
///
/// Build it once at start-up and share it (it is an immutable, `Sendable` value):
///
/// ```swift
/// let registry = try ModelRegistry([
///     Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self,
/// ])
/// let decoder = ArchiveDecoder(registry: registry)
/// ```
///
/// The registry is what makes polymorphism work without runtime class enumeration: a
/// ``Polymorphic`` property or a base-class-typed property decodes an archived `"Circle"` by
/// looking the name up here. Statically typed properties of model types need no registration.
///
/// Building it validates the registrations: two types claiming the same name or alias are
/// programmer errors reported by the initializer, not at a user's first load.
public struct ModelRegistry: Sendable {
    private var infosByName: [String: ModelInfo] = [:]
    private var infosByType: [ObjectIdentifier: ModelInfo] = [:]

    /// The registered types, in registration order.
    public private(set) var types: [any VersionedModel.Type] = []

    /// An empty registry: statically typed models still decode; polymorphic values cannot.
    public init() {}

    /// Creates a registry of `types`.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidChain` when two types
    ///   claim the same archive name or alias, or a type is registered twice.
    public init(_ types: [any VersionedModel.Type]) throws {
        for type in types {
            try register(type)
        }
    }

    /// Adds a type.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidChain` when its name or an
    ///   alias is already taken, or it is already registered.
    public mutating func register(_ type: any VersionedModel.Type) throws {
        let info = ModelInfo(type)
        let identifier = ObjectIdentifier(type)
        guard infosByType[identifier] == nil else {
            throw ArchiveError(
                .invalidChain, "\(type) is registered twice", typeName: info.typeName)
        }
        for name in [info.typeName] + info.aliases {
            if let other = infosByName[name] {
                throw ArchiveError(
                    .invalidChain,
                    "\(type) and \(other.type) both claim the archive name '\(name)'; give one of them another "
                        + "archiveTypeName",
                    typeName: name)
            }
        }
        for name in [info.typeName] + info.aliases {
            infosByName[name] = info
        }
        infosByType[identifier] = info
        types.append(type)
    }

    /// The registered type archived under `name` (its current name or an alias).
    public func type(named name: String) -> (any VersionedModel.Type)? {
        infosByName[name]?.type
    }

    /// Whether a type is registered under `name`.
    public func contains(name: String) -> Bool {
        infosByName[name] != nil
    }

    func info(named name: String) -> ModelInfo? {
        infosByName[name]
    }

    func info(for type: any VersionedModel.Type) -> ModelInfo? {
        infosByType[ObjectIdentifier(type)]
    }
}
