import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files a run may write, with where their bytes really go, checked before anything is
/// written. Reading only: ``FileTransaction`` does the writing, and `--dry-run` makes the same
/// checks without it.
///
/// - A symbolic link is followed: the file it points to is replaced and the link stays a link.
/// - Two files that would land on one file (two inputs named `x.json` written into one folder,
///   a file given twice, a link and its target, a backup that is also an input) are refused
///   when the plan is made.
/// - ``check(_:)`` refuses, per file: replacing a file with several hard links (the other names
///   would silently keep the old contents), anything but a regular file, an output the folder
///   already has (unless `--overwrite`), and a `.bak` that holds anything but the file it would
///   back up (unless `--overwrite`); a `.bak` that already holds exactly that is kept.
struct WritePlan: Sendable {
    /// One file a run may write.
    struct Entry: Sendable {
        /// Why the file is written, which decides what may already be there.
        enum Role: Sendable, Hashable {
            /// An input, replaced in place.
            case replacement
            /// The backup (`<file>.bak`) of the entry at this index.
            case backup(of: Int)
            /// A file the tool names in the `--output` folder: refused when it exists, unless
            /// `--overwrite`.
            case output(of: String)
            /// A file the user named (`convert -o FILE`, `check --junit FILE`): replaced when it
            /// exists.
            case named
        }

        var url: URL
        /// The path as the user knows it, for messages.
        var shownAs: String
        var role: Role
        /// For a new file: the input whose permission bits it gets (less the umask).
        var permissionsFrom: URL?
        /// Where the bytes go: the real path, symbolic links followed.
        var resolved: String = ""

        init(url: URL, shownAs: String, role: Role, permissionsFrom: URL? = nil) {
            self.url = url
            self.shownAs = shownAs
            self.role = role
            self.permissionsFrom = permissionsFrom
        }

        var isBackup: Bool {
            if case .backup = role { return true }
            return false
        }

        /// The real directory the file is written into.
        var directory: String { AtomicFile.split(resolved).directory }
    }

    /// What ``check(_:)`` found.
    struct Check: Sendable {
        /// The reason each refused entry cannot be written, by entry index.
        var problems: [Int: ArchiveError] = [:]
        /// Backups that already hold exactly the contents they would be given: left as they are.
        var alreadyInPlace: Set<Int> = []
    }

    private(set) var entries: [Entry]
    /// Whether existing outputs and backups that differ may be replaced (`--overwrite`).
    let overwrite: Bool
    /// The folders to create for outputs, outermost first.
    private(set) var missingDirectories: [String] = []

    /// Resolves every entry's path and refuses two entries that land on one file.
    ///
    /// - Throws: `UsageError` for two entries on one file; `ArchiveError` with code `io` for a
    ///   path that cannot be written (a symbolic link to nothing, a missing folder for a file the
    ///   user named).
    init(_ entries: [Entry], overwrite: Bool) throws {
        self.entries = entries
        self.overwrite = overwrite
        var missing: [String] = []
        for index in self.entries.indices {
            let entry = self.entries[index]
            var createsFolders = false
            if case .output = entry.role { createsFolders = true }
            self.entries[index].resolved = try Self.resolve(
                entry.url.path, shownAs: entry.shownAs, createsFolders: createsFolders, missing: &missing)
        }
        var seen: Set<String> = []
        missingDirectories = missing.filter { seen.insert($0).inserted }
        try refuseCollisions()
    }

    /// The real directories the entries are written into, sorted.
    var directories: [String] {
        Set(entries.map(\.directory)).sorted()
    }

    /// The names of the entries written into `directory` (to find their stale temporaries).
    func names(in directory: String) -> Set<String> {
        Set(entries.filter { $0.directory == directory }.map { AtomicFile.split($0.resolved).name })
    }

