import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command writes: results to standard output, errors and progress to standard error.
///
/// Output is I/O like any other and can fail: a full disk (`> /dev/full`), a closed descriptor
/// (`>&-`), a pipe whose reader is gone. The console writes with `write(2)` (Foundation's
/// `FileHandle.write(_:)` traps on such an error) and remembers the first failure of each
/// stream; later writes to that stream are skipped. Batches ask ``checkOutput()`` after each
/// window, so that a run whose results go nowhere stops; ``ArchiveMigrate/run(_:)`` ends any run
/// that lost output with exit status 2 and says so on the stream that still works.
struct Console: Sendable {
    private let streams = Streams()
    /// Writes nothing: the console of the Swift API's front doors (``ToolContext/library``).
    private var isSilent = false

    /// A console that writes nothing and draws no progress.
    static var silent: Console {
        var console = Console()
        console.isSilent = true
        return console
    }

    /// Writes text to standard output.
    func print(_ text: String) {
        send(Data((text.hasSuffix("\n") ? text : text + "\n").utf8), to: .output)
    }

    /// Writes bytes to standard output unchanged.
    func write(_ data: Data) {
        send(data, to: .output)
    }

    /// Writes a line to standard error.
    func error(_ text: String) {
        send(Data((text.hasSuffix("\n") ? text : text + "\n").utf8), to: .error)
    }

    /// Whether standard error is a terminal (progress lines are shown only there).
    var errorIsTerminal: Bool {
        !isSilent && isatty(2) != 0
    }

    /// Rewrites the progress line on a terminal.
    func progress(_ text: String) {
        guard errorIsTerminal else { return }
        send(Data("\r\u{1B}[K\(text)".utf8), to: .error)
    }

    /// Ends the progress line on a terminal.
    func endProgress() {
        guard errorIsTerminal else { return }
        send(Data("\r\u{1B}[K".utf8), to: .error)
    }

    // MARK: Failed writes

    /// The two streams.
    enum Stream: Int32, CustomStringConvertible {
        case output = 1
        case error = 2

        var description: String { self == .output ? "standard output" : "standard error" }
    }

    /// The first failed write to `stream`, as the error a run ends with; `nil` while every write
    /// succeeded.
    func failure(of stream: Stream) -> ArchiveError? {
        guard let number = streams.failure(stream) else { return nil }
        return ArchiveError(.io, "cannot write to \(stream): \(String(cString: strerror(number)))")
    }

    /// Throws when a write to standard output failed: the results of a run go nowhere.
    ///
    /// - Throws: `ArchiveError` with code `io`, naming the stream and the system's reason.
    func checkOutput() throws {
        if let failure = failure(of: .output) { throw failure }
    }

    /// Marks a stream the process started with closed (`>&-`) as failed, and holds its
    /// descriptor open on `/dev/null`: otherwise the first file the run opens would get the
    /// descriptor, and what is meant for the stream would be written into that file.
    func claimClosedStreams() {
        for stream in [Stream.output, .error] where fcntl(stream.rawValue, F_GETFD) == -1 && errno == EBADF {
            let descriptor = open("/dev/null", O_WRONLY)
            if descriptor >= 0 && descriptor != stream.rawValue {
                // Lower descriptors were closed too (standard input): keep this one where it must be.
                _ = dup2(descriptor, stream.rawValue)
                close(descriptor)
            }
            streams.record(EBADF, for: stream)
        }
    }

    /// Writes all of `data` to `stream`, retrying after interruptions; records the first error.
    private func send(_ data: Data, to stream: Stream) {
        guard !isSilent, !data.isEmpty, streams.failure(stream) == nil else { return }
        let failure: Int32? = data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let written = systemWrite(stream.rawValue, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return written < 0 ? errno : EIO
                }
            }
            return nil
        }
        if let failure { streams.record(failure, for: stream) }
    }

    /// The first error of each stream, shared by every copy of the console. `@unchecked
    /// Sendable`: its state is read and written with `lock` held.
    private final class Streams: @unchecked Sendable {
        private let lock = NSLock()
        private var failures: [Int32: Int32] = [:]

        func failure(_ stream: Stream) -> Int32? {
            lock.withLock { failures[stream.rawValue] }
        }

        func record(_ number: Int32, for stream: Stream) {
            lock.withLock {
                if failures[stream.rawValue] == nil { failures[stream.rawValue] = number }
            }
        }
    }
}

/// `write(2)` (inside ``Console``, `write` is the console's own).
@inline(__always)
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
