/// What a ``MigrationPass`` did to a tree: the document's migration, every object migrated
/// (when ``MigrationOptions/recordsSteps`` is on), counts per type and version, the type names it
/// did not know, and what it left alone because a newer app wrote it.
///
/// ```swift
/// let report = try MigrationPass(catalog: catalog).upgrade(&tree)
/// print(report)
/// // Upgraded document people from v1 to v3 (v1 → v2, v2 → v3).
/// // Upgraded 3 objects:
/// //   Circle v1 → v3: 2
/// //   Point v1 → v2: 1
/// // …
/// ```
public struct MigrationReport: Sendable, Hashable, CustomStringConvertible {
    /// Whether the pass upgraded or downgraded.
    public enum Direction: String, Sendable, Hashable {
        case upgrade, downgrade
    }

    /// One migrated object.
    public struct Entry: Sendable, Hashable {
        /// Where the object is, from the document root (an envelope's `root` value).
        public var path: ArchivePath
        /// The type name the object was archived under.
        public var archivedTypeName: String
        /// The type name it has now.
        public var typeName: String
        /// The version it was archived at (the chain's unversioned stand-in when it had none).
        public var fromVersion: Int
        /// Whether the archive recorded no version for it.
        public var wasUnversioned: Bool
        /// The version it has now.
        public var toVersion: Int
        /// The names of the steps run (``MigrationStep/displayName``), in order.
        public var steps: [String]

        /// Creates an entry.
        package init(
            path: ArchivePath, archivedTypeName: String, typeName: String, fromVersion: Int, wasUnversioned: Bool,
            toVersion: Int, steps: [String]
        ) {
            self.path = path
            self.archivedTypeName = archivedTypeName
            self.typeName = typeName
            self.fromVersion = fromVersion
            self.wasUnversioned = wasUnversioned
            self.toVersion = toVersion
            self.steps = steps
        }
    }

    /// The migration of the document itself.
    public struct DocumentEntry: Sendable, Hashable {
        /// The document's name.
        public var name: String
        /// The version the document was at (its unversioned stand-in when it had none).
        public var fromVersion: Int
        /// Whether the document recorded no version.
        public var wasUnversioned: Bool
        /// The version it has now.
        public var toVersion: Int
        /// The names of the steps run, in order.
        public var steps: [String]

        /// Creates a document entry.
        package init(name: String, fromVersion: Int, wasUnversioned: Bool, toVersion: Int, steps: [String]) {
            self.name = name
            self.fromVersion = fromVersion
            self.wasUnversioned = wasUnversioned
            self.toVersion = toVersion
            self.steps = steps
        }
    }

    /// How many objects of one type went from one version to another.
    public struct Count: Sendable, Hashable {
        /// The type's current name.
        public var typeName: String
        /// The version they were at.
        public var fromVersion: Int
        /// The version they have now.
        public var toVersion: Int
        /// How many objects.
        public var count: Int

        /// Creates a count.
        package init(typeName: String, fromVersion: Int, toVersion: Int, count: Int) {
            self.typeName = typeName
            self.fromVersion = fromVersion
            self.toVersion = toVersion
            self.count = count
        }
    }

    /// An object or document a newer app wrote, left as it was in lenient mode.
    public struct NewerItem: Sendable, Hashable {
        /// Where it is (the root for a document).
        public var path: ArchivePath
        /// The archived type name, or the document name.
        public var name: String
        /// Whether this is the document rather than an object.
        public var isDocument: Bool
        /// The version it was written at.
        public var version: Int
        /// The newest version this app knows.
        public var knownVersion: Int

        /// Creates an item.
        package init(path: ArchivePath, name: String, isDocument: Bool, version: Int, knownVersion: Int) {
            self.path = path
            self.name = name
            self.isDocument = isDocument
            self.version = version
            self.knownVersion = knownVersion
        }
    }

