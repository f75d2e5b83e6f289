import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a stream a line at a time (`\n`, or `\r\n`), holding at most one window of lines: a
/// line longer than the limit is skipped to its end and reported by its length, never held.
final class LineReader {
    /// One line, without its line break.
    enum Line: Sendable {
        case text(Data)
        /// A line longer than the limit, with its length in bytes.
        case tooLong(Int)
    }

    /// How the stream is named in messages (`standard input`, `archives.ndjson`).
    let shownAs: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var position = 0
    /// Where the search for the next line break resumes (the bytes before it have none).
    private var searched = 0
    private var atEnd = false
    /// The length of the line being skipped because it is too long.
    private var skipping: Int?

    /// Reads standard input (`path` `nil`) or the file at `path`.
    ///
    /// - Throws: `ArchiveError` with code `io` for a file that cannot be opened.
    init(path: URL?, shownAs: String, maxLineBytes: Int) throws {
        self.shownAs = shownAs
        self.maxLineBytes = maxLineBytes
        if let path {
            let status: FileStatus
            do {
                status = try FileStatus.of(path.path)
            } catch {
                throw ArchiveError(
                    .io, error.code == ENOENT ? "\(shownAs) does not exist" : "cannot read \(shownAs): \(error)")
            }
            guard status.kind == .regular || status.kind == .fifo else {
                throw ArchiveError(.io, "\(shownAs) is \(status.kind.phrase), not a file")
            }
            descriptor = open(path.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ArchiveError(.io, "cannot read \(shownAs): \(SystemError.last)") }
            ownsDescriptor = true
        } else {
            descriptor = 0
            ownsDescriptor = false
        }
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// The next lines: at most `maxCount`, and no more once they hold `maxBytes` bytes (at least
    /// one line); `nil` at the end of the stream.
    func next(maxCount: Int, maxBytes: Int) throws -> [Line]? {
        var lines: [Line] = []
        var bytes = 0
        while lines.count < maxCount, bytes < maxBytes, let line = try nextLine() {
            lines.append(line)
            if case .text(let data) = line { bytes += data.count }
        }
        return lines.isEmpty ? nil : lines
    }

    private func nextLine() throws -> Line? {
        while true {
            if let newline = buffer[max(position, searched)...].firstIndex(of: 0x0A) {
                let line = take(upTo: newline)
                position = newline + 1
                searched = position
                if let skipped = skipping {
                    skipping = nil
                    return .tooLong(skipped + line.count)
                }
                return .text(line)
            }
            if atEnd {
                guard position < buffer.count || skipping != nil else { return nil }
                let line = take(upTo: buffer.count)
                position = buffer.count
                if let skipped = skipping {
                    skipping = nil
                    return .tooLong(skipped + line.count)
                }
                return .text(line)
            }
            searched = buffer.count
            if buffer.count - position > maxLineBytes {
                // Too long to hold: count it and drop it.
                skipping = (skipping ?? 0) + (buffer.count - position)
                buffer.removeAll(keepingCapacity: true)
                position = 0
                searched = 0
            }
            try fill()
        }
    }

    /// The bytes from `position` to `end`, without a trailing `\r`.
    private func take(upTo end: Int) -> Data {
        var last = end
        if last > position, buffer[last - 1] == 0x0D { last -= 1 }
        return Data(buffer[position..<last])
    }

    private func fill() throws {
        if position > 0 {
            buffer.removeFirst(position)
            searched -= position
            position = 0
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ArchiveError(.io, "cannot read \(shownAs): \(SystemError.last)")
            }
            if count == 0 {
                atEnd = true
            } else {
                buffer.append(contentsOf: chunk[0..<count])
            }
            return
        }
    }
}
