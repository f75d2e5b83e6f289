import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command writes: results to standard output, errors and progress to standard error.
struct Console: Sendable {
    /// Writes text to standard output.
    func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Writes bytes to standard output unchanged.
    func write(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    /// Writes a line to standard error.
    func error(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Whether standard error is a terminal (progress lines are shown only there).
    var errorIsTerminal: Bool {
        isatty(2) != 0
    }

    /// Rewrites the progress line on a terminal.
    func progress(_ text: String) {
        guard errorIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    /// Ends the progress line on a terminal.
    func endProgress() {
        guard errorIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
