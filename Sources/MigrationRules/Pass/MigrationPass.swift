/// Upgrades an archive tree to the current versions of its document and objects, or downgrades
/// it to the versions an older app reads, editing the tree in place.
///
/// ```swift
/// let pass = MigrationPass(catalog: catalog)
/// var tree = try ArchiveFormat.json.read(data)     // ModelVersioning's readers, any format
/// let report = try pass.upgrade(&tree, document: "people")
/// print(report)
/// ```
///
/// **Upgrade.** First the document: when `document` is given, or the tree is an
/// ``ArchiveEnvelope`` that names a document the catalog has, its version is read (a missing
/// version means the chain's ``DocumentMigrations/unversionedVersion``), its steps run on the
/// document root up to the current version and the new version is written back. Then every
/// object of the tree, pre-order: its chain is found by type name or alias, its steps run from
/// its archived version to the chain's current version, and it is renamed to the chain's current
/// type name. A parent's steps run before the pass enters its fields, so objects that a step
/// creates or moves are migrated too. Each object follows its own chain, whatever the version of
/// the object that contains it. Objects of types the catalog does not know are left alone and
/// counted in the report.
///
/// **An archive from the future.** When the archive's envelope carries a way down (``WayDown``)
/// and it is newer than the catalog, the upgrade first runs the carried steps down to the
/// catalog's versions, keeping beside each object what they cannot hold, and removes the way
/// down; objects with such kept values get them back when a catalog as new as the one that wrote
/// the way down upgrades them. See ``upgrade(_:document:)``.
///
/// **Downgrade.** The reverse: objects post-order (children first), each down to the version
/// the ``DowngradeTarget`` asks for through its steps' inverses (type names follow the inverted
/// ``MigrationRule/renameType(from:to:)`` rules); then the document.
///
/// Object paths in reports and errors start at the document root (for an envelope, its `root`
/// value). When the pass throws, the tree is well-formed but partly migrated: discard it.
///
/// The pass moves each container out of the tree while it edits it, so a tree that nothing else
/// holds is edited without copies, and a tree with nothing to migrate is walked without
/// allocating.
public struct MigrationPass: Sendable {
    /// The chains the pass applies.
    public var catalog: MigrationCatalog
    /// Strictness, recording and limits.
    public var options: MigrationOptions

    /// Creates a pass.
    public init(catalog: MigrationCatalog, options: MigrationOptions = .init()) {
        self.catalog = catalog
        self.options = options
    }

