/// The migration chain of one model type: its names, its current version and the steps that
/// lead there from every older version.
///
/// ```swift
/// let circle = TypeMigrations(
///     typeName: "Circle", currentVersion: 3, aliases: ["MyApp.Circle"], unversionedVersion: 1,
///     steps: [
///         MigrationStep(from: 1, to: 2, rules: [.rename("r", to: "radius")]),
///         MigrationStep(from: 2, to: 3, rules: [.nest(["x", "y"], into: "center")]),
///     ])
/// let catalog = try MigrationCatalog(types: [circle])   // checks the chain
/// ```
///
/// The migration pass runs an object archived at version `v` through the steps from `v` to
/// ``currentVersion``, in order, and then names it ``typeName``.
public struct TypeMigrations: Sendable {
    /// The type's current archive name.
    public var typeName: String
    /// The version the app writes today.
    public var currentVersion: Int
    /// Other names objects of this type were archived under that no ``MigrationRule/renameType(from:to:)``
    /// rule declares: module-qualified class names (`MyApp.Circle`), names from before the type
    /// had a stable name.
    public var aliases: [String]
    /// The version an object without a version is taken to be at (archives written before the
    /// type was versioned); `nil` makes an unversioned object a ``ArchiveError/Code/missingMigration``
    /// error.
    public var unversionedVersion: Int?
    /// One step per version, from the oldest supported version up to ``currentVersion``.
    public var steps: [MigrationStep]
    /// How releases that did not have this type saw its objects: as another type. `nil` makes
    /// such an object an error in a downgrade to such a release (unless it asks to drop them).
    public var downgradeFallback: DowngradeFallback?

    /// Creates a chain.
    ///
    /// - Parameters:
    ///   - typeName: The current archive name.
    ///   - currentVersion: The version the app writes today.
    ///   - aliases: Extra names objects of this type may carry in archives.
    ///   - unversionedVersion: The version of objects archived without one.
    ///   - steps: The steps, one per version up to `currentVersion` (in any order).
    ///   - downgradeFallback: How releases without this type saw its objects.
    public init(
        typeName: String, currentVersion: Int, aliases: [String] = [], unversionedVersion: Int? = nil,
        steps: [MigrationStep] = [], downgradeFallback: DowngradeFallback? = nil
    ) {
        self.typeName = typeName
        self.currentVersion = currentVersion
        self.aliases = aliases
        self.unversionedVersion = unversionedVersion
        self.steps = steps
        self.downgradeFallback = downgradeFallback
    }

    /// Every name an archived object of this type may carry: ``typeName``, the ``aliases`` and
    /// the old name of every ``MigrationRule/renameType(from:to:)`` rule in the steps (also inside
    /// scoped rules), without repetitions, in that order.
    public var allNames: [String] {
        var names: [String] = []
        var seen = Set<String>()
        let order = steps.indices.sorted { steps[$0].from < steps[$1].from }
        let renamed = order.flatMap { steps[$0].rules.flatMap(\.renamedTypeNames) }
        for name in [typeName] + aliases + renamed where seen.insert(name).inserted {
            names.append(name)
        }
        return names
    }

    /// The oldest version the chain migrates from: the first step's `from`, or
    /// ``currentVersion`` when there are no steps.
    public var oldestVersion: Int {
        steps.map(\.from).min() ?? currentVersion
    }

    /// Checks that the steps form one unbroken chain ending at ``currentVersion``.
    ///
    /// ```swift
    /// try TypeMigrations(typeName: "Circle", currentVersion: 3, steps: [
    ///     MigrationStep(from: 1, to: 3, rules: []),
    /// ]).validate()   // throws: step v1 → v3 skips a version
    /// ```
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidChain`` and the type name
    ///   for: a negative version; a step whose `to` is not `from + 1`; two steps with the same
    ///   `from`; a gap between steps; steps that end before or go beyond ``currentVersion``; an
    ///   ``unversionedVersion`` outside the versions the chain covers; an empty type name or
    ///   alias.
    package func validate() throws {
        _ = try CompiledChain(self)
    }
}
