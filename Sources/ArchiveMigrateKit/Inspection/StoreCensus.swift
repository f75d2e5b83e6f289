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

    var source = ""
    var count = 0
    var empty = 0
    var formats: [String: Int] = [:]
    var documents: [String: Int] = [:]
    /// `Type vN` → (objects, archives holding one).
    var types: [String: (objects: Int, archives: Int)] = [:]
    /// `Type vN → vM` → objects an upgrade would migrate.
    var plan: [String: Int] = [:]
    var wouldChange = 0
    var failures: [(name: String, error: ArchiveError)] = []
    var failed = 0
    var status = ExitStatus.success
    /// The failures listed by name; the rest are counted.
    static let listedFailures = 20

    /// Reads every record of `next` (a window at a time) and counts it.
    static func take(
        source: String, windows next: () throws -> [Record]?, pass: MigrationPass?, document: String?,
        progress: ProgressLine
    ) throws -> StoreCensus {
        var census = StoreCensus(source: source)
        while let records = try next() {
            let findings = Parallel.map(records) { record in examine(record, pass: pass, document: document) }
            for finding in findings {
                census.add(finding)
                progress.advance(changed: finding.wouldChange, failed: finding.error != nil)
            }
        }
        progress.finish()
        return census
    }

    static func examine(_ record: Record, pass: MigrationPass?, document: String?) -> Finding {
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
            if let pass {
                var tree = read.tree
                let report = try pass.upgrade(&tree, document: document)
                finding.wouldChange = report.changedTree
                if let entry = report.document {
                    finding.plan["document \(entry.name) v\(entry.fromVersion) → v\(entry.toVersion)"] = 1
                }
                for count in report.counts {
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
        count += 1
        if finding.isEmpty {
            empty += 1
            return
        }
        if let format = finding.format { formats[format.rawValue, default: 0] += 1 }
        if let document = finding.document { documents[document, default: 0] += 1 }
        for (type, objects) in finding.types {
            let old = types[type] ?? (0, 0)
            types[type] = (old.objects + objects, old.archives + 1)
        }
        for (step, objects) in finding.plan { plan[step, default: 0] += objects }
        if finding.wouldChange { wouldChange += 1 }
        if let error = finding.error {
            failed += 1
            status = status.combined(with: ExitStatus(error: error) == .newerVersion ? .newerVersion : .findings)
            if failures.count < Self.listedFailures { failures.append((finding.name, error)) }
        }
    }

    /// The histogram as lines for people.
    func text(items: String, emptyName: String, withPlan: Bool) -> String {
        /// `1 row`, `1,200 rows`.
        func counted(_ number: Int, _ plural: String) -> String {
            ArchiveBatch.Progress.grouped(number) + " " + (number == 1 ? String(plural.dropLast()) : plural)
        }
        let grouped = ArchiveBatch.Progress.grouped
        var lines = ["\(source): \(counted(count, items))" + (empty > 0 ? " (\(grouped(empty)) \(emptyName))" : "")]
        func table(_ title: String, _ rows: [(String, String)]) {
            guard !rows.isEmpty else { return }
            lines.append(title)
            let width = rows.map(\.0.count).max() ?? 0
            for (name, value) in rows {
                lines.append("  " + name + ":" + String(repeating: " ", count: width - name.count + 1) + value)
            }
        }
        table("formats:", formats.sorted { $0.key < $1.key }.map { ($0.key, grouped($0.value)) })
        table("documents:", documents.sorted { $0.key < $1.key }.map { ($0.key, counted($0.value, items)) })
        table(
            "types:",
            types.sorted { $0.key < $1.key }.map {
                ($0.key, counted($0.value.objects, "objects") + " in " + counted($0.value.archives, items))
            })
        if withPlan {
            if plan.isEmpty {
                lines.append("upgrade: nothing to migrate")
            } else {
                lines.append("upgrade would change \(counted(wouldChange, items)):")
                for (step, objects) in plan.sorted(by: { $0.key < $1.key }) {
                    lines.append("  \(step): \(grouped(objects))")
                }
            }
        }
        if failed > 0 {
            lines.append("\(counted(failed, items)) failed:")
            for failure in failures {
                lines.append("  \(failure.name): \(failure.error)")
            }
            if failed > failures.count { lines.append("  … and \(grouped(failed - failures.count)) more") }
        }
        return lines.joined(separator: "\n")
    }

    /// The histogram as JSON for scripts.
    func json(items: String, withPlan: Bool) -> ArchiveValue {
        func dictionary(_ counts: [String: Int]) -> ArchiveValue {
            .dictionary(ArchiveDictionary(counts.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) }))
        }
        var typeEntries = ArchiveDictionary()
        for (type, counts) in types.sorted(by: { $0.key < $1.key }) {
            typeEntries[type] = ["objects": .int(Int64(counts.objects)), items: .int(Int64(counts.archives))]
        }
        var failureEntries: [ArchiveValue] = []
        for failure in failures {
            failureEntries.append(
                [
                    "name": .string(failure.name), "code": .string(failure.error.code.rawValue),
                    "error": .string(failure.error.description),
                ])
        }
        var result = ArchiveDictionary()
        result["source"] = .string(source)
        result[items] = .int(Int64(count))
        result["empty"] = .int(Int64(empty))
        result["formats"] = dictionary(formats)
        result["documents"] = dictionary(documents)
        result["types"] = .dictionary(typeEntries)
        result["failed"] = .int(Int64(failed))
        result["failures"] = .array(failureEntries)
        if withPlan {
            result["wouldChange"] = .int(Int64(wouldChange))
            result["upgrade"] = dictionary(plan)
        }
        return .dictionary(result)
    }
}

