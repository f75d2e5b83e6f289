import Foundation
import ModelVersioning

/// How many objects the law check generates, and from which seed.
public struct LawOptions: Sendable, Hashable {
    /// The seed every generated object derives from; the same seed generates the same objects.
    public var seed: UInt64
    /// Objects generated per type, version and law.
    public var objectsPerVersion: Int
    /// The most candidates tried while shrinking one counterexample.
    public var shrinkBudget: Int

    /// The seed `check` uses unless told otherwise (`--seed`).
    public static let defaultSeed: UInt64 = 1

    /// Options that by default generate 100 objects per version from ``defaultSeed`` and try at most 2000
    /// candidates while shrinking.
    public init(seed: UInt64 = LawOptions.defaultSeed, objectsPerVersion: Int = 100, shrinkBudget: Int = 2000) {
        self.seed = seed
        self.objectsPerVersion = objectsPerVersion
        self.shrinkBudget = shrinkBudget
    }
}

/// Proves every declared chain on generated data: for every type with a chain, objects of each
/// archived version are generated from its schema snapshot and run through the migration pass.
///
/// ```swift
/// let laws = MigrationLaws(
///     registry: try AppModels.registry(), schemas: SchemaStore(directory: schemasURL))
/// let report = laws.run()
/// print(report.summary)   // laws: 6 types, 15 versions checked, 100 generated objects per type, …
/// ```
///
/// The laws, for each older version `v` of a type whose snapshot exists:
/// 1. **Upgrade, then downgrade** (``MigrationLaw/upgradeThenDowngrade``): an archived `v`
///    object upgrades to today, and — when every step from `v` has an inverse — downgrades back
///    to exactly the original.
/// 2. **Downgrade, then upgrade** (``MigrationLaw/downgradeThenUpgrade``): today's object,
///    downgraded to `v` and upgraded again, is the original — except keys the steps add with a
///    default (the older version has nowhere to keep them). Objects the older version cannot
///    hold (the downgrade fails, or writes what `v`'s snapshot does not admit, such as a case
///    added since) are counted, not failed, unless no object can be written for `v` at all.
/// 3. **Opens today** (``MigrationLaw/decodesToday``): every upgraded object decodes into
///    today's Swift type (with Swift types registered), or matches today's snapshot (rules file
///    only); today's own generated objects must decode too.
///
/// A failure is shrunk to the smallest object that still breaks the law in the same place and
/// names the type, version, step and rule, with the seed that replays it. Steps without an
/// inverse (`remove` without `restoring`, a one-way converter) skip the round trips through
/// them; a step that declares its inverse as a whole (`MigrationStep.inverseRules`) is checked
/// with it, and named without a rule when it breaks; release fallbacks (`DowngradeFallback`) are projections for releases, not steps,
/// and are not checked.
public struct MigrationLaws: Sendable {
    /// The chains.
    public var catalog: MigrationCatalog
    /// Today's Swift types, which upgraded objects must decode into; `nil` for a rules file
    /// alone.
    public var registry: ModelRegistry?
    /// The snapshots objects are generated from.
    public var schemas: SchemaStore?
    /// How many objects are generated, from which seed, and how long a counterexample is shrunk.
    public var options: LawOptions

    /// The law check of an app's registered types and chains.
    public init(registry: ModelRegistry, schemas: SchemaStore?, options: LawOptions = .init()) {
        self.catalog = registry.catalog
        self.registry = registry.types.isEmpty ? nil : registry
        self.schemas = schemas
        self.options = options
    }

    /// The law check of chains without Swift types (a rules file): today's version of each type
    /// comes from its snapshot too.
    public init(catalog: MigrationCatalog, schemas: SchemaStore?, options: LawOptions = .init()) {
        self.catalog = catalog
        self.registry = nil
        self.schemas = schemas
        self.options = options
    }

