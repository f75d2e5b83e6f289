import Foundation
import ModelVersioning

/// Runs one transformation over many archives in parallel and writes the results: to a
/// folder, in place (atomically, all-or-nothing for data errors), or to standard output for a
/// single file.
struct BatchProcessor: Sendable {
    /// Where results go.
    enum Destination: Sendable {
        case standardOutput
        case folder(URL)
        case inPlace(backup: Bool)
    }

    /// One file's outcome.
    struct Outcome: Sendable {
        var path: String
        var output: Data?
        var report: MigrationReport?
        var error: ArchiveError?
    }

    let context: ToolContext
    let destination: Destination

    /// Reads the destination options shared by `upgrade` and `downgrade`.
    init(context: ToolContext, arguments: ParsedArguments) throws {
        self.context = context
        let inPlace = arguments.flag(.inPlace)
        if let folder = arguments.value(.outputFolder) {
            guard !inPlace else { throw UsageError("'--output' and '--in-place' exclude each other") }
            destination = .folder(context.url(folder))
        } else if inPlace {
            destination = .inPlace(backup: arguments.flag(.backup))
        } else {
            guard arguments.positional.count == 1 else {
                throw UsageError("several files need '--output <dir>' or '--in-place'")
            }
            guard !arguments.flag(.backup) else { throw UsageError("'--backup' goes with '--in-place'") }
            destination = .standardOutput
        }
    }

    /// Transforms every file (in parallel), then writes the results. With `--in-place`, nothing
    /// is written unless every file transformed: a damaged archive in the batch leaves all
    /// originals untouched. Files the transformation leaves as they are (already at the target
    /// versions) are not rewritten, and their backups not replaced: running the same command again
    /// after an interruption finishes the batch and keeps every `.bak` holding the original.
    /// Temporary files an interrupted run left beside the batch's files are removed first.
    func run(
        _ paths: [String], transform: @escaping @Sendable (inout ArchiveValue) throws -> MigrationReport
    ) -> [Outcome] {
        let collected = Collected<Outcome>(count: paths.count)
        let progress = ProgressCounter(total: paths.count, console: context.console)
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            collected.set(process(paths[index], transform: transform), at: index)
            progress.advance()
        }
        progress.finish()
        var results = collected.values
        let failed = results.filter { $0.error != nil }.count
        if case .inPlace = destination, failed > 0 {
            for index in results.indices where results[index].error == nil {
                results[index].output = nil
            }
            context.console.error(
                "nothing was written: \(failed) of \(results.count) archives failed, so every original is unchanged")
            return results
        }
        if case .inPlace = destination {
            let removed = AtomicFile.removeStaleTemporaries(for: paths.map { context.url($0) })
            if removed > 0 {
                context.console.error("removed \(removed) temporary files left by an interrupted run")
            }
        }
        for index in results.indices {
            guard let output = results[index].output else { continue }
            do {
                try write(output, for: results[index].path)
            } catch let error as ArchiveError {
                results[index].error = error
            } catch {
                results[index].error = ArchiveError(.io, "cannot write \(results[index].path)", underlyingError: error)
            }
        }
        return results
    }

    private func process(
        _ path: String, transform: (inout ArchiveValue) throws -> MigrationReport
    ) -> Outcome {
        do {
            var document = try context.readArchive(path)
            let report = try transform(&document.tree)
            if case .inPlace = destination, report.document == nil, report.migratedObjectCount == 0 {
                // Nothing changed: leave the file (and its backup) alone.
                return Outcome(path: path, report: report)
            }
            let output = try document.data()
            return Outcome(path: path, output: output, report: report)
        } catch let error as ArchiveError {
            return Outcome(path: path, error: error.adding(file: path))
        } catch {
            return Outcome(path: path, error: ArchiveError(.io, "\(path) failed", underlyingError: error))
        }
    }

    private func write(_ data: Data, for path: String) throws {
        switch destination {
        case .standardOutput:
            context.console.write(data)
        case .folder(let folder):
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw ArchiveError(.io, "cannot create \(folder.path)", underlyingError: error)
            }
            try AtomicFile.write(data, to: folder.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent))
        case .inPlace(let backup):
            try AtomicFile.replace(context.url(path), with: data, backup: backup)
        }
    }
}

/// Results gathered from `concurrentPerform`, in index order. `@unchecked Sendable`: `lock`
/// guards `slots`.
final class Collected<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Element?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func set(_ value: Element, at index: Int) {
        lock.withLock { slots[index] = value }
    }

    var values: [Element] {
        lock.withLock { slots.compactMap { $0 } }
    }
}

/// "upgraded 120/1000" on a terminal for long batches. `@unchecked Sendable`: `lock` guards
/// `done`.
final class ProgressCounter: @unchecked Sendable {
    private let total: Int
    private let console: Console
    private let lock = NSLock()
    private var done = 0

    init(total: Int, console: Console) {
        self.total = total
        self.console = console
    }

    func advance() {
        guard total >= 20 else { return }
        let count = lock.withLock {
            done += 1
            return done
        }
        if count % max(1, total / 100) == 0 || count == total {
            console.progress("\(count)/\(total) archives")
        }
    }

    func finish() {
        if total >= 20 { console.endProgress() }
    }
}
