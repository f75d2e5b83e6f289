import Foundation
import ModelVersioning

/// `--ndjson`: one JSON archive per line in, one per line out, in the same order, so that any
/// batch engine that shards lines (GNU parallel, xargs, Hadoop streaming, Spark's `pipe`) can
/// spread a migration over machines.
///
/// Each line goes through the library's ``MigrationEngine``; a line that changes is written in compact
/// JSON (one line), one that does not is written as it came, and one that fails becomes an
/// error record in its place, so that line N of the output always answers line N of the input:
///
/// ```
/// {"$error":{"line":17,"code":"malformedInput","message":"…"}}
/// ```
///
/// Blank lines stay blank. Lines are read, migrated and written a window at a time: memory
/// depends on the longest line, not on how many there are. A line longer than
/// ``ArchiveLimits/maxInputBytes`` is never held: it becomes an error record.
struct NDJSONBatch {
    /// The error for a line that is not JSON.
    static let notJSON = ArchiveError(
        .unsupportedFormat, "the line is not JSON (--ndjson reads one JSON archive per line)")
    /// The key of an error record.
    static let errorKey = "$error"
    /// Lines migrated at once, and the most bytes they may hold together.
    static let windowLines = 1_024
    static let windowBytes = 8 << 20

    /// The file given, or `nil` for standard input.
    let input: String?
    let context: ToolContext
    let dryRun: Bool

    /// One line's outcome.
    struct Outcome: Sendable {
        var entry: BatchReport.Entry?
        /// What goes on the output line.
        var output: Data
    }

    func run(_ engine: MigrationEngine, report: BatchReport) throws -> ExitStatus {
        let shownAs = input ?? InputFile.standardInputName
        let reader = try LineReader(
            path: input.map(context.url), shownAs: shownAs,
            maxLineBytes: engine.options.readingOptions.limits.maxInputBytes)
        let progress = ProgressLine(total: nil, console: context.console)
        var number = 0
        // A window of lines migrates while the next is read and the one before is written.
        try Parallel.pipeline(
            windows: { () throws -> [(number: Int, line: LineReader.Line)]? in
                guard let lines = try reader.next(maxCount: Self.windowLines, maxBytes: Self.windowBytes) else {
                    return nil
                }
                let first = number + 1
                number += lines.count
                return lines.enumerated().map { (number: first + $0.offset, line: $0.element) }
            },
            work: { item in Self.process(item.line, number: item.number, shownAs: shownAs, engine: engine) },
            handle: { outcomes in
                var output = Data()
                for outcome in outcomes {
                    output.append(outcome.output)
                    output.append(0x0A)
                    guard let entry = outcome.entry else { continue }
                    progress.advance(changed: entry.changed, failed: entry.error != nil)
                    report.add(entry)
                }
                if !dryRun {
                    context.console.write(output)
                    // Lines that cannot be written are not worth migrating.
                    try context.console.checkOutput()
                }
            })
        progress.finish()
        let failed = report.failed
        var notes: [String] = []
        if dryRun {
            notes.append(
                "dry run: \(report.changed) of \(report.count) lines would change"
                    + (failed > 0 ? ", \(failed) failed" : "") + "; nothing was written")
        } else {
            notes.append(
                "\(report.verb) \(report.changed) of \(report.count) lines of \(shownAs)"
                    + (failed > 0 ? "; \(failed) failed and were written as error records" : ""))
        }
        return report.finish(notes: notes, wrote: !dryRun && number > 0)
    }

    static func process(_ line: LineReader.Line, number: Int, shownAs: String, engine: MigrationEngine) -> Outcome {
        var entry = BatchReport.Entry(name: "line \(number)")
        entry.jsonName = .int(Int64(number))
        let bytes: Data
        switch line {
        case .tooLong(let count):
            return failure(
                ArchiveError.limitExceeded(
                    .inputBytes,
                    "the line has \(count) bytes, more than the limit of \(engine.options.readingOptions.limits.maxInputBytes)"
                ),
                entry: entry, number: number, shownAs: shownAs)
        case .text(let data):
            bytes = data
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return Outcome(entry: nil, output: bytes) }
        guard ArchiveFormat.detect(bytes) == .json else {
            return failure(notJSON, entry: entry, number: number, shownAs: shownAs)
        }
        do {
            let result = try engine.migrate(bytes)
            entry.record(result, shownAs: shownAs)
            return Outcome(entry: entry, output: result.data ?? bytes)
        } catch {
            return failure(
                ArchiveError.located(error, in: shownAs), entry: entry, number: number, shownAs: shownAs)
        }
    }

    /// `error` located at line `number` of the stream: the reader counted lines and columns
    /// within the line.
    static func located(_ error: ArchiveError, line number: Int, of shownAs: String) -> ArchiveError {
        var error = error
        var location = error.location ?? ArchiveError.InputLocation()
        location.column = location.column ?? location.byteOffset.map { $0 + 1 }
        location.byteOffset = nil
        location.line = number
        location.file = shownAs
        error.location = location
        return error
    }

    /// The error located at line `number` of the stream, and its error record.
    private static func failure(_ error: ArchiveError, entry: BatchReport.Entry, number: Int, shownAs: String)
        -> Outcome
    {
        let error = located(error, line: number, of: shownAs)
        var entry = entry
        entry.error = error
        var record: ArchiveDictionary = [
            "line": .int(Int64(number)), "code": .string(error.code.rawValue), "message": .string(error.description),
        ]
        if !error.path.isRoot { record["path"] = .string(error.path.description) }
        let data =
            (try? ArchiveFormat.json.write(
                [errorKey: .dictionary(record)], options: ArchiveWritingOptions(prettyPrinted: false, markup: .plain)))
            ?? Data(#"{"$error":{}}"#.utf8)
        return Outcome(entry: entry, output: data)
    }
}
