import Foundation
import ModelVersioning

/// `inspect` and `check` over a store (`--sqlite`, `--ndjson`): every archive read, counted by
/// format, document version and type version, and — given chains — upgraded in memory to see
/// which would change and which fail; the histogram is printed, not the archives.
struct StoreCensus {
    /// One archive as a store hands it over: its name for messages and its bytes (`nil` for a
    /// NULL value or a blank line).
    struct Record: Sendable {
        var name: String
        var shownAs: String
        var bytes: Data?
        /// For a line of NDJSON: its number (it must be JSON, and errors are located there).
        var line: Int?
    }

    /// What one archive added.
    struct Finding: Sendable {
        var name: String
        var format: ArchiveFormat?
        var document: String?
        var types: [String: Int] = [:]
        var plan: [String: Int] = [:]
        var wouldChange = false
        var error: ArchiveError?
        var isEmpty = false
    }

    /// The census so far.
    var census: ArchiveCensus

    /// Reads every record of `next` (a window at a time) and counts it.
    static func take(
        source: String, items: ArchiveCensus.Items, windows next: () throws -> [Record]?, engine: MigrationEngine?,
        progress: ProgressLine
    ) throws -> ArchiveCensus {
        var taker = StoreCensus(census: ArchiveCensus(items: items, source: source, withRules: engine != nil))
        while let records = try next() {
            let findings = Parallel.map(records) { record in examine(record, engine: engine) }
            for finding in findings {
                taker.add(finding)
                progress.advance(changed: finding.wouldChange, failed: finding.error != nil)
            }
        }
        progress.finish()
        return taker.census
    }

    /// What one archive adds: its format, document and types as read, and — given an engine —
    /// what `upgrade` does to it, through the same engine: its document chain, its changes and
    /// its errors (a plain document no chain applies to fails here as it fails there).
    static func examine(_ record: Record, engine: MigrationEngine?) -> Finding {
        var finding = Finding(name: record.name)
        guard let bytes = record.bytes else {
            finding.isEmpty = true
            return finding
        }
        do {
            if record.line != nil, ArchiveFormat.detect(bytes) != .json { throw NDJSONBatch.notJSON }
            let read = try ArchiveDocument(data: bytes)
            finding.format = read.format
            if let envelope = try ArchiveEnvelope(tree: read.tree) {
                finding.document =
                    (envelope.document ?? "(unnamed)")
                    + (envelope.documentVersion.map { " v\($0)" } ?? " (unversioned)")
            } else {
                finding.document = "(no envelope)"
            }
            finding.types = typeCounts(read.tree)
            if let engine {
                let outcome = try engine.migrate(bytes)
                finding.wouldChange = outcome.changed
                if let entry = outcome.report?.document {
                    finding.plan["document \(entry.name) v\(entry.fromVersion) → v\(entry.toVersion)"] = 1
                }
                for count in outcome.report?.counts ?? [] {
                    finding.plan["\(count.typeName) v\(count.fromVersion) → v\(count.toVersion)", default: 0] +=
                        count.count
                }
            }
        } catch let error as ArchiveError {
            if let line = record.line {
                finding.error = NDJSONBatch.located(error, line: line, of: record.shownAs)
            } else {
                finding.error = error.adding(file: record.shownAs)
            }
        } catch {
            finding.error = ArchiveError(.malformedInput, "\(record.shownAs) failed", underlyingError: error)
        }
        return finding
    }