    /// Runs every law on every chain.
    public func run() -> LawReport {
        let clock = ContinuousClock()
        let start = clock.now
        var today: [ModelSchema] = []
        var probeFailures: [String: String] = [:]
        for type in registry?.types ?? [] {
            do {
                today.append(try ModelSchema(of: type))
            } catch {
                probeFailures[type.archiveTypeName] = "\(error)"
            }
        }
        let set = SchemaSet(catalog: catalog, store: schemas, today: today)
        let chains = catalog.types.sorted(by: { $0.typeName < $1.typeName })
        let failures = probeFailures
        // Chains are independent: they run on every processor.
        let perChain = Parallel.map(chains) { chain -> [LawReport.VersionResult] in
            if let failure = failures[chain.typeName] {
                return [
                    LawReport.VersionResult(
                        typeName: chain.typeName, version: chain.currentVersion, currentVersion: chain.currentVersion,
                        outcome: .skipped("today's schema cannot be probed: \(failure)"), objects: 0, runs: 0,
                        snapshot: nil)
                ]
            }
            if let unknown = set.unlistedEnum(of: chain) {
                // No law runs on objects the generator could only fill with made-up values.
                return [
                    LawReport.VersionResult(
                        typeName: chain.typeName, version: chain.currentVersion, currentVersion: chain.currentVersion,
                        outcome: .cannotGenerate(unknown), objects: 0, runs: 0, snapshot: nil)
                ]
            }
            var run = ChainRun(chain: chain, laws: self, schemas: set)
            return run.results()
        }
        // What keeps a chain from being checked comes first, before any law's result.
        let all = perChain.flatMap { $0 }
        let results = all.filter(\.cannotGenerate) + all.filter { !$0.cannotGenerate }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return LawReport(
            results: results, seed: options.seed, objectsPerVersion: options.objectsPerVersion, seconds: seconds)
    }
}

/// The law check of one chain.
private struct ChainRun {
    let chain: TypeMigrations
    let laws: MigrationLaws
    let schemas: SchemaSet
    let pass: MigrationPass
    let conformance: SchemaConformance
    let steps: [MigrationStep]

    init(chain: TypeMigrations, laws: MigrationLaws, schemas: SchemaSet) {
        self.chain = chain
        self.laws = laws
        self.schemas = schemas
        self.pass = MigrationPass(catalog: laws.catalog, options: MigrationOptions(recordsSteps: false))
        self.conformance = SchemaConformance(schemas: schemas)
        self.steps = chain.steps.sorted { $0.from < $1.from }
    }

    var current: Int { chain.currentVersion }
    var count: Int { laws.options.objectsPerVersion }

    func snapshotURL(_ version: Int) -> URL? {
        laws.schemas?.url(typeName: chain.typeName, version: version)
    }

    func result(_ version: Int, _ outcome: LawReport.Outcome, objects: Int, runs: Int? = nil) -> LawReport.VersionResult
    {
        LawReport.VersionResult(
            typeName: chain.typeName, version: version, currentVersion: current, outcome: outcome, objects: objects,
            runs: runs ?? objects,
            snapshot: schemas.probed.contains(chain.typeName) && version == current ? nil : snapshotURL(version))
    }

    /// What a generated object is seeded with.
    func seed(_ version: Int, _ law: String, _ index: Int) -> UInt64 {
        SplitMix64.seed(laws.options.seed, [chain.typeName, String(version), law, String(index)])
    }

    mutating func results() -> [LawReport.VersionResult] {
        guard let todaySchema = schemas.schema(chain, version: current) else {
            let reason =
                schemas.problems[chain.typeName]?[current]
                ?? "no snapshot of \(chain.typeName) v\(current): the law check generates objects from snapshots"
            return [result(current, .skipped(reason), objects: 0)]
        }
        // Today's objects: generated once, used by the downgrade law of every older version.
        var todays: [ArchiveValue] = []
        for index in 0..<count {
            var generator = ArchiveGenerator(seed: seed(current, "today", index), schemas: schemas)
            do {
                todays.append(try generator.object(todaySchema, archivedAs: chain.typeName))
            } catch {
                return [
                    result(current, .skipped("cannot generate \(chain.typeName) v\(current): \(error)"), objects: 0)
                ]
            }
        }
        var results: [LawReport.VersionResult] = []
        results.append(checkToday(todays))
        for version in chain.oldestVersion..<current {
            results.append(checkVersion(version, todays: todays))
        }
        return results
    }

    // MARK: Today's version

