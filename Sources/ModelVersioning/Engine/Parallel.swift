import Foundation

/// The package's one way of running work on every processor: a ``Window`` of inputs, claimed a
/// few at a time by helper threads, and ``pipeline(windows:work:handle:)``, which keeps one
/// window migrating while the calling thread reads the next and writes the one before. The
/// engine's batches (``MigrationEngine``, ``ArchiveBatch``, the command-line tool's files, lines
/// and rows), the fixture suite and the migration laws all run on it.
package enum Parallel {
    /// `body` on every input, on every processor (the caller's too): a ``Window`` waited for at
    /// once. Outputs come back in input order.
    package static func map<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], _ body: @escaping @Sendable (Input) -> Output
    ) -> [Output] {
        if inputs.count <= 1 { return inputs.map(body) }
        return Window(inputs, body).wait()
    }

    /// Runs `work` on every item of the windows `next` gives, a window at a time on the other
    /// processors, while the calling thread reads the next window and hands each finished one to
    /// `handle`, in order; returns when `next` gives `nil` and the last window is handled.
    ///
    /// The calling thread is the one every other waits for (it reads and writes), so each window
    /// leaves it a processor of its own, and it helps finish a window once it has read the next
    /// one and written the one before. At most two windows are held at once: memory depends on
    /// the window's size, not on how many items there are.
    ///
    /// - Throws: What `next` or `handle` throws; the window in flight is finished (it only
    ///   computes) and dropped first.
    package static func pipeline<Item: Sendable, Output: Sendable>(
        windows next: () throws -> [Item]?, work: @escaping @Sendable (Item) -> Output,
        handle: (consuming [Output]) throws -> Void
    ) throws {
        var inFlight: Window<Output>?
        defer { _ = inFlight?.wait() }
        var ended = false
        while true {
            var items: [Item] = []
            if !ended {
                if let window = try next() { items = window } else { ended = true }
            }
            let done = inFlight?.wait()
            inFlight = items.isEmpty ? nil : Window(items, work)
            if let done { try handle(done) }
            if ended && inFlight == nil { return }
        }
    }

    /// Work on several inputs beside the caller: a batch starts a window, reads the next one and
    /// writes the one before while other threads work on it, then helps finish it (``wait()``).
    ///
    /// By default the window starts one helper fewer than there are processors, leaving the
    /// calling thread a processor of its own; once it has read and written, it takes inputs
    /// itself until none is left. An asynchronous caller, which must not block its thread,
    /// starts one helper per processor instead and awaits ``outputs()``.
    ///
    /// Inputs are claimed a few at a time under a lock. Each output is built in its own
    /// slot and moved into the array ``wait()`` returns: no copy of what may be a large result
    /// (a batch's outcomes were once copied three times on their way out: 15% of an upgrade of
    /// 100,000 small database rows).
    ///
    /// `@unchecked Sendable`: `next` is read and written with `lock` held; each slot is written
    /// by the one thread that claimed its index, and read only after every claim is done
    /// (`group`, and for ``wait()`` the caller's own claims).
    package final class Window<Output: Sendable>: @unchecked Sendable {
        private let count: Int
        private let work: @Sendable (Int) -> Output
        private let slots: UnsafeMutablePointer<Output>
        private let lock = NSLock()
        private var next = 0
        private let group = DispatchGroup()
        private var collected = false
        /// Inputs a thread claims at once: up to 16, so that the lock is rare, and few enough
        /// that every thread gets some of a short window (of large archives: at most 16 MiB of
        /// them) and the threads finish together.
        private let claimSize: Int

        /// Starts `body` on every input, on `threads` helper threads (by default one fewer than
        /// there are processors, at least one).
        package init<Input: Sendable>(
            _ inputs: [Input], threads: Int = Parallel.processors - 1, _ body: @escaping @Sendable (Input) -> Output
        ) {
            count = inputs.count
            work = { body(inputs[$0]) }
            slots = .allocate(capacity: max(1, inputs.count))
            claimSize = max(1, min(16, inputs.count / (Parallel.processors * 4)))
            let helpers = min(threads, (inputs.count + claimSize - 1) / claimSize)
            for _ in 0..<max(1, helpers) {
                group.enter()
                DispatchQueue.global().async { [self] in
                    run()
                    group.leave()
                }
            }
        }

        deinit {
            if !collected {
                group.wait()
                slots.deinitialize(count: count)
            }
            slots.deallocate()
        }

        /// Builds the outputs of the inputs this thread claims, until none is left.
        private func run() {
            while true {
                lock.lock()
                let start = next
                next = min(count, start + claimSize)
                lock.unlock()
                guard start < count else { return }
                for index in start..<min(count, start + claimSize) {
                    (slots + index).initialize(to: work(index))
                }
            }
        }

        /// The outputs, in input order, once every input is done; the calling thread builds
        /// those no other thread has claimed yet. Called once (or ``outputs()``).
        package func wait() -> [Output] {
            run()
            group.wait()
            return collect()
        }

        /// The outputs, in input order, once the helper threads have built them all; the calling
        /// task is suspended meanwhile, never blocked. Called once (or ``wait()``).
        package func outputs() async -> [Output] {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                group.notify(queue: .global()) { done.resume() }
            }
            return collect()
        }

        private func collect() -> [Output] {
            collected = true
            return [Output](unsafeUninitializedCapacity: count) { buffer, initialized in
                if let base = buffer.baseAddress { base.moveInitialize(from: slots, count: count) }
                initialized = count
            }
        }
    }

    /// The processors this process may use, read once.
    package static let processors = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Lets go of `value` on another thread: a batch's thread that reads and writes hands its
    /// done window of results over, so that freeing them runs beside it instead of on it (in an
    /// upgrade of 100,000 small database rows, freeing took a fifth of that thread's time).
    ///
    /// The value goes into a box whose one reference the other thread's task holds and lets go
    /// of: a closure capturing the value itself would leave the caller a reference of its own,
    /// the last one whenever the task has already finished.
    package static func releaseElsewhere<Value: Sendable>(_ value: consuming Value) {
        let box = Unmanaged.passRetained(Holder(value))
        DispatchQueue.global().async { box.release() }
    }

    /// What ``releaseElsewhere(_:)`` hands over.
    private final class Holder<Value: Sendable>: Sendable {
        let value: Value
        init(_ value: consuming Value) { self.value = value }
    }

    /// How many archives a batch reads, migrates and holds at once: a few per processor, so
    /// that memory depends on the largest archive, not on how many there are.
    package static var windowWidth: Int {
        max(2, processors) * 2
    }
}
