/// Walks a tree and migrates every object by its own chain, in place: pre-order on upgrade (a
/// parent's steps run before the walk enters its fields, so objects they create or move are
/// migrated too), post-order on downgrade.
///
/// Each container is moved out of its slot while it is edited, so a uniquely held tree is never
/// copied; the path is a stack of components, turned into an ``ArchivePath`` only for reports,
/// rule targets and errors.
struct ObjectWalker {
    let catalog: MigrationCatalog
    let options: MigrationOptions
    let direction: MigrationReport.Direction
    /// For downgrades: the version to reach per chain index, `nil` to leave a type alone.
    let targetVersions: [Int?]
    /// For downgrades to a release: the types it did not have and the names it archived under.
    let release: ReleaseTarget?
    /// For a downgrade by a carried way down: keep beside each object what the release cannot
    /// hold (``WayDown/Kept``).
    let keepsWhatIsLost: Bool
    /// What the rules have done, against ``ArchiveLimits/maxRuleWork`` (see ``RuleWork``): every
    /// target the walk makes carries it.
    private(set) var work: RuleWork

    /// The path of the value being visited.
    private var path: [ArchivePath.Component] = []
    private var entries: [MigrationReport.Entry] = []
    /// Objects migrated per chain and archived version: `counts[countOffsets[chain] + from - oldest]`
    /// (every object of a chain goes to the same version). A flat array: no hashing per object;
    /// laid out by ``MigrationCatalog/countOffsets``.
    private var counts: [Int]
    private let countOffsets: [Int]
    private var unknownTypeNames: [String: Int] = [:]
    private var newer: [MigrationReport.NewerItem] = []
    private var absentObjects: [MigrationReport.AbsentObject] = []
    /// Set by a downgrade that leaves the object just visited out: its container removes it.
    private var dropsVisited = false
    /// What the downgrade of the object being visited ran, when it keeps a ``WayDown/Kept``.
    private var segments: [WayDown.Kept.Segment] = []
    /// Identities that kept values refer to: given anchors after the walk.
    private var keptReferences = Set<Int>()
    /// On upgrade: anchors met (anchor → the object's path) and kept references put back.
    private var anchors: [Int: ArchivePath] = [:]
    private var pendingReferences: [WayDown.Kept.PendingReference] = []
    /// Objects that kept a way back (downgrade) or got theirs back (upgrade): how many, and
    /// where when the report records steps.
    private var keptCount = 0
    private var keptObjects: [ArchivePath] = []

    /// The last type name looked up and its chain index: objects of one type tend to come in runs.
    private var cachedName: String?
    private var cachedIndex: Int?
    /// Objects of the unknown type `cachedName` not yet added to `unknownTypeNames`.
    private var pendingUnknown = 0

    init(
        catalog: MigrationCatalog, options: MigrationOptions, direction: MigrationReport.Direction,
        targetVersions: [Int?], release: ReleaseTarget? = nil, keepsWhatIsLost: Bool = false, work: RuleWork
    ) {
        self.work = work
        self.catalog = catalog
        self.options = options
        self.direction = direction
        self.targetVersions = targetVersions
        self.release = release
        self.keepsWhatIsLost = keepsWhatIsLost
        countOffsets = catalog.countOffsets
        counts = Array(repeating: 0, count: catalog.countSlots)
    }

    /// Visits the root of a walk. An upgrade first scans the tree without touching it: a tree
    /// that is already current (what an app reads on every launch after the first) costs one
    /// read-only pass instead of a walk that moves every container out of its slot and back.
    /// When the scan finds anything to do, its counts are dropped and the walk runs as usual.
    mutating func walkRoot(_ value: inout ArchiveValue) throws {
        if direction == .upgrade {
            let saved = (unknownTypeNames, cachedName, cachedIndex, pendingUnknown)
            if isCurrent(value, depth: 0) { return }
            (unknownTypeNames, cachedName, cachedIndex, pendingUnknown) = saved
        }
        work.measure(value)
        try walk(&value)
        if !keptReferences.isEmpty { WayDown.Kept.anchor(&value, ids: keptReferences) }
        if !pendingReferences.isEmpty { WayDown.Kept.resolve(&value, pending: pendingReferences, anchors: anchors) }
    }

