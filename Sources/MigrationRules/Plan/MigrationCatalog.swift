/// Every migration chain an app (or a rules file) knows: one per model type and one per
/// document, validated once and looked up by any of a type's names.
///
/// ```swift
/// let catalog = try MigrationCatalog(
///     types: [circleMigrations, drawingMigrations],
///     documents: [DocumentMigrations(name: "Sketch", currentVersion: 2, steps: [sketchV1ToV2])])
/// let pass = MigrationPass(catalog: catalog)
/// ```
///
/// Building a catalog validates every chain and the names they claim, so a broken chain is
/// found when the app starts, not when a user opens an old file.
public struct MigrationCatalog: Sendable {
    /// The type chains, in the order given.
    public let types: [TypeMigrations]
    /// The document chains, in the order given.
    public let documents: [DocumentMigrations]
    /// The app's shipped releases, when declared: what each one wrote.
    public let releases: ReleaseManifest?

    /// The compiled type chains, parallel to ``types``.
    let chains: [CompiledChain]
    /// Every name and alias of every type → its index in ``chains``.
    let chainIndexByName: [String: Int]
    /// Document name → compiled chain.
    let documentChains: [String: CompiledChain]
    /// Per chain index, its ``TypeMigrations/downgradeFallback`` laid out for the pass.
    let fallbacks: [CompiledFallback?]
    /// Where each chain's versions start in a flat array of per-version counts, and its size
    /// (``ObjectWalker`` counts migrated objects there): a chain has `steps.count + 1` versions,
    /// counted from its steps, never from its version numbers, which may be anything up to
    /// `Int.max`. Laid out once here rather than for every archive a pass migrates.
    let countOffsets: [Int]
    let countSlots: Int
    /// The work (``MigrationRule/work``) of every rule of the catalog once: a migration pass
    /// may do ``ArchiveLimits/maxRuleWork`` times the archive's bytes and these.
    let ruleWork: Int
    /// Per chain index: the aliases some release archived the type under
    /// (``AppRelease/aliases``), which an upgrade keeps (``ArchivedAlias``).
    let releasedAliases: [Set<String>]

    /// A ``DowngradeFallback`` with its target chain found.
    struct CompiledFallback: Sendable {
        /// The chain index of the type the object becomes.
        let chain: Int
        /// The version of that type the fields are at after ``rules``.
        let version: Int
        /// The name objects of that type carry at ``version``.
        let name: String
        let rules: [MigrationRule]
        /// `RoundedRectangle → Rectangle v2`, for reports and errors.
        let label: String
    }

    /// A catalog without chains: the migration pass changes nothing.
    public static let empty = MigrationCatalog()

    /// Creates a catalog without chains.
    public init() {
        types = []
        documents = []
        releases = nil
        chains = []
        chainIndexByName = [:]
        documentChains = [:]
        fallbacks = []
        countOffsets = []
        countSlots = 0
        ruleWork = 0
        releasedAliases = []
    }

    /// Validates and indexes chains.
    ///
    /// - Parameters:
    ///   - types: One chain per model type.
    ///   - documents: One chain per document name.
    ///   - releases: The app's shipped releases, oldest first (see ``ReleaseManifest``).
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidChain`` when a chain is
    ///   invalid (a step that does not go from one version to the next, two steps from the same
    ///   version, a gap, steps that do not end at the current version, an unversioned version the
    ///   chain does not cover, an empty name), when two types claim the same name or alias
    ///   (``TypeMigrations/allNames``), when two document chains have the same name, or when
    ///   the release manifest does not fit the chains.
    public init(
        types: [TypeMigrations], documents: [DocumentMigrations] = [], releases: ReleaseManifest? = nil
    ) throws {
        var chains: [CompiledChain] = []
        chains.reserveCapacity(types.count)
        var index: [String: Int] = [:]
        for (position, type) in types.enumerated() {
            chains.append(try CompiledChain(type))
            for name in type.allNames {
                if let other = index.updateValue(position, forKey: name) {
                    let owner = types[other].typeName
                    throw ArchiveError(
                        .invalidChain,
                        owner == type.typeName
                            ? "the type \(type.typeName) is declared twice"
                            : "the name '\(name)' is claimed by both \(owner) and \(type.typeName)",
                        typeName: type.typeName)
                }
            }
        }
        var documentChains: [String: CompiledChain] = [:]
        for document in documents {
            let chain = try CompiledChain(document)
            guard documentChains.updateValue(chain, forKey: document.name) == nil else {
                throw ArchiveError(.invalidChain, "the document '\(document.name)' is declared twice")
            }
        }
        var fallbacks: [CompiledFallback?] = []
        for type in types {
            guard let fallback = type.downgradeFallback else {
                fallbacks.append(nil)
                continue
            }
            guard let target = index[fallback.typeName], types[target].typeName == fallback.typeName else {
                throw ArchiveError(
                    .invalidChain,
                    "\(type.typeName)'s downgrade fallback becomes '\(fallback.typeName)', which is no type of the chains "
                        + "(give today's name)", typeName: type.typeName)
            }
            let chain = types[target]
            guard target != index[type.typeName] else {
                throw ArchiveError(
                    .invalidChain, "\(type.typeName)'s downgrade fallback becomes the type itself",
                    typeName: type.typeName)
            }
            guard fallback.version >= chain.oldestVersion, fallback.version <= chain.currentVersion else {
                throw ArchiveError(
                    .invalidChain,
                    "\(type.typeName)'s downgrade fallback becomes \(chain.typeName) v\(fallback.version), which its chain "
                        + "(v\(chain.oldestVersion)…v\(chain.currentVersion)) does not have", typeName: type.typeName)
            }
            fallbacks.append(
                CompiledFallback(
                    chain: target, version: fallback.version,
                    name: chains[target].archiveName(atVersion: fallback.version),
                    rules: fallback.rules, label: "\(type.typeName) → \(chain.typeName) v\(fallback.version)"))
        }
        // Fallbacks lead somewhere: following them from any type ends at a type without one.
        for start in fallbacks.indices {
            var seen: Set<Int> = [start]
            var next = fallbacks[start]?.chain
            while let current = next {
                guard seen.insert(current).inserted else {
                    throw ArchiveError(
                        .invalidChain, "the downgrade fallbacks of \(types[start].typeName) go round in a circle",
                        typeName: types[start].typeName)
                }
                next = fallbacks[current]?.chain
            }
        }
        try releases?.validate(types: types, documents: documents)
        self.types = types
        self.documents = documents
        self.releases = releases
        self.chains = chains
        var offsets: [Int] = []
        offsets.reserveCapacity(chains.count)
        var slots = 0
        for chain in chains {
            offsets.append(slots)
            slots += chain.steps.count + 1
        }
        self.countOffsets = offsets
        self.countSlots = slots
        self.chainIndexByName = index
        self.documentChains = documentChains
        self.fallbacks = fallbacks
        var work = 0
        for chain in chains { work &+= chain.ruleWork }
        for chain in documentChains.values { work &+= chain.ruleWork }
        for fallback in fallbacks { work &+= fallback?.rules.reduce(0) { $0 &+ $1.work } ?? 0 }
        self.ruleWork = work
        var aliases = [Set<String>](repeating: [], count: chains.count)
        for release in releases?.releases ?? [] {
            for (typeName, names) in release.aliases {
                guard let position = index[typeName] else { continue }
                aliases[position].formUnion(names)
            }
        }
        self.releasedAliases = aliases
    }

