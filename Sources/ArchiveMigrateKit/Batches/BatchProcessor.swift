import Foundation
import ModelVersioning

/// Runs `upgrade` or `downgrade` over the archives the arguments name — files, standard input,
/// NDJSON lines (``NDJSONBatch``) or the rows of a SQLite column (``SQLiteBatch``) — through the
/// library's ``MigrationEngine``, a window of archives at a time on every processor
/// (`Parallel.pipeline`), so that memory depends on the largest archive and not on how many
/// there are. This type is only the command's sources and sinks: what happens to each archive
/// is the engine's, exactly as `ArchiveBatch` and `ArchiveUpgrader` do it. Files are written in
/// place, into a folder, or to standard output for a single file, all or nothing, through one
/// ``FileTransaction``.
///
/// 1. The inputs are expanded (folders walked with `--include`) and the files to write planned
///    (``WritePlan``): two inputs that would land on one output are refused before anything
///    is read.
/// 2. Unless `--dry-run`, the output folder is created and every directory written into is
///    locked, so that an overlapping run waits instead of racing.
/// 3. Every file is read and migrated, a window of them at a time. Files the engine leaves as
///    they are (already at the target versions) are not rewritten in place, and their backups
///    not replaced: running the same command again after an interruption finishes the batch and
///    keeps every `.bak` holding the original. Each new file and backup is checked
///    (``WritePlan/check(_:)``) and written to its flushed temporary file as soon as its bytes
///    are known; the report's entry for the file is written then too.
/// 4. When every file migrated and every output could be written, the transaction moves them
///    all into place; otherwise it removes the temporaries and every original stays as it was.
struct BatchProcessor: Sendable {
    /// Where results go.
    enum Destination: Sendable {
        case standardOutput
        case folder(URL)
        case inPlace(backup: Bool)
    }

    let context: ToolContext
    let destination: Destination
    let source: ArchiveSource
    let dryRun: Bool
    let overwrite: Bool
    let include: [String]
    let format: OutputFormat
    /// What the engine is told: the document chain, the way down, nested archives, newer versions
    /// and how much each archive reports.
    let engineOptions: MigrationEngine.Options

    /// A batch of files from Swift (``ArchiveFiles``): no arguments, no report.
    init(
        context: ToolContext, destination: Destination, dryRun: Bool, overwrite: Bool, include: [String],
        engineOptions: MigrationEngine.Options
    ) {
        self.context = context
        self.destination = destination
        self.source = .files
        self.dryRun = dryRun
        self.overwrite = overwrite
        self.include = include
        self.format = .text
        self.engineOptions = engineOptions
    }

    /// Reads the options shared by `upgrade` and `downgrade`.
    init(context: ToolContext, arguments: ParsedArguments, catalog: MigrationCatalog, format: OutputFormat) throws {
        self.context = context
        self.format = format
        dryRun = arguments.flag(.dryRun)
        overwrite = arguments.flag(.overwrite)
        include = arguments.all(.include)
        source = try ArchiveSource(arguments, context: context)
        engineOptions = try MigrationEngine.Options(
            arguments: arguments, catalog: catalog, reporting: Self.reporting(source: source, format: format))
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

    /// How much each archive's outcome reports: every object for files and in JSON; for rows and
    /// lines, which come by the hundred thousand, the text report counts them, so none (and JSON
    /// archives whose old objects only move keys are upgraded by rewriting their text).
    static func reporting(source: ArchiveSource, format: OutputFormat) -> MigrationEngine.Reporting {
        if case .files = source { return .everyObject }
        return format == .json ? .everyObject : .none
    }

    /// Runs `operation` on every archive the arguments and options name, writes the results,
    /// reports each archive as it goes, and returns the exit status.
    ///
    /// - Throws: `UsageError` or `ArchiveError` for inputs or outputs refused before any archive
    ///   is read (a folder without `--include`, two inputs with one output, a table the
    ///   database does not have).
    func run(
        _ arguments: [String], verb: String, catalog: MigrationCatalog, operation: MigrationEngine.Operation
    ) throws -> ExitStatus {
        let engine = try MigrationEngine(catalog: catalog, operation: operation, options: engineOptions)
        switch source {
        case .files:
            if arguments == ["-"] {
                return try runStandardInput(verb: verb, engine: engine)
            }
            return try runFiles(arguments, verb: verb, engine: engine)
        case .ndjson(let input):
            let report = BatchReport(verb: verb, format: format, dryRun: dryRun, items: .lines, context: context)
            return try NDJSONBatch(input: input, context: context, dryRun: dryRun).run(engine, report: report)
        case .sqlite(let location):
            let report = BatchReport(verb: verb, format: format, dryRun: dryRun, items: .rows, context: context)
            return try SQLiteBatch(location: location, context: context, dryRun: dryRun).run(engine, report: report)
        }
    }

    // MARK: Files

    /// One file's outcome, with the bytes to write.
    struct Outcome: Sendable {
        /// The input's position among the batch's inputs.
        var index: Int
        var entry: BatchReport.Entry
        /// The new bytes, when the file is (or would be) written.
        var output: Data?
        /// The bytes read, kept for a backup.
        var original: Data?
        /// The files written for it to their flushed temporaries, by plan entry, on the thread
        /// that migrated it (``FileTransaction/prepare(_:entry:plan:)``), waiting to be staged.
        var prepared: [(entry: Int, file: AtomicFile.Staged)] = []
        /// Why its files cannot be written (``WritePlan/check(_:)``, a full disk): the file's
        /// error when no file before it failed.
        var writeError: ArchiveError?
    }

    /// Set once an archive of the batch failed: nothing will be written, so the threads stop
    /// writing temporaries. Only saves work: what is written is decided in input order.
    private final class FailureFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var raised = false
        var isRaised: Bool { lock.withLock { raised } }
        func raise() { lock.withLock { raised = true } }
    }

