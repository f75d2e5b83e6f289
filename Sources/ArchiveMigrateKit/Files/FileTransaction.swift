import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one way the tool writes files — upgrades and downgrades in place or into a folder, their
/// backups, `convert -o`, `check --junit` — all or nothing.
///
/// 1. Opening it creates the output folders a ``WritePlan`` needs and locks every directory it
///    writes into (``DirectoryLocks``): from then on no other run of the tool writes there.
/// 2. ``stage(_:entry:)`` (or ``commit(_:keeping:)`` for all at once) writes every new file to a
///    temporary beside its target as soon as its bytes are known, with the target's metadata (``FileMetadata``: mode, owner and group, extended attributes; a
///    backup gets the original's), and flushes it. A failure here (a full disk, a file size
///    limit) removes every temporary: every original stays as it was.
/// 3. Then it renames the temporaries into place, backups first, so that a file is never
///    replaced before its backup is complete, and flushes the directories.
/// 4. Last, still holding the locks, it removes the temporaries interrupted runs left for the
///    plan's files: none of them can belong to a running process.
///
/// ``finish()`` releases the locks and, when nothing was written, removes the folders it made.
final class FileTransaction {
    /// Why ``commit(_:keeping:)`` stopped.
    struct Failure: Error {
        /// The entry that could not be written.
        var entry: Int
        var error: ArchiveError
        /// The entries already renamed into place (empty unless a rename failed, which on a
        /// local file system only a vanished folder or a failing disk causes).
        var replaced: [Int]
    }

    let plan: WritePlan
    private let locks: DirectoryLocks
    private var createdDirectories: [String] = []
    /// Files written to their temporaries and not yet moved into place, in the order staged.
    private var staged: [(entry: Int, file: AtomicFile.Staged)] = []
    private var wroteAnything = false

    /// Creates the plan's missing folders and locks the directories it writes into; `notice`
    /// is told when the run must wait for another.
    init(plan: WritePlan, tool: String, notice: (String) -> Void) throws {
        self.plan = plan
        var created: [String] = []
        for directory in plan.missingDirectories {
            guard mkdir(directory, 0o777) == 0 || errno == EEXIST else {
                let error = SystemError.last
                for made in created.reversed() { rmdir(made) }
                throw ArchiveError(.io, "cannot create the folder \(directory): \(error)")
            }
            created.append(directory)
        }
        createdDirectories = created
        locks = DirectoryLocks(plan.directories) { directory in
            notice("waiting for another \(tool) run writing in \(directory)")
        }
    }

    deinit {
        finish()
    }

    /// Writes `contents` (bytes by entry index; entries in `keeping` are left as they are) and
    /// removes stale temporaries; returns how many it removed.
    func commit(_ contents: [Int: Data], keeping: Set<Int> = []) throws(Failure) -> Int {
        for (index, data) in contents.sorted(by: { $0.key < $1.key }) where !keeping.contains(index) {
            try stage(data, entry: index)
        }
        return try commitStaged()
    }

    /// Writes `data` for one entry to its flushed temporary file, to be moved into place by
    /// ``commitStaged()``: a batch stages each file as soon as it has its bytes and keeps none of
    /// them in memory. A failure removes every temporary staged so far.
    func stage(_ data: Data, entry index: Int) throws(Failure) {
        do {
            adopt(try Self.prepare(data, entry: index, plan: plan), entry: index)
        } catch {
            discardStaged()
            throw Failure(entry: index, error: error, replaced: [])
        }
    }

    /// Writes `data` for one entry of `plan` to its flushed temporary file without staging it:
    /// reading only the plan, it runs on any thread, so that a batch writes its files on every
    /// processor. Hand the result to ``adopt(_:entry:)``, or ``AtomicFile/discard(_:)`` it.
    ///
    /// - Throws: `ArchiveError` with code `io` naming the entry; no temporary is left.
    static func prepare(_ data: Data, entry index: Int, plan: WritePlan) throws(ArchiveError) -> AtomicFile.Staged {
        let entry = plan.entries[index]
        do {
            return try AtomicFile.stage(
                data, for: entry.resolved, metadata: try metadata(for: entry, in: plan), shownAs: entry.shownAs)
        } catch {
            throw archiveError(error, entry: entry)
        }
    }