    /// Whether upgrading `value` would change nothing: every object in it is of a type without
    /// a chain, or is at its chain's current version under the chain's current name and keeps
    /// no way back, and it nests no deeper than the walk allows. Objects of types without a chain
    /// are counted as the walk counts them.
    private mutating func isCurrent(_ value: ArchiveValue, depth: Int) -> Bool {
        guard value.isContainer else { return true }
        guard depth < options.limits.maxDepth else { return false }
        switch value {
        case .object(let object):
            if let index = chainIndex(for: object.typeName),
                !Self.isUpToDate(object.typeName, object.version, chain: catalog.chains[index])
                    || WayDown.Kept.index(in: object.fields) != nil
                    || catalog.chains[index].unmovedKeys(in: object.fields) != nil
            {
                return false
            }
            return entriesAreCurrent(object.fields, depth: depth)
        case .array(let elements):
            for index in elements.indices where elements[index].isContainer {
                guard isCurrent(elements[index], depth: depth &+ 1) else { return false }
            }
            return true
        case .dictionary(let dictionary):
            return entriesAreCurrent(dictionary, depth: depth)
        default:
            return true
        }
    }

    private mutating func entriesAreCurrent(_ dictionary: ArchiveDictionary, depth: Int) -> Bool {
        for index in dictionary.entries.indices where dictionary.entries[index].value.isContainer {
            guard isCurrent(dictionary.entries[index].value, depth: depth &+ 1) else { return false }
        }
        return true
    }

    /// Visits `value` and everything inside it.
    ///
    /// - Throws: The first migration error; ``ArchiveError/Code/limitExceeded`` when containers
    ///   nest deeper than ``ArchiveLimits/maxDepth``. The tree stays well-formed but partly
    ///   migrated.
    mutating func walk(_ value: inout ArchiveValue) throws {
        if var object = value.takeObject() {
            defer { value = .object(object) }
            try checkDepth()
            if direction == .upgrade {
                try upgrade(&object)
                try walkEntries(&object.fields)
            } else if release?.dropsAbsentTypes == true {
                // The object may be left out after its contents were downgraded: then the report
                // keeps only that it was left out, nothing of what ran inside it.
                let mark = (entries: entries.count, counts: counts, absent: absentObjects.count)
                try walkEntries(&object.fields)
                try downgrade(&object)
                if dropsVisited {
                    entries.removeSubrange(mark.entries...)
                    counts = mark.counts
                    absentObjects.removeSubrange(mark.absent..<absentObjects.count - 1)
                }
            } else {
                try walkEntries(&object.fields)
                try downgrade(&object)
            }
        } else if var elements = value.takeArray() {
            defer { value = .array(elements) }
            try checkDepth()
            var dropped: [Int] = []
            for index in elements.indices where elements[index].isContainer {
                path.append(.index(index))
                defer { path.removeLast() }
                try walk(&elements[index])
                if dropsVisited {
                    dropsVisited = false
                    dropped.append(index)
                }
            }
            for index in dropped.reversed() { elements.remove(at: index) }
        } else if var dictionary = value.takeDictionary() {
            defer { value = .dictionary(dictionary) }
            try checkDepth()
            try walkEntries(&dictionary)
        }
    }

    private mutating func walkEntries(_ dictionary: inout ArchiveDictionary) throws {
        var dropped: [String] = []
        for index in dictionary.entries.indices where dictionary.entries[index].value.isContainer {
            path.append(.key(dictionary.entries[index].key))
            defer { path.removeLast() }
            try walk(&dictionary.entries[index].value)
            if dropsVisited {
                dropsVisited = false
                dropped.append(dictionary.entries[index].key)
            }
        }
        for key in dropped { dictionary.removeValue(forKey: key) }
    }

    @inline(__always)
    private func checkDepth() throws {
        if path.count >= options.limits.maxDepth {
            throw ArchiveError.limitExceeded(
                .depth, "the archive nests deeper than \(options.limits.maxDepth) levels", path: ArchivePath(path))
        }
    }

