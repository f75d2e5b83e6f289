/// A downgrade's release laid out per chain index for ``ObjectWalker``: which types it did not
/// have, the names it archived types under and the order it wrote their keys in.
struct ReleaseTarget {
    let name: String
    /// Per chain index: whether the release had no such type.
    let isAbsent: [Bool]
    /// Per chain index: the name the release archived the type under, when declared.
    let archivedNames: [String?]
    /// Per chain index: the order the release wrote the type's keys in, when declared.
    let keyOrders: [KeyOrder?]
    /// Per chain index: the other names the release archived the type under (``ArchivedAlias``).
    let aliases: [Set<String>]
    /// Leave objects of absent types without a fallback out, instead of failing.
    let dropsAbsentTypes: Bool

    init(_ release: AppRelease, catalog: MigrationCatalog, dropsAbsentTypes: Bool) throws {
        var isAbsent = [Bool](repeating: false, count: catalog.chains.count)
        var archivedNames = [String?](repeating: nil, count: catalog.chains.count)
        for (typeName, archived) in release.types {
            guard let index = catalog.chainIndex(forTypeName: typeName) else {
                throw ArchiveError(
                    .unknownType, "release \(release.name) names \(typeName), which the catalog has no chain for",
                    typeName: typeName)
            }
            switch archived {
            case .absent: isAbsent[index] = true
            case .version(_, let name): archivedNames[index] = name
            }
        }
        var keyOrders = [KeyOrder?](repeating: nil, count: catalog.chains.count)
        for (typeName, keys) in release.keyOrders {
            guard let index = catalog.chainIndex(forTypeName: typeName) else { continue }
            keyOrders[index] = KeyOrder(keys)
        }
        var aliases = [Set<String>](repeating: [], count: catalog.chains.count)
        for (typeName, names) in release.aliases {
            guard let index = catalog.chainIndex(forTypeName: typeName) else { continue }
            aliases[index] = Set(names)
        }
        self.name = release.name
        self.keyOrders = keyOrders
        self.aliases = aliases
        self.isAbsent = isAbsent
        self.archivedNames = archivedNames
        self.dropsAbsentTypes = dropsAbsentTypes
    }
}