    /// Whether the pass upgraded or downgraded.
    public var direction: Direction
    /// The document's migration, when its version changed (or it had none).
    public var document: DocumentEntry?
    /// Every object whose version or type name changed, in the order the pass met them
    /// (empty when ``MigrationOptions/recordsSteps`` is off).
    public var entries: [Entry]
    /// Objects migrated per type and version pair, sorted by type name and versions; always kept.
    public var counts: [Count]
    /// Type names the catalog has no chain for, with how many objects carried them; those
    /// objects were left as they are.
    public var unknownTypeNames: [String: Int]
    /// What a newer app wrote and lenient mode left alone.
    public var newer: [NewerItem]
    /// For a downgrade to a release: the release's name.
    public var release: String?
    /// For a downgrade to a release: each object of a type the release did not have, and what
    /// became of it (written as another type by the chain's fallback, or left out).
    public var absentObjects: [AbsentObject]
    /// When the archive carried a way down this app needed (``WayDown``): its release and digest,
    /// and what its steps did before the upgrade.
    public var wayDownRun: WayDownRun?
    /// When the archive was written for an older release too (`readableBy`): the way down
    /// written into its envelope, replaced or removed.
    public var writtenWayDown: WrittenWayDown?
    /// How many objects got back what a way down kept for the way back (``WayDown``): values an
    /// older release could not hold.
    public var restoredCount: Int
    /// Where they are, when the report records steps (``MigrationOptions/recordsSteps``).
    public var restoredObjects: [ArchivePath]

    /// An object of a type a release did not have, met by a downgrade to that release.
    public struct AbsentObject: Sendable, Hashable {
        /// Where it was, from the document root.
        public var path: ArchivePath
        /// Its type, by today's name.
        public var typeName: String
        /// Its version before the downgrade.
        public var version: Int
        /// The type it was written as (the chain's ``TypeMigrations/downgradeFallback``), or
        /// `nil` when it was left out.
        public var writtenAs: String?

        package init(path: ArchivePath, typeName: String, version: Int, writtenAs: String?) {
            self.path = path
            self.typeName = typeName
            self.version = version
            self.writtenAs = writtenAs
        }
    }

    /// Creates an empty report.
    package init(direction: Direction) {
        self.direction = direction
        self.document = nil
        self.entries = []
        self.counts = []
        self.unknownTypeNames = [:]
        self.newer = []
        self.release = nil
        self.absentObjects = []
        self.wayDownRun = nil
        self.writtenWayDown = nil
        self.restoredCount = 0
        self.restoredObjects = []
    }

    /// The number of objects migrated.
    public var migratedObjectCount: Int {
        counts.reduce(0) { $0 + $1.count }
    }

    /// Whether the pass edited the tree: the document's version changed, objects were migrated,
    /// a downgrade wrote objects a release did not have as another type or left them out, a
    /// carried way down ran, objects got back what a way down kept, or a way down was written,
    /// replaced or removed (``writtenWayDown``). Objects left alone (newer
    /// ones, unknown types) do not count: when this is `false`, the archive's bytes need not be
    /// written again.
    ///
    /// ```swift
    /// let (drawing, report) = try decoder.decodeWithReport(Drawing.self, from: data)
    /// needsSaving = report.changedTree      // an old archive, upgraded in memory only
    /// ```
    public var changedTree: Bool {
        document != nil || !counts.isEmpty || !absentObjects.isEmpty || wayDownRun != nil || restoredCount > 0
            || writtenWayDown != nil
    }

    /// Whether the pass changed nothing and left nothing newer alone (type names it did not know
    /// do not count).
    public var isEmpty: Bool {
        document == nil && counts.isEmpty && newer.isEmpty && absentObjects.isEmpty && wayDownRun == nil
            && restoredCount == 0 && writtenWayDown == nil
    }

    /// A readable summary: see ``summary(listing:)``.
    public var description: String {
        summary()
    }