    // MARK: Objects

    private mutating func upgrade(_ object: inout ArchiveObject) throws {
        if let keptIndex = WayDown.Kept.index(in: object.fields),
            catalog.chainIndex(forTypeName: object.typeName) != nil
        {
            try upgrade(&object, restoringKeptAt: keptIndex)
            return
        }
        try upgradeObject(&object)
    }

    private mutating func upgradeObject(_ object: inout ArchiveObject) throws {
        let archivedName = object.typeName
        guard let index = chainIndex(for: archivedName) else { return }
        let chain = catalog.chains[index]
        let archivedVersion = object.version
        if Self.isUpToDate(archivedName, archivedVersion, chain: chain) {
            try checkKeysAreCurrent(object, chain: chain)
            return
        }
        let from = try effectiveVersion(archivedVersion, of: archivedName, chain: chain)
        let to = chain.currentVersion
        if from == to {
            // Unversioned, or archived under a former name: only stamped.
            object.version = to
            if object.typeName != chain.name { try Self.rename(&object, to: chain.name, work: &work, at: path) }
            record(index, archivedName, archivedVersion, from: from, to: to, steps: [])
            return
        }
        guard from < to else {
            try leaveNewer(archivedName, version: from, knownVersion: to)
            return
        }
        guard from >= chain.oldestVersion else {
            throw ArchiveError(
                .missingMigration,
                "no migration from \(archivedName) v\(from): the oldest version \(chain.name) migrates from is "
                    + "v\(chain.oldestVersion)",
                path: ArchivePath(path), typeName: archivedName, archivedVersion: archivedVersion)
        }
        var target = MigrationTarget(
            fields: object.takeFields(), typeName: archivedName, version: from, path: ArchivePath(path))
        target.work = work
        defer { work = target.work }
        do {
            try chain.upgrade(&target, from: from, to: to, archivedName: archivedName, archivedVersion: archivedVersion)
        } catch {
            object.restore(from: &target)
            throw error
        }
        object.restore(from: &target)
        object.version = to
        if object.typeName != chain.name { try Self.rename(&object, to: chain.name, work: &target.work, at: path) }
        try keepAlias(&object, archivedName, archivedVersion, chain: index, work: &target.work)
        record(index, archivedName, archivedVersion, from: from, to: to, steps: chain.stepNames(from: from, to: to))
    }

    /// Keeps the name an upgraded object was archived under (``ArchivedAlias``) when a release
    /// archived its type under that alias (``MigrationCatalog/keepsAlias(_:chain:atVersion:)``).
    /// Only for objects the upgrade takes to a newer version: one archived at today's version
    /// under an alias is only renamed, as today's app would write it (a release that reads its
    /// own archive writes it back as it would without the field).
    private func keepAlias(
        _ object: inout ArchiveObject, _ archivedName: String, _ archivedVersion: Int?, chain index: Int,
        work: inout RuleWork
    ) throws {
        guard let archivedVersion, catalog.keepsAlias(archivedName, chain: index, atVersion: archivedVersion),
            object.fields.index(forKey: ArchivedAlias.key) == nil
        else { return }
        let alias = ArchivedAlias(typeName: archivedName, version: archivedVersion)
        try work.charge(archivedName.workBytes &+ ArchivedAlias.key.workBytes, at: ArchivePath(path))
        object.fields[ArchivedAlias.key] = alias.tree
    }

    /// Gives an object downgraded to a release the alias it was archived under
    /// (``ArchivedAlias``) when the downgrade took it back to that version and the release
    /// archived the type under that alias too (``AppRelease/aliases``), and removes the field;
    /// `true` when it did.
    private mutating func restoreAlias(_ object: inout ArchiveObject, chain index: Int) throws -> Bool {
        guard let release, !release.aliases[index].isEmpty,
            let position = object.fields.index(forKey: ArchivedAlias.key),
            let alias = ArchivedAlias(object.fields.entries[position].value), alias.version == object.version,
            release.aliases[index].contains(alias.typeName), catalog.chainIndex(forTypeName: alias.typeName) == index
        else { return false }
        var fields = object.takeFields()
        fields.removeEntry(at: position)
        object.fields = fields
        try Self.rename(&object, to: alias.typeName, work: &work, at: path)
        return true
    }

