import ModelVersioning

/// `--readable-by RELEASE`: the older release that must still read what a command writes, whose
/// way down (`WayDown`) is written into every archive's envelope after it is migrated.
struct ReadableBy: Sendable {
    let release: String
    let catalog: MigrationCatalog

    /// The option's release, checked against the catalog's releases before any file is read;
    /// `nil` without the option.
    ///
    /// - Throws: `UsageError` when the rules declare no releases or no such release.
    init?(_ arguments: ParsedArguments, catalog: MigrationCatalog) throws {
        guard let release = arguments.value(.readableBy) else { return nil }
        guard let releases = catalog.releases else {
            throw UsageError(
                "'--readable-by \(release)' needs the app's releases: give a rules file that declares them "
                    + "(\"releases\") with '--rules <file>'")
        }
        guard releases.release(matching: release) != nil else {
            throw UsageError(
                "'--readable-by \(release)': no release has that name or wrote that document version; the releases are "
                    + releases.releases.map(\.name).joined(separator: ", "))
        }
        self.release = release
        self.catalog = catalog
    }

    /// Writes the way down into `tree` (or removes a stale one when nothing in it is newer than
    /// the release).
    func write(into tree: inout ArchiveValue) throws {
        try catalog.writeWayDown(toRelease: release, into: &tree)
    }
}
