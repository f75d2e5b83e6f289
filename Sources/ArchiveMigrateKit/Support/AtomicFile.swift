import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces files so that a reader (or a crash) only ever sees the complete old or the complete
/// new contents: write a temporary file beside the target, flush it to disk, rename it over the
/// target, flush the directory.
enum AtomicFile {
    /// Writes `data` to `url` atomically; with `backup`, first keeps the old contents at
    /// `<url>.bak` (written the same way).
    ///
    /// - Throws: `ArchiveError` with code `io` naming the file; the target is then unchanged.
    static func replace(_ url: URL, with data: Data, backup: Bool = false) throws {
        if backup {
            let original: Data
            do {
                original = try Data(contentsOf: url)
            } catch {
                throw ArchiveError(.io, "cannot read \(url.path) to back it up", underlyingError: error)
            }
            try write(original, to: url.appendingPathExtension("bak"))
        }
        try write(data, to: url)
    }

    /// Writes `data` to `url` through a temporary file, `fsync` and `rename`.
    static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw ArchiveError(.io, "cannot create a temporary file in \(directory.path): \(errnoText())")
        }
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(
                    descriptor, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "cannot write \(temporary.path): \(errnoText())"
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = "cannot flush \(temporary.path) to disk: \(errnoText())"
        }
        close(descriptor)
        if failure == nil, rename(temporary.path, url.path) != 0 {
            failure = "cannot move the new \(url.lastPathComponent) into place: \(errnoText())"
        }
        if let failure {
            unlink(temporary.path)
            throw ArchiveError(.io, failure + "; \(url.path) is unchanged")
        }
        syncDirectory(directory)
    }

    /// The file a temporary file named `.NAME.UUID.tmp` (as ``write(_:to:)`` names them) is
    /// for: `NAME`; `nil` for any other name.
    static func target(ofTemporaryName name: String) -> String? {
        let suffixLength = 1 + 36 + 4  // ".UUID.tmp"
        guard name.hasPrefix("."), name.hasSuffix(".tmp"), name.count > 1 + suffixLength else { return nil }
        let uuid = name.dropLast(4).suffix(36)
        guard name.dropLast(4).dropLast(36).hasSuffix("."), UUID(uuidString: String(uuid)) != nil else { return nil }
        return String(name.dropFirst().dropLast(suffixLength))
    }

    /// Removes the temporary files an interrupted ``write(_:to:)`` (or ``replace(_:with:backup:)``)
    /// left beside `urls` (and beside their `.bak` files); returns how many. Only names of the
    /// exact form `.NAME.UUID.tmp`, for one of those files, are touched. A temporary file is never
    /// the only copy of anything: its target keeps its complete old contents until the rename.
    static func removeStaleTemporaries(for urls: [URL]) -> Int {
        var removed = 0
        let byDirectory = Dictionary(grouping: urls) { $0.deletingLastPathComponent().path }
        for (directory, targets) in byDirectory {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            let files = Set(targets.flatMap { [$0.lastPathComponent, $0.lastPathComponent + ".bak"] })
            for name in names {
                guard let target = target(ofTemporaryName: name), files.contains(target) else { continue }
                if unlink(URL(fileURLWithPath: directory).appendingPathComponent(name).path) == 0 {
                    removed += 1
                }
            }
        }
        return removed
    }

    /// Flushes a directory entry change (the rename) to disk; best effort.
    private static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
