import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The steps of an atomic replacement, which ``FileTransaction`` runs for many files at once:
/// write the new contents to a temporary file beside the target (`.NAME.UUID.tmp`, created
/// readable by its owner only), give it the target's metadata, flush it to disk; later rename
/// it over the target and flush the directory. A reader, or a crash, only ever sees the complete
/// old or the complete new file.
///
/// Messages name the file the user knows, never the temporary.
enum AtomicFile {
    /// A complete, flushed temporary file waiting to be renamed over its target.
    struct Staged: Sendable {
        /// The real path of the file it replaces or creates.
        var target: String
        var temporary: String
    }

    /// Writes `data` to a new temporary file beside `target` (a real path: no symbolic links),
    /// gives it `metadata`, flushes it.
    ///
    /// - Throws: `ArchiveError` with code `io` naming `shownAs`; no temporary is left.
    static func stage(_ data: Data, for target: String, metadata: FileMetadata, shownAs: String) throws -> Staged {
        let (directory, name) = split(target)
        let temporary = (directory == "/" ? "" : directory) + "/" + temporaryName(for: name)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ArchiveError(
                .io, "cannot write \(shownAs): cannot create a file in \(directory): \(SystemError.last)")
        }
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(
                    descriptor, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "cannot write \(shownAs): \(SystemError.last)"
                    return
                }
                offset += written
            }
        }
        if failure == nil {
            do {
                try metadata.apply(to: descriptor)
            } catch {
                failure = "cannot give the new \(shownAs) the permissions of the old one: \(error)"
            }
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = "cannot flush \(shownAs) to disk: \(SystemError.last)"
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw ArchiveError(.io, failure)
        }
        return Staged(target: target, temporary: temporary)
    }

    /// Renames a staged file over its target.
    ///
    /// - Throws: `ArchiveError` with code `io` naming `shownAs`; the temporary is removed.
    static func commit(_ staged: Staged, shownAs: String) throws {
        guard rename(staged.temporary, staged.target) == 0 else {
            let error = SystemError.last
            unlink(staged.temporary)
            throw ArchiveError(.io, "cannot move the new \(shownAs) into place: \(error)")
        }
    }

    /// Removes a staged file that will not be committed.
    static func discard(_ staged: Staged) {
        unlink(staged.temporary)
    }

    /// Flushes the directory's entries (the renames) to disk; best effort.
    static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// The folder and the name of a real path (`/a/b/c.json`: `/a/b`, `c.json`), by its text
    /// alone: `URL(fileURLWithPath:)` asks the file system whether each path is a folder, which
    /// was a third of the system calls of writing a file.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
        let name = String(path[path.index(after: slash)...])
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, name)
    }

    /// `.NAME.UUID.tmp`.
    static func temporaryName(for name: String) -> String {
        ".\(name).\(UUID().uuidString).tmp"
    }

    /// The file a temporary file named `.NAME.UUID.tmp` stands in for: `NAME`; `nil` for any
    /// other name.
    static func target(ofTemporaryName name: String) -> String? {
        let suffixLength = 1 + 36 + 4  // ".UUID.tmp"
        guard name.hasPrefix("."), name.hasSuffix(".tmp"), name.count > 1 + suffixLength else { return nil }
        let uuid = name.dropLast(4).suffix(36)
        guard name.dropLast(4).dropLast(36).hasSuffix("."), UUID(uuidString: String(uuid)) != nil else { return nil }
        return String(name.dropFirst().dropLast(suffixLength))
    }

    /// Removes the temporary files of the exact form `.NAME.UUID.tmp` for one of `names` from
    /// `directory`; returns how many. Call it only while holding the directory's lock (see
    /// ``DirectoryLocks``): then no running process owns them. A temporary file is never the
    /// only copy of anything: its target keeps its complete old contents until the rename.
    static func removeStaleTemporaries(in directory: String, for names: Set<String>) -> Int {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var removed = 0
        for entry in entries {
            guard let target = target(ofTemporaryName: entry), names.contains(target) else { continue }
            if unlink(URL(fileURLWithPath: directory).appendingPathComponent(entry).path) == 0 {
                removed += 1
            }
        }
        return removed
    }
}