    private func runFiles(_ arguments: [String], verb: String, engine: MigrationEngine) throws -> ExitStatus {
        if arguments.contains("-") {
            throw UsageError("'-' (standard input) must be the only input")
        }
        let inputs = try InputFile.expand(arguments, include: include, context: context)
        if case .standardOutput = destination, inputs.count != 1, !dryRun {
            throw UsageError("several files need '--output <dir>' or '--in-place'")
        }
        let report = BatchReport(verb: verb, format: format, dryRun: dryRun, items: .files, context: context)
        var notes: [String] = []
        let progress = ProgressLine(total: inputs.count, console: context.console)
        let tally = try migrateFiles(
            inputs, engine: engine,
            notice: { notice in
                if format == .json { notes.append(notice) } else { context.console.error(notice) }
            },
            record: { entry in
                progress.advance(changed: entry.changed, failed: entry.error != nil)
                report.add(entry)
            })
        progress.finish()

        var wrote = tally.written > 0 && tally.commitFailure == nil
        if tally.removedTemporaries > 0 {
            notes.append("removed \(tally.removedTemporaries) temporary files left by an interrupted run")
        }
        if let failure = tally.commitFailure {
            report.fail(failure.error)
            if !failure.replaced.isEmpty {
                let replaced = failure.replaced.map { tally.plan?.entries[$0].shownAs ?? "" }
                notes.append(
                    "moving the new files into place failed after \(replaced.count): replaced "
                        + replaced.joined(separator: ", ") + "; run the command again to finish the batch")
                wrote = true
            }
        }
        let failed = tally.failed + (tally.commitFailure != nil && !wrote ? 1 : 0)
        if dryRun {
            notes.append(
                "dry run: \(report.changed) of \(report.count) archives would change"
                    + (failed > 0 ? ", \(failed) failed" : "") + "; nothing was written")
        } else if failed > 0, tally.plan != nil, !wrote {
            notes.append(
                "nothing was written: \(failed) of \(report.count) archives failed, so every original is unchanged")
        } else if failed == 0, let standardOutput = tally.standardOutput {
            context.console.write(standardOutput)
        }
        return report.finish(notes: notes, wrote: wrote)
    }

    /// What ``migrateFiles(_:engine:notice:record:)`` did.
    struct FileTally {
        /// The files the destination writes (`nil` for standard output).
        var plan: WritePlan?
        /// Files that failed to migrate or could not be written.
        var failed = 0
        /// Files (and backups) moved into place; zero when any file failed.
        var written = 0
        /// Temporaries of interrupted runs removed.
        var removedTemporaries = 0
        /// The one output for standard output.
        var standardOutput: Data?
        /// Why moving the new files into place stopped, and which were moved already.
        var commitFailure: FileTransaction.Failure?
    }

    /// The files of a batch, migrated on every processor and written all or nothing through one
    /// ``FileTransaction``, each file's entry handed to `record` in input order: what
    /// `upgrade FILES --in-place` and ``ArchiveFiles`` run. Nothing is written when any file
    /// fails; `notice` is told when the run waits for another's lock.
    ///
    /// - Throws: `UsageError` or `ArchiveError` before any file is read (two inputs with one
    ///   output, a folder that cannot be created).
    func migrateFiles(
        _ inputs: [InputFile], engine: MigrationEngine, notice: @escaping (String) -> Void,
        record: (BatchReport.Entry) -> Void
    ) throws -> FileTally {
        var tally = FileTally()
        let plan = try makePlan(inputs)
        tally.plan = plan
        var transaction: FileTransaction?
        if let plan, !dryRun {
            transaction = try FileTransaction(plan: plan, tool: context.tool, notice: notice)
        }
        defer { transaction?.finish() }

        var start = 0
        let failure = FailureFlag()
        let writesFiles = transaction != nil
        // Each file is migrated, checked and written to its flushed temporary on whichever
        // thread took it (waiting for the disk on every processor); the calling thread stages
        // them in input order. The handler never throws, so no window's temporaries are dropped
        // unstaged.
        try Parallel.pipeline(
            windows: { () -> [(input: InputFile, index: Int)]? in
                guard start < inputs.count else { return nil }
                let window = Array(inputs[start..<min(inputs.count, start + Parallel.windowWidth)])
                start += window.count
                return window.indices.map { (input: window[$0], index: start - window.count + $0) }
            },
            work: { item in
                var outcome = process(item.input, index: item.index, engine: engine)
                if outcome.entry.error == nil, let plan, !failure.isRaised {
                    prepareWrites(&outcome, plan: plan, writing: writesFiles)
                }
                return outcome
            },
            handle: { outcomes in
                for var outcome in outcomes {
                    if outcome.entry.error == nil, tally.failed == 0, let writeError = outcome.writeError {
                        outcome.entry.error = writeError
                    }
                    if outcome.entry.error == nil, tally.failed == 0 {
                        for (entry, file) in outcome.prepared { transaction?.adopt(file, entry: entry) }
                        tally.written += outcome.prepared.count
                    } else {
                        for (_, file) in outcome.prepared { AtomicFile.discard(file) }
                    }
                    if outcome.entry.error != nil {
                        tally.failed += 1
                        failure.raise()
                        // Nothing will be moved into place: drop what is staged now.
                        transaction?.discardStaged()
                    } else if case .standardOutput = destination {
                        tally.standardOutput = outcome.output
                    }
                    record(outcome.entry)
                }
            })
        if tally.failed > 0 { tally.written = 0 }
        if let transaction, tally.failed == 0 {
            do {
                tally.removedTemporaries = try transaction.commitStaged()
            } catch {
                tally.commitFailure = error
            }
        }
        return tally
    }

