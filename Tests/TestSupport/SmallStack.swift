import Foundation

/// Runs work on a thread of its own with a given stack size, as an app's secondary threads (and
/// Dispatch's worker threads, 512 KiB on Apple platforms) have.
package enum SmallStack {
    /// The stack of a secondary thread on Apple platforms.
    static let secondaryThreadSize = 512 << 10

    /// Holds the result until the thread is done. `@unchecked Sendable` is sound: the thread
    /// writes `result` before signalling `done`, and the caller reads it only after waiting on
    /// `done`, so the two accesses never overlap.
    private final class Outcome<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `body` on a new thread with a stack of `stackSize` bytes, waits for it and returns
    /// its result (or rethrows its error). A stack overflow crashes the process.
    package static func run<T>(stackSize: Int = secondaryThreadSize, _ body: @escaping @Sendable () throws -> T) throws
        -> T
    {
        let outcome = Outcome<T>()
        let thread = Thread {
            outcome.result = Result { try body() }
            outcome.done.signal()
        }
        thread.stackSize = stackSize
        thread.start()
        outcome.done.wait()
        guard let result = outcome.result else {
            preconditionFailure("the thread signalled without a result")
        }
        return try result.get()
    }

    /// Runs `body` on a thread with a large stack (64 MiB): for preparing deep inputs without
    /// depending on the test runner's own stack size.
    package static func runOnLargeStack<T>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        try run(stackSize: 64 << 20, body)
    }
}
