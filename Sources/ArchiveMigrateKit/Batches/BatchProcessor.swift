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
        let plan = try makePlan(inputs)
        var transaction: FileTransaction?
        if let plan, !dryRun {
            transaction = try FileTransaction(plan: plan, tool: context.tool) { notice in
                if format == .json { notes.append(notice) } else { context.console.error(notice) }
            }
        }
        defer { transaction?.finish() }

        let progress = ProgressLine(total: inputs.count, console: context.console)
        var failed = 0
        var written = 0
        var standardOutput: Data?
        var start = 0
        try Parallel.pipeline(
            windows: { () -> [(input: InputFile, index: Int)]? in
                guard start < inputs.count else { return nil }
                let window = Array(inputs[start..<min(inputs.count, start + Parallel.windowWidth)])
                start += window.count
                return window.indices.map { (input: window[$0], index: start - window.count + $0) }
            },
            work: { item in process(item.input, index: item.index, engine: engine) },
            handle: { outcomes in
                for var outcome in outcomes {
                    if outcome.entry.error == nil, failed == 0, let plan {
                        do throws(ArchiveError) {
                            written += try write(outcome, input: outcome.index, plan: plan, transaction: transaction)
                        } catch {
                            outcome.entry.error = error
                        }
                    }
                    if outcome.entry.error != nil {
                        failed += 1
                        // Nothing will be moved into place: drop what is staged now.
                        transaction?.discardStaged()
                    } else if case .standardOutput = destination {
                        standardOutput = outcome.output
                    }
                    progress.advance(changed: outcome.entry.changed, failed: outcome.entry.error != nil)
                    report.add(outcome.entry)
                }
            })
        progress.finish()

        var wrote = false
        if let transaction, let plan, failed == 0 {
            do {
                let removed = try transaction.commitStaged()
                wrote = written > 0
                if removed > 0 { notes.append("removed \(removed) temporary files left by an interrupted run") }
            } catch {
                report.fail(error.error)
                if !error.replaced.isEmpty {
                    let replaced = error.replaced.map { plan.entries[$0].shownAs }
                    notes.append(
                        "moving the new files into place failed after \(replaced.count): replaced "
                            + replaced.joined(separator: ", ") + "; run the command again to finish the batch")
                    wrote = true
                } else {
                    failed += 1
                }
            }
        }
        if dryRun {
            notes.append(
                "dry run: \(report.changed) of \(report.count) archives would change"
                    + (failed > 0 ? ", \(failed) failed" : "") + "; nothing was written")
        } else if failed > 0, plan != nil, !wrote {
            notes.append(
                "nothing was written: \(failed) of \(report.count) archives failed, so every original is unchanged")
        } else if failed == 0, let standardOutput {
            context.console.write(standardOutput)
        }
        return report.finish(notes: notes, wrote: wrote)
    }

    /// Checks and stages the files an outcome writes; returns how many.
    private func write(_ outcome: Outcome, input: Int, plan: WritePlan, transaction: FileTransaction?)
        throws(ArchiveError) -> Int
    {
        let writes = self.writes(of: outcome, input: input)
        guard !writes.isEmpty else { return 0 }
        let check = plan.check(Dictionary(uniqueKeysWithValues: writes))
        if let problem = check.problems.sorted(by: { $0.key < $1.key }).first?.value {
            throw problem
        }
        guard let transaction else { return 0 }
        var count = 0
        for (entry, data) in writes where !check.alreadyInPlace.contains(entry) {
            do {
                try transaction.stage(data, entry: entry)
                count += 1
            } catch {
                throw error.error
            }
        }
        return count
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
