import ModelVersioning

/// The engine's options from `--document`, `--readable-by`, `--nested` and `--allow-newer`,
/// checked against the chains before any archive is read.
extension MigrationEngine.Options {
    /// The options the arguments give, with `reporting`.
    ///
    /// - Throws: `UsageError` for a `--document` or `--readable-by` the chains cannot honour.
    init(arguments: ParsedArguments, catalog: MigrationCatalog, reporting: MigrationEngine.Reporting) throws {
        self.init()
        document = arguments.value(.document)
        readableBy = arguments.value(.readableBy)
        migratesNestedArchives = arguments.flag(.nested)
        allowsNewerVersions = arguments.flag(.allowNewer)
        self.reporting = reporting
        try Self.check(document: document, against: catalog)
        try Self.check(readableBy: readableBy, against: catalog)
    }

    /// Refuses a `--document` no chain has.
    ///
    /// - Throws: `UsageError`.
    static func check(document: String?, against catalog: MigrationCatalog) throws {
        guard let document, catalog.document(named: document) == nil else { return }
        let chains = catalog.documents.map(\.name)
        throw UsageError(
            "'--document \(document)': no document chain has that name"
                + (chains.isEmpty ? "" : " (there are \(chains.joined(separator: ", ")))"))
    }

    /// Refuses a `--readable-by` release the chains do not declare.
    ///
    /// - Throws: `UsageError`.
    static func check(readableBy release: String?, against catalog: MigrationCatalog) throws {
        guard let release else { return }
        guard let releases = catalog.releases else {
            throw UsageError(
                "'--readable-by \(release)' needs the app's releases: give a rules file that declares them "
                    + "(\"releases\") with '--rules <file>'")
        }
        guard releases.release(matching: release) != nil else {
            throw UsageError(
                "'--readable-by \(release)': no release has that name or wrote that document version; the "
                    + "releases are " + releases.releases.map(\.name).joined(separator: ", "))
        }
    }
}