    /// Upgrades `tree` in place to the current versions.
    ///
    /// ```swift
    /// var tree: ArchiveValue = ["schema_version": 1, "people": [["id": "4E96…", "name": "Fred Weasley"]]]
    /// try MigrationPass(catalog: catalog).upgrade(&tree, document: "people")
    /// // ["schema_version": 3, "people": [["id": "4E96…", "first_name": "Fred", "last_name": "Weasley",
    /// //                                   "birthday": nil, "mark_as_favorite": false]]]
    /// ```
    ///
    /// - Parameters:
    ///   - tree: The archive tree, as a format reader produced it.
    ///   - document: The document chain to apply; by default the one an envelope names, if the
    ///     catalog has it (plain trees have no document unless it is named here: the decoder and
    ///     the engine name the catalog's only one for a plain document, ``DocumentChoice``).
    /// An archive newer than the catalog that carries a way down to an older release
    /// (``WayDown``) is first taken down by its carried steps to the versions the catalog knows
    /// (``MigrationReport/wayDownRun``), each object keeping beside it what those versions
    /// cannot hold; the way down is then removed. An object that keeps such values (from an
    /// older app that read and wrote the archive) gets them back on its way up, wherever the
    /// older app left the field as it got it (``MigrationReport/restoredObjects``).
    ///
    /// - Returns: What was migrated.
    /// - Throws: ``ArchiveError`` with code
    ///   - ``ArchiveError/Code/newerVersion`` for an object or document written by a newer
    ///     version (`written by a newer version: Circle v7, this app knows v5`), unless
    ///     ``MigrationOptions/allowsNewerVersions``, when no carried way down takes it down; and
    ///     always for an envelope of a newer format (`"$archive": 2`), which is left unchanged;
    ///   - ``ArchiveError/Code/invalidWayDown`` for a carried way down this app needs that is
    ///     malformed or does not fit it (see ``WayDown/init(tree:limits:)``), or kept values that
    ///     are malformed;
    ///   - ``ArchiveError/Code/missingMigration`` for a version older than the chain reaches, or
    ///     a missing version where the chain declares no unversioned version;
    ///   - ``ArchiveError/Code/unknownType`` when `document` names no document of the catalog;
    ///   - ``ArchiveError/Code/migrationFailed`` (or a closure's own error) when a rule meets data
    ///     it cannot migrate, with the type, archived version, step, rule and path;
    ///   - ``ArchiveError/Code/typeMismatch`` or ``ArchiveError/Code/malformedInput`` for a
    ///     document version that is not a non-negative integer;
    ///   - ``ArchiveError/Code/limitExceeded`` when the tree nests deeper than
    ///     ``ArchiveLimits/maxDepth``, when a carried way down has more steps, keys or rules
    ///     than ``ArchiveLimits/maxChainSteps``, ``ArchiveLimits/maxRuleKeys`` or
    ///     ``ArchiveLimits/maxRuleCount`` allow, or when the rules would do more work than
    ///     ``ArchiveLimits/maxRuleWork`` allows for the archive's size.
    @discardableResult
    public func upgrade(_ tree: inout ArchiveValue, document: String? = nil) throws -> MigrationReport {
        var report = MigrationReport(direction: .upgrade)
        var work = RuleWork(limits: options.limits, ruleBytes: catalog.ruleWork)
        let isEnvelope = try ArchiveEnvelope.isReadableEnvelope(tree)
        if isEnvelope { report.wayDownRun = try runWayDown(&tree, document: document, work: &work) }
        if let chain = try documentChain(of: tree, named: document, isEnvelope: isEnvelope) {
            report.document = try migrateDocument(
                &tree, chain: chain, isEnvelope: isEnvelope, to: nil, newer: &report.newer, work: &work)
        }
        if !catalog.chains.isEmpty {
            var walker = ObjectWalker(
                catalog: catalog, options: options, direction: .upgrade, targetVersions: [], work: work)
            try walkRoot(&tree, isEnvelope: isEnvelope, with: &walker)
            walker.finish(into: &report)
        }
        return report
    }

    /// Downgrades `tree` in place to the versions an older app reads.
    ///
    /// ```swift
    /// var tree = try encoder.encodeTree(drawing)
    /// try pass.downgrade(&tree, to: DowngradeTarget(documentVersion: 1, typeVersions: ["Circle": 1]))
    /// ```
    ///
    /// Objects of types the target does not list, and objects already at or below their target
    /// version, are left as they are.
    ///
    /// - Parameters:
    ///   - tree: The archive tree, usually as the encoder produced it.
    ///   - target: The versions to write.
    ///   - document: The document chain to apply; by default the one an envelope names.
    /// - Returns: What was migrated.
    /// - Throws: ``ArchiveError`` with code
    ///   - ``ArchiveError/Code/irreversibleStep`` when a step that must be undone has a rule
    ///     without an inverse (``ArchiveError/step`` and ``ArchiveError/rule`` name them);
    ///   - ``ArchiveError/Code/unknownType`` for a target type name or document the catalog does
    ///     not know;
    ///   - ``ArchiveError/Code/missingMigration`` for a target version above a chain's current
    ///     version or below its oldest one;
    ///   - and the errors ``upgrade(_:document:)`` throws for data it cannot migrate.
    @discardableResult
    public func downgrade(
        _ tree: inout ArchiveValue, to target: DowngradeTarget, document: String? = nil
    ) throws -> MigrationReport {
        var report = MigrationReport(direction: .downgrade)
        let target = try resolved(target)
        var targetVersions = try chainTargets(target)
        let release = try target.release.map {
            try ReleaseTarget($0, catalog: catalog, dropsAbsentTypes: target.dropsAbsentTypes)
        }
        if let release {
            if targetVersions.isEmpty { targetVersions = [Int?](repeating: nil, count: catalog.chains.count) }
            for index in release.isAbsent.indices where release.isAbsent[index] {
                targetVersions[index] = catalog.chains[index].oldestVersion
            }
            report.release = release.name
        }
        let isEnvelope = try ArchiveEnvelope.isReadableEnvelope(tree)
        var work = RuleWork(limits: options.limits, ruleBytes: catalog.ruleWork)
        var documentChain: CompiledChain?
        if let version = target.documentVersion {
            guard let chain = try self.documentChain(of: tree, named: document, isEnvelope: isEnvelope) else {
                throw ArchiveError(
                    .unknownType,
                    "a document version (v\(version)) was requested but the tree names no document the catalog has; "
                        + "pass the document name")
            }
            try Self.checkTarget(version, of: chain)
            documentChain = chain
        }
        if targetVersions.contains(where: { $0 != nil }) {
            var walker = ObjectWalker(
                catalog: catalog, options: options, direction: .downgrade, targetVersions: targetVersions,
                release: release, work: work)
            try walkRoot(&tree, isEnvelope: isEnvelope, with: &walker)
            walker.finish(into: &report)
            work = walker.work
        }
        if let release, let newer = report.newer.first {
            // Never labelled as the release while holding what the release cannot read.
            throw ArchiveError(
                .newerVersion,
                "cannot write for release \(release.name): \(newer.name) v\(newer.version) was written by a newer "
                    + "version than this app knows (v\(newer.knownVersion))", path: newer.path, typeName: newer.name,
                archivedVersion: newer.version)
        }
        if let chain = documentChain, let version = target.documentVersion {
            report.document = try migrateDocument(
                &tree, chain: chain, isEnvelope: isEnvelope, to: version, newer: &report.newer, work: &work)
        }
        return report
    }

