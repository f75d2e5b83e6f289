/// A validated chain (of a type or a document) laid out for the migration pass: steps indexed by
/// version, their inverses and labels computed once.
///
/// A class so that the pass takes one reference per object instead of copying every field.
final class CompiledChain: Sendable {
    /// The current type name, or the document name.
    let name: String
    /// What errors and step labels call the chain: `Circle`, `document people`.
    let subject: String
    let isDocument: Bool
    let currentVersion: Int
    /// The `from` of the first step, or ``currentVersion`` without steps.
    let oldestVersion: Int
    let unversionedVersion: Int?
    /// `steps[i]` goes from `oldestVersion + i` to `oldestVersion + i + 1`: the chain is unbroken,
    /// so `currentVersion - oldestVersion == steps.count`, and every version offset the pass
    /// computes (`version - oldestVersion` for a version in `oldestVersion...currentVersion`) is
    /// an index into `steps` (or `steps.count`), whatever the versions are.
    let steps: [MigrationStep]
    /// The inverse of each step, `nil` where a rule is irreversible; empty when every step
    /// carries its ``MigrationStep/inverseRules`` (a way down's), whose inverses are made when
    /// needed (``inverse(ofStep:)``).
    private let inverses: [MigrationStep?]
    /// For documents: the keys of the version path.
    let versionKeys: [String]
    /// Per step: whether its rules only move keys (``FieldLayout``).
    let keyMovingSteps: [Bool]
    /// For type chains: what the last step moves, as key paths (``MigrationRule/movedKeyPaths``).
    /// An object at the current version that holds a source and not its destination has the keys
    /// of the version before: the archive's version and the chain's disagree.
    let lastStepMoves: [(from: [String], to: [String])]
    /// The first key of each source in ``lastStepMoves``, as UTF-8: an object at the current
    /// version holding none of them passes the check at once (the JSON fast paths test these
    /// and leave an object that holds one to the tree).
    let lastStepSourceKeys: [[UInt8]]
    /// ``lastStepSourceKeys`` as a set, looked up when there are many.
    let lastStepSourceKeySet: Set<[UInt8]>
    /// The name objects carry at each version, from ``oldestVersion`` (`archiveNames[0]`) to
    /// ``currentVersion``: as ``TypeMigrations/archiveName(atVersion:)`` gives it, computed once,
    /// in one pass down the steps.
    let archiveNames: [String]
    /// The work (``MigrationRule/work``) of every rule of the steps and their inverses, once.
    let ruleWork: Int

    convenience init(_ chain: TypeMigrations) throws {
        if let index = chain.aliases.firstIndex(of: "") {
            throw ArchiveError(
                .invalidChain, "alias \(index) is empty", path: ArchivePath([.key("aliases"), .index(index)]),
                typeName: chain.typeName)
        }
        try self.init(
            name: chain.typeName, subject: chain.typeName, isDocument: false, currentVersion: chain.currentVersion,
            unversionedVersion: chain.unversionedVersion, steps: chain.steps, versionKeys: [])
    }

    convenience init(_ chain: DocumentMigrations) throws {
        guard let keys = ArchiveDictionary.keys(of: chain.versionPath), !keys.isEmpty else {
            throw ArchiveError(
                .invalidChain,
                "document '\(chain.name)': the version path '\(chain.versionPath)' must be one or more keys "
                    + "(no indices or wildcards)")
        }
        try self.init(
            name: chain.name, subject: "document \(chain.name)", isDocument: true,
            currentVersion: chain.currentVersion, unversionedVersion: chain.unversionedVersion, steps: chain.steps,
            versionKeys: keys)
    }