    /// Upgrades an object that keeps a way back (``WayDown/Kept``): to the version it was kept at
    /// (through its chain's downgrade fallback backwards when it was written as another type),
    /// puts the kept values back where the older app left the field as it got it, then on to
    /// today's version. A way back this catalog cannot use (its type or version is newer than
    /// the catalog's) stays in the object as it is.
    private mutating func upgrade(_ object: inout ArchiveObject, restoringKeptAt keptIndex: Int) throws {
        let objectPath = ArchivePath(path)
        var fields = object.takeFields()
        let raw = fields.removeEntry(at: keptIndex).value
        object.fields = fields
        let keeping = try WayDown.Kept(parsing: raw, at: objectPath.appending(WayDown.Kept.key))
        guard let keptName = keeping.typeName, let keptVersion = keeping.version,
            let keptIndex = catalog.chainIndex(forTypeName: keptName),
            keptVersion <= catalog.chains[keptIndex].currentVersion,
            keptVersion >= catalog.chains[keptIndex].oldestVersion
        else {
            // An anchor alone, or kept by a newer app than this one: it stays (an anchor a
            // restored reference uses goes once the walk has resolved it).
            if let anchor = keeping.anchor, anchors[anchor] == nil { anchors[anchor] = objectPath }
            object.fields[WayDown.Kept.key] = raw
            try upgradeObject(&object)
            return
        }
        if let anchor = keeping.anchor, anchors[anchor] == nil { anchors[anchor] = objectPath }
        defer {
            if let anchor = keeping.anchor { object.fields[WayDown.Kept.key] = WayDown.Kept(anchor: anchor).tree }
        }
        guard let index = chainIndex(for: object.typeName) else { return }
        let chain = catalog.chains[index]
        let keptChain = catalog.chains[keptIndex]
        let archivedName = object.typeName
        let archivedVersion = object.version
        let from = try effectiveVersion(archivedVersion, of: archivedName, chain: chain)
        func inconsistent(_ message: String) -> ArchiveError {
            ArchiveError(
                .invalidWayDown, "what a way down kept for the way back does not fit the object: \(message)",
                path: objectPath.appending(WayDown.Kept.key), typeName: archivedName, archivedVersion: archivedVersion)
        }
        var target = MigrationTarget(
            fields: object.takeFields(), typeName: archivedName, version: from, path: objectPath)
        target.work = work
        defer { work = target.work }
        var steps: [String] = []
        do {
            if index == keptIndex {
                guard from <= keptVersion, from >= chain.oldestVersion else {
                    throw inconsistent("\(archivedName) v\(from) cannot go up to the kept v\(keptVersion)")
                }
                try chain.upgrade(
                    &target, from: from, to: keptVersion, archivedName: archivedName, archivedVersion: archivedVersion)
                steps += chain.stepNames(from: from, to: keptVersion)
            } else {
                guard let fallback = catalog.fallbacks[keptIndex], fallback.chain == index,
                    from <= fallback.version, from >= chain.oldestVersion
                else {
                    throw inconsistent(
                        "it was kept as \(keptName) v\(keptVersion), and no downgrade fallback of \(keptChain.name) "
                            + "leads to \(archivedName) v\(from)")
                }
                try chain.upgrade(
                    &target, from: from, to: fallback.version, archivedName: archivedName,
                    archivedVersion: archivedVersion)
                steps += chain.stepNames(from: from, to: fallback.version)
                do {
                    for rule in fallback.rules.reversed() { try rule.inverse?.apply(to: &target) }
                    try target.renameType(to: keptChain.archiveName(atVersion: keptChain.oldestVersion))
                } catch let error as ArchiveError {
                    throw error.adding(typeName: archivedName, archivedVersion: archivedVersion, step: fallback.label)
                }
                try keptChain.upgrade(
                    &target, from: keptChain.oldestVersion, to: keptVersion, archivedName: archivedName,
                    archivedVersion: archivedVersion)
                steps += keptChain.stepNames(from: keptChain.oldestVersion, to: keptVersion)
            }
            keeping.restore(into: &target.fields, objectPath: objectPath, pending: &pendingReferences)
            try keptChain.upgrade(
                &target, from: keptVersion, to: keptChain.currentVersion, archivedName: archivedName,
                archivedVersion: archivedVersion)
            steps += keptChain.stepNames(from: keptVersion, to: keptChain.currentVersion)
        } catch {
            object.restore(from: &target)
            throw error
        }
        object.restore(from: &target)
        object.version = keptChain.currentVersion
        if object.typeName != keptChain.name {
            try Self.rename(&object, to: keptChain.name, work: &target.work, at: path)
        }
        noteKept(objectPath)
        record(
            keptIndex, archivedName, archivedVersion, from: index == keptIndex ? from : keptChain.oldestVersion,
            to: keptChain.currentVersion, steps: steps)
    }

