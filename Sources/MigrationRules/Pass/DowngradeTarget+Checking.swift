extension DowngradeTarget {
    /// Checks every version the target names against `catalog`'s chains: a type the chains do not
    /// have, or a version outside the versions a chain goes through (document version 0 where the
    /// document goes from v1 to v3), is an error before any archive is read. A document version
    /// is checked against the chain `document` names, or the only one.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/unknownType`` for a type no chain
    ///   has (``ArchiveError/typeName`` names it), ``ArchiveError/Code/missingMigration`` for a
    ///   version outside its chain (``ArchiveError/typeName`` names the type; `nil` for the
    ///   document version).
    public func check(against catalog: MigrationCatalog, document: String?) throws(ArchiveError) {
        for (name, version) in typeVersions.sorted(by: { $0.key < $1.key }) {
            guard let chain = catalog.types.first(where: { $0.allNames.contains(name) }) else {
                throw ArchiveError(.unknownType, "no chain has the type \(name)", typeName: name)
            }
            try Self.check(version, chain.typeName, chain.oldestVersion, chain.currentVersion, typeName: name)
        }
        if let version = documentVersion, let chain = Self.documentChain(catalog, named: document) {
            let oldest = chain.steps.map(\.from).min() ?? chain.currentVersion
            try Self.check(version, "the document \(chain.name)", oldest, chain.currentVersion, typeName: nil)
        }
    }

    /// `catalog` with the chains the target names ending at its versions, for upgrades that stop
    /// short of today's versions (`archive-migrate upgrade --to`); its releases are kept.
    ///
    /// - Throws: What ``check(against:document:)`` throws, and ``ArchiveError/Code/unknownType``
    ///   for a document version when no document chain is named and the catalog has not exactly
    ///   one.
    public func truncating(_ catalog: MigrationCatalog, document: String?) throws -> MigrationCatalog {
        try check(against: catalog, document: document)
        var types = catalog.types
        for (name, version) in typeVersions {
            guard let index = types.firstIndex(where: { $0.allNames.contains(name) }) else { continue }
            types[index].currentVersion = version
            types[index].steps = types[index].steps.filter { $0.to <= version }
        }
        var documents = catalog.documents
        if let version = documentVersion {
            guard let chain = Self.documentChain(catalog, named: document),
                let index = documents.firstIndex(where: { $0.name == chain.name })
            else {
                throw ArchiveError(
                    .unknownType,
                    "document version \(version) needs a document chain; name it (the chains have "
                        + (documents.isEmpty ? "none" : documents.map(\.name).joined(separator: ", ")) + ")")
            }
            documents[index].currentVersion = version
            documents[index].steps = documents[index].steps.filter { $0.to <= version }
        }
        return try MigrationCatalog(types: types, documents: documents)
    }

    /// The document chain `name` names, or the only one.
    private static func documentChain(_ catalog: MigrationCatalog, named name: String?) -> DocumentMigrations? {
        if let name { return catalog.documents.first { $0.name == name } }
        return catalog.documents.count == 1 ? catalog.documents.first : nil
    }

    private static func check(_ version: Int, _ subject: String, _ oldest: Int, _ current: Int, typeName: String?)
        throws(ArchiveError)
    {
        guard version >= oldest, version <= current else {
            throw ArchiveError(
                .missingMigration,
                "\(subject) goes from v\(oldest) to v\(current)"
                    + (version > current ? "; nothing writes v\(version) yet" : "; no migration reaches v\(version)"),
                typeName: typeName)
        }
    }
}
