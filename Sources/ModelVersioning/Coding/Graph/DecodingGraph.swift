/// Object identity during one decoding run: the instances built for archived identities, the
/// objects being built, where each identity is defined, and the conditional back-references
/// waiting for an object to finish.
///
/// A reference is resolved to the one instance built for its identity (`===` holds for every
/// reference to it). A reference met before its definition builds the definition on the spot.
/// A conditional reference to an object whose initializer is still running (a child pointing
/// back at its parent) cannot be resolved yet: ``deferAssignment(to:_:)`` keeps the assignment
/// and ``finish(_:instance:)`` runs it once the parent exists.
struct DecodingGraph {
    struct Definition {
        let object: ArchiveObject
        let path: ArchivePath
        let nodeCount: Int
    }

    private(set) var instances: [ArchiveObjectID: AnyObject] = [:]
    private var inProgress: Set<ArchiveObjectID> = []
    private var waiting: [ArchiveObjectID: [(AnyObject) -> Void]] = [:]
    private var definitions: [ArchiveObjectID: Definition]?
    /// Identities of value-type objects already decoded once; decoding them again is an
    /// expansion counted against `ArchiveLimits.maxReferencesExpanded`.
    var decodedValueIdentities: Set<ArchiveObjectID> = []

    func instance(for id: ArchiveObjectID) -> AnyObject? {
        instances[id]
    }

    func isInProgress(_ id: ArchiveObjectID) -> Bool {
        inProgress.contains(id)
    }

    mutating func begin(_ id: ArchiveObjectID) {
        inProgress.insert(id)
    }

    /// Records the instance built for `id` and runs the assignments waiting for it.
    mutating func finish(_ id: ArchiveObjectID, instance: AnyObject?) {
        inProgress.remove(id)
        guard let instance else { return }
        instances[id] = instance
        if let assignments = waiting.removeValue(forKey: id) {
            for assign in assignments {
                assign(instance)
            }
        }
    }

    /// Abandons `id` after its initializer threw.
    mutating func abandon(_ id: ArchiveObjectID) {
        inProgress.remove(id)
        waiting[id] = nil
    }

    mutating func deferAssignment(to id: ArchiveObjectID, _ assign: @escaping (AnyObject) -> Void) {
        waiting[id, default: []].append(assign)
    }

    /// Where `id` is defined in `root`; the index is built on first use.
    mutating func definition(of id: ArchiveObjectID, in root: ArchiveValue, limits: ArchiveLimits) throws
        -> Definition?
    {
        if definitions == nil {
            var index = DefinitionIndex(limits: limits)
            _ = try index.visit(root, path: .root, depth: 0)
            definitions = index.definitions
        }
        return definitions?[id]
    }
}

/// The walk that finds every object with an identity.
private struct DefinitionIndex {
    let limits: ArchiveLimits
    var definitions: [ArchiveObjectID: DecodingGraph.Definition] = [:]

    init(limits: ArchiveLimits) {
        self.limits = limits
    }

    /// Returns the number of nodes under `value`.
    mutating func visit(_ value: ArchiveValue, path: ArchivePath, depth: Int) throws -> Int {
        guard depth <= limits.maxDepth else {
            throw ArchiveError.limitExceeded(
                .depth, "the archive nests deeper than \(limits.maxDepth) levels", path: path)
        }
        switch value {
        case .array(let elements):
            var count = 1
            for (index, element) in elements.enumerated() {
                count += try visit(element, path: path.appending(index), depth: depth + 1)
            }
            return count
        case .dictionary(let dictionary):
            var count = 1
            for (key, element) in dictionary {
                count += try visit(element, path: path.appending(key), depth: depth + 1)
            }
            return count
        case .object(let object):
            var count = 1
            for (key, element) in object.fields {
                count += try visit(element, path: path.appending(key), depth: depth + 1)
            }
            if let id = object.id {
                if let first = definitions[id] {
                    throw ArchiveError(
                        .dataCorrupted, "two objects claim identity \(id) (the other is at \(first.path))", path: path,
                        typeName: object.typeName, archivedVersion: object.version)
                }
                definitions[id] = DecodingGraph.Definition(object: object, path: path, nodeCount: count)
            }
            return count
        default:
            return 1
        }
    }
}