    /// Refuses an object that says it is at the current version but holds the keys of the version
    /// before: a source of the last step's moves without its destination. Its archive and the
    /// rules disagree on versions (a layout the app wrote at one version, declared as the version
    /// before); upgrading nothing and writing it back would hand the app keys it cannot read.
    private func checkKeysAreCurrent(_ object: ArchiveObject, chain: CompiledChain) throws {
        guard !chain.lastStepMoves.isEmpty, let (from, to) = chain.unmovedKeys(in: object.fields),
            let step = chain.steps.last
        else { return }
        let source = ArchiveDictionary.path(of: from[...])
        let destination = ArchiveDictionary.path(of: to[...])
        throw ArchiveError(
            .missingMigration,
            "the archive says v\(chain.currentVersion), the current version, but the object holds '\(source)' and no "
                + "'\(destination)', the keys of v\(step.from) that the step \(chain.label(ofStep: chain.steps.count - 1)) "
                + "moves: the rules' versions do not match the archive's. If "
                + "the app wrote this layout at v\(chain.currentVersion), the step belongs at v\(chain.currentVersion) → "
                + "v\(chain.currentVersion + 1)",
            path: ArchivePath(path), typeName: object.typeName, archivedVersion: object.version)
    }

    /// Whether an object of `chain`'s type archived as `name` at `version` needs no upgrade: it
    /// carries the current version under the current name.
    private static func isUpToDate(_ name: String, _ version: Int?, chain: CompiledChain) -> Bool {
        version == chain.currentVersion && name == chain.name
    }

    private mutating func downgrade(_ object: inout ArchiveObject) throws {
        guard keepsWhatIsLost, let index = catalog.chainIndex(forTypeName: object.typeName) else {
            try downgradeObject(&object)
            return
        }
        // Keeping a way back: what the object was (without a way back kept earlier), and what ran.
        var earlier: ArchiveValue?
        if let keptIndex = WayDown.Kept.index(in: object.fields) {
            var fields = object.takeFields()
            earlier = fields.removeEntry(at: keptIndex).value
            object.fields = fields
        }
        let original = object
        let version = try effectiveVersion(object.version, of: object.typeName, chain: catalog.chains[index])
        segments.removeAll(keepingCapacity: true)
        try downgradeObject(&object)
        let kept =
            segments.isEmpty || dropsVisited
            ? nil
            : try WayDown.Kept.keeping(
                original, version: version, downgraded: object, segments: segments, catalog: catalog,
                path: ArchivePath(path), work: &work)
        if let kept {
            for reference in kept.kept.flatMap(\.references) { keptReferences.insert(reference.anchor) }
            object.fields[WayDown.Kept.key] = kept.tree
            noteKept(ArchivePath(path))
        } else if let earlier {
            object.fields[WayDown.Kept.key] = earlier
        }
    }

