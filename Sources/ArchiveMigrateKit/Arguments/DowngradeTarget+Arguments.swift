import ModelVersioning

/// The versions `--to` names on `upgrade` and `downgrade`: a document version (`--to 3`) and
/// type versions (`--to Circle=2`, repeatable).
extension DowngradeTarget {
    /// Parses the values of every `--to`.
    init(arguments values: [String]) throws {
        self.init()
        for value in values {
            if let equals = value.firstIndex(of: "=") {
                let name = String(value[..<equals])
                guard !name.isEmpty, let version = Int(value[value.index(after: equals)...]), version >= 0 else {
                    throw UsageError("'--to \(value)' must be VERSION or TYPE=VERSION")
                }
                typeVersions[name] = version
            } else {
                guard let version = Int(value), version >= 0 else {
                    throw UsageError("'--to \(value)' must be VERSION or TYPE=VERSION")
                }
                guard documentVersion == nil else { throw UsageError("'--to' gives two document versions") }
                documentVersion = version
            }
        }
    }

    /// Whether `--to` named nothing.
    var isEmpty: Bool { documentVersion == nil && typeVersions.isEmpty }

    /// `catalog` with the named chains ending at the target versions, for upgrades that stop
    /// short of today's versions.
    func truncating(_ catalog: MigrationCatalog, document: String?) throws -> MigrationCatalog {
        var types = catalog.types
        for (name, version) in typeVersions {
            guard let index = types.firstIndex(where: { $0.allNames.contains(name) }) else {
                throw ArchiveError(.unknownType, "'--to \(name)=\(version)': no chain has the type \(name)")
            }
            guard version <= types[index].currentVersion, version >= types[index].oldestVersion else {
                throw ArchiveError(
                    .missingMigration,
                    "'--to \(name)=\(version)': \(types[index].typeName) goes from v\(types[index].oldestVersion) "
                        + "to v\(types[index].currentVersion)")
            }
            types[index].currentVersion = version
            types[index].steps = types[index].steps.filter { $0.to <= version }
        }
        var documents = catalog.documents
        if let version = documentVersion {
            let chosen = document.flatMap { name in documents.firstIndex { $0.name == name } }
            guard let index = chosen ?? (documents.count == 1 ? 0 : nil) else {
                throw ArchiveError(
                    .unknownType,
                    "'--to \(version)' needs a document chain; name it with --document (the rules have "
                        + "\(documents.map(\.name).joined(separator: ", ")))")
            }
            guard version <= documents[index].currentVersion else {
                throw ArchiveError(
                    .missingMigration,
                    "'--to \(version)': the document \(documents[index].name) is at v\(documents[index].currentVersion)"
                )
            }
            documents[index].currentVersion = version
            documents[index].steps = documents[index].steps.filter { $0.to <= version }
        }
        return try MigrationCatalog(types: types, documents: documents)
    }
}
