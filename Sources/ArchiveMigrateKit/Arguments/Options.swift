/// Every option the commands take, declared once. Commands list these in their ``CommandSpec``
/// and read them back through the same constants (`arguments.flag(.inPlace)`), so a misspelt
/// option is a compile error, not an option that is never set.
extension OptionSpec {
    // MARK: Migration

    /// `--rules FILE`: the chains of a rules file (repeatable).
    static let rules = OptionSpec(
        "rules", short: "r", .value(name: "file"), repeatable: true,
        help: "A rules file with migration chains (see the rules-file format).")
    /// `--document NAME`: the document chain for archives that do not name one.
    static let document = OptionSpec(
        "document", .value(name: "name"), help: "The document chain for archives that do not name one.")
    /// `--to V` on `upgrade`: where the upgrade stops.
    static let upgradeTarget = OptionSpec(
        "to", .value(name: "version"), repeatable: true,
        help: "Stop at this document version, or at TYPE=VERSION for one type.")
    /// `--to R` on `downgrade`: the release to write for.
    static let downgradeTarget = OptionSpec(
        "to", .value(name: "release"), repeatable: true,
        help: "The release (1.1) or the document version it wrote (2); experts: TYPE=VERSION (required).")
    /// `--drop-absent` on `downgrade`.
    static let dropAbsent = OptionSpec(
        "drop-absent", help: "Leave out objects of types the release did not have (listed in the report).")
    /// `--readable-by R` on `upgrade`, `downgrade` and `convert`.
    static let readableBy = OptionSpec(
        "readable-by", .value(name: "release"),
        help: "Carry the steps down to this older release (1.1, or the document version it wrote) in the archive, "
            + "so that it opens the file (needs the rules' releases).")
    /// `--allow-newer` on `upgrade`.
    static let allowNewer = OptionSpec(
        "allow-newer", help: "Leave objects written by a newer app as they are instead of failing.")

    // MARK: Where results go

    /// `--output DIR` on `upgrade` and `downgrade`.
    static let outputFolder = OptionSpec(
        "output", short: "o", .value(name: "dir"),
        help: "Write the results into this folder (created if needed), as <dir>/<file name>.")
    /// `--in-place`.
    static let inPlace = OptionSpec(
        "in-place", help: "Replace each archive atomically, keeping its mode, owner and links.")
    /// `--backup`, with `--in-place`.
    static let backup = OptionSpec(
        "backup", help: "With --in-place, keep each original as <file>.bak (same mode and owner).")
    /// `--overwrite`, with `--output` or `--backup`.
    static let overwrite = OptionSpec(
        "overwrite", help: "Replace files already in the --output folder, and .bak files that differ.")
    /// `--dry-run` on `upgrade` and `downgrade`.
    static let dryRun = OptionSpec(
        "dry-run", help: "Read, migrate and report every file; write nothing (exit 1: something would change).")
    /// `--include PATTERN` on `upgrade` and `downgrade`.
    static let include = OptionSpec(
        "include", .value(name: "pattern"), repeatable: true,
        help: "Walk the folders given as inputs for files whose name matches (fnmatch: '*.json').")
    /// `--format text|json`.
    static let format = OptionSpec("format", .value(name: "text|json"), help: "Output format (default: text).")

    // MARK: Stores and streams

    /// `--sqlite FILE`: the archives are in a column of this database.
    static let sqlite = OptionSpec(
        "sqlite", .value(name: "file"),
        help: "Migrate the archives in a column of this SQLite database (with --table and --column).")
    /// `--table NAME`, with `--sqlite`.
    static let table = OptionSpec("table", .value(name: "name"), help: "With --sqlite: the table.")
    /// `--column NAME`, with `--sqlite`.
    static let column = OptionSpec(
        "column", .value(name: "name"), help: "With --sqlite: the column holding the archives (TEXT or BLOB).")
    /// `--key COLUMN`, with `--sqlite`.
    static let key = OptionSpec(
        "key", .value(name: "column"), repeatable: true,
        help: "With --sqlite: the column (or columns) that identify a row, for a table without a rowid.")
    /// `--batch-size N`, with `--sqlite`.
    static let batchSize = OptionSpec(
        "batch-size", .value(name: "rows"),
        help: "With --sqlite: rows per transaction (default \(SQLiteColumn.Location.defaultBatchSize)).")
    /// `--busy-timeout MS`, with `--sqlite`.
    static let busyTimeout = OptionSpec(
        "busy-timeout", .value(name: "ms"),
        help:
            "With --sqlite: how long to wait for another connection's lock (default \(SQLiteColumn.Location.defaultBusyTimeout) ms)."
    )
    /// `--skip-failed`, with `--sqlite`.
    static let skipFailed = OptionSpec(
        "skip-failed", help: "With --sqlite: skip rows that fail (listed in the report) and write the others.")
    /// `--ndjson`.
    static let ndjson = OptionSpec(
        "ndjson",
        help:
            "Read one JSON archive per line (standard input, or the file given); write one per line to standard output."
    )
    /// `--shard` with `--sqlite`.
    static let shard = OptionSpec(
        "shard", .value(name: "I/N"),
        help: "With --sqlite: only part I of N of the rows, by key order (N processes take parts 1/N to N/N).")
    /// `--first-line` on `inspect --ndjson`.
    static let firstLine = OptionSpec(
        "first-line", .value(name: "n"),
        help: "With --ndjson: the number of the first line (a part of a larger file), so failures keep their line.")
    /// `--merge` on `inspect`.
    static let merge = OptionSpec(
        "merge", .value(name: "file"), repeatable: true,
        help: "Merge the censuses 'inspect --ndjson/--sqlite --format json' wrote for parts of a store (repeatable).")
    /// `--nested` on `upgrade` and `downgrade`.
    static let nested = OptionSpec(
        "nested", help: "Also migrate archives nested in data values, each by its own chains and in its own format.")

