extension ReleaseManifest {
    /// Checks the manifest against the chains it names (see ``ReleaseManifest``).
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidChain``, the release and
    ///   the type in its message and the path `releases[i].types.Name` (or
    ///   `releases[i].documentVersion`).
    func validate(types: [TypeMigrations], documents: [DocumentMigrations]) throws {
        func invalid(_ message: String, _ path: ArchivePath, typeName: String? = nil) -> ArchiveError {
            ArchiveError(.invalidChain, message, path: path, typeName: typeName)
        }
        guard !releases.isEmpty else { throw invalid("the release manifest lists no release", "releases") }
        let documentChain: DocumentMigrations?
        if let document {
            guard let chain = documents.first(where: { $0.name == document }) else {
                throw invalid("the releases name the document '\(document)', which has no chain", "document")
            }
            documentChain = chain
        } else {
            guard documents.isEmpty else {
                throw invalid(
                    "the releases name no document, but the chains have "
                        + documents.map { "'\($0.name)'" }.joined(separator: ", ") + "; name it", "document")
            }
            documentChain = nil
        }
        // Each chain's names as a set, built once per type a release gives aliases of: a release
        // may list as many aliases as a rule lists keys (``ArchiveLimits/maxRuleKeys``).
        let typeIndex = Dictionary(
            types.enumerated().map { ($1.typeName, $0) }, uniquingKeysWith: { first, _ in first })
        var chainNameSets: [String: Set<String>] = [:]
        func namesOfType(_ typeName: String) -> Set<String> {
            if let names = chainNameSets[typeName] { return names }
            let names = typeIndex[typeName].map { Set(types[$0].allNames) } ?? []
            chainNameSets[typeName] = names
            return names
        }
        var names = Set<String>()
        var previous: AppRelease?
        for (index, release) in releases.enumerated() {
            let path = ArchivePath([.key("releases"), .index(index)])
            guard !release.name.isEmpty else { throw invalid("a release has an empty name", path.appending("name")) }
            guard names.insert(release.name).inserted else {
                throw invalid("the release '\(release.name)' is declared twice", path.appending("name"))
            }
            let known = Set(types.map(\.typeName))
            if let unknown = release.types.keys.sorted().first(where: { !known.contains($0) }) {
                throw invalid(
                    "release \(release.name) lists '\(unknown)', which is no type of the chains (releases name "
                        + "types by today's name)", path.appending("types").appending(unknown))
            }
            for (typeName, keys) in release.keyOrders.sorted(by: { $0.key < $1.key }) {
                let keysPath = path.appending("types").appending(typeName).appending("keys")
                guard release.types[typeName]?.version != nil else {
                    throw invalid(
                        "release \(release.name) gives the keys of \(typeName), which it did not archive",
                        keysPath, typeName: typeName)
                }
                guard let problem = KeyOrder.firstProblem(in: keys) else { continue }
                throw invalid(
                    "release \(release.name) lists the keys of \(typeName) with \(problem)", keysPath,
                    typeName: typeName)
            }
            for (typeName, aliases) in release.aliases.sorted(by: { $0.key < $1.key }) {
                let aliasesPath = path.appending("types").appending(typeName).appending("aliases")
                guard release.types[typeName]?.version != nil else {
                    throw invalid(
                        "release \(release.name) gives aliases of \(typeName), which it did not archive", aliasesPath,
                        typeName: typeName)
                }
                let chainNames = namesOfType(typeName)
                if let unknown = aliases.first(where: { !chainNames.contains($0) }) {
                    throw invalid(
                        "release \(release.name) archived \(typeName) as '\(unknown)', which is no name of its chain: "
                            + "declare it as an alias", aliasesPath, typeName: typeName)
                }
            }
            if let chain = documentChain {
                let versionPath = path.appending("documentVersion")
                guard let version = release.documentVersion else {
                    throw invalid("release \(release.name) has no document version", versionPath)
                }
                guard version >= (chain.steps.map(\.from).min() ?? chain.currentVersion),
                    version <= chain.currentVersion
                else {
                    throw invalid(
                        "release \(release.name) wrote document \(chain.name) v\(version), which its chain does not have",
                        versionPath)
                }
                if let earlier = previous?.documentVersion, version < earlier {
                    throw invalid(
                        "release \(release.name) has document v\(version), lower than v\(earlier) of release "
                            + "\(previous?.name ?? "")", versionPath)
                }
            }
            for type in types {
                let typePath = path.appending("types").appending(type.typeName)
                guard let archived = release.types[type.typeName] else {
                    throw invalid(
                        "release \(release.name) does not say how it archived \(type.typeName): give its version, "
                            + "or absent", typePath, typeName: type.typeName)
                }
                let before = previous?.types[type.typeName]
                switch archived {
                case .absent:
                    if let earlier = before?.version {
                        throw invalid(
                            "release \(release.name) has no \(type.typeName), but release \(previous?.name ?? "") "
                                + "archived it at v\(earlier): a type never disappears from an app's releases",
                            typePath, typeName: type.typeName)
                    }
                case .version(let version, let archivedName):
                    guard version >= type.oldestVersion, version <= type.currentVersion else {
                        throw invalid(
                            "release \(release.name) archived \(type.typeName) at v\(version), which its chain "
                                + "(v\(type.oldestVersion)…v\(type.currentVersion)) does not have", typePath,
                            typeName: type.typeName)
                    }
                    if let earlier = before?.version, version < earlier {
                        throw invalid(
                            "release \(release.name) archived \(type.typeName) at v\(version), lower than v\(earlier) "
                                + "of release \(previous?.name ?? "")", typePath, typeName: type.typeName)
                    }
                    if let archivedName, !namesOfType(type.typeName).contains(archivedName) {
                        throw invalid(
                            "release \(release.name) archived \(type.typeName) as '\(archivedName)', which is no name "
                                + "of its chain: declare it as an alias", typePath, typeName: type.typeName)
                    }
                }
            }
            previous = release
        }
        guard let today = releases.last else { return }
        let path = ArchivePath([.key("releases"), .index(releases.count - 1)])
        if let chain = documentChain, today.documentVersion != chain.currentVersion {
            throw invalid(
                "the last release, \(today.name), must be today's document \(chain.name) v\(chain.currentVersion)",
                path.appending("documentVersion"))
        }
        for type in types where today.types[type.typeName]?.version != type.currentVersion {
            throw invalid(
                "the last release, \(today.name), must archive \(type.typeName) at today's v\(type.currentVersion), "
                    + "not \(today.types[type.typeName]?.description ?? "nothing")",
                path.appending("types").appending(type.typeName), typeName: type.typeName)
        }
    }
}

extension TypeMigrations {
    /// The name objects of this type carry at `version`: ``typeName``, or the old name of the
    /// last ``MigrationRule/renameType(from:to:)`` a step above `version` declares.
    public func archiveName(atVersion version: Int) -> String {
        var name = typeName
        for step in steps.sorted(by: { $0.from > $1.from }) where step.from >= version {
            if let old = step.rules.flatMap(\.renamedTypeNames).first { name = old }
        }
        return name
    }
}