    /// Downgrades `tree` in place to exactly what the release `name` wrote: every object to the
    /// version that release archived its type at, under the name it used, and the document to
    /// its document version.
    ///
    /// ```swift
    /// let report = try pass.downgrade(&tree, toRelease: "1.1")
    /// ```
    ///
    /// - Parameters:
    ///   - tree: The archive tree, usually as the encoder produced it.
    ///   - name: A release of the catalog's ``MigrationCatalog/releases``, by name (`"1.1"`) or by
    ///     the document version it wrote (`"2"`).
    ///   - droppingAbsentTypes: Leave out objects of types the release did not have and whose
    ///     chain declares no ``TypeMigrations/downgradeFallback``, instead of failing; each one
    ///     is listed in ``MigrationReport/absentObjects``.
    ///   - document: The document chain to apply; by default the one an envelope names.
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/notInRelease`` for an object of a
    ///   type the release did not have (with its path), ``ArchiveError/Code/unknownType`` when the
    ///   catalog declares no such release, and what ``downgrade(_:to:document:)`` throws.
    @discardableResult
    public func downgrade(
        _ tree: inout ArchiveValue, toRelease name: String, droppingAbsentTypes: Bool = false, document: String? = nil
    ) throws -> MigrationReport {
        guard let releases = catalog.releases else {
            throw ArchiveError(.unknownType, "cannot downgrade to release \(name): the catalog declares no releases")
        }
        guard let release = releases.release(matching: name) else {
            throw ArchiveError(
                .unknownType,
                "no release is named \(name) or wrote document v\(name); the releases are "
                    + releases.releases.map(\.name).joined(separator: ", "))
        }
        return try downgrade(
            &tree, to: DowngradeTarget(release: release, droppingAbsentTypes: droppingAbsentTypes), document: document)
    }

    // MARK: Objects

    /// Walks the document root: an envelope's `root` value, or the whole tree.
    func walkRoot(_ tree: inout ArchiveValue, isEnvelope: Bool, with walker: inout ObjectWalker) throws {
        guard isEnvelope else {
            try walker.walkRoot(&tree)
            return
        }
        _ = try tree.modifyKeyedEntries { top in
            if let index = top.index(forKey: ArchiveEnvelope.rootKey) {
                try walker.walkRoot(&top.entries[index].value)
            }
        }
    }

