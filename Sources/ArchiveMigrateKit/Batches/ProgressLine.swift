import Foundation
import ModelVersioning

/// The progress line of a long batch on a terminal: count, rate and, when the total is known,
/// the time left (`12,000 of 100,000 archives (11,950 changed, 0 failed), 48,000/s, about 2 s
/// left`), rewritten in place on standard error.
///
/// Nothing is shown when standard error is not a terminal (a log, a pipe, CI), nor during the
/// first second, so short runs print no progress at all; the line is redrawn at most ten times
/// a second. Not `Sendable`: a batch advances it from the thread that hands out results.
final class ProgressLine {
    private var progress: ArchiveBatch.Progress
    private let console: Console
    private let isTerminal: Bool
    private let clock: () -> TimeInterval
    private let started: TimeInterval
    private var lastDrawn: TimeInterval?
    /// The lines drawn so far (for tests).
    private(set) var drawn: [String] = []

    /// - Parameters:
    ///   - total: How many archives the batch has, when known.
    ///   - isTerminal: Whether to draw; by default whether standard error is a terminal.
    ///   - clock: Seconds on a monotonic clock (replaced in tests).
    init(
        total: Int?, console: Console, isTerminal: Bool? = nil,
        clock: @escaping () -> TimeInterval = ProgressLine.monotonicSeconds
    ) {
        progress = ArchiveBatch.Progress(total: total)
        self.console = console
        self.isTerminal = isTerminal ?? console.errorIsTerminal
        self.clock = clock
        started = clock()
    }

    /// Counts one archive handled.
    func advance(changed: Bool, failed: Bool) {
        progress.completed += 1
        if changed { progress.changed += 1 }
        if failed { progress.failed += 1 }
        guard isTerminal else { return }
        let now = clock()
        progress.elapsed = now - started
        guard progress.elapsed >= 1, lastDrawn.map({ now - $0 >= 0.1 }) ?? true else { return }
        lastDrawn = now
        let line = progress.description
        drawn.append(line)
        console.progress(line)
    }

    /// Clears the line, if one was drawn.
    func finish() {
        if lastDrawn != nil { console.endProgress() }
    }

    static func monotonicSeconds() -> TimeInterval {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