    /// Objects per `Type vN` (walked without recursion).
    static func typeCounts(_ tree: ArchiveValue) -> [String: Int] {
        var counts: [String: Int] = [:]
        var pending = [tree]
        while let value = pending.popLast() {
            switch value {
            case .object(let object):
                counts["\(object.typeName) " + (object.version.map { "v\($0)" } ?? "unversioned"), default: 0] += 1
                pending.append(contentsOf: object.fields.values)
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let entries): pending.append(contentsOf: entries.values)
            default: break
            }
        }
        return counts
    }

    mutating func add(_ finding: Finding) {
        census.count += 1
        if finding.isEmpty {
            census.empty += 1
            return
        }
        if let format = finding.format { census.formats[format.rawValue, default: 0] += 1 }
        if let document = finding.document { census.documents[document, default: 0] += 1 }
        for (type, objects) in finding.types {
            let old = census.types[type] ?? ArchiveCensus.TypeCount(objects: 0, archives: 0)
            census.types[type] = ArchiveCensus.TypeCount(objects: old.objects + objects, archives: old.archives + 1)
        }
        for (step, objects) in finding.plan { census.upgrade?[step, default: 0] += objects }
        if finding.wouldChange { census.wouldChange += 1 }
        if let error = finding.error { census.addFailure(name: finding.name, error: error) }
    }
}

extension StoreCensus {
    /// Takes the census of the store `source` names, for `inspect` and `check`.
    static func take(
        _ source: ArchiveSource, context: ToolContext, engine: MigrationEngine?, firstLine: Int = 1
    ) throws -> ArchiveCensus {
        switch source {
        case .files:
            // `inspect` and `check` list files one by one and never ask for their census.
            throw ArchiveError(.invalidValue, "a census is taken of --ndjson and --sqlite stores, not of files")
        case .ndjson(let input):
            let shownAs = input ?? InputFile.standardInputName
            let reader = try LineReader(
                path: input.map(context.url), shownAs: shownAs, maxLineBytes: ArchiveLimits.default.maxInputBytes)
            var number = firstLine - 1
            return try take(
                source: shownAs, items: .lines,
                windows: {
                    guard
                        let lines = try reader.next(
                            maxCount: NDJSONBatch.windowLines, maxBytes: NDJSONBatch.windowBytes)
                    else { return nil }
                    defer { number += lines.count }
                    return lines.enumerated().map { offset, line in
                        let number = number + offset + 1
                        switch line {
                        case .text(let data):
                            let blank = data.allSatisfy { $0 == 0x20 || $0 == 0x09 }
                            return Record(
                                name: "line \(number)", shownAs: shownAs, bytes: blank ? nil : data, line: number)
                        case .tooLong:
                            // Not JSON as far as the census goes: it is never held.
                            return Record(name: "line \(number)", shownAs: shownAs, bytes: Data([0]), line: number)
                        }
                    }
                }, engine: engine, progress: ProgressLine(total: nil, console: context.console))
        case .sqlite(let location):
            let store = try SQLiteColumn(location, readOnly: true)
            let place = "\(store.table).\(store.column)"
            let shard = location.shard.map { " (shard \($0))" } ?? ""
            var lastKey: SQLiteColumn.Key?
            return try take(
                source: "\(location.shownAs) \(place)\(shard)", items: .rows,
                windows: {
                    let rows = try store.rows(
                        after: lastKey, limit: SQLiteBatch.windowRows, byteLimit: SQLiteBatch.windowBytes)
                    guard let last = rows.last else { return nil }
                    lastKey = last.key
                    return rows.map { row in
                        let name = store.describe(row.key)
                        let shownAs = "\(place), row \(name)"
                        switch row.value {
                        case .null: return Record(name: name, shownAs: shownAs, bytes: nil)
                        case .text(let data), .blob(let data): return Record(name: name, shownAs: shownAs, bytes: data)
                        case .integer, .real:
                            return Record(name: name, shownAs: shownAs, bytes: Data(row.value.literal.utf8))
                        }
                    }
                }, engine: engine,
                progress: ProgressLine(
                    total: context.console.errorIsTerminal ? try store.shardRowCount ?? store.count() : nil,
                    console: context.console))
        }
    }
}