    /// Checks the files an outcome writes against the disk and, when `writing`, writes each to
    /// its flushed temporary (``FileTransaction/prepare(_:entry:plan:)``); a problem goes to
    /// ``Outcome/writeError`` and leaves no temporary.
    private func prepareWrites(_ outcome: inout Outcome, plan: WritePlan, writing: Bool) {
        let writes = self.writes(of: outcome, input: outcome.index)
        guard !writes.isEmpty else { return }
        let check = plan.check(Dictionary(uniqueKeysWithValues: writes))
        if let problem = check.problems.sorted(by: { $0.key < $1.key }).first?.value {
            outcome.writeError = problem
            return
        }
        guard writing else { return }
        for (entry, data) in writes where !check.alreadyInPlace.contains(entry) {
            do throws(ArchiveError) {
                outcome.prepared.append((entry, try FileTransaction.prepare(data, entry: entry, plan: plan)))
            } catch {
                for (_, file) in outcome.prepared { AtomicFile.discard(file) }
                outcome.prepared = []
                outcome.writeError = error
                return
            }
        }
    }

    /// `-`: one archive from standard input to standard output.
    private func runStandardInput(verb: String, engine: MigrationEngine) throws -> ExitStatus {
        guard case .standardOutput = destination else {
            throw UsageError(
                "'-' reads standard input and writes standard output: it goes without '--output' or '--in-place'")
        }
        let report = BatchReport(verb: verb, format: format, dryRun: dryRun, items: .files, context: context)
        var entry = BatchReport.Entry(name: InputFile.standardInputName)
        var output: Data?
        do {
            let bytes = try InputFile.readStandardInput(limit: engine.options.readingOptions.limits.maxInputBytes)
            do {
                let result = try engine.migrate(bytes, writingUnchanged: true)
                entry.record(result, shownAs: InputFile.standardInputName)
                output = result.data
            } catch {
                entry.error = ArchiveError.located(error, in: InputFile.standardInputName)
            }
        } catch let error as ArchiveError {
            entry.error = error
        }
        report.add(entry)
        var notes: [String] = []
        if dryRun {
            notes.append("dry run: the archive would \(entry.changed ? "" : "not ")change; nothing was written")
        } else if let output {
            context.console.write(output)
        }
        return report.finish(notes: notes, wrote: false)
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
    private func writes(of outcome: Outcome, input: Int) -> [(Int, Data)] {
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

    private func process(_ input: InputFile, index: Int, engine: MigrationEngine) -> Outcome {
        var outcome = Outcome(index: index, entry: BatchReport.Entry(name: input.path))
        let bytes: Data
        do {
            bytes = try InputFile.read(
                input.url, shownAs: input.path, limit: engine.options.readingOptions.limits.maxInputBytes)
        } catch let error as ArchiveError {
            outcome.entry.error = error
            return outcome
        } catch {
            outcome.entry.error = ArchiveError(.io, "cannot read \(input.path)", underlyingError: error)
            return outcome
        }
        do {
            // In place, a file that does not change is left alone (and its backup too).
            var writesUnchanged = true
            if case .inPlace = destination { writesUnchanged = false }
            let result = try engine.migrate(bytes, writingUnchanged: writesUnchanged)
            outcome.entry.record(result, shownAs: input.path)
            outcome.output = result.data
            guard result.data != nil else { return outcome }
            switch destination {
            case .inPlace(let backup):
                outcome.entry.writtenTo = input.path
                if backup { outcome.original = bytes }
            case .folder(let folder):
                outcome.entry.writtenTo = Self.shown(folder, input.relativePath, context: context)
            case .standardOutput:
                break
            }
        } catch {
            outcome.entry.error = ArchiveError.located(error, in: input.path)
        }
        return outcome
    }
}