extension StoreCensus {
    /// Takes the census of the store `source` names, for `inspect` and `check`.
    static func take(
        _ source: ArchiveSource, context: ToolContext, pass: MigrationPass?, document: String?
    ) throws -> (census: StoreCensus, items: String, emptyName: String) {
        switch source {
        case .files:
            // `inspect` and `check` list files one by one and never ask for their census.
            throw ArchiveError(.invalidValue, "a census is taken of --ndjson and --sqlite stores, not of files")
        case .ndjson(let input):
            let shownAs = input ?? InputFile.standardInputName
            let reader = try LineReader(
                path: input.map(context.url), shownAs: shownAs, maxLineBytes: ArchiveLimits.default.maxInputBytes)
            var number = 0
            let census = try take(
                source: shownAs,
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
                }, pass: pass, document: document, progress: ProgressLine(total: nil, console: context.console))
            return (census, "lines", "blank")
        case .sqlite(let location):
            let store = try SQLiteColumn(location, readOnly: true)
            let place = "\(store.table).\(store.column)"
            var lastKey: SQLiteColumn.Key?
            let census = try take(
                source: "\(location.shownAs) \(place)",
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
                }, pass: pass, document: document,
                progress: ProgressLine(
                    total: context.console.errorIsTerminal ? try store.count() : nil, console: context.console))
            return (census, "rows", "NULL")
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
        let pass =
            registry.catalog.isEmpty
            ? nil : MigrationPass(catalog: registry.catalog, options: MigrationOptions(recordsSteps: false))
        let (census, items, emptyName) = try take(
            source, context: context, pass: pass, document: arguments.value(.document))
        if format == .json {
            try context.printJSON(census.json(items: items, withPlan: pass != nil))
        } else {
            context.console.print(census.text(items: items, emptyName: emptyName, withPlan: pass != nil))
        }
        return census.status
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
        let pass = MigrationPass(catalog: registry.catalog, options: MigrationOptions(recordsSteps: false))
        let (census, items, emptyName) = try take(source, context: context, pass: pass, document: nil)
        switch format {
        case .json:
            var tree = census.json(items: items, withPlan: true)
            if case .dictionary(var entries) = tree {
                entries["passed"] = .bool(census.failed == 0)
                tree = .dictionary(entries)
            }
            try context.printJSON(tree)
        case .github:
            for failure in census.failures {
                context.console.print("::error title=\(census.source)::\(failure.name): \(failure.error)")
            }
        case .text:
            context.console.print(census.text(items: items, emptyName: emptyName, withPlan: true))
            context.console.print(
                census.failed == 0
                    ? "check passed: every archive of \(census.source) reads and upgrades"
                    : "check failed: \(census.failed) of \(census.count) \(items) do not read or upgrade")
        }
        return census.status
    }
}
