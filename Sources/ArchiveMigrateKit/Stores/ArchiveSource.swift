import Foundation
import ModelVersioning

/// Where a command's archives come from: files (and `-`, standard input), the lines of an
/// NDJSON stream, or a column of a SQLite table. Each is a source and sink beside the one
/// per-archive pipeline (``ArchivePipeline``), never a pipeline of its own.
enum ArchiveSource: Sendable {
    /// The files (or `-`) given as arguments.
    case files
    /// `--ndjson`: one JSON archive per line of the file given, or of standard input (`nil`).
    case ndjson(input: String?)
    /// `--sqlite FILE --table T --column C`.
    case sqlite(SQLiteColumn.Location)

    /// Reads `--sqlite`, `--table`, `--column`, `--key`, `--batch-size`, `--busy-timeout`,
    /// `--skip-failed` and `--ndjson`, and refuses what does not go with them. Without them the
    /// command reads files, which must be given unless `filesOptional`.
    ///
    /// - Throws: `UsageError`.
    init(_ arguments: ParsedArguments, context: ToolContext, filesOptional: Bool = false) throws {
        let sqliteOnly: [OptionSpec] = [.table, .column, .key, .batchSize, .busyTimeout, .skipFailed, .shard]
        let fileOnly: [OptionSpec] = [.include, .outputFolder, .inPlace, .backup, .overwrite]
        let ndjson = arguments.flag(.ndjson)
        guard let file = arguments.value(.sqlite) else {
            if let option = sqliteOnly.first(where: { arguments.values[$0.name] != nil }) {
                throw UsageError("'--\(option.name)' goes with '--sqlite <file>'")
            }
            guard ndjson else {
                guard filesOptional || !arguments.positional.isEmpty else {
                    throw UsageError("missing argument <file>")
                }
                self = .files
                return
            }
            if let option = fileOnly.first(where: { arguments.values[$0.name] != nil }) {
                throw UsageError("'--\(option.name)' is for files; '--ndjson' writes to standard output")
            }
            guard arguments.positional.count <= 1 else {
                throw UsageError("'--ndjson' reads one stream: a file, or standard input ('-' or nothing)")
            }
            let input = arguments.positional.first
            self = .ndjson(input: input == "-" ? nil : input)
            return
        }
        guard !ndjson else { throw UsageError("'--sqlite' and '--ndjson' exclude each other") }
        if let option = fileOnly.first(where: { arguments.values[$0.name] != nil }) {
            throw UsageError("'--\(option.name)' is for files; '--sqlite' writes each row back in place")
        }
        guard arguments.positional.isEmpty else {
            throw UsageError(
                "'--sqlite' migrates the rows of the database; give no files ('\(arguments.positional[0])')")
        }
        guard let table = arguments.value(.table), let column = arguments.value(.column) else {
            throw UsageError("'--sqlite' needs '--table <name>' and '--column <name>'")
        }
        var location = SQLiteColumn.Location(
            url: context.url(file), shownAs: file, table: table, column: column, keys: arguments.all(.key))
        if let text = arguments.value(.batchSize) {
            guard let size = Int(text), size >= 1 else {
                throw UsageError("'--batch-size' must be a number of rows, at least 1, not '\(text)'")
            }
            location.batchSize = size
        }
        if let text = arguments.value(.busyTimeout) {
            guard let milliseconds = Int(text), milliseconds >= 0 else {
                throw UsageError("'--busy-timeout' must be a number of milliseconds, not '\(text)'")
            }
            location.busyTimeout = milliseconds
        }
        location.skipsFailed = arguments.flag(.skipFailed)
        if let text = arguments.value(.shard) {
            guard let shard = SQLiteColumn.Shard(text) else {
                throw UsageError("'--shard' must be I/N, a part from 1 to N of N parts (2/4), not '\(text)'")
            }
            location.shard = shard
        }
        self = .sqlite(location)
    }
}