    private func checkToday(_ todays: [ArchiveValue]) -> LawReport.VersionResult {
        guard laws.registry?.type(named: chain.typeName) != nil else {
            return result(
                current, .passed("\(todays.count) generated objects (no Swift type to open them: rules file only)"),
                objects: todays.count, runs: 0)
        }
        for (index, object) in todays.enumerated() {
            if let problem = opensToday(object) {
                let violation = shrink(
                    object, index: index, version: current,
                    signature: { candidate in opensToday(candidate) == nil ? nil : "decode" },
                    conformsTo: schemas.schema(chain, version: current),
                    make: { candidate in
                        LawViolation(
                            law: .decodesToday, typeName: chain.typeName, version: current, step: nil, rule: nil,
                            details: [
                                "today's \(chain.typeName) rejects an object its schema admits: "
                                    + (opensToday(candidate) ?? problem)
                            ], counterexample: candidate, objectIndex: index, shrinkSteps: 0, seed: laws.options.seed)
                    })
                return result(current, .failed(violation), objects: todays.count)
            }
        }
        return result(
            current, .passed("\(todays.count) generated objects open as today's \(chain.typeName)"),
            objects: todays.count)
    }

    /// Why `tree` (an object at today's version) does not open today, or `nil`.
    func opensToday(_ tree: ArchiveValue) -> String? {
        if let registry = laws.registry, let type = registry.type(named: chain.typeName) {
            let decoder = ArchiveDecoder(registry: registry)
            func open<M: VersionedModel>(_ type: M.Type) throws {
                _ = try decoder.decodeMigrated(M.self, from: tree)
            }
            do {
                try open(type)
                return nil
            } catch {
                return "\(error)"
            }
        }
        guard let schema = schemas.schema(chain, version: current) else { return nil }
        let problems = conformance.problems(tree, against: schema)
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    // MARK: An older version

    private func checkVersion(_ version: Int, todays: [ArchiveValue]) -> LawReport.VersionResult {
        guard let schema = schemas.schema(chain, version: version) else {
            let reason =
                schemas.problems[chain.typeName]?[version]
                ?? "no snapshot of \(chain.typeName) v\(version) to generate objects from (record or write one)"
            return result(version, .skipped(reason), objects: 0)
        }
        let path = steps.filter { $0.from >= version && $0.to <= current }
        let irreversible = path.lazy.compactMap { step in step.irreversibleRule.map { (step, $0) } }.first
        let name = chain.archiveName(atVersion: version)
        var generated = 0
        for index in 0..<count {
            var generator = ArchiveGenerator(seed: seed(version, "archived", index), schemas: schemas)
            let object: ArchiveValue
            do {
                object = try generator.object(schema, archivedAs: name)
            } catch {
                return result(
                    version, .skipped("cannot generate \(chain.typeName) v\(version): \(error)"), objects: generated)
            }
            generated += 1
            if let violation = upThenDown(object, from: version, reversible: irreversible == nil) {
                let shrunk = shrink(
                    object, index: index, version: version,
                    signature: { candidate in
                        upThenDown(candidate, from: version, reversible: irreversible == nil)?.signature
                    },
                    conformsTo: schema,
                    make: { candidate in
                        var shrunk = upThenDown(candidate, from: version, reversible: irreversible == nil) ?? violation
                        shrunk.counterexample = candidate
                        shrunk.objectIndex = index
                        return shrunk
                    })
                return result(version, .failed(shrunk), objects: generated, runs: generated + todays.count)
            }
        }
        var text = "\(generated) generated v\(version) objects upgrade and open today"
        guard let (step, rule) = irreversible else {
            var unrepresentable = 0
            for (index, today) in todays.enumerated() {
                switch downThenUp(today, to: version, schema: schema) {
                case .kept: continue
                case .unrepresentable: unrepresentable += 1
                case .broken(let violation):
                    let shrunk = shrink(
                        today, index: index, version: version,
                        signature: { candidate in
                            if case .broken(let again) = downThenUp(candidate, to: version, schema: schema) {
                                return again.signature
                            }
                            return nil
                        },
                        conformsTo: schemas.schema(chain, version: current),
                        make: { candidate in
                            guard case .broken(var again) = downThenUp(candidate, to: version, schema: schema) else {
                                return violation
                            }
                            again.counterexample = candidate
                            again.objectIndex = index
                            return again
                        })
                    return result(version, .failed(shrunk), objects: generated, runs: generated + todays.count)
                }
            }
            if unrepresentable == todays.count, !todays.isEmpty {
                var violation = LawViolation(
                    law: .downgradeThenUpgrade, typeName: chain.typeName, version: version, step: nil, rule: nil,
                    details: ["no generated object of today can be written for v\(version)"],
                    counterexample: todays[0], objectIndex: 0, shrinkSteps: 0, seed: laws.options.seed)
                if case .unrepresentable(let why) = downThenUp(todays[0], to: version, schema: schema) {
                    violation.details.append(why)
                }
                return result(version, .failed(violation), objects: generated, runs: generated + todays.count)
            }
            text +=
                ", and back to v\(version) unchanged; \(todays.count - unrepresentable) of \(todays.count) of "
                + "today's go down to v\(version) and back unchanged"
            if unrepresentable > 0 { text += " (\(unrepresentable) hold what v\(version) cannot)" }
            return result(version, .passed(text), objects: generated, runs: generated + todays.count)
        }
        text += "; round trips skipped: \(step.label(chain.typeName)) has no inverse (rule \(rule))"
        return result(version, .passed(text), objects: generated)
    }

    // MARK: The laws

    /// Law 1 (and 3): `object` at `version` upgrades, opens today and, when the steps are
    /// reversible, downgrades back to itself.
    func upThenDown(_ object: ArchiveValue, from version: Int, reversible: Bool) -> LawViolation? {
        var tree = object
        do {
            try pass.upgrade(&tree)
        } catch {
            return violation(.decodesToday, version, object, error: error)
        }
        if let problem = opensToday(tree) {
            var violation = violation(.decodesToday, version, object, details: [problem])
            if let (step, _) = locateUpgrade(object, from: version, where: { _, _ in false }) {
                violation.step = step.label(chain.typeName)
            }
            return violation
        }
        guard reversible else { return nil }
        var back = tree
        do {
            try pass.downgrade(&back, to: DowngradeTarget(typeVersions: [chain.typeName: version]))
        } catch {
            return violation(.upgradeThenDowngrade, version, object, error: error)
        }
        let differences = ArchiveDiff.differences(
            from: object, to: back, options: ArchiveDiff.Options(nullMeansAbsent: true))
        guard !differences.isEmpty else { return nil }
        var result = violation(.upgradeThenDowngrade, version, object, details: differences.map(\.description))
        let culprit = locateUpgrade(object, from: version, checksDeclaredInverses: true) { input, rule in
            guard let inverse = rule.inverse else { return false }
            var back = input.target
            do {
                try rule.apply(to: &back)
                try inverse.apply(to: &back)
            } catch {
                return true
            }
            return !Self.same(input.original, back)
        }
        if let (step, rule) = culprit {
            result.step = step.label(chain.typeName)
            result.rule = rule?.description
        }
        return result
    }

    enum DownUp {
        case kept
        /// The older version cannot hold the object: why.
        case unrepresentable(String)
        case broken(LawViolation)
    }

    /// Law 2: today's `object`, downgraded to `version` and upgraded again, is itself but for
    /// the keys the steps add with a default.
    func downThenUp(_ object: ArchiveValue, to version: Int, schema: ModelSchema) -> DownUp {
        var down = object
        do {
            try pass.downgrade(&down, to: DowngradeTarget(typeVersions: [chain.typeName: version]))
        } catch {
            return .unrepresentable("\(error)")
        }
        let problems = conformance.problems(down, against: schema)
        if !problems.isEmpty { return .unrepresentable(problems.joined(separator: "; ")) }
        var up = down
        do {
            try pass.upgrade(&up)
        } catch {
            return .broken(violation(.downgradeThenUpgrade, version, object, error: error))
        }
        let defaults = addedDefaults(above: version)
        let differences = ArchiveDiff.differences(
            from: object, to: up, options: ArchiveDiff.Options(nullMeansAbsent: true)
        )
        .filter { !Self.isExcused($0, in: up, by: defaults) }
        guard !differences.isEmpty else { return .kept }
        var result = violation(.downgradeThenUpgrade, version, object, details: differences.map(\.description))
        if let (step, rule) = locateDowngrade(object, to: version) {
            result.step = step.label(chain.typeName)
            result.rule = rule?.description
        }
        return .broken(result)
    }

    /// The keys the steps above `version` add with a default, by the name they have today.
    func addedDefaults(above version: Int) -> [(key: String, value: ArchiveValue)] {
        var defaults: [(key: String, value: ArchiveValue)] = []
        for step in steps where step.from >= version && step.to <= current {
            for rule in step.rules {
                for (from, to) in rule.renamedKeys {
                    defaults = defaults.map { $0.key.hasSameScalars(as: from) ? (to, $0.value) : $0 }
                }
                defaults += rule.addedDefaults
            }
        }
        return defaults
    }

    /// Whether a difference is inside a key the older version lacks, which came back as its
    /// default: somewhere on its path is a key an `add` rule adds, and `upgraded` holds the
    /// rule's default there (or nothing, for a `null` default).
    static func isExcused(
        _ difference: ArchiveDifference, in upgraded: ArchiveValue, by defaults: [(key: String, value: ArchiveValue)]
    ) -> Bool {
        var value: ArchiveValue? = upgraded
        for component in difference.path.components {
            switch component {
            case .key(let key):
                value = value?.keyedEntries?[key]
                let restored = value ?? .null
                if defaults.contains(where: {
                    $0.key.hasSameScalars(as: key) && ($0.value == restored || ($0.value.isNull && restored.isNull))
                }) {
                    return true
                }
            case .index(let index):
                value = value?.arrayValue.flatMap { index < $0.count ? $0[index] : nil }
            case .anyIndex, .anyKey:
                return false
            }
        }
        return false
    }

    // MARK: Locating the step and rule

    /// A rule's input as the pass would see it, with the object it came from.
    struct RuleInput {
        var target: MigrationTarget
        var original: ArchiveObject
    }

    /// Replays the upgrade of `object` rule by rule; returns the first step and rule for which
    /// `isCulprit` holds (given the rule's input), or the step whose rule throws.
    ///
    /// A step that declares its inverse as a whole (`MigrationStep.inverseRules`) is undone as
    /// a whole: with `checksDeclaredInverses`, it is the culprit (without a rule) when its
    /// inverse does not give back what the step was given.
    func locateUpgrade(
        _ object: ArchiveValue, from version: Int, checksDeclaredInverses: Bool = false,
        where isCulprit: (RuleInput, MigrationRule) -> Bool
    ) -> (MigrationStep, MigrationRule?)? {
        guard case .object(var current) = object else { return nil }
        for step in steps where step.from >= version && step.to <= self.current {
            if checksDeclaredInverses, let inverseRules = step.inverseRules {
                var there = MigrationTarget(object: current)
                var back: MigrationTarget
                do {
                    for rule in step.rules { try rule.apply(to: &there) }
                    back = there
                    for rule in inverseRules { try rule.apply(to: &back) }
                } catch {
                    return (step, nil)
                }
                if !Self.same(current, back) { return (step, nil) }
                current = Self.object(there, version: step.to)
                continue
            }
            var target = MigrationTarget(object: current)
            for rule in step.rules {
                let input = RuleInput(target: target, original: Self.object(target, version: step.from))
                if isCulprit(input, rule) { return (step, rule) }
                do { try rule.apply(to: &target) } catch { return (step, rule) }
            }
            current = Self.object(target, version: step.to)
        }
        return nil
    }

    /// Replays the downgrade of today's `object` rule by rule; returns the first step and rule
    /// whose inverse the rule does not undo (keys it adds with a default excepted), or the first
    /// step whose declared inverse (`MigrationStep.inverseRules`) the step does not undo.
    func locateDowngrade(_ object: ArchiveValue, to version: Int) -> (MigrationStep, MigrationRule?)? {
        guard case .object(var current) = object else { return nil }
        for step in steps.reversed() where step.from >= version && step.to <= self.current {
            if let inverseRules = step.inverseRules {
                var down = MigrationTarget(object: current)
                var again: MigrationTarget
                do {
                    for rule in inverseRules { try rule.apply(to: &down) }
                    again = down
                    for rule in step.rules { try rule.apply(to: &again) }
                } catch {
                    return (step, nil)
                }
                let upgraded = ArchiveValue.object(Self.object(again, version: step.to))
                let differences = ArchiveDiff.differences(
                    from: .object(current), to: upgraded, options: ArchiveDiff.Options(nullMeansAbsent: true)
                ).filter { !Self.isExcused($0, in: upgraded, by: step.rules.flatMap(\.addedDefaults)) }
                if !differences.isEmpty { return (step, nil) }
                current = Self.object(down, version: step.from)
                continue
            }
            var target = MigrationTarget(object: current)
            for rule in step.rules.reversed() {
                guard let inverse = rule.inverse else { return nil }
                let before = Self.object(target, version: step.to)
                do { try inverse.apply(to: &target) } catch { return (step, rule) }
                var again = target
                do { try rule.apply(to: &again) } catch { return (step, rule) }
                let upgraded = ArchiveValue.object(Self.object(again, version: step.to))
                let differences = ArchiveDiff.differences(
                    from: .object(before), to: upgraded, options: ArchiveDiff.Options(nullMeansAbsent: true)
                ).filter { !Self.isExcused($0, in: upgraded, by: rule.addedDefaults) }
                if !differences.isEmpty { return (step, rule) }
            }
            current = Self.object(target, version: step.from)
        }
        return nil
    }

    static func object(_ target: MigrationTarget, version: Int) -> ArchiveObject {
        ArchiveObject(typeName: target.typeName ?? "", version: version, fields: target.fields)
    }

    static func same(_ object: ArchiveObject, _ target: MigrationTarget) -> Bool {
        ArchiveDiff.differences(
            from: .object(ArchiveObject(typeName: object.typeName, version: nil, fields: object.fields)),
            to: .object(ArchiveObject(typeName: target.typeName ?? "", version: nil, fields: target.fields)),
            options: ArchiveDiff.Options(nullMeansAbsent: true)
        ).isEmpty
    }

    // MARK: Violations and shrinking

    func violation(_ law: MigrationLaw, _ version: Int, _ object: ArchiveValue, details: [String]) -> LawViolation {
        LawViolation(
            law: law, typeName: chain.typeName, version: version, step: nil, rule: nil, details: details,
            counterexample: object, objectIndex: 0, shrinkSteps: 0, seed: laws.options.seed)
    }

    func violation(_ law: MigrationLaw, _ version: Int, _ object: ArchiveValue, error: any Error) -> LawViolation {
        var result = violation(law, version, object, details: ["\(error)"])
        if let error = error as? ArchiveError {
            result.step = error.step
            result.rule = error.rule
        }
        return result
    }

    /// The smallest variant of `object` (conforming to `schema`) whose `signature` is the
    /// original's, made into a violation by `make`.
    func shrink(
        _ object: ArchiveValue, index: Int, version: Int, signature: (ArchiveValue) -> String?,
        conformsTo schema: ModelSchema?, make: (ArchiveValue) -> LawViolation
    ) -> LawViolation {
        let wanted = signature(object)
        var smallest = object
        var steps = 0
        var tried = 0
        search: while tried < laws.options.shrinkBudget {
            for candidate in Shrinker.variants(of: smallest) {
                tried += 1
                if tried > laws.options.shrinkBudget { break search }
                if let schema, !conformance.problems(candidate, against: schema).isEmpty { continue }
                if signature(candidate) == wanted {
                    smallest = candidate
                    steps += 1
                    continue search
                }
            }
            break
        }
        var violation = make(smallest)
        violation.counterexample = smallest
        violation.objectIndex = index
        violation.shrinkSteps = steps
        violation.seed = laws.options.seed
        return violation
    }
}

extension LawReport.VersionResult {
    /// Whether no object could be generated for the chain (``LawReport/Outcome/cannotGenerate(_:)``).
    var cannotGenerate: Bool {
        if case .cannotGenerate = outcome { return true }
        return false
    }
}

extension LawViolation {
    /// What makes two failures "the same" while shrinking: the law, the step and the rule.
    var signature: String {
        [law.rawValue, step ?? "", rule ?? ""].joined(separator: "|")
    }
}

extension MigrationStep {
    /// `Model v2 → v3 (app 2.0: tags, kind by name)`.
    func label(_ typeName: String) -> String {
        "\(typeName) v\(from) → v\(to)" + (name.map { " (\($0))" } ?? "")
    }
}