    private mutating func downgradeObject(_ object: inout ArchiveObject) throws {
        guard var index = chainIndex(for: object.typeName) else { return }
        // A fallback turns the object into another type, whose own chain then takes it down; the
        // catalog checked that fallbacks never go round, so this ends within the chain count.
        for _ in 0...catalog.chains.count {
            let chain = catalog.chains[index]
            let archivedName = object.typeName
            let archivedVersion = object.version
            let from = try effectiveVersion(archivedVersion, of: archivedName, chain: chain)
            guard from <= chain.currentVersion else {
                try leaveNewer(archivedName, version: from, knownVersion: chain.currentVersion)
                return
            }
            guard let release, release.isAbsent[index] else {
                guard let to = targetVersions[index] else { return }
                try downgrade(&object, chain: index, from: from, to: to)
                let restored = try restoreAlias(&object, chain: index)
                if let release {
                    if !restored, let name = release.archivedNames[index], object.typeName != name {
                        try Self.rename(&object, to: name, work: &work, at: path)
                    }
                    // The keys in the order the release wrote them, so that its own archive comes back byte
                    // for byte.
                    if object.version == to, let order = release.keyOrders[index] { order.apply(to: &object.fields) }
                }
                return
            }
            // The release did not have the type.
            try downgrade(&object, chain: index, from: from, to: chain.oldestVersion)
            guard let fallback = catalog.fallbacks[index] else {
                guard release.dropsAbsentTypes else {
                    throw ArchiveError(
                        .notInRelease,
                        "release \(release.name) has no \(chain.name): declare how it saw such objects (a downgrade "
                            + "fallback on the \(chain.name) chain), or leave them out (--drop-absent, or "
                            + "DowngradeTarget(release:droppingAbsentTypes: true) in the Swift API)",
                        path: ArchivePath(path), typeName: chain.name, archivedVersion: archivedVersion)
                }
                absentObjects.append(
                    MigrationReport.AbsentObject(
                        path: ArchivePath(path), typeName: chain.name, version: from, writtenAs: nil))
                dropsVisited = true
                return
            }
            if keepsWhatIsLost {
                segments.append(.fallback(chain: index, typeName: object.typeName, version: chain.oldestVersion))
            }
            var target = MigrationTarget(
                fields: object.takeFields(), typeName: object.typeName, version: chain.oldestVersion,
                path: ArchivePath(path))
            target.work = work
            do {
                for rule in fallback.rules { try rule.apply(to: &target) }
                try target.work.charge(fallback.name.workBytes, at: target.path)
            } catch let error as ArchiveError {
                work = target.work
                object.restore(from: &target)
                throw error.adding(typeName: chain.name, archivedVersion: archivedVersion, step: fallback.label)
            }
            work = target.work
            object.restore(from: &target)
            object.typeName = fallback.name
            object.version = fallback.version
            absentObjects.append(
                MigrationReport.AbsentObject(
                    path: ArchivePath(path), typeName: chain.name, version: from,
                    writtenAs: catalog.chains[fallback.chain].name))
            index = fallback.chain
        }
    }

    /// Runs the inverse steps of chain `index` on `object` from `from` down to `to`.
    private mutating func downgrade(_ object: inout ArchiveObject, chain index: Int, from: Int, to: Int) throws {
        guard from > to else { return }
        if keepsWhatIsLost { segments.append(.steps(chain: index, from: from, to: to)) }
        let chain = catalog.chains[index]
        let archivedName = object.typeName
        let archivedVersion = object.version
        var target = MigrationTarget(
            fields: object.takeFields(), typeName: archivedName, version: from, path: ArchivePath(path))
        target.work = work
        defer { work = target.work }
        do {
            try chain.downgrade(
                &target, from: from, to: to, archivedName: archivedName, archivedVersion: archivedVersion)
        } catch {
            object.restore(from: &target)
            throw error
        }
        object.restore(from: &target)
        object.version = to
        record(index, archivedName, archivedVersion, from: from, to: to, steps: chain.stepNames(from: from, to: to))
    }

    /// Gives `object` the type name `name`, counting it against the rules' work: a name the
    /// pass gives every object of a type is made once per object.
    private static func rename(
        _ object: inout ArchiveObject, to name: String, work: inout RuleWork, at path: [ArchivePath.Component]
    ) throws {
        try work.charge(name.workBytes, at: ArchivePath(path))
        object.typeName = name
    }