    /// Checks writing `contents` (bytes by entry index) against what is on disk now, changing
    /// nothing.
    func check(_ contents: [Int: Data]) -> Check {
        var result = Check()
        for (index, data) in contents.sorted(by: { $0.key < $1.key }) {
            let entry = entries[index]
            let status: FileStatus
            do {
                status = try FileStatus.of(entry.resolved, followingLinks: false)
            } catch {
                if error.code == ENOENT, entry.role != .replacement { continue }
                result.problems[index] = ArchiveError(.io, "cannot write \(entry.shownAs): \(error)")
                continue
            }
            guard status.kind == .regular else {
                result.problems[index] = ArchiveError(
                    .io, "\(entry.shownAs) exists and is \(status.kind.phrase), not a file it can replace")
                continue
            }
            switch entry.role {
            case .backup(let original):
                if Self.contents(of: entry.resolved, are: data, size: status.size) {
                    result.alreadyInPlace.insert(index)
                    continue
                }
                guard overwrite else {
                    result.problems[index] = ArchiveError(
                        .io,
                        "\(entry.shownAs) already exists and is not a copy of \(entries[original].shownAs) as it is "
                            + "now (move it away, or give --overwrite to replace it)")
                    continue
                }
            case .output:
                guard overwrite else {
                    result.problems[index] = ArchiveError(
                        .io, "\(entry.shownAs) already exists (give --overwrite to replace it)")
                    continue
                }
            case .replacement, .named:
                break
            }
            if status.linkCount > 1 {
                result.problems[index] = ArchiveError(
                    .io,
                    "\(entry.shownAs) has \(status.linkCount) hard links: replacing it would leave the other names "
                        + "with the old contents (give it a name of its own first: cp -p FILE FILE.new && mv FILE.new "
                        + "FILE)")
            }
        }
        return result
    }

    // MARK: Resolving

    /// The real path writing `path` puts bytes at: the file a symbolic link points to, the real
    /// folder of a file that does not exist yet. Folders that do not exist are added to `missing`
    /// (outermost first) when `createsFolders`, refused otherwise.
    private static func resolve(
        _ path: String, shownAs: String, createsFolders: Bool, missing: inout [String]
    ) throws -> String {
        if let real = realPath(path) { return real }
        let error = SystemError.last
        if (try? FileStatus.of(path, followingLinks: false)) != nil {
            // It is there, but cannot be followed: a symbolic link to nothing, or a loop.
            throw ArchiveError(.io, "cannot write \(shownAs): it is a symbolic link to a missing file (\(error))")
        }
        guard error.code == ENOENT else { throw ArchiveError(.io, "cannot write \(shownAs): \(error)") }
        let url = URL(fileURLWithPath: path)
        let parent = url.deletingLastPathComponent().path
        guard parent != path, !parent.isEmpty else { throw ArchiveError(.io, "cannot write \(shownAs): \(error)") }
        let parentExists = realPath(parent) != nil
        guard parentExists || createsFolders else {
            throw ArchiveError(.io, "cannot write \(shownAs): the folder \(parent) does not exist")
        }
        let realParent = try resolve(parent, shownAs: parent, createsFolders: createsFolders, missing: &missing)
        if !parentExists { missing.append(realParent) }
        return URL(fileURLWithPath: realParent).appendingPathComponent(url.lastPathComponent).path
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private func refuseCollisions() throws {
        var byTarget: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            guard let earlier = byTarget[entry.resolved] else {
                byTarget[entry.resolved] = index
                continue
            }
            let first = entries[earlier]
            if first.role == .replacement, entry.role == .replacement {
                throw UsageError(
                    "\(first.shownAs) and \(entry.shownAs) are one file; give each file once (nothing was written)")
            }
            if case .output(let a) = first.role, case .output(let b) = entry.role {
                throw UsageError(
                    "\(a) and \(b) would both be written to \(entry.shownAs); nothing was written (give them "
                        + "different names, or walk their folder with --include to keep their relative paths)")
            }
            throw UsageError(
                "\(describe(first)) and \(describe(entry)) would both be \(entry.resolved); nothing was written")
        }
    }

    private func describe(_ entry: Entry) -> String {
        switch entry.role {
        case .replacement: return "the input \(entry.shownAs)"
        case .backup(let original): return "the backup of \(entries[original].shownAs)"
        case .output(let input): return "the output of \(input)"
        case .named: return entry.shownAs
        }
    }

    /// Whether the file at `path` holds exactly `data`.
    private static func contents(of path: String, are data: Data, size: Int) -> Bool {
        guard size == data.count, let existing = FileManager.default.contents(atPath: path) else { return false }
        return existing == data
    }
}
