/// The hub every coder consults: the model types an app archives, found by their archive names,
/// and the migration chains that bring old archives of them up to date.
///
/// Build it once at start-up and share it (it is an immutable, `Sendable` value):
///
/// ```swift
/// let registry = try ModelRegistry(
///     [Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self],
///     documents: [DocumentMigrations(name: "Sketch", currentVersion: 2, steps: [sketchV1ToV2])])
/// let decoder = ArchiveDecoder(registry: registry)
/// ```
///
/// The registry is what makes polymorphism work without runtime class enumeration: a
/// ``Polymorphic`` property or a base-class-typed property decodes an archived `"Circle"` by
/// looking the name up here. Statically typed properties of model types need no registration.
///
/// Each registered type contributes its migration chain (``VersionedModel/migrationSteps``,
/// ``VersionedModel/archiveTypeAliases``, ``VersionedModel/unversionedVersion``); chains can also
/// come from a rules file (`MigrationCatalog(rulesFile:fileName:)`), for types whose Swift
/// declaration lists no steps.
///
/// Building it validates everything: two types claiming the same name or alias, a chain with a
/// gap, a duplicate step or a last step that does not reach the type's ``VersionedModel/modelVersion``
/// are programmer errors reported by the initializer, not at a user's first load. So is a
/// subclass whose base class leaves one of ``VersionedModel``'s static requirements to its
/// default: Swift would never read the subclass's own declaration of it (see the class
/// hierarchies in ``VersionedModel``).
public struct ModelRegistry: Sendable {
    private var infosByName: [String: ModelInfo] = [:]
    private var infosByType: [ObjectIdentifier: ModelInfo] = [:]
    private var documents: [DocumentMigrations] = []
    private var releases: ReleaseManifest?
    private var rules = MigrationCatalog.empty

    /// The registered types, in registration order.
    public private(set) var types: [any VersionedModel.Type] = []

    /// Every migration chain: the registered types' own, documents', and those from rules.
    public private(set) var catalog = MigrationCatalog.empty

    /// An empty registry: statically typed models still decode; polymorphic values cannot.
    public init() {}

    /// Creates a registry of `types`, with document chains and chains from rules files.
    ///
    /// - Parameters:
    ///   - types: The model types archives may hold.
    ///   - documents: Document-level chains (changes that span objects; foreign documents with a
    ///     `schema_version`).
    ///   - releases: The app's shipped releases, oldest first: what each one wrote, so that a
    ///     downgrade writes exactly what a named release reads (see `ReleaseManifest`). Rules may
    ///     declare them instead.
    ///   - rules: More chains, typically read from a rules file. A chain for a registered type
    ///     applies when that type declares no ``VersionedModel/migrationSteps`` itself, and must
    ///     end at its ``VersionedModel/modelVersion``.
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidChain` when two types claim
    ///   the same archive name or alias, a type is registered twice, a subclass's base class
    ///   leaves a static requirement to its default (naming the `class var`s to declare), a chain is invalid, or the
    ///   releases do not fit the chains (a version a chain does not have, a version that goes
    ///   down from one release to the next, a last release that is not today's models).
    public init(
        _ types: [any VersionedModel.Type], documents: [DocumentMigrations] = [], releases: ReleaseManifest? = nil,
        rules: MigrationCatalog = .empty
    ) throws {
        self.documents = documents
        self.releases = releases
        self.rules = rules
        for type in types {
            try add(type)
        }
        try rebuildCatalog()
    }

    /// Adds a type.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidChain` when its name or an
    ///   alias is already taken, it is already registered, or its chain is invalid.
    public mutating func register(_ type: any VersionedModel.Type) throws {
        try add(type)
        try rebuildCatalog()
    }

    private mutating func add(_ type: any VersionedModel.Type) throws {
        let info = ModelInfo(type)
        let identifier = ObjectIdentifier(type)
        guard infosByType[identifier] == nil else {
            throw ArchiveError(.invalidChain, "\(type) is registered twice", typeName: info.typeName)
        }
        let names = TypeMigrations(
            typeName: info.typeName, currentVersion: info.version, aliases: info.aliases,
            steps: type.migrationSteps
        ).allNames
        for name in names {
            if let other = infosByName[name] {
                if let (subclass, base) = Self.subclassPair(type, other.type) {
                    throw Self.inheritedDeclarations(subclass, base, evidence: "both answer to '\(name)'")
                }
                throw ArchiveError(
                    .invalidChain,
                    "\(type) and \(other.type) both claim the archive name '\(name)'; give one of them another "
                        + "archiveTypeName",
                    typeName: name)
            }
        }
        // A subclass that repeats its base class's chain has not declared its own: Swift reads the
        // subclass's static requirements through the base class's conformance.
        for other in types {
            guard let (subclass, base) = Self.subclassPair(type, other), !base.migrationSteps.isEmpty,
                subclass.modelVersion == base.modelVersion,
                Self.spelled(subclass.migrationSteps) == Self.spelled(base.migrationSteps)
            else { continue }
            throw Self.inheritedDeclarations(
                subclass, base, evidence: "its version and migration steps are exactly \(base)'s")
        }
        try Self.checkHierarchy(type)
        for name in names {
            infosByName[name] = info
        }
        infosByType[identifier] = info
        types.append(type)
    }