    /// The archived version, or the chain's stand-in for unversioned objects.
    private func effectiveVersion(_ version: Int?, of name: String, chain: CompiledChain) throws -> Int {
        if let version { return version }
        if let unversioned = chain.unversionedVersion { return unversioned }
        throw ArchiveError(
            .missingMigration,
            "\(name) has no version in the archive and its chain declares none for unversioned objects "
                + "(set unversionedVersion to the version objects had before \(chain.name) was versioned)",
            path: ArchivePath(path), typeName: name)
    }

    private mutating func leaveNewer(_ name: String, version: Int, knownVersion: Int) throws {
        guard options.allowsNewerVersions else {
            throw ArchiveError(
                .newerVersion, "written by a newer version: \(name) v\(version), this app knows v\(knownVersion)",
                path: ArchivePath(path), typeName: name, archivedVersion: version)
        }
        newer.append(
            MigrationReport.NewerItem(
                path: ArchivePath(path), name: name, isDocument: false, version: version, knownVersion: knownVersion))
    }

    // MARK: Look-up and report

    /// The chain index for a type name (constant time, cached for runs of one type); counts
    /// names without a chain.
    @inline(__always)
    private mutating func chainIndex(for name: String) -> Int? {
        if let cachedName, cachedName == name {
            if cachedIndex == nil { pendingUnknown += 1 }
            return cachedIndex
        }
        flushUnknown()
        cachedName = name
        cachedIndex = catalog.chainIndex(forTypeName: name)
        if cachedIndex == nil { pendingUnknown = 1 }
        return cachedIndex
    }

    private mutating func flushUnknown() {
        if pendingUnknown > 0, let cachedName {
            unknownTypeNames[cachedName, default: 0] += pendingUnknown
        }
        pendingUnknown = 0
    }

    private mutating func record(
        _ chain: Int, _ archivedName: String, _ archivedVersion: Int?, from: Int, to: Int,
        steps: @autoclosure () -> [String]
    ) {
        // `from` is in `oldestVersion...currentVersion` (the callers check), so the subtraction
        // cannot overflow; the slot is checked all the same.
        let (offset, overflow) = from.subtractingReportingOverflow(catalog.chains[chain].oldestVersion)
        if !overflow, offset >= 0, offset <= catalog.chains[chain].steps.count {
            counts[countOffsets[chain] + offset] += 1
        }
        guard options.recordsSteps else { return }
        entries.append(
            MigrationReport.Entry(
                path: ArchivePath(path), archivedTypeName: archivedName, typeName: catalog.chains[chain].name,
                fromVersion: from, wasUnversioned: archivedVersion == nil, toVersion: to, steps: steps()))
    }

    private mutating func noteKept(_ path: ArchivePath) {
        keptCount += 1
        if options.recordsSteps { keptObjects.append(path) }
    }

    /// Moves what the walk found into `report`.
    mutating func finish(into report: inout MigrationReport) {
        flushUnknown()
        report.restoredCount += keptCount
        report.restoredObjects.append(contentsOf: keptObjects)
        report.entries.append(contentsOf: entries)
        for (index, chain) in catalog.chains.enumerated() {
            let to = direction == .upgrade ? chain.currentVersion : (targetVersions[index] ?? chain.currentVersion)
            for offset in 0...chain.steps.count {
                let count = counts[countOffsets[index] + offset]
                if count > 0 {
                    let version = chain.oldestVersion + offset  // at most currentVersion: no overflow
                    report.counts.append(
                        MigrationReport.Count(typeName: chain.name, fromVersion: version, toVersion: to, count: count))
                }
            }
        }
        report.counts.sort { ($0.typeName, $0.fromVersion, $0.toVersion) < ($1.typeName, $1.fromVersion, $1.toVersion) }
        report.unknownTypeNames.merge(unknownTypeNames, uniquingKeysWith: +)
        report.newer.append(contentsOf: newer)
        report.absentObjects.append(contentsOf: absentObjects)
    }
}