    /// `target` as the pass runs it: a document version stands for the release that wrote it
    /// when the catalog declares releases; without releases, a document version needs every
    /// type's version too, so that the archive is never labelled with a document version its
    /// objects do not match.
    private func resolved(_ target: DowngradeTarget) throws -> DowngradeTarget {
        guard target.release == nil, let version = target.documentVersion else { return target }
        if let releases = catalog.releases {
            guard let release = releases.release(documentVersion: version) else {
                throw ArchiveError(
                    .missingMigration,
                    "no release wrote document v\(version); the releases are "
                        + releases.releases.map { "\($0.name) (v\($0.documentVersion.map(String.init) ?? "-"))" }
                        .joined(separator: ", "))
            }
            let resolved = DowngradeTarget(release: release, droppingAbsentTypes: target.dropsAbsentTypes)
            for (name, typeVersion) in target.typeVersions {
                guard let index = catalog.chainIndex(forTypeName: name),
                    resolved.typeVersions[catalog.chains[index].name] == typeVersion
                else {
                    throw ArchiveError(
                        .missingMigration,
                        "document v\(version) is release \(release.name), which archived \(name) at "
                            + (catalog.chainIndex(forTypeName: name).flatMap {
                                release.types[catalog.chains[$0].name]?.description
                            }
                                ?? "no version")
                            + "; a type version that differs would label the archive with a release it is not",
                        typeName: name)
                }
            }
            return resolved
        }
        let named = Set(target.typeVersions.keys.compactMap { catalog.chainIndex(forTypeName: $0) })
        if let missing = catalog.chains.indices.first(where: { !named.contains($0) }) {
            throw ArchiveError(
                .missingMigration,
                "writing document v\(version) needs every object at that release's versions, and the catalog declares no "
                    + "releases: declare the app's releases (a release manifest), or give every type's version "
                    + "(\(catalog.chains[missing].name) has none)", typeName: catalog.chains[missing].name)
        }
        return target
    }

    /// The target version per chain index.
    func chainTargets(_ target: DowngradeTarget) throws -> [Int?] {
        guard !target.typeVersions.isEmpty else { return [] }
        var versions = [Int?](repeating: nil, count: catalog.chains.count)
        for (name, version) in target.typeVersions.sorted(by: { $0.key < $1.key }) {
            guard let index = catalog.chainIndex(forTypeName: name) else {
                throw ArchiveError(
                    .unknownType, "cannot downgrade \(name): the catalog has no migrations for it", typeName: name)
            }
            let chain = catalog.chains[index]
            try Self.checkTarget(version, of: chain)
            if let other = versions[index], other != version {
                throw ArchiveError(
                    .missingMigration, "\(chain.name) is given two target versions, v\(other) and v\(version)",
                    typeName: chain.name)
            }
            versions[index] = version
        }
        return versions
    }

    static func checkTarget(_ version: Int, of chain: CompiledChain) throws {
        guard version <= chain.currentVersion else {
            throw ArchiveError(
                .missingMigration,
                "cannot downgrade \(chain.subject) to v\(version): the newest version is v\(chain.currentVersion)",
                typeName: chain.isDocument ? nil : chain.name)
        }
        guard version >= chain.oldestVersion else {
            throw ArchiveError(
                .missingMigration,
                "cannot downgrade \(chain.subject) to v\(version): the oldest version its steps reach is "
                    + "v\(chain.oldestVersion)",
                typeName: chain.isDocument ? nil : chain.name)
        }
    }

    // MARK: Document

    /// The document chain to apply: the one named, or the one an envelope names when the
    /// catalog has it.
    func documentChain(of tree: ArchiveValue, named name: String?, isEnvelope: Bool) throws -> CompiledChain? {
        if let name {
            guard let chain = catalog.documentChains[name] else {
                throw ArchiveError(.unknownType, "the catalog has no migrations for the document '\(name)'")
            }
            return chain
        }
        guard isEnvelope, case .dictionary(let top) = tree,
            let declared = top[ArchiveEnvelope.documentKey]?.stringValue
        else { return nil }
        return catalog.documentChains[declared]
    }