    private init(
        name: String, subject: String, isDocument: Bool, currentVersion: Int, unversionedVersion: Int?,
        steps: [MigrationStep], versionKeys: [String]
    ) throws {
        func invalid(_ message: String, step index: Int? = nil) -> ArchiveError {
            ArchiveError(
                .invalidChain, isDocument ? "document '\(name)': \(message)" : message,
                path: index.map { ArchivePath([.key("steps"), .index($0)]) } ?? .root,
                typeName: isDocument ? nil : name, step: index.map { steps[$0].label(subject: subject) })
        }
        guard !name.isEmpty else { throw invalid(isDocument ? "the document name is empty" : "the type name is empty") }
        guard currentVersion >= 0 else { throw invalid("the current version v\(currentVersion) is negative") }
        if let unversionedVersion, unversionedVersion < 0 {
            throw invalid("unversionedVersion v\(unversionedVersion) is negative")
        }
        var firstIndexByVersion: [Int: Int] = [:]
        for (index, step) in steps.enumerated() {
            guard step.from >= 0, step.to >= 0 else { throw invalid("a version is negative", step: index) }
            // `from < to` first, so that `from + 1` cannot overflow.
            guard step.from < step.to, step.to == step.from + 1 else {
                throw invalid(
                    step.to > step.from
                        ? "the step skips a version: each step goes from one version to the next"
                        : "the step goes backwards: each step goes from one version to the next",
                    step: index)
            }
            guard step.to <= currentVersion else {
                throw invalid("the step goes beyond the current version v\(currentVersion)", step: index)
            }
            if let earlier = firstIndexByVersion.updateValue(index, forKey: step.from) {
                throw invalid("two steps start at v\(step.from) (steps[\(earlier)] and steps[\(index)])", step: index)
            }
        }
        let order = steps.indices.sorted { steps[$0].from < steps[$1].from }
        for (previous, next) in zip(order, order.dropFirst()) where steps[next].from != steps[previous].to {
            // The next step starts after this one ends (the froms are distinct, each step one
            // version long), so `to + 1 <= next.from` cannot overflow.
            throw invalid(
                "the chain has a gap: no step from v\(steps[previous].to) to v\(steps[previous].to + 1)", step: next)
        }
        if let last = order.last, steps[last].to != currentVersion {
            throw invalid(
                "the last step ends at v\(steps[last].to) but the current version is v\(currentVersion)", step: last)
        }
        let oldest = order.first.map { steps[$0].from } ?? currentVersion
        if let unversionedVersion, unversionedVersion > currentVersion || unversionedVersion < oldest {
            throw invalid(
                unversionedVersion > currentVersion
                    ? "unversionedVersion v\(unversionedVersion) is newer than the current version v\(currentVersion)"
                    : "unversionedVersion v\(unversionedVersion) is older than the oldest version the steps start at "
                        + "(v\(oldest))")
        }
        // Steps given in order (as rules files and way downs have them) share the caller's array.
        let sorted = order.elementsEqual(steps.indices) ? steps : order.map { steps[$0] }
        self.name = name
        self.subject = subject
        self.isDocument = isDocument
        self.currentVersion = currentVersion
        self.oldestVersion = oldest
        self.unversionedVersion = unversionedVersion
        self.steps = sorted
        self.inverses = sorted.allSatisfy { $0.inverseRules != nil } ? [] : sorted.map(\.inverse)
        self.versionKeys = versionKeys
        self.keyMovingSteps = sorted.map { $0.rules.allSatisfy { CompiledChain.ruleMovesKeysOnly($0) } }
        self.lastStepMoves = isDocument ? [] : (sorted.last?.rules.flatMap(\.movedKeyPaths) ?? [])
        // Each first key once (a nest of 100,000 keys moves 100,000 of them).
        var seen = Set<[UInt8]>()
        var sourceKeys: [[UInt8]] = []
        for move in lastStepMoves {
            guard let first = move.from.first else { continue }
            let key = Array(first.utf8)
            if seen.insert(key).inserted { sourceKeys.append(key) }
        }
        self.lastStepSourceKeys = sourceKeys
        self.lastStepSourceKeySet = seen
        // Down from today's name: a step's first type rename names the version it starts at.
        var names = [String](repeating: name, count: sorted.count + 1)
        for index in sorted.indices.reversed() {
            names[index] = sorted[index].rules.lazy.flatMap(\.renamedTypeNames).first ?? names[index + 1]
        }
        self.archiveNames = names
        var work = 0
        for step in sorted {
            for rule in step.rules { work &+= rule.work }
            for rule in step.inverseRules ?? [] { work &+= rule.work }
        }
        self.ruleWork = work
    }

    /// The first of the last step's moves whose source `fields` hold without its destination:
    /// the sign of an object at the current version whose keys are those of the version before.
    func unmovedKeys(in fields: ArchiveDictionary) -> (from: [String], to: [String])? {
        for move in lastStepMoves where fields.value(atKeys: move.from) != nil && fields.value(atKeys: move.to) == nil {
            return move
        }
        return nil
    }

    /// The name objects carry at `version`: ``archiveNames`` within the chain, today's name
    /// above it, the oldest name below it.
    func archiveName(atVersion version: Int) -> String {
        if version >= currentVersion { return archiveNames[archiveNames.count - 1] }
        if version <= oldestVersion { return archiveNames[0] }
        return archiveNames[version - oldestVersion]
    }

    /// The inverse of the step at `index` of ``steps``, `nil` where a rule is irreversible.
    func inverse(ofStep index: Int) -> MigrationStep? {
        if inverses.isEmpty { return steps[index].inverse }
        return inverses[index]
    }

    /// `Circle v1 → v2 (split points)`: how errors name the step at `index` of ``steps``. Made
    /// when asked for, as the names below: a chain of many steps does not hold a string per step.
    func label(ofStep index: Int) -> String {
        steps[index].label(subject: subject)
    }

    /// The names of the steps from `from` to `to` (either direction), for reports.
    func stepNames(from: Int, to: Int) -> [String] {
        if from < to { return steps[(from - oldestVersion)..<(to - oldestVersion)].map(\.displayName) }
        return (to..<from).reversed().map { steps[$0 - oldestVersion].displayName }
    }
}