    /// Whether an object archived as `name` at `version` carries an alias some release archived
    /// chain `index`'s type under (``AppRelease/aliases``), not the name the chain gives objects of
    /// that version: its upgrade keeps the name (``ArchivedAlias``), which only the migration pass
    /// writes.
    func keepsAlias(_ name: String, chain index: Int, atVersion version: Int) -> Bool {
        guard !releasedAliases[index].isEmpty, releasedAliases[index].contains(name) else { return false }
        let chain = chains[index]
        guard version >= chain.oldestVersion, version <= chain.currentVersion else { return false }
        return name != chain.archiveNames[version - chain.oldestVersion]
    }

    /// Whether the catalog has no chains at all.
    public var isEmpty: Bool { types.isEmpty && documents.isEmpty }

    /// The chain of the type archived under `name`: its current name, an alias, or an old name
    /// from a ``MigrationRule/renameType(from:to:)`` rule. Constant time.
    ///
    /// ```swift
    /// catalog.migrations(forTypeName: "MyApp.Circle")?.typeName    // "Circle"
    /// ```
    public func migrations(forTypeName name: String) -> TypeMigrations? {
        chainIndexByName[name].map { types[$0] }
    }

    /// Whether an object archived as `typeName` at `version` would be changed by an upgrade: its
    /// type has a chain and the object is not at the chain's current version and name. Constant
    /// time.
    ///
    /// A reader or decoder that notes the type names and versions it meets can skip
    /// ``MigrationPass/upgrade(_:document:)`` (a walk over the whole tree) when no object needs it:
    ///
    /// ```swift
    /// let needsPass = seenTypes.contains { catalog.needsUpgrade(typeName: $0.name, version: $0.version) }
    /// ```
    ///
    /// Objects newer than their chain, or older than it reaches, also answer `true`: the pass
    /// reports them.
    package func needsUpgrade(typeName: String, version: Int?) -> Bool {
        guard let index = chainIndexByName[typeName] else { return false }
        let chain = chains[index]
        return version != chain.currentVersion || typeName != chain.name
    }

    /// For an object of `typeName` at its current version: the first keys (UTF-8) of what its
    /// chain's last step moves. Such an object holding one of them may have the layout of the
    /// version before, which the migration pass refuses (``ArchiveError/Code/missingMigration``);
    /// the JSON fast paths leave it to the pass. Empty for other names.
    package func lastStepSourceKeys(typeName: String) -> (list: [[UInt8]], set: Set<[UInt8]>) {
        guard let index = chainIndexByName[typeName], chains[index].name == typeName else { return ([], []) }
        return (chains[index].lastStepSourceKeys, chains[index].lastStepSourceKeySet)
    }

    /// The document chain named `name`.
    public func document(named name: String) -> DocumentMigrations? {
        documents.first { $0.name == name }
    }

    /// A catalog with the chains of both catalogs.
    ///
    /// ```swift
    /// let all = try appCatalog.merging(MigrationCatalog(rulesFile: tree, fileName: "legacy.json"))
    /// ```
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidChain`` when the catalogs
    ///   share a type name, an alias or a document name, or both declare releases.
    public func merging(_ other: MigrationCatalog) throws -> MigrationCatalog {
        if releases != nil, other.releases != nil {
            throw ArchiveError(.invalidChain, "both catalogs declare releases; an app has one release history")
        }
        return try MigrationCatalog(
            types: types + other.types, documents: documents + other.documents, releases: releases ?? other.releases)
    }

    /// The compiled chain of the type archived under `name`.
    func chainIndex(forTypeName name: String) -> Int? {
        chainIndexByName[name]
    }
}
