import ModelVersioning

/// The schemas the law check generates from and checks against: every snapshotted version of
/// every chain, and today's version of each type — probed from the Swift type when the app
/// registered it, its snapshot otherwise.
struct SchemaSet: Sendable {
    let catalog: MigrationCatalog
    /// By chain name, then version.
    private var schemas: [String: [Int: ModelSchema]] = [:]
    /// Snapshots that could not be read, by chain name and version.
    private(set) var problems: [String: [Int: String]] = [:]
    /// Whether today's schema of a chain was probed from Swift (rather than read from a snapshot).
    private(set) var probed: Set<String> = []

    init(catalog: MigrationCatalog, store: SchemaStore?, today: [ModelSchema]) {
        self.catalog = catalog
        for schema in today {
            guard let chain = catalog.migrations(forTypeName: schema.typeName) else { continue }
            schemas[chain.typeName, default: [:]][schema.version] = schema
            probed.insert(chain.typeName)
        }
        guard let store else { return }
        for chain in catalog.types {
            for version in chain.oldestVersion...max(chain.oldestVersion, chain.currentVersion)
            where schemas[chain.typeName]?[version] == nil {
                do {
                    if let snapshot = try store.snapshot(typeName: chain.typeName, version: version) {
                        schemas[chain.typeName, default: [:]][version] = snapshot
                    }
                } catch {
                    problems[chain.typeName, default: [:]][version] = "\(error)"
                }
            }
        }
    }

    /// The schema of `chain` at `version`, if there is one.
    func schema(_ chain: TypeMigrations, version: Int) -> ModelSchema? {
        schemas[chain.typeName]?[version]
    }

    /// Today's schema of the model archived under `name` (today's name, an alias or an old name).
    func today(named name: String) -> (chain: TypeMigrations, schema: ModelSchema)? {
        guard let chain = catalog.migrations(forTypeName: name),
            let schema = schema(chain, version: chain.currentVersion)
        else { return nil }
        return (chain, schema)
    }

    /// The line that says why `chain`'s objects cannot be generated: one of its schemas holds an
    /// enum that lists no case to pick (not `CaseIterable`, no `SchemaSampleProviding` sample);
    /// `nil` when every enum it holds can be generated.
    func unlistedEnum(of chain: TypeMigrations) -> String? {
        for (version, schema) in (schemas[chain.typeName] ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let nested = schema.nestedTypes.first(where: {
                $0.kind == .enum && !$0.listsEveryCase && $0.cases.isEmpty
            }) {
                return ArchiveGenerator.unlistedCases(nested.name, holder: "\(schema.typeName) v\(version)")
            }
        }
        return nil
    }

    /// Whether `name` is a model's: a name of a chain.
    func isModel(_ name: String) -> Bool {
        catalog.migrations(forTypeName: name) != nil
    }
}
