import Foundation
import ModelVersioning

/// Runs one transformation (an upgrade, a downgrade) over many archives in parallel and writes
/// the results — in place, into a folder, or to standard output for a single file — all or
/// nothing, through one ``FileTransaction``.
///
/// 1. The inputs are expanded (folders walked with `--include`) and the files to write planned
///    (``WritePlan``): two inputs that would land on one output are refused before anything
///    is read.
/// 2. Unless `--dry-run`, the output folder is created and every directory written into is
///    locked, so that an overlapping run waits instead of racing.
/// 3. Every file is read and transformed. Files the transformation leaves as they are (already
///    at the target versions) are not rewritten in place, and their backups not replaced:
///    running the same command again after an interruption finishes the batch and keeps every
///    `.bak` holding the original.
/// 4. Nothing is written unless every file transformed and every output can be written
///    (``WritePlan/check(_:)``); then the transaction writes them all, or — on a full disk,
///    say — none.
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
        /// The new bytes, when the file is (or would be) written.
        var output: Data?
        /// Where they go, as shown to the user (`out/a.json`).
        var writtenTo: String?
        var report: MigrationReport?
        /// Whether the transformation changed the file.
        var changed = false
        /// How the document chain was chosen, when the report should say.
        var note: String?
        var error: ArchiveError?
        /// The bytes read, kept for a backup.
        var original: Data?

        init(path: String) {
            self.path = path
        }
    }

    /// What a run did.
    struct Result: Sendable {
        var outcomes: [Outcome]
        /// Lines for the end of the report (`nothing was written: …`).
        var notes: [String] = []
        /// Whether any file was written.
        var wrote = false
    }

    let context: ToolContext
    let destination: Destination
    let dryRun: Bool
    let overwrite: Bool
    let include: [String]
    /// `--document`.
    let documentName: String?
    /// The names of the catalog's document chains.
    let documentChains: [String]
    /// How the plain documents of each chain that declares them spell dates and data.
    let plainConventions: [String: DocumentConventions]
    /// Whether notices are collected for a JSON report instead of printed as they happen.
    let collectsNotices: Bool

    /// Reads the options shared by `upgrade` and `downgrade`.
    init(context: ToolContext, arguments: ParsedArguments, catalog: MigrationCatalog, format: OutputFormat) throws {
        self.context = context
        dryRun = arguments.flag(.dryRun)
        overwrite = arguments.flag(.overwrite)
        include = arguments.all(.include)
        documentName = arguments.value(.document)
        documentChains = catalog.documents.map(\.name)
        plainConventions = Dictionary(
            catalog.documents.compactMap { chain in chain.style.conventions.map { (chain.name, $0) } },
            uniquingKeysWith: { first, _ in first })
        collectsNotices = format == .json
        if let documentName, !documentChains.contains(documentName) {
            throw UsageError(
                "'--document \(documentName)': no document chain has that name"
                    + (documentChains.isEmpty ? "" : " (there are \(documentChains.joined(separator: ", ")))"))
        }
        let inPlace = arguments.flag(.inPlace)
        if let folder = arguments.value(.outputFolder) {
            guard !inPlace else { throw UsageError("'--output' and '--in-place' exclude each other") }
            guard !arguments.flag(.backup) else { throw UsageError("'--backup' goes with '--in-place'") }
            destination = .folder(context.url(folder))
        } else if inPlace {
            destination = .inPlace(backup: arguments.flag(.backup))
        } else {
            guard !arguments.flag(.backup) else { throw UsageError("'--backup' goes with '--in-place'") }
            destination = .standardOutput
        }
        if overwrite {
            switch destination {
            case .folder, .inPlace(backup: true): break
            default: throw UsageError("'--overwrite' goes with '--output <dir>' or '--backup'")
            }
        }
    }

    /// Expands `arguments` into files, transforms every file (in parallel) with the document
    /// chain ``DocumentChoice`` picks for it, then writes the results (see the type's
    /// discussion).
    ///
    /// - Throws: `UsageError` or `ArchiveError` for inputs or outputs refused before any file is
    ///   read (a folder without `--include`, two inputs with one output).
    func run(
        _ arguments: [String],
        transform: @escaping @Sendable (_ tree: inout ArchiveValue, _ document: String?) throws -> MigrationReport
    ) throws -> Result {
        let inputs = try InputFile.expand(arguments, include: include, context: context)
        if case .standardOutput = destination, inputs.count != 1, !dryRun {
            throw UsageError("several files need '--output <dir>' or '--in-place'")
        }
        var notes: [String] = []
        let plan = try makePlan(inputs)
        var transaction: FileTransaction?
        if let plan, !dryRun {
            transaction = try FileTransaction(plan: plan, tool: context.tool) { notice in
                if collectsNotices { notes.append(notice) } else { context.console.error(notice) }
            }
        }
        defer { transaction?.finish() }

        var outcomes = transformAll(inputs, transform: transform)
        let failed = outcomes.filter { $0.error != nil }.count
        var contents: [Int: Data] = [:]
        var owner: [Int: Int] = [:]  // plan entry → input
        if let plan, failed == 0 {
            for (index, outcome) in outcomes.enumerated() {
                for (entry, data) in writes(of: outcome, input: index, plan: plan) {
                    contents[entry] = data
                    owner[entry] = index
                }
            }
            let check = plan.check(contents)
            for (entry, problem) in check.problems {
                if let input = owner[entry] { outcomes[input].error = problem }
            }
            if check.problems.isEmpty, let transaction {
                do {
                    let removed = try transaction.commit(contents, keeping: check.alreadyInPlace)
                    if removed > 0 { notes.append("removed \(removed) temporary files left by an interrupted run") }
                    return Result(outcomes: outcomes, notes: notes, wrote: !contents.isEmpty)
                } catch {
                    if let input = owner[error.entry] { outcomes[input].error = error.error }
                    if !error.replaced.isEmpty {
                        let replaced = error.replaced.map { plan.entries[$0].shownAs }
                        notes.append(
                            "moving the new files into place failed after \(replaced.count): replaced "
                                + replaced.joined(separator: ", ") + "; run the command again to finish the batch")
                        return Result(outcomes: outcomes, notes: notes, wrote: true)
                    }
                }
            }
        }
        let refused = outcomes.filter { $0.error != nil }.count
        if dryRun {
            let changing = outcomes.filter(\.changed).count
            notes.append(
                "dry run: \(changing) of \(outcomes.count) archives would change"
                    + (refused > 0 ? ", \(refused) failed" : "") + "; nothing was written")
        } else if refused > 0, plan != nil {
            notes.append(
                "nothing was written: \(refused) of \(outcomes.count) archives failed, so every original is unchanged")
        } else if refused == 0, case .standardOutput = destination, let data = outcomes.first?.output {
            context.console.write(data)
        }
        return Result(outcomes: outcomes, notes: notes)
    }

    // MARK: Planning

    /// The files the destination writes, in input order (each backup right after its
    /// original); `nil` for standard output.
    private func makePlan(_ inputs: [InputFile]) throws -> WritePlan? {
        var entries: [WritePlan.Entry] = []
        switch destination {
        case .standardOutput:
            return nil
        case .inPlace(let backup):
            for input in inputs {
                entries.append(WritePlan.Entry(url: input.url, shownAs: input.path, role: .replacement))
                if backup {
                    entries.append(
                        WritePlan.Entry(
                            url: URL(fileURLWithPath: input.url.path + ".bak"), shownAs: input.path + ".bak",
                            role: .backup(of: entries.count - 1)))
                }
            }
        case .folder(let folder):
            for input in inputs {
                entries.append(
                    WritePlan.Entry(
                        url: folder.appendingPathComponent(input.relativePath),
                        shownAs: Self.shown(folder, input.relativePath, context: context),
                        role: .output(of: input.path),
                        permissionsFrom: input.url))
            }
        }
        return try WritePlan(entries, overwrite: overwrite)
    }

    /// The plan entries an outcome writes, with their bytes.
    private func writes(of outcome: Outcome, input: Int, plan: WritePlan) -> [(Int, Data)] {
        guard let output = outcome.output else { return [] }
        switch destination {
        case .standardOutput:
            return []
        case .folder:
            return [(input, output)]
        case .inPlace(let backup):
            let entry = backup ? input * 2 : input
            var result = [(entry, output)]
            if backup, let original = outcome.original { result.append((entry + 1, original)) }
            return result
        }
    }

    /// `out/a.json` as the user gave `out`.
    private static func shown(_ folder: URL, _ relativePath: String, context: ToolContext) -> String {
        let base = context.workingDirectory.path
        let path = folder.appendingPathComponent(relativePath).path
        if path.hasPrefix(base + "/") { return String(path.dropFirst(base.count + 1)) }
        return path
    }

    // MARK: Transforming

    private func transformAll(
        _ inputs: [InputFile], transform: @escaping @Sendable (inout ArchiveValue, String?) throws -> MigrationReport
    ) -> [Outcome] {
        let collected = Collected<Outcome>(count: inputs.count)
        let progress = ProgressCounter(total: inputs.count, console: context.console)
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            collected.set(process(inputs[index], transform: transform), at: index)
            progress.advance()
        }
        progress.finish()
        return collected.values
    }

    private func process(
        _ input: InputFile, transform: (inout ArchiveValue, String?) throws -> MigrationReport
    ) -> Outcome {
        var outcome = Outcome(path: input.path)
        // Errors from reading and choosing the chain name the file already.
        var read: ToolContext.InputDocument
        let choice: DocumentChoice
        do {
            read = try context.readInput(input.path)
            choice = try DocumentChoice(
                for: read.document.tree, file: input.path, named: documentName, chains: documentChains)
        } catch {
            outcome.error = Self.archiveError(error, file: input.path)
            return outcome
        }
        outcome.note = choice.note
        do {
            let wayDown = read.document.tree[ArchiveEnvelope.wayDownKey]
            let report = try transform(&read.document.tree, choice.name)
            outcome.report = report
            outcome.changed =
                report.document != nil || report.migratedObjectCount > 0 || report.carriedSteps != nil
                || report.restoredCount > 0 || read.document.tree[ArchiveEnvelope.wayDownKey] != wayDown
            if case .inPlace(let backup) = destination {
                // Nothing changed: leave the file (and its backup) alone.
                guard outcome.changed else { return outcome }
                if backup { outcome.original = read.bytes }
            }
            // A plain document keeps its own spellings of the dates and data a migration made.
            if let name = choice.name, let conventions = plainConventions[name] {
                read.document.conventions = conventions
            }
            outcome.output = try read.document.data()
            switch destination {
            case .inPlace: outcome.writtenTo = input.path
            case .folder(let folder): outcome.writtenTo = Self.shown(folder, input.relativePath, context: context)
            case .standardOutput: break
            }
        } catch let error as ArchiveError {
            outcome.error = error.adding(file: input.path)
        } catch {
            outcome.error = ArchiveError(.migrationFailed, "\(input.path) failed", underlyingError: error)
        }
        return outcome
    }

    private static func archiveError(_ error: any Error, file: String) -> ArchiveError {
        (error as? ArchiveError) ?? ArchiveError(.io, "cannot read \(file)", underlyingError: error)
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
