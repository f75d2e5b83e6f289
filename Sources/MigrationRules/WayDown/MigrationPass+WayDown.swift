extension MigrationPass {
    /// Runs the way down the envelope `tree` carries when the catalog is older than the archive,
    /// and removes it; `nil` (the way down untouched and unread) when the catalog knows every
    /// object and the document, or when the catalog is older than the release the way down
    /// leads to (the upgrade then reports the archive as newer, as without a way down).
    ///
    /// Each carried chain goes down to the newest version on its way that the catalog knows under
    /// the name objects carry there; a type the catalog knows under none of them goes through the
    /// chain's fallback. The steps run through the same walker as a downgrade, with the pass's
    /// limits; objects above the carried chains are left for the upgrade to report.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidWayDown`` for a way down
    ///   that is malformed (``WayDown/init(tree:limits:)``), that names another document than the
    ///   archive, or whose steps take a type to a name this catalog does not register;
    ///   ``ArchiveError/Code/limitExceeded`` for a way down beyond the limits (its steps, keys
    ///   and rules, ``WayDown/init(tree:limits:)``) or whose rules do more work than
    ///   ``ArchiveLimits/maxRuleWork`` allows; and the errors of the carried rules, with their
    ///   paths.
    ///
    /// The way down is read, checked and compiled once, in time linear in its size, before any
    /// of its steps runs; `work` counts what its rules do.
    func runWayDown(
        _ tree: inout ArchiveValue, document: String?, work: inout RuleWork
    ) throws -> MigrationReport.WayDownRun? {
        guard let (wayDown, carried, digest, declared) = try compiledWayDown(of: tree, document: document) else {
            return nil
        }
        func invalid(_ message: String, at path: ArchivePath) -> ArchiveError {
            ArchiveError(.invalidWayDown, "the archive's way down: " + message, path: path)
        }

        // The document: down to this catalog's version, unless this catalog is older than the release.
        var documentVersion: Int?
        if let chain = wayDown.document {
            guard declared == chain.name, document == nil || document == chain.name else {
                throw invalid(
                    "its steps are for the document \(chain.name), and the archive is "
                        + (declared.map { "the document \($0)" } ?? "no named document"),
                    at: [.key(ArchiveEnvelope.wayDownKey), .key(WayDown.documentKey), .key("name")])
            }
            if let own = catalog.documentChains[chain.name] {
                guard own.currentVersion >= chain.to else { return nil }
                if own.currentVersion < chain.from { documentVersion = own.currentVersion }
            }
        }

        // Each type: the newest version on the way down that this catalog knows.
        var types: [String: AppRelease.ArchivedType] = [:]
        for (index, chain) in wayDown.types.enumerated() {
            let compiled = carried.chains[index]
            func name(at version: Int) -> String {
                (version == chain.to ? chain.archivedAs : nil) ?? compiled.archiveName(atVersion: version)
            }
            var stop: Int?
            for version in stride(from: chain.from, through: chain.to, by: -1) {
                if let own = catalog.migrations(forTypeName: name(at: version)), own.currentVersion >= version {
                    stop = version
                    break
                }
            }
            if let stop {
                types[chain.name] = .version(stop, archivedAs: stop == chain.to ? chain.archivedAs : nil)
            } else if chain.fallback != nil {
                types[chain.name] = .absent
            } else if catalog.migrations(forTypeName: name(at: chain.to)) != nil {
                // This catalog is older than the release: as low as the steps go; the upgrade
                // then reports what is still newer.
                types[chain.name] = .version(chain.to, archivedAs: chain.archivedAs)
            } else {
                throw invalid(
                    "its steps take \(chain.name) v\(chain.from) to \(name(at: chain.to)) v\(chain.to), which this app "
                        + "does not register",
                    at: [.key(ArchiveEnvelope.wayDownKey), .key(WayDown.typesKey), .key(chain.name)])
            }
        }

        // Nothing to run (this catalog knows every chain's newest version): the way down stays.
        let runs = wayDown.types.contains { chain in
            switch types[chain.name] {
            case .version(let stop, _)?: return stop < chain.from
            case .absent?: return true
            case nil: return false
            }
        }
        guard runs || documentVersion != nil else { return nil }

        // The carried steps, as a downgrade to the versions found, keeping what they take out.
        let release = AppRelease(wayDown.release, documentVersion: documentVersion, types: types)
        let target = DowngradeTarget(release: release)
        var wayDownOptions = options
        wayDownOptions.allowsNewerVersions = true
        let pass = MigrationPass(catalog: carried, options: wayDownOptions)
        var report = MigrationReport(direction: .downgrade)
        do {
            var targetVersions = try pass.chainTargets(target)
            if targetVersions.isEmpty { targetVersions = [Int?](repeating: nil, count: carried.chains.count) }
            let releaseTarget = try ReleaseTarget(release, catalog: carried, dropsAbsentTypes: false)
            for index in releaseTarget.isAbsent.indices where releaseTarget.isAbsent[index] {
                targetVersions[index] = carried.chains[index].oldestVersion
            }
            // The whole archive, way down included, is what its rules may do a multiple of.
            work.measure(tree)
            // Compiled, the way down's own tree is no longer needed: not held through the walk.
            _ = tree.modifyKeyedEntries { $0.removeValue(forKey: ArchiveEnvelope.wayDownKey) }
            var walker = ObjectWalker(
                catalog: carried, options: wayDownOptions, direction: .downgrade, targetVersions: targetVersions,
                release: releaseTarget, keepsWhatIsLost: true, work: work)
            try pass.walkRoot(&tree, isEnvelope: true, with: &walker)
            work = walker.work
            walker.finish(into: &report)
            if let version = documentVersion, let chain = try pass.documentChain(of: tree, named: nil, isEnvelope: true)
            {
                report.document = try pass.migrateDocument(
                    &tree, chain: chain, isEnvelope: true, to: version, newer: &report.newer, work: &work)
            }
        } catch let error as ArchiveError where [.invalidChain, .unknownType, .missingMigration].contains(error.code) {
            throw WayDown.placed(error)
        }
        return MigrationReport.WayDownRun(
            release: wayDown.release, digest: digest, document: report.document,
            counts: report.counts, entries: report.entries, absentObjects: report.absentObjects,
            keptCount: report.restoredCount, keptObjects: report.restoredObjects)
    }

    /// The way down of the envelope `tree`, compiled, and the document name the envelope
    /// declares; `nil` when the catalog does not need it or its format is newer than this
    /// library's. Nothing of `tree` is held when it returns: the walk that follows then edits the
    /// archive's objects in place instead of copying them.
    private func compiledWayDown(of tree: ArchiveValue, document: String?) throws -> (
        wayDown: WayDown, catalog: MigrationCatalog, digest: String, declaredDocument: String?
    )? {
        guard case .dictionary(let top) = tree, let raw = top[ArchiveEnvelope.wayDownKey],
            needsWayDown(top, document: document)
        else { return nil }
        do {
            let (wayDown, carried, digest) = try WayDown.compiled(tree: raw, limits: options.limits)
            return (wayDown, carried, digest, top[ArchiveEnvelope.documentKey]?.stringValue)
        } catch let error as ArchiveError where error.code == .newerVersion {
            return nil  // a way down of a format this library does not read: as if there were none
        }
    }

    /// Whether the catalog needs the way down of the envelope `top`: the document or an object is
    /// newer than its chain, or an object's type has no chain (it may be a type the way down
    /// renames to one). Read only, bounded by the pass's depth limit (deeper trees say yes, and
    /// the walk reports the depth).
    private func needsWayDown(_ top: ArchiveDictionary, document: String?) -> Bool {
        if let name = document ?? top[ArchiveEnvelope.documentKey]?.stringValue,
            let chain = catalog.documentChains[name], let version = top[ArchiveEnvelope.documentVersionKey]?.intValue,
            version > chain.currentVersion
        {
            return true
        }
        guard let root = top[ArchiveEnvelope.rootKey] else { return false }
        return hasNewerObject(root, depth: 0)
    }

    private func hasNewerObject(_ value: ArchiveValue, depth: Int) -> Bool {
        guard value.isContainer else { return false }
        guard depth < options.limits.maxDepth else { return true }
        switch value {
        case .object(let object):
            guard let index = catalog.chainIndex(forTypeName: object.typeName) else { return true }
            if let version = object.version, version > catalog.chains[index].currentVersion { return true }
            return object.fields.entries.contains { hasNewerObject($0.value, depth: depth + 1) }
        case .array(let elements):
            return elements.contains { hasNewerObject($0, depth: depth + 1) }
        case .dictionary(let entries):
            return entries.entries.contains { hasNewerObject($0.value, depth: depth + 1) }
        default:
            return false
        }
    }
}