    /// Refuses a subclass whose base class leaves a static requirement to the protocol's default:
    /// the subclass could declare it (`static let archiveTypeAliases = […]` compiles) and Swift
    /// would never read it, because it reads the subclass's requirements through the base class's
    /// conformance. Only `class var`s the base class declares can be overridden.
    private static func checkHierarchy(_ type: any VersionedModel.Type) throws {
        guard let superclass = DefaultedRequirements.modelSuperclass(of: type) else { return }
        let defaulted = DefaultedRequirements.requirements(takenBy: type)
        guard !defaulted.isEmpty else { return }
        let conforming = DefaultedRequirements.conformingClass(of: type)
        let list =
            defaulted.count == 1
            ? defaulted[0] : defaulted.dropLast().joined(separator: ", ") + " and " + defaulted[defaulted.count - 1]
        throw ArchiveError(
            .invalidChain,
            "\(type) is a subclass of \(superclass), and \(conforming)'s conformance to VersionedModel takes the "
                + "default \(list): Swift reads \(type)'s static requirements through that conformance, so a "
                + "`static let` of them in \(type) would never be read. Declare them in \(conforming): "
                + defaulted.compactMap { DefaultedRequirements.declarations[$0] }.joined(separator: "; ")
                + "; and override them in the subclasses that differ (`override class var`)",
            typeName: "\(type)")
    }

    /// The two types as (subclass, base class) when one is a subclass of the other.
    private static func subclassPair(
        _ first: any VersionedModel.Type, _ second: any VersionedModel.Type
    ) -> (any VersionedModel.Type, any VersionedModel.Type)? {
        func isSubclass<Base: VersionedModel>(_ type: any VersionedModel.Type, of base: Base.Type) -> Bool {
            type != base && type is Base.Type
        }
        if isSubclass(first, of: second) { return (first, second) }
        if isSubclass(second, of: first) { return (second, first) }
        return nil
    }

    /// Steps as text, to compare chains.
    private static func spelled(_ steps: [MigrationStep]) -> [String] {
        steps.map { "\($0.from)→\($0.to) \($0.name ?? ""): " + $0.rules.map(\.description).joined(separator: "; ") }
    }

    /// The error for a subclass whose versioning declarations are its base class's.
    private static func inheritedDeclarations(
        _ subclass: any VersionedModel.Type, _ base: any VersionedModel.Type, evidence: String
    ) -> ArchiveError {
        ArchiveError(
            .invalidChain,
            "\(subclass) inherits \(base)'s versioning declarations (\(evidence)): Swift reads a class's static "
                + "requirements through \(base)'s conformance, so a `static let` in \(subclass) is never seen. "
                + "Declare them in \(base) as `class var` (archiveTypeName, archiveTypeAliases, modelVersion, "
                + "migrationSteps, …) and in \(subclass) as `override class var`",
            typeName: "\(subclass)")
    }

    /// Builds ``catalog`` from the types, the documents and the rules, validating every chain.
    private mutating func rebuildCatalog() throws {
        var chains: [TypeMigrations] = []
        var fromRules = Dictionary(rules.types.map { ($0.typeName, $0) }, uniquingKeysWith: { first, _ in first })
        for type in types {
            let info = ModelInfo(type)
            var chain = TypeMigrations(
                typeName: info.typeName, currentVersion: info.version, aliases: info.aliases,
                unversionedVersion: type.unversionedVersion, steps: type.migrationSteps,
                downgradeFallback: type.downgradeFallback)
            if let ruled = fromRules.removeValue(forKey: info.typeName) {
                guard chain.steps.isEmpty else {
                    throw ArchiveError(
                        .invalidChain,
                        "\(info.typeName) has migration steps both in Swift and in the rules; keep one of them",
                        typeName: info.typeName)
                }
                guard ruled.currentVersion == info.version else {
                    throw ArchiveError(
                        .invalidChain,
                        "the rules take \(info.typeName) to v\(ruled.currentVersion) but the model is at "
                            + "v\(info.version)",
                        typeName: info.typeName)
                }
                chain.steps = ruled.steps
                chain.downgradeFallback = chain.downgradeFallback ?? ruled.downgradeFallback
                chain.aliases += ruled.aliases.filter { !chain.aliases.contains($0) }
                chain.unversionedVersion = chain.unversionedVersion ?? ruled.unversionedVersion
            }
            chains.append(chain)
        }
        chains += rules.types.filter { fromRules[$0.typeName] != nil }
        let documentNames = Set(documents.map(\.name))
        if releases != nil, rules.releases != nil {
            throw ArchiveError(.invalidChain, "both the app and its rules declare releases; declare them once")
        }
        catalog = try MigrationCatalog(
            types: chains, documents: documents + rules.documents.filter { !documentNames.contains($0.name) },
            releases: releases ?? rules.releases)
    }

    /// This registry with more chains, typically from a rules file (see
    /// ``init(_:documents:releases:rules:)`` for how they combine with the registered types' own).
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidChain` for conflicting or
    ///   invalid chains.
    public func adding(rules more: MigrationCatalog) throws -> ModelRegistry {
        var copy = self
        copy.rules = try rules.merging(more)
        try copy.rebuildCatalog()
        return copy
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
