extension ArchiveError {
    /// How the object an error is about came to be what the failing stage saw: the type and
    /// version it was archived at, where it was in the archive, where it is after the upgrade,
    /// and the steps that ran on it.
    ///
    /// An error a decoder throws after an upgrade is about the *upgraded* object; without its
    /// history, "Drawing v4: key 'canvasColor' is missing" would hide that the archive held a
    /// `Drawing` v2 and that the steps v2 → v3 → v4 did not supply the key.
    public struct MigrationHistory: Sendable, Hashable, CustomStringConvertible {
        /// The type name the object was archived under.
        public var archivedTypeName: String
        /// The version it was archived at; `nil` when the archive recorded none.
        public var archivedVersion: Int?
        /// Where it was in the archive as read, from the document root; `nil` when unknown.
        public var archivedPath: ArchivePath?
        /// Where it is in the upgraded tree, from the document root.
        public var migratedPath: ArchivePath
        /// Its type name after the upgrade.
        public var typeName: String
        /// Its version after the upgrade.
        public var version: Int
        /// The steps that ran on it, in order (``MigrationStep/displayName``).
        public var steps: [String]

        /// Creates a history.
        public init(
            archivedTypeName: String, archivedVersion: Int?, archivedPath: ArchivePath?, migratedPath: ArchivePath,
            typeName: String, version: Int, steps: [String]
        ) {
            self.archivedTypeName = archivedTypeName
            self.archivedVersion = archivedVersion
            self.archivedPath = archivedPath
            self.migratedPath = migratedPath
            self.typeName = typeName
            self.version = version
            self.steps = steps
        }

        /// `Drawing v2 → v4 (archived at the root; steps "v2 → v3", "v3 → v4")`, or with the
        /// object's place after the upgrade when it moved: `(archived at items[1], now at
        /// notes[1]; …)`.
        public var description: String {
            var text = "\(archivedTypeName) " + (archivedVersion.map { "v\($0)" } ?? "(unversioned)") + " → "
            if typeName != archivedTypeName { text += "\(typeName) " }
            text += "v\(version)"
            var places: [String] = []
            func spell(_ path: ArchivePath) -> String { path.isRoot ? "the root" : path.description }
            if let archivedPath {
                places.append("archived at " + spell(archivedPath))
                if archivedPath != migratedPath { places.append("now at " + spell(migratedPath)) }
            } else {
                places.append("at " + spell(migratedPath))
            }
            var details = places.joined(separator: ", ")
            if !steps.isEmpty { details += "; steps " + steps.map { "\"\($0)\"" }.joined(separator: ", ") }
            return text + " (" + details + ")"
        }
    }
}

extension MigrationPass {
    /// `error`, thrown by a stage that read the tree this pass upgraded from `archived`, with the
    /// history of the object it is about: the innermost object on the error's path that the
    /// upgrade migrated. ``ArchiveError/archivedVersion`` becomes the version that object was
    /// archived at.
    ///
    /// It upgrades `archived` once more, marking every object with where it was archived and
    /// recording every step: a cost paid only when explaining an error. An error that already
    /// names a migration step, or whose path meets no migrated object, is returned unchanged.
    package func explain(_ error: ArchiveError, upgrading archived: ArchiveValue, document: String?) -> ArchiveError {
        guard error.step == nil, error.history == nil, !catalog.isEmpty else { return error }
        var marked = archived
        var archivedPaths: [ArchivePath] = []
        let isEnvelope = ArchiveEnvelope.isEnvelope(marked)
        if isEnvelope, case .dictionary(var envelope) = marked, var root = envelope[ArchiveEnvelope.rootKey] {
            envelope[ArchiveEnvelope.rootKey] = nil
            Self.mark(&root, path: .root, paths: &archivedPaths, depth: 0, limit: options.limits.maxDepth)
            envelope[ArchiveEnvelope.rootKey] = root
            marked = .dictionary(envelope)
        } else if !isEnvelope {
            Self.mark(&marked, path: .root, paths: &archivedPaths, depth: 0, limit: options.limits.maxDepth)
        }
        var recording = self
        recording.options.recordsSteps = true
        guard let report = try? recording.upgrade(&marked, document: document) else { return error }
        let root = isEnvelope ? (marked[ArchiveEnvelope.rootKey] ?? .null) : marked
        // The innermost object on the error's path that the upgrade migrated.
        var value = root
        var walked = ArchivePath.root
        var found: (entry: MigrationReport.Entry, marker: Int?)?
        let entries = Dictionary(report.entries.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for component in [nil] + error.path.components.map(Optional.some) {
            if let component {
                walked = walked.appending(component)
                guard let next = Self.child(of: value, at: component) else { break }
                value = next
            }
            if case .object(let object) = value, let entry = entries[walked] {
                found = (entry, object.fields[Self.markerKey]?.int64Value.map { Int($0) })
            }
        }
        guard let (entry, marker) = found else { return error }
        var explained = error
        explained.history = ArchiveError.MigrationHistory(
            archivedTypeName: entry.archivedTypeName, archivedVersion: entry.wasUnversioned ? nil : entry.fromVersion,
            archivedPath: marker.flatMap { archivedPaths.indices.contains($0) ? archivedPaths[$0] : nil },
            migratedPath: entry.path, typeName: entry.typeName, version: entry.toVersion, steps: entry.steps)
        explained.archivedVersion = entry.wasUnversioned ? nil : entry.fromVersion
        if explained.typeName == nil { explained.typeName = entry.typeName }
        return explained
    }

    /// The field each object gets while explaining: the index of its archived path. No archive
    /// can hold it: the pass's own trees are never written.
    private static let markerKey = "\u{0}archived-path"

    private static func mark(
        _ value: inout ArchiveValue, path: ArchivePath, paths: inout [ArchivePath], depth: Int, limit: Int
    ) {
        guard depth <= limit else { return }
        switch value {
        case .object(var object):
            value = .null
            var fields = object.fields
            object.fields = [:]
            for index in fields.indices {
                let key = fields[index].key
                fields.withValue(at: index) {
                    mark(&$0, path: path.appending(key), paths: &paths, depth: depth + 1, limit: limit)
                }
            }
            fields[markerKey] = .int(Int64(paths.count))
            paths.append(path)
            object.fields = fields
            value = .object(object)
        case .array(var elements):
            value = .null
            for index in elements.indices {
                mark(&elements[index], path: path.appending(index), paths: &paths, depth: depth + 1, limit: limit)
            }
            value = .array(elements)
        case .dictionary(var entries):
            value = .null
            for index in entries.indices {
                let key = entries[index].key
                entries.withValue(at: index) {
                    mark(&$0, path: path.appending(key), paths: &paths, depth: depth + 1, limit: limit)
                }
            }
            value = .dictionary(entries)
        default:
            break
        }
    }

    private static func child(of value: ArchiveValue, at component: ArchivePath.Component) -> ArchiveValue? {
        switch (value, component) {
        case (.object(let object), .key(let key)): return object.fields[key]
        case (.dictionary(let entries), .key(let key)): return entries[key]
        case (.array(let elements), .index(let index)): return elements.indices.contains(index) ? elements[index] : nil
        default: return nil
        }
    }
}
