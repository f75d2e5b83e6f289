import Foundation

extension MigrationEngine {
    /// What the engine did to one archive.
    public struct Outcome: Sendable {
        /// The archive's format, which it is written back in.
        public var format: ArchiveFormat
        /// What the migration did to the archive's own tree, as much as ``Options/reporting``
        /// asks; `nil` with `.none`, and when only archives nested in it were migrated (a plain
        /// container with ``Options/migratesNestedArchives``).
        public var report: MigrationReport? {
            get { reportBox?.report }
            set { reportBox = newValue.map(ReportBox.init) }
        }
        /// The report, out of line: an outcome goes from thread to thread and into a batch's
        /// report, and a report held inline made every copy of it a few hundred bytes and a dozen
        /// reference counts.
        private var reportBox: ReportBox?
        /// What the migration did to each archive nested in it (``Options/migratesNestedArchives``).
        public var nested: [NestedArchiveMigration] = []
        /// Whether anything changed: the archive's tree (its objects, its document version, the
        /// way down it carries) or an archive nested in it.
        public var changed = false
        /// The archive's new bytes when it changed (or, asked for, when it did not: `migrate`'s
        /// `writingUnchanged`); `nil` when it is already as the operation leaves it: write
        /// nothing back.
        public var data: Data?
        /// How the document chain was chosen, when the archive's own tree was migrated; its
        /// `DocumentChoice.note(for:)` says when a plain document took the only chain.
        public var documentChoice: DocumentChoice?
        /// Whether the JSON text was rewritten without a tree (its old objects only moved keys;
        /// see <doc:FastPaths>). The bytes are the ones the tree gives.
        public var rewroteText: Bool

        /// The outcome of an archive whose text was rewritten
        /// (``MigrationEngine/rewriteText(_:)``): changed or not, its new
        /// bytes when they are written.
        package init(rewrittenText changed: Bool, data: Data? = nil) {
            self.init(format: .json, rewroteText: true, changed: changed, data: data)
        }

        /// An outcome that changed nothing yet.
        init(format: ArchiveFormat, rewroteText: Bool, changed: Bool = false, data: Data? = nil) {
            self.format = format
            self.rewroteText = rewroteText
            self.changed = changed
            self.data = data
        }
    }

    /// A report, held by reference (``Outcome/report``).
    private final class ReportBox: Sendable {
        let report: MigrationReport
        init(_ report: MigrationReport) { self.report = report }
    }
}
