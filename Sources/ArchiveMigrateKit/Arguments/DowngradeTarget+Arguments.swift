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

    /// Checks every version `--to` names against the chains: a type or document the chains do
    /// not have, or a version outside the versions a chain goes through (`--to 0` where the
    /// document goes from v1 to v3), is a usage error before any file is read. A document version
    /// with no `--document` is checked when the chains have only one document.
    ///
    /// - Throws: `UsageError`.
    func check(against catalog: MigrationCatalog, document: String?) throws {
        for (name, version) in typeVersions.sorted(by: { $0.key < $1.key }) {
            guard let chain = catalog.types.first(where: { $0.allNames.contains(name) }) else {
                throw UsageError("'--to \(name)=\(version)': no chain has the type \(name)")
            }
            try Self.check(
                version, "'--to \(name)=\(version)'", chain.typeName, chain.oldestVersion, chain.currentVersion)
        }
        if let version = documentVersion, let chain = Self.documentChain(catalog, named: document) {
            let oldest = chain.steps.map(\.from).min() ?? chain.currentVersion
            try Self.check(version, "'--to \(version)'", "the document \(chain.name)", oldest, chain.currentVersion)
        }
    }

    /// `catalog` with the named chains ending at the target versions, for upgrades that stop
    /// short of today's versions.
    ///
    /// - Throws: `UsageError` for a version ``check(against:document:)`` refuses, or a document
    ///   version when the chains have several documents and `document` names none.
    func truncating(_ catalog: MigrationCatalog, document: String?) throws -> MigrationCatalog {
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
                throw UsageError(
                    "'--to \(version)' needs a document chain; name it with --document (the rules have "
                        + "\(documents.map(\.name).joined(separator: ", ")))")
            }
            documents[index].currentVersion = version
            documents[index].steps = documents[index].steps.filter { $0.to <= version }
        }
        return try MigrationCatalog(types: types, documents: documents)
    }

    /// The document chain `--document` names, or the only one.
    private static func documentChain(_ catalog: MigrationCatalog, named name: String?) -> DocumentMigrations? {
        if let name { return catalog.documents.first { $0.name == name } }
        return catalog.documents.count == 1 ? catalog.documents.first : nil
    }

    private static func check(_ version: Int, _ option: String, _ subject: String, _ oldest: Int, _ current: Int) throws
    {
        guard version >= oldest, version <= current else {
            throw UsageError(
                "\(option): \(subject) goes from v\(oldest) to v\(current)"
                    + (version > current ? "; nothing writes v\(version) yet" : "; no migration reaches v\(version)"))
        }
    }
}
