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

    /// Checks every version `--to` names against the chains (``DowngradeTarget/check(against:document:)``)
    /// before any file is read: what it refuses is a usage error naming the option.
    ///
    /// - Throws: `UsageError`.
    func checkArguments(against catalog: MigrationCatalog, document: String?) throws {
        do {
            try check(against: catalog, document: document)
        } catch {
            throw UsageError(Self.option(for: error, in: self) + ": " + error.message)
        }
    }

    /// Checks that `upgrade --to` can stop the chains at the target's versions
    /// (``DowngradeTarget/truncating(_:document:)``) before any file is read: what it refuses is
    /// a usage error naming the option.
    ///
    /// - Throws: `UsageError`.
    func checkTruncation(of catalog: MigrationCatalog, document: String?) throws {
        try checkArguments(against: catalog, document: document)
        do {
            _ = try truncating(catalog, document: document)
        } catch let error as ArchiveError {
            throw UsageError(Self.option(for: error, in: self) + " " + error.message)
        }
    }

    /// `'--to Circle=9'` for an error about a type, `'--to 0'` for the document version.
    private static func option(for error: ArchiveError, in target: DowngradeTarget) -> String {
        if let name = error.typeName, let version = target.typeVersions[name] { return "'--to \(name)=\(version)'" }
        return "'--to \(target.documentVersion.map(String.init) ?? "")'"
    }
}
