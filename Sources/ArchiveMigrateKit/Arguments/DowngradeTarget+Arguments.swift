import ModelVersioning

/// The versions `--to` names on `upgrade` and `downgrade`: a document version (`--to 3`) and
/// type versions (`--to Circle=2`, repeatable).
extension DowngradeTarget {
    /// Parses the values of every `--to`: type versions (`Circle=2`) and at most one release, by
    /// name or by the document version it wrote (resolved against `catalog`'s releases; without
    /// releases a document version needs every type's version, which the pass checks).
    init(arguments values: [String], catalog: MigrationCatalog? = nil, droppingAbsentTypes: Bool = false) throws {
        self.init()
        var release: AppRelease?
        for value in values {
            if let equals = value.firstIndex(of: "=") {
                let name = String(value[..<equals])
                guard !name.isEmpty, let version = Int(value[value.index(after: equals)...]), version >= 0 else {
                    throw UsageError("'--to \(value)' must be RELEASE, DOCUMENT-VERSION or TYPE=VERSION")
                }
                typeVersions[name] = version
                continue
            }
            guard documentVersion == nil, release == nil else {
                throw UsageError("'--to' names two releases or document versions")
            }
            if let releases = catalog?.releases {
                guard let found = releases.release(matching: value) else {
                    throw UsageError(
                        "'--to \(value)': no release is named \(value) or wrote document v\(value); the releases are "
                            + releases.releases.map { release in
                                release.name + (release.documentVersion.map { " (document v\($0))" } ?? "")
                            }.joined(separator: ", "))
                }
                release = found
            } else {
                guard let version = Int(value), version >= 0 else {
                    throw UsageError(
                        "'--to \(value)' names a release, but the rules declare no releases; give a document version "
                            + "and TYPE=VERSION for every type")
                }
                documentVersion = version
            }
        }
        if let release {
            let explicit = typeVersions
            self = DowngradeTarget(release: release, droppingAbsentTypes: droppingAbsentTypes)
            for (name, version) in explicit where typeVersions[name] != version {
                throw UsageError(
                    "'--to \(name)=\(version)' contradicts release \(release.name), which archived \(name) at "
                        + (release.types[name]?.description ?? "no version"))
            }
        } else {
            dropsAbsentTypes = droppingAbsentTypes
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