extension StoreCensus {
    /// `inspect --sqlite …` and `inspect --ndjson`: the histogram, and with chains what an
    /// upgrade would change. Exit status 1 when an archive fails to read or upgrade (3 when
    /// one was written by a newer version), else 0.
    static func inspect(
        _ source: ArchiveSource, arguments: ParsedArguments, format: OutputFormat, context: ToolContext
    ) throws -> ExitStatus {
        let registry = try context.registry(rules: arguments.all(.rules))
        let engine =
            try registry.catalog.isEmpty ? nil : censusEngine(registry.catalog, document: arguments.value(.document))
        let census = try take(
            source, context: context, engine: engine, firstLine: try firstLine(arguments, source: source))
        try print(census, format: format, context: context)
        return ExitStatus(rawValue: census.exitStatus) ?? .failure
    }

    /// `inspect --merge A.json --merge B.json`: the censuses `inspect --format json` wrote for
    /// parts of a store, merged (``ArchiveCensus/merging(_:)``) and printed as one.
    static func merge(_ paths: [String], format: OutputFormat, context: ToolContext) throws -> ExitStatus {
        let parts = try paths.map { path in
            let data = try InputFile.read(
                context.url(path), shownAs: path, limit: ArchiveLimits.default.maxInputBytes)
            do {
                return try ArchiveCensus(json: data)
            } catch let error as ArchiveError {
                throw error.adding(file: path)
            }
        }
        guard let census = try ArchiveCensus.merged(parts) else { throw UsageError("'--merge' needs a file") }
        try print(census, format: format, context: context)
        return ExitStatus(rawValue: census.exitStatus) ?? .failure
    }

    private static func print(_ census: ArchiveCensus, format: OutputFormat, context: ToolContext) throws {
        if format == .json {
            try context.printJSON(census.json)
        } else {
            context.console.print(census.text)
        }
    }

    /// The engine a census upgrades each archive with in memory: `upgrade`'s, counting what it
    /// migrates.
    static func censusEngine(_ catalog: MigrationCatalog, document: String?) throws -> MigrationEngine {
        var options = MigrationEngine.Options()
        options.document = document
        options.reporting = .counts
        return try MigrationEngine(catalog: catalog, options: options)
    }

    /// `--first-line N`: the number of the first line of `--ndjson` input (a part of a larger
    /// file), so that failures are named by their line in the whole.
    static func firstLine(_ arguments: ParsedArguments, source: ArchiveSource) throws -> Int {
        guard let text = arguments.value(.firstLine) else { return 1 }
        guard case .ndjson = source else { throw UsageError("'--first-line' goes with '--ndjson'") }
        guard let number = Int(text), number >= 1 else {
            throw UsageError("'--first-line' must be a line number (1 or more), not '\(text)'")
        }
        return number
    }

    /// `check --sqlite …` and `check --ndjson`: the gate over a store — every archive must read
    /// and upgrade with the chains. Exit status 1 when any fails (3 when one was written by a
    /// newer version), else 0.
    static func check(
        _ source: ArchiveSource, rules: [String], format: OutputFormat, context: ToolContext
    ) throws -> ExitStatus {
        let registry = try context.registry(rules: rules)
        guard !registry.catalog.isEmpty else {
            throw UsageError("no migration chains: give a rules file with '--rules <file>'")
        }
        let census = try take(source, context: context, engine: try censusEngine(registry.catalog, document: nil))
        let source = census.sources.joined(separator: ", ")
        switch format {
        case .json:
            var tree = census.json
            if case .dictionary(var entries) = tree {
                entries["passed"] = .bool(census.failed == 0)
                tree = .dictionary(entries)
            }
            try context.printJSON(tree)
        case .github:
            for failure in census.failures {
                context.console.print("::error title=\(source)::\(failure.name): \(failure.message)")
            }
        case .text:
            context.console.print(census.text)
            context.console.print(
                census.failed == 0
                    ? "check passed: every archive of \(source) reads and upgrades"
                    : "check failed: \(census.failed) of \(census.count) \(census.items.rawValue) do not read or upgrade"
            )
        }
        return ExitStatus(rawValue: census.exitStatus) ?? .failure
    }
}
