import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One file a command reads, as the user named it or as a folder walk found it.
struct InputFile: Sendable, Hashable {
    /// The path as shown in reports (`data/v1/a.json`).
    var path: String
    var url: URL
    /// Where its output goes under `--output`: its path inside the folder that was walked, or
    /// its file name when it was named itself.
    var relativePath: String

    /// Reads the whole file at `url`, refusing anything but a regular file — a directory, a
    /// FIFO (which would block), a device, a socket — with a message that says what it is.
    ///
    /// - Throws: `ArchiveError` with code `io` (or `limitExceeded` for a file larger than
    ///   `limit`) whose message names `shownAs`.
    static func read(_ url: URL, shownAs: String, limit: Int) throws -> Data {
        let path = url.path
        let status: FileStatus
        do {
            status = try FileStatus.of(path)
        } catch {
            throw missing(path, shownAs: shownAs, error: error)
        }
        try refuseUnreadable(status, shownAs: shownAs, limit: limit)
        // O_NONBLOCK: should a FIFO take the file's place meanwhile, fstat below says so instead
        // of the read waiting for a writer.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw missing(path, shownAs: shownAs, error: SystemError.last) }
        defer { close(descriptor) }
        do {
            try refuseUnreadable(try FileStatus.of(descriptor: descriptor), shownAs: shownAs, limit: limit)
        } catch let error as SystemError {
            throw ArchiveError(.io, "cannot read \(shownAs): \(error)")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ArchiveError(.io, "cannot read \(shownAs): \(SystemError.last)")
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if data.count > limit {
                throw ArchiveError.limitExceeded(.inputBytes, "\(shownAs) has more than the limit of \(limit) bytes")
            }
        }
        return data
    }

    /// How messages name standard input, given as `-`.
    static let standardInputName = "standard input"

    /// Reads standard input to its end (`-` on the command line).
    ///
    /// - Throws: `ArchiveError` with code `io`, or `limitExceeded` past `limit` bytes (read no
    ///   further).
    static func readStandardInput(limit: Int) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(0, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ArchiveError(.io, "cannot read \(standardInputName): \(SystemError.last)")
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if data.count > limit {
                throw ArchiveError.limitExceeded(
                    .inputBytes, "\(standardInputName) has more than the limit of \(limit) bytes")
            }
        }
        return data
    }

    private static func refuseUnreadable(_ status: FileStatus, shownAs: String, limit: Int) throws {
        switch status.kind {
        case .regular: break
        case .directory: throw ArchiveError(.io, "\(shownAs) is a directory")
        default: throw ArchiveError(.io, "\(shownAs) is \(status.kind.phrase), not a file")
        }
        if status.size > limit {
            throw ArchiveError.limitExceeded(
                .inputBytes, "\(shownAs) has \(status.size) bytes, more than the limit of \(limit)")
        }
    }

    private static func missing(_ path: String, shownAs: String, error: SystemError) -> ArchiveError {
        if error.code == ENOENT {
            if (try? FileStatus.of(path, followingLinks: false)) != nil {
                return ArchiveError(.io, "\(shownAs) is a symbolic link to a missing file")
            }
            return ArchiveError(.io, "\(shownAs) does not exist")
        }
        return ArchiveError(.io, "cannot read \(shownAs): \(error)")
    }
}