    // MARK: check

    /// `--rules FILE` on `check`, which defaults to the fixtures' own.
    static let checkRules = OptionSpec(
        "rules", short: "r", .value(name: "file"), repeatable: true,
        help: "A rules file (default: <fixtures>/rules.json when it exists).")
    /// `--schemas DIR`.
    static let schemas = OptionSpec(
        "schemas", .value(name: "dir"), help: "The schema snapshots (default: Fixtures/schemas).")
    /// `--junit FILE`.
    static let junit = OptionSpec("junit", .value(name: "file"), help: "Also write the results as JUnit XML.")
    /// `--record`.
    static let record = OptionSpec(
        "record",
        help:
            "Write missing or changed snapshots and goldens, and a fixture of each version that has none, instead of failing."
    )
    /// `--write` on `check`.
    static let writeProposals = OptionSpec(
        "write", help: "Write the proposed migration steps (Swift and rules file) into the --proposals folder.")
    /// `--proposals DIR` on `check`.
    static let proposals = OptionSpec(
        "proposals", .value(name: "dir"), help: "Where --write puts proposed steps (default: Fixtures/proposals).")
    /// `--seed N` on `check`.
    static let seed = OptionSpec(
        "seed", .value(name: "n"),
        help: "The seed of the law check's generated objects (default: 1); replays a failure.")
    /// `--law-objects N` on `check`.
    static let lawObjects = OptionSpec(
        "law-objects", .value(name: "n"),
        help: "Objects the law check generates per type, version and law (default: 100; 0 skips the law check).")
    /// `--upgrade-snapshots` on `check`.
    static let upgradeSnapshots = OptionSpec(
        "upgrade-snapshots",
        help: "First add the shapes of nested types to snapshots written before they were recorded (app tools only).")
    /// `--allow-newer` on `check`.
    static let checkAllowNewer = OptionSpec(
        "allow-newer", help: "Decode fixtures written by a newer app, keeping what it added.")
    /// `--format text|json|github` on `check`.
    static let checkFormat = OptionSpec(
        "format", .value(name: "text|json|github"), help: "Output format; github prints workflow annotations.")

    // MARK: convert

    /// `--to FORMAT` on `convert`.
    static let convertTarget = OptionSpec(
        "to", .value(name: "format"), help: "json, xml-plist or binary-plist (required).")
    /// `--output FILE` on `convert`.
    static let outputFile = OptionSpec(
        "output", short: "o", .value(name: "file"),
        help: "Write here instead of standard output ('-': standard output).")
    /// `--plain`.
    static let plain = OptionSpec(
        "plain", help: "Write without the archive markup (for other programs; may lose types).")
    /// `--compact`.
    static let compact = OptionSpec("compact", help: "No line breaks or indentation.")

    // MARK: diff

    /// `--exact-numbers`.
    static let exactNumbers = OptionSpec("exact-numbers", help: "Treat 1 and 1.0 as different.")

    /// The options of the commands that migrate.
    static let migration: [OptionSpec] = [.rules, .document]
    /// What `upgrade` and `downgrade` read and where they write.
    static let destination: [OptionSpec] = [.include, .outputFolder, .inPlace, .backup, .overwrite, .dryRun]
    /// Where archives come from besides files: a SQLite column, NDJSON lines.
    static let stores: [OptionSpec] = [.sqlite, .table, .column, .key, .batchSize, .busyTimeout, .shard, .ndjson]
}

/// What `--format` selects: how a command prints its results.
enum OutputFormat: String, Sendable, CaseIterable {
    /// Lines for people (the default).
    case text
    /// One JSON document for scripts.
    case json
    /// GitHub Actions workflow annotations (`check` only).
    case github
}