    /// Stages a file ``prepare(_:entry:plan:)`` wrote, to be moved into place by
    /// ``commitStaged()`` (or removed by ``discardStaged()``).
    func adopt(_ file: AtomicFile.Staged, entry index: Int) {
        staged.append((index, file))
    }

    /// Removes every staged temporary: the originals stay as they are.
    func discardStaged() {
        for earlier in staged { AtomicFile.discard(earlier.file) }
        staged = []
    }

    /// Moves every staged file into place (backups first), flushes the directories and removes
    /// stale temporaries; returns how many it removed.
    func commitStaged() throws(Failure) -> Int {
        defer { staged = [] }
        let ordered =
            staged.filter { plan.entries[$0.entry].isBackup } + staged.filter { !plan.entries[$0.entry].isBackup }
        var replaced: [Int] = []
        for (position, item) in ordered.enumerated() {
            do {
                try AtomicFile.commit(item.file, shownAs: plan.entries[item.entry].shownAs)
                replaced.append(item.entry)
                wroteAnything = true
            } catch {
                for later in ordered[(position + 1)...] { AtomicFile.discard(later.file) }
                throw Failure(
                    entry: item.entry, error: Self.archiveError(error, entry: plan.entries[item.entry]),
                    replaced: replaced)
            }
        }
        for directory in Set(ordered.map { plan.entries[$0.entry].directory }).sorted() {
            AtomicFile.syncDirectory(directory)
        }
        var removed = 0
        for directory in plan.directories where locks.held.contains(directory) {
            removed += AtomicFile.removeStaleTemporaries(in: directory, for: plan.names(in: directory))
        }
        return removed
    }

    /// Removes what is still staged, releases the locks, and removes the folders it created when
    /// nothing was written into them.
    func finish() {
        discardStaged()
        locks.release()
        if !wroteAnything {
            for directory in createdDirectories.reversed() { rmdir(directory) }
        }
        createdDirectories = []
    }

    /// What the new file at `entry` carries: a backup the original's metadata; a file that
    /// replaces another that file's; a new file the permission bits of its input.
    private static func metadata(for entry: WritePlan.Entry, in plan: WritePlan) throws -> FileMetadata {
        var source = entry
        if case .backup(let original) = entry.role { source = plan.entries[original] }
        do {
            return try FileMetadata.of(fileAt: source.resolved)
        } catch  where error.code == ENOENT && !entry.isBackup {
            let permissions = entry.permissionsFrom.flatMap { try? FileStatus.of($0.path).permissions } ?? 0o666
            return .newFile(permissions: permissions)
        } catch {
            throw ArchiveError(.io, "cannot read the permissions of \(source.shownAs): \(error)")
        }
    }

    private static func archiveError(_ error: any Error, entry: WritePlan.Entry) -> ArchiveError {
        (error as? ArchiveError) ?? ArchiveError(.io, "cannot write \(entry.shownAs)", underlyingError: error)
    }
}

extension FileTransaction {
    /// Writes one file the user named (`convert -o FILE`, `check --junit FILE`) through a
    /// transaction: replaced atomically when it exists, keeping its metadata; a new file gets
    /// the permission bits of `permissionsFrom`, or the usual ones less the umask.
    ///
    /// - Throws: `ArchiveError` with code `io` naming `shownAs`; the file is then unchanged.
    static func write(
        _ data: Data, to url: URL, shownAs: String, permissionsFrom: URL? = nil, context: ToolContext
    ) throws {
        let plan = try WritePlan(
            [WritePlan.Entry(url: url, shownAs: shownAs, role: .named, permissionsFrom: permissionsFrom)],
            overwrite: true)
        let transaction = try FileTransaction(plan: plan, tool: context.tool) { context.console.error($0) }
        defer { transaction.finish() }
        if let problem = plan.check([0: data]).problems[0] { throw problem }
        do {
            _ = try transaction.commit([0: data])
        } catch {
            throw error.error
        }
    }
}
