import Foundation
import ModelVersioning

/// Archive files, upgraded in place from Swift exactly as `archive-migrate upgrade FILES
/// --in-place` upgrades them: the same code, the same checks, the same bytes, all or nothing.
///
/// ```swift
/// let batch = try ArchiveBatch(catalog: registry.catalog)
/// let files = ArchiveFiles(["Documents/Drawings"], include: ["*.json", "*.plist"])
/// let summary = try files.upgrade(with: batch)
/// print(summary)   // 10000 files: 9990 written, 10 already current, 0 failed
/// for failure in summary.failures { print(failure.file, failure.error) }
/// ```
///
/// Folders are walked for the files whose name matches one of ``include`` (`fnmatch` patterns;
/// one with a `/` matches the path inside the folder), without hidden files, `.bak` backups or
/// folders reached through symbolic links. Files are read and migrated a window at a time on
/// every processor, and each changed one is written to a flushed temporary file beside it with
/// the original's mode, owner and extended attributes; a symbolic link is followed and stays a
/// link. Only when every file migrated and could be written are the temporaries renamed over
/// the originals (backups first, with ``keepsBackups``): when any file fails, every original
/// stays as it was and ``Summary/written`` is zero. Files already current are not rewritten, so
/// upgrading again after an interruption finishes the batch. Another upgrade of the same
/// folders (this type's or the tool's) waits for this one.
///
/// Refused before anything is written, each a ``Failure``: a file with several hard links
/// (replacing it would leave the other names with the old contents), anything but a regular
/// file, and a `.bak` that holds anything but the file it would back up (unless
/// ``replacesBackups``).
public struct ArchiveFiles: Sendable {
    /// The files and folders, as paths (relative ones from the current directory).
    public var paths: [String]
    /// The patterns a file in a folder of ``paths`` must match (`*.json`); a folder needs one.
    public var include: [String]
    /// Whether each file replaced keeps its original beside it as `NAME.bak` (`--backup`).
    public var keepsBackups = false
    /// Whether a `.bak` that holds something else may be replaced (`--overwrite`).
    public var replacesBackups = false

    /// The archive files at `paths`, walking folders for the files that match `include`.
    public init(_ paths: [String], include: [String] = []) {
        self.paths = paths
        self.include = include
    }

    /// What an upgrade did.
    public struct Summary: Sendable, CustomStringConvertible {
        /// Files read.
        public var files = 0
        /// Files whose archive the migration changed.
        public var changed = 0
        /// Files (and backups) moved into place; zero when any file failed.
        public var written = 0
        /// Files that failed, in path order, with the error of each, located in its file.
        public var failures: [Failure] = []
        /// Temporary files of interrupted runs removed.
        public var removedTemporaries = 0

        /// `12 files: 3 written, 8 already current, 1 failed`.
        public var description: String {
            "\(files) files: \(written) written, \(files - changed - failures.count) already current, "
                + "\(failures.count) failed"
        }
    }

    /// A file that failed to migrate or could not be written.
    public struct Failure: Sendable {
        /// The file, as ``ArchiveFiles/paths`` names it (`Drawings/a.json`).
        public var file: String
        /// Why.
        public var error: ArchiveError
    }

    /// Upgrades every file through `batch`'s ``ArchiveBatch/engine``, in place, as described
    /// above.
    ///
    /// - Returns: What was read, written and failed.
    /// - Throws: `ArchiveError` before any file is read (a missing file, a folder without
    ///   ``include`` or where nothing matches, a file given twice; code `io` or
    ///   `invalidValue`), or when moving the new files into place fails (code `io`; the files
    ///   already moved are named, and upgrading again finishes the others).
    public func upgrade(with batch: ArchiveBatch) throws -> Summary {
        try run(batch.engine, dryRun: false)
    }

    /// What ``upgrade(with:)`` would do, checking every file it would write but writing none
    /// (`--dry-run`): ``Summary/written`` is zero.
    public func upgradePreview(with batch: ArchiveBatch) throws -> Summary {
        try run(batch.engine, dryRun: true)
    }

    private func run(_ engine: MigrationEngine, dryRun: Bool) throws -> Summary {
        let context = ToolContext.library
        let processor = BatchProcessor(
            context: context, destination: .inPlace(backup: keepsBackups), dryRun: dryRun,
            overwrite: replacesBackups, include: include, engineOptions: engine.options)
        var summary = Summary()
        do {
            let inputs = try InputFile.expand(paths, include: include, context: context)
            let tally = try processor.migrateFiles(inputs, engine: engine, notice: { _ in }) { entry in
                summary.files += 1
                if let error = entry.error {
                    summary.failures.append(Failure(file: entry.name, error: error))
                } else if entry.changed {
                    summary.changed += 1
                }
            }
            if let failure = tally.commitFailure {
                var error = failure.error
                if let plan = tally.plan, !failure.replaced.isEmpty {
                    error.message +=
                        "; already replaced: "
                        + failure.replaced.map { plan.entries[$0].shownAs }.joined(separator: ", ")
                }
                throw error
            }
            summary.written = tally.written
            summary.removedTemporaries = tally.removedTemporaries
        } catch let error as UsageError {
            throw ArchiveError(.invalidValue, error.message)
        }
        return summary
    }
}