    /// A readable multi-line summary: the document, the counts per type and version, up to
    /// `maxEntries` objects with their paths, what was left alone and the unknown type names.
    ///
    /// ```
    /// Upgraded document people from v1 to v3 (v1 → v2, v2 → v3).
    /// Upgraded 3 objects:
    ///   Circle v1 → v3: 2
    ///   Point v1 → v2: 1
    /// Objects:
    ///   shapes[0]: Round v1 → Circle v3 (v1 → v2, v2 → v3)
    ///   …
    /// Left alone, written by a newer version:
    ///   shapes[3]: Circle v7 (this app knows v5)
    /// Unknown types, left as they are: Label (2)
    /// ```
    public func summary(listing maxEntries: Int = 20) -> String {
        let verb = direction == .upgrade ? "Upgraded" : "Downgraded"
        var lines: [String] = []
        if let wayDownRun { lines += wayDownRun.summary(listing: maxEntries) }
        if let document {
            var line = "\(verb) document \(document.name) from v\(document.fromVersion)"
            if document.wasUnversioned { line += " (unversioned)" }
            line += " to v\(document.toVersion)"
            if !document.steps.isEmpty { line += " (" + document.steps.joined(separator: ", ") + ")" }
            lines.append(line + ".")
        }
        let total = migratedObjectCount
        if total > 0 {
            lines.append("\(verb) \(total) object\(total == 1 ? "" : "s"):")
            for count in counts {
                lines.append("  \(count.typeName) v\(count.fromVersion) → v\(count.toVersion): \(count.count)")
            }
        }
        if !entries.isEmpty, maxEntries > 0 {
            lines.append("Objects:")
            for entry in entries.prefix(maxEntries) {
                var line = "  \(Self.place(entry.path)): \(entry.archivedTypeName) "
                line += entry.wasUnversioned ? "(unversioned, v\(entry.fromVersion))" : "v\(entry.fromVersion)"
                line += " → "
                if entry.typeName != entry.archivedTypeName { line += entry.typeName + " " }
                line += "v\(entry.toVersion)"
                if !entry.steps.isEmpty { line += " (" + entry.steps.joined(separator: ", ") + ")" }
                lines.append(line)
            }
            if entries.count > maxEntries {
                lines.append("  … and \(entries.count - maxEntries) more")
            }
        }
        if !newer.isEmpty {
            lines.append("Left alone, written by a newer version:")
            for item in newer {
                let what = item.isDocument ? "document \(item.name)" : "\(Self.place(item.path)): \(item.name)"
                lines.append("  \(what) v\(item.version) (this app knows v\(item.knownVersion))")
            }
        }
        if !absentObjects.isEmpty {
            lines.append("Not in release \(release ?? "?"):")
            for object in absentObjects {
                let fate = object.writtenAs.map { "written as \($0)" } ?? "left out"
                lines.append("  \(Self.place(object.path)): \(object.typeName) v\(object.version), \(fate)")
            }
        }
        if restoredCount > 0 {
            lines.append(
                "Restored what an older release could not hold in \(restoredCount) object\(restoredCount == 1 ? "" : "s")"
                    + (restoredObjects.isEmpty
                        ? "."
                        : ": " + restoredObjects.prefix(maxEntries).map(Self.place).joined(separator: ", ")
                            + (restoredObjects.count > maxEntries ? ", …" : "")))
        }
        if let writtenWayDown { lines.append(writtenWayDown.summary) }
        if !unknownTypeNames.isEmpty {
            let names = unknownTypeNames.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }
            lines.append("Unknown types, left as they are: " + names.joined(separator: ", "))
        }
        if lines.isEmpty { return "Nothing to migrate." }
        if let release { lines.insert("For release \(release):", at: 0) }
        return lines.joined(separator: "\n")
    }

    static func place(_ path: ArchivePath) -> String {
        path.isRoot ? "(root)" : path.description
    }
}