    /// Moves the document from its stored version to `requested` (the current version when
    /// `nil`) and writes the new version; returns the report entry, `nil` when nothing changed.
    func migrateDocument(
        _ tree: inout ArchiveValue, chain: CompiledChain, isEnvelope: Bool, to requested: Int?,
        newer: inout [MigrationReport.NewerItem], work: inout RuleWork
    ) throws -> MigrationReport.DocumentEntry? {
        let versionPath =
            isEnvelope
            ? ArchivePath([.key(ArchiveEnvelope.documentVersionKey)])
            : ArchivePath(
                chain.versionKeys.map { .key($0) })
        let stored =
            isEnvelope ? tree[ArchiveEnvelope.documentVersionKey] : tree.keyedEntries?.value(atKeys: chain.versionKeys)
        let archived = try Self.readVersion(stored, at: versionPath, isEnvelope: isEnvelope)
        guard let from = archived ?? chain.unversionedVersion else {
            throw ArchiveError(
                .missingMigration,
                "the document \(chain.name) has no version at '\(versionPath)' and its chain declares none for "
                    + "unversioned documents (set unversionedVersion to the version documents had before "
                    + "versioning)")
        }
        if from > chain.currentVersion {
            guard options.allowsNewerVersions else {
                throw ArchiveError(
                    .newerVersion,
                    "written by a newer version: document \(chain.name) v\(from), this app knows v\(chain.currentVersion)",
                    path: versionPath, archivedVersion: from)
            }
            newer.append(
                MigrationReport.NewerItem(
                    path: .root, name: chain.name, isDocument: true, version: from, knownVersion: chain.currentVersion))
            return nil
        }
        let to: Int
        if let requested {
            guard from > requested else { return nil }
            to = requested
        } else {
            to = chain.currentVersion
            guard from < to || archived == nil else { return nil }
            guard from >= chain.oldestVersion else {
                throw ArchiveError(
                    .missingMigration,
                    "no migration from document \(chain.name) v\(from): the oldest version its steps start at is "
                        + "v\(chain.oldestVersion)",
                    archivedVersion: from)
            }
        }
        func run(_ target: inout MigrationTarget) throws {
            if from < to {
                try chain.upgrade(&target, from: from, to: to, archivedName: nil, archivedVersion: archived)
            } else if from > to {
                try chain.downgrade(&target, from: from, to: to, archivedName: nil, archivedVersion: archived)
            }
        }
        let version = ArchiveValue.int(Int64(to))
        if from != to { work.measure(tree) }
        let edited: Void?
        if isEnvelope {
            edited = try tree.modifyKeyedEntries { top in
                if from != to {
                    guard let index = top.index(forKey: ArchiveEnvelope.rootKey) else {
                        throw ArchiveError(.malformedInput, "the archive has no 'root'")
                    }
                    let kind = top.entries[index].value.kind
                    guard
                        try MigrationTarget.withTarget(
                            for: &top.entries[index].value, path: .root, work: &work, run) != nil
                    else {
                        throw Self.rootError(kind, chain: chain)
                    }
                }
                if let index = top.index(forKey: ArchiveEnvelope.documentVersionKey) {
                    top.entries[index].value = version
                } else {
                    top.insertEntry(
                        version, forKey: ArchiveEnvelope.documentVersionKey,
                        at: top.index(forKey: ArchiveEnvelope.rootKey))
                }
            }
        } else {
            edited = try MigrationTarget.withTarget(for: &tree, path: .root, work: &work) { target in
                try run(&target)
                try target.fields.storeValue(version, atKeys: chain.versionKeys, replacing: true, base: .root)
            }
        }
        guard edited != nil else { throw Self.rootError(tree.kind, chain: chain) }
        return MigrationReport.DocumentEntry(
            name: chain.name, fromVersion: from, wasUnversioned: archived == nil, toVersion: to,
            steps: chain.stepNames(from: from, to: to))
    }

    private static func rootError(_ kind: ArchiveValue.Kind, chain: CompiledChain) -> ArchiveError {
        ArchiveError(
            .migrationFailed,
            "the root of document \(chain.name) is a value of kind \(kind); document steps edit a dictionary or object")
    }

    /// A stored document version: `nil` when absent or null.
    private static func readVersion(_ value: ArchiveValue?, at path: ArchivePath, isEnvelope: Bool) throws -> Int? {
        guard let value, !value.isNull else { return nil }
        guard let version = value.intValue, version >= 0 else {
            throw ArchiveError(
                isEnvelope ? .malformedInput : .typeMismatch,
                "the document version must be a non-negative integer, found \(value.kindAndValue)", path: path)
        }
        return version
    }
}
