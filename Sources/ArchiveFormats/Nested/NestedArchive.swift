import Foundation

/// An archive kept as a data value inside another document: a keyed archive or property list in
/// a property list's `<data>` (a UserDefaults domain, a Terminal profile's colours and fonts), or
/// JSON an app encoded into `Data`.
///
/// ```swift
/// let defaults = try ArchiveDocument(data: Data(contentsOf: preferencesURL))
/// for nested in try defaults.nestedArchives() {
///     print(nested.path, nested.document.format)      // DefaultStyle keyed-archive
/// }
/// ```
///
/// A data value is taken for an archive when its bytes start like one (``ArchiveFormat/detect(_:)``)
/// and read as a dictionary or an array. Bytes that start like a property list (`bplist`, `<?xml`,
/// `<plist`) but do not read are an error, since they are damaged archives; bytes that merely
/// start with `{` or `[` and do not read as JSON are data like any other and are left alone.
///
/// A nested archive's own nesting counts towards `ArchiveLimits.maxDepth`: it is read with the
/// depth that is left below its data value, so archives nested in archives stop at that limit
/// like any other nesting.
public struct NestedArchive: Sendable {
    /// Where the data value is in the tree of the document that holds it.
    public var path: ArchivePath
    /// The nested archive, read with its format, markup and layout.
    public var document: ArchiveDocument
    /// The archives nested in this one in turn, with paths in its own tree.
    public var nested: [NestedArchive]

    /// Creates a nested archive.
    public init(path: ArchivePath, document: ArchiveDocument, nested: [NestedArchive] = []) {
        self.path = path
        self.document = document
        self.nested = nested
    }
}

/// What ``ArchiveDocument/migrateNestedArchives(options:_:)`` did to one nested archive.
public struct NestedArchiveMigration: Sendable {
    /// Where the archive is: its data value's path in the outer document, then, for an archive
    /// nested in a nested archive, its path in that archive, and so on.
    public var location: [ArchivePath]
    /// The nested archive's format, which it was written back in.
    public var format: ArchiveFormat
    /// What the migration did to the nested archive's own tree.
    public var report: MigrationReport
    /// Whether its bytes were replaced: its migration changed its tree, or an archive nested in
    /// it changed.
    public var changed: Bool

    /// Creates a record.
    public init(location: [ArchivePath], format: ArchiveFormat, report: MigrationReport, changed: Bool) {
        self.location = location
        self.format = format
        self.report = report
        self.changed = changed
    }

    /// The location as one line: `Window Settings.Font » root.name` for an archive nested in a
    /// nested archive.
    public var locationDescription: String {
        location.map { $0.isRoot ? "(root)" : $0.description }.joined(separator: " » ")
    }
}
