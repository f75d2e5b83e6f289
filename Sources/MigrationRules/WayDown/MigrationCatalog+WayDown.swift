extension MigrationCatalog {
    /// The way down from `tree` to the release `name`: for every type and document chain with
    /// objects (or a version) in `tree` newer than that release, the steps that take them down to
    /// the release's versions and names, as data (see ``WayDown``); `nil` when nothing in `tree`
    /// is newer than the release.
    ///
    /// ```swift
    /// if let wayDown = try catalog.wayDown(toRelease: "1.1", for: tree) {
    ///     print(wayDown.summary)   // to release 1.1: document Sketch v4 → v2, Drawing v4 → v2, …
    /// }
    /// ```
    ///
    /// Each chain starts at the newest version its objects in `tree` have. A type the release did
    /// not have is taken down to its chain's oldest version and through its
    /// ``TypeMigrations/downgradeFallback``, and the type that fallback becomes is carried too.
    /// The steps are those a downgrade to the release runs (``MigrationStep/inverse``, which
    /// honours ``MigrationStep/inverseRules``); they must be data, since an older app has no
    /// closures. Types `tree` has no objects of, and objects of types the catalog has no chain
    /// for, carry nothing.
    ///
    /// - Parameters:
    ///   - name: A release of ``releases``, by name (`"1.1"`) or by the document version it wrote.
    ///   - tree: The archive, an envelope or a bare tree.
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/unknownType`` when the catalog
    ///   declares no releases or no such release; ``ArchiveError/Code/irreversibleStep`` naming the
    ///   step and rule that has no inverse; ``ArchiveError/Code/invalidValue`` naming the step and
    ///   rule that cannot be written as data (a closure, a custom converter, the typed escape
    ///   hatch: declare the step's ``MigrationStep/inverseRules`` as data); and
    ///   ``ArchiveError/Code/notInRelease`` naming a type of `tree` the release did not have and
    ///   whose chain declares no fallback.
    public func wayDown(toRelease name: String, for tree: ArchiveValue) throws -> WayDown? {
        guard let releases else {
            throw ArchiveError(
                .unknownType,
                "cannot write for release \(name): the catalog declares no releases (a release manifest says what "
                    + "each release of the app read)")
        }
        guard let release = releases.release(matching: name) else {
            throw ArchiveError(
                .unknownType,
                "no release is named \(name) or wrote document v\(name); the releases are "
                    + releases.releases.map(\.name).joined(separator: ", "))
        }
        let envelope = try ArchiveEnvelope(tree: tree)
        var newest = [Int?](repeating: nil, count: chains.count)
        let survey = WayDownSurvey(catalog: self, limit: ArchiveLimits.default.maxDepth)
        survey.visit(envelope?.root ?? tree, depth: 0, newest: &newest)

        var document: WayDown.Chain?
        if let envelope, let documentName = envelope.document, documentName == releases.document,
            let chain = documentChains[documentName], let from = envelope.documentVersion,
            let to = release.documentVersion, from > to, from <= chain.currentVersion
        {
            document = WayDown.Chain(
                name: documentName, from: from, to: to, steps: try Self.stepsDown(chain, from: from, to: to))
        }

        // Which chains go down, and from where: a fallback's target goes down from its version.
        var from = [Int?](repeating: nil, count: chains.count)
        var pending = Array(newest.indices.filter { newest[$0] != nil })
        while let index = pending.popLast() {
            let chain = chains[index]
            let start = max(newest[index] ?? chain.oldestVersion, from[index] ?? chain.oldestVersion)
            switch release.types[chain.name] {
            case .absent?:
                guard let fallback = fallbacks[index] else {
                    throw ArchiveError(
                        .notInRelease,
                        "cannot write for release \(release.name): it has no \(chain.name); declare how it saw such "
                            + "objects (a downgrade fallback on the \(chain.name) chain)", typeName: chain.name)
                }
                from[index] = start
                if (from[fallback.chain] ?? Int.min) < fallback.version {
                    from[fallback.chain] = fallback.version
                    pending.append(fallback.chain)
                }
            case .version(let version, _)?:
                if start > version { from[index] = start }
            case nil:
                break
            }
        }

        var types: [WayDown.Chain] = []
        for (index, chain) in chains.enumerated() {
            guard let start = from[index] else { continue }
            switch release.types[chain.name] {
            case .absent?:
                types.append(
                    WayDown.Chain(
                        name: chain.name, from: start, to: chain.oldestVersion,
                        steps: try Self.stepsDown(chain, from: start, to: chain.oldestVersion),
                        fallback: self.types[index].downgradeFallback))
            case .version(let version, let archivedAs)?:
                let derived = self.types[index].archiveName(atVersion: version)
                types.append(
                    WayDown.Chain(
                        name: self.types[index].archiveName(atVersion: start), from: start, to: version,
                        archivedAs: archivedAs == derived ? nil : archivedAs,
                        steps: try Self.stepsDown(chain, from: start, to: version)))
            case nil:
                break
            }
        }
        guard document != nil || !types.isEmpty else { return nil }
        let wayDown = WayDown(release: release.name, document: document, types: types)
        // What is written reads back: the older app's reader is this one.
        _ = try WayDown(tree: try wayDown.tree)
        return wayDown
    }

    /// Writes the way down to the release `name` into the envelope of `tree` (before its `root`),
    /// replacing one it carried; removes a carried one when nothing in `tree` is newer than the
    /// release.
    ///
    /// ```swift
    /// var tree = try encoder.encodeTree(drawing)
    /// try catalog.writeWayDown(toRelease: "1.1", into: &tree)
    /// ```
    ///
    /// - Returns: What changed in the envelope (``MigrationReport/WrittenWayDown``); `nil` when
    ///   it already carried exactly this way down, or none was needed and none was there.
    /// - Throws: What ``wayDown(toRelease:for:)`` throws, and ``ArchiveError/Code/invalidValue``
    ///   when `tree` is not an archive with an envelope (a plain document has nowhere to carry it).
    @discardableResult
    public func writeWayDown(toRelease name: String, into tree: inout ArchiveValue) throws
        -> MigrationReport.WrittenWayDown?
    {
        guard ArchiveEnvelope.isEnvelope(tree) else {
            throw ArchiveError(
                .invalidValue,
                "a way down for release \(name) is carried in an archive's envelope, and this document has none "
                    + "(a plain document)")
        }
        let wayDown = try self.wayDown(toRelease: name, for: tree)
        let value = try wayDown?.tree
        let carried = tree[ArchiveEnvelope.wayDownKey]
        guard carried != value else { return nil }
        _ = tree.modifyKeyedEntries { top in
            if let value {
                if let index = top.index(forKey: ArchiveEnvelope.wayDownKey) {
                    top.entries[index].value = value
                } else {
                    top.insert(
                        value, forKey: ArchiveEnvelope.wayDownKey,
                        at: top.index(forKey: ArchiveEnvelope.rootKey) ?? top.count)
                }
            } else {
                top.removeValue(forKey: ArchiveEnvelope.wayDownKey)
            }
        }
        let release = wayDown?.release ?? releases?.release(matching: name)?.name ?? name
        return MigrationReport.WrittenWayDown(
            release: release, change: value == nil ? .removed : carried == nil ? .added : .replaced)
    }

    /// The steps of `chain` from `from` down to `to`, newest first, as they run: each step's
    /// inverse rules.
    static func stepsDown(_ chain: CompiledChain, from: Int, to: Int) throws -> [MigrationStep] {
        var steps: [MigrationStep] = []
        var version = from
        while version > to {
            let index = version - 1 - chain.oldestVersion
            let step = chain.steps[index]
            guard let inverse = chain.inverse(ofStep: index) else {
                let rule = step.irreversibleRule
                throw ArchiveError(
                    .irreversibleStep,
                    "the step cannot be undone because the rule \(rule.map(\.description) ?? "?") has no inverse, so "
                        + "\(chain.subject) cannot go down to v\(to) for an older release",
                    typeName: chain.isDocument ? nil : chain.name, step: chain.label(ofStep: index),
                    rule: rule?.description)
            }
            do {
                _ = try RulesFileWriter.rules(inverse.rules)
            } catch let error as ArchiveError {
                throw ArchiveError(
                    .invalidValue,
                    "\(error.message): the way down for an older release is carried as data, which an older app reads "
                        + "without your code; declare the step's inverse as data (MigrationStep inverseRules)",
                    typeName: chain.isDocument ? nil : chain.name, step: chain.label(ofStep: index), rule: error.rule)
            }
            // The rules that run, and nothing of the way up (an older app has no use for it).
            steps.append(MigrationStep(from: inverse.from, to: inverse.to, name: inverse.name, rules: inverse.rules))
            version -= 1
        }
        return steps
    }
}

/// The newest version of each chain's objects in a tree, read without changing it.
private struct WayDownSurvey {
    let catalog: MigrationCatalog
    let limit: Int

    func visit(_ value: ArchiveValue, depth: Int, newest: inout [Int?]) {
        guard value.isContainer, depth <= limit else { return }
        switch value {
        case .object(let object):
            if let index = catalog.chainIndex(forTypeName: object.typeName) {
                let chain = catalog.chains[index]
                if let version = object.version ?? chain.unversionedVersion, version <= chain.currentVersion {
                    newest[index] = max(newest[index] ?? version, version)
                }
            }
            for entry in object.fields.entries { visit(entry.value, depth: depth + 1, newest: &newest) }
        case .array(let elements):
            for element in elements { visit(element, depth: depth + 1, newest: &newest) }
        case .dictionary(let dictionary):
            for entry in dictionary.entries { visit(entry.value, depth: depth + 1, newest: &newest) }
        default:
            break
        }
    }
}
