extension WayDown {
    /// The keys of the `wayDown` value.
    static let keys = [formatVersionKey, releaseKey, documentKey, typesKey, digestKey, "comment"]
    /// The keys of one chain.
    static let chainKeys = ["name", "from", "to", "as", "steps", "fallback", "comment"]
    /// The keys of one step.
    static let stepKeys = ["from", "to", "name", "rules", "comment"]

    /// Reads the `wayDown` value of an archive's envelope, as strictly as a rules file and with
    /// the same ``ArchiveLimits``: it is input like the rest of the archive, and whoever wrote
    /// the archive may not be the app that says it did.
    ///
    /// In order: the tree is checked against `limits`; its keys and its `formatVersion`; the
    /// digest, over the canonical bytes of the value without `digest` (a tag byte per value,
    /// 8-byte big-endian numbers and lengths, dictionary keys sorted by their UTF-8 bytes; see
    /// the article "Archives older apps can open"); then every chain: each step goes exactly
    /// one version down, from the chain's `from` to its `to`, in the rules-file vocabulary
    /// (closures have no spelling, so there are none); then the chains together, as a catalog
    /// would check them (no name claimed twice, fallbacks that lead somewhere and never go round).
    ///
    /// - Parameters:
    ///   - tree: The value of the envelope's `wayDown` key.
    ///   - limits: The bounds on the tree.
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidWayDown`` for an unknown
    ///   or missing key, an unknown rule or converter, a wrong digest, a step that skips a
    ///   version or does not end where its chain says, chains that claim one name twice or whose
    ///   fallbacks go round in a circle; ``ArchiveError/Code/limitExceeded`` beyond `limits`;
    ///   ``ArchiveError/Code/newerVersion`` for a `formatVersion` this library does not read
    ///   (an older app then reads the archive as if it carried no way down). Paths start at
    ///   `wayDown` (`wayDown.types.Circle.steps[0].rules[0].rename`).
    public init(tree: ArchiveValue, limits: ArchiveLimits = .default) throws {
        let reader = RulesFileReader(fileName: nil, limits: limits)
        do {
            self = try Self.read(tree, reader: reader).wayDown
            // The chains together, as the pass compiles them (on a copy: this value keeps its steps).
            var compiled = self
            _ = try compiled.takeCatalog()
        } catch let error as ArchiveError {
            throw Self.placed(error)
        }
    }

    /// Reads, checks and compiles the `wayDown` value `tree` once: the way down without its
    /// steps (its chains' names, versions and fallbacks), the catalog the migration pass runs
    /// (``takeCatalog()``), which holds the steps, and the digest, checked. In time linear in the
    /// value's size, and within `limits` (``ArchiveLimits/maxChainSteps``,
    /// ``ArchiveLimits/maxRuleKeys``, ``ArchiveLimits/maxRuleCount`` besides those of any tree).
    ///
    /// - Throws: What ``init(tree:limits:)`` throws.
    static func compiled(tree: ArchiveValue, limits: ArchiveLimits) throws -> (
        wayDown: WayDown, catalog: MigrationCatalog, digest: String
    ) {
        let reader = RulesFileReader(fileName: nil, limits: limits)
        do {
            var (wayDown, digest) = try Self.read(tree, reader: reader)
            let catalog = try wayDown.takeCatalog()
            return (wayDown, catalog, digest)
        } catch let error as ArchiveError {
            throw Self.placed(error)
        }
    }

    /// An error of the rules-file reader (or of a catalog built from the way down) as an error of
    /// the archive's way down: code ``ArchiveError/Code/invalidWayDown``, path under `wayDown`.
    static func placed(_ error: ArchiveError) -> ArchiveError {
        var placed = error.prefixingPath([.key(ArchiveEnvelope.wayDownKey)])
        if [.invalidRules, .invalidChain, .unknownType, .missingMigration].contains(error.code) {
            placed.code = .invalidWayDown
        }
        if !placed.message.hasPrefix("the archive's way down") {
            placed.message = "the archive's way down: " + placed.message
        }
        placed.location = nil
        return placed
    }

    private static func invalid(_ message: String, at path: ArchivePath) -> ArchiveError {
        ArchiveError(.invalidWayDown, message, path: path)
    }

    /// The way down `tree` holds, and its digest (checked).
    private static func read(_ tree: ArchiveValue, reader: RulesFileReader) throws -> (
        wayDown: WayDown, digest: String
    ) {
        try reader.checkLimits(tree)
        let top = try reader.fields(
            tree, at: .root, what: "a way down",
            example: #"{"formatVersion": 1, "release": "1.1", "types": {…}, "digest": "sha256:…"}"#, allowed: keys)
        guard let format = try top.int(formatVersionKey) else {
            throw invalid("'formatVersion' is missing", at: [.key(formatVersionKey)])
        }
        guard format == formatVersion else {
            guard format > formatVersion else {
                throw invalid("formatVersion \(format) is not a format of way downs", at: [.key(formatVersionKey)])
            }
            throw ArchiveError(
                .newerVersion, "the way down has format \(format); this library reads format \(formatVersion)",
                path: [.key(formatVersionKey)])
        }
        guard case .dictionary(var body) = tree, let stated = body.removeValue(forKey: digestKey) else {
            throw invalid("'digest' is missing", at: [.key(digestKey)])
        }
        guard case .string(let text) = stated, text.hasPrefix(digestPrefix) else {
            throw invalid(
                "'digest' must be \"sha256:\" and 64 hexadecimal digits; found \(stated.briefDescription)",
                at: [.key(digestKey)])
        }
        let computed = digest(of: body)
        guard computed == text else {
            throw invalid(
                "the digest does not match the steps (they were changed after they were written): it says \(text), "
                    + "the steps give \(computed)", at: [.key(digestKey)])
        }
        guard let release = try top.string(releaseKey, "the release's name, such as \"1.1\""), !release.isEmpty else {
            throw invalid("'release' is missing or empty", at: [.key(releaseKey)])
        }
        var document: Chain?
        if let value = top[documentKey] {
            document = try chain(value, named: nil, at: [.key(documentKey)], reader: reader)
        }
        var types: [Chain] = []
        if let value = top[typesKey] {
            guard case .dictionary(let entries) = value else {
                throw invalid("'types' must be an object from type names to chains", at: [.key(typesKey)])
            }
            for (name, chain) in entries {
                let path = ArchivePath([.key(typesKey), .key(name)])
                guard !name.isEmpty else { throw invalid("a type name is empty", at: path) }
                types.append(try self.chain(chain, named: name, at: path, reader: reader))
            }
        }
        var ruleCount = 0
        for (chain, path) in [(document, ArchivePath([.key(documentKey)]))]
            + types.map({ ($0, ArchivePath([.key(typesKey), .key($0.name)])) })
        {
            guard let chain else { continue }
            for step in chain.steps { try reader.countRules(step.rules, into: &ruleCount, at: path) }
            try reader.countRules(chain.fallback?.rules ?? [], into: &ruleCount, at: path)
        }
        return (WayDown(release: release, document: document, types: types), text)
    }

    /// One chain: `{"from": 4, "to": 2, "steps": […]}`, with `name` for the document.
    private static func chain(
        _ value: ArchiveValue, named typeName: String?, at path: ArchivePath, reader: RulesFileReader
    ) throws -> Chain {
        let isDocument = typeName == nil
        let chain = try reader.fields(
            value, at: path, what: isDocument ? "the document's way down" : "a type's way down",
            example: #"{"from": 3, "to": 2, "steps": [{"from": 3, "to": 2, "rules": […]}]}"#,
            allowed: isDocument
                ? chainKeys.filter { !["as", "fallback"].contains($0) } : chainKeys.filter { $0 != "name" })
        var name = typeName ?? ""
        if isDocument {
            guard let documentName = try chain.string("name", "the document's name"), !documentName.isEmpty else {
                throw invalid("the document's way down needs its 'name'", at: path.appending("name"))
            }
            name = documentName
        }
        let from = try chain.requiredVersion("from", "the version the steps start at")
        let to = try chain.requiredVersion("to", "the version the steps end at")
        guard to <= from else {
            throw invalid("the steps go up, from v\(from) to v\(to): a way down goes down", at: path.appending("to"))
        }
        let archivedAs = try chain.string("as", "the name the release archived the type under")
        if archivedAs?.isEmpty == true { throw invalid("'as' is empty", at: path.appending("as")) }
        var steps: [MigrationStep] = []
        let list = try chain.array("steps", "a list of steps") ?? []
        try reader.checkStepCount(list.count, at: path.appending("steps"))
        steps.reserveCapacity(list.count)
        guard list.count == from - to else {
            throw invalid(
                "from v\(from) to v\(to) takes \(from - to) steps, one per version, and there are \(list.count)",
                at: path.appending("steps"))
        }
        for (index, value) in list.enumerated() {
            let stepPath = path.appending("steps").appending(index)
            let step = try reader.fields(
                value, at: stepPath, what: "a step down", example: #"{"from": 3, "to": 2, "rules": […]}"#,
                allowed: stepKeys)
            let stepFrom = try step.requiredVersion("from", "the version the step starts at")
            let stepTo = try step.requiredVersion("to", "the version the step ends at")
            // Newest first, one version each: the step at `index` goes from `from - index`.
            guard stepFrom == from - index else {
                throw invalid(
                    "the step should start at v\(from - index) (the steps go down one version at a time from v\(from)), "
                        + "not v\(stepFrom)", at: stepPath.appending("from"))
            }
            guard stepTo == stepFrom - 1 else {
                throw invalid(
                    "the step goes from v\(stepFrom) to v\(stepTo), so it does not end at v\(stepFrom - 1): each step "
                        + "goes one version down", at: stepPath.appending("to"))
            }
            let stepName = try step.string("name", "a name for reports")
            if stepName?.isEmpty == true { throw invalid("'name' is empty", at: stepPath.appending("name")) }
            steps.append(
                MigrationStep(
                    from: stepFrom, to: stepTo, name: stepName, rules: try reader.rules(step, "rules") ?? []))
        }
        let fallback = try chain["fallback"].map { try reader.fallback($0, at: path.appending("fallback")) }
        return Chain(name: name, from: from, to: to, archivedAs: archivedAs, steps: steps, fallback: fallback)
    }

    // MARK: As a catalog

    /// The way down as a catalog the migration pass runs: one chain per type and document whose
    /// steps go up with no rules but their type renames and come down with the carried rules
    /// (``MigrationStep/inverseRules``), so that the pass's downgrade runs exactly them.
    ///
    /// The steps move into the catalog, turned round in place (a way down of many steps is held
    /// once, not twice): the chains are left without their ``Chain/steps``.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidChain`` when the chains do
    ///   not fit together (a name claimed twice, a fallback to no chain or round in a circle).
    mutating func takeCatalog() throws -> MigrationCatalog {
        // Oldest first, as the catalog keeps them (it then shares the array).
        func forward(_ chain: inout Chain) -> [MigrationStep] {
            var steps: [MigrationStep] = []
            swap(&steps, &chain.steps)
            steps.reverse()
            for index in steps.indices {
                let step = steps[index]
                // Up, only the renames (reversed), so that the chain answers to every name its
                // objects carry on the way and names the versions as they were.
                let renames = step.rules.reversed().compactMap { rule -> MigrationRule? in
                    guard case .renameType = rule.operation else { return nil }
                    return rule.inverse
                }
                steps[index] = MigrationStep(
                    from: step.to, to: step.from, name: step.name, rules: renames, inverseRules: step.rules)
            }
            return steps
        }
        // Each chain is checked once, as the catalog compiles it; its errors name the type.
        var types: [TypeMigrations] = []
        types.reserveCapacity(self.types.count)
        for index in self.types.indices {
            // Not the whole chain: a copy of it would share its steps, and turning them round
            // would copy them.
            let (name, from, fallback) = (self.types[index].name, self.types[index].from, self.types[index].fallback)
            types.append(
                TypeMigrations(
                    typeName: name, currentVersion: from, steps: forward(&self.types[index]),
                    downgradeFallback: fallback))
        }
        var documents: [DocumentMigrations] = []
        if var chain = document {
            document = nil
            documents.append(DocumentMigrations(name: chain.name, currentVersion: chain.from, steps: forward(&chain)))
            document = chain
        }
        do {
            return try MigrationCatalog(types: types, documents: documents)
        } catch let error as ArchiveError {
            let path = error.typeName.map { ArchivePath([.key(Self.typesKey), .key($0)]) } ?? .root
            throw error.prefixingPath(path)
        }
    }
}
