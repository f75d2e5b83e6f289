import Foundation
import ModelVersioning

/// The per-file report of `upgrade` and `downgrade`, always on standard error (standard output
/// carries only archive data), and the exit status it ends with.
enum Reporting {
    /// Prints the report and returns the exit status: 2 when any file failed for another reason
    /// than a newer version, else 3 when any was written by a newer version, else — for a dry
    /// run — 1 when any file would change, else 0.
    static func print(
        _ result: BatchProcessor.Result, verb: String, format: OutputFormat, dryRun: Bool, context: ToolContext
    ) throws -> ExitStatus {
        let outcomes = result.outcomes
        var status = ExitStatus.success
        for outcome in outcomes {
            if let error = outcome.error {
                status = status.combined(with: ExitStatus(error: error))
            } else if dryRun, outcome.changed {
                status = status.combined(with: .findings)
            }
        }
        if format == .json {
            let tree: ArchiveValue = [
                "dryRun": .bool(dryRun),
                "files": .array(outcomes.map { json($0) }),
                "failed": .int(Int64(outcomes.filter { $0.error != nil }.count)),
                "changed": .int(Int64(outcomes.filter(\.changed).count)),
                "written": .bool(result.wrote),
                "notes": .array(result.notes.map { .string($0) }),
                "exitStatus": .int(Int64(status.rawValue)),
            ]
            let data = try ArchiveFormat.json.write(
                tree, options: ArchiveWritingOptions(prettyPrinted: true, markup: .plain))
            context.console.error(String(decoding: data, as: UTF8.self))
            return status
        }
        for outcome in outcomes {
            if let note = outcome.note { context.console.error("note: \(note)") }
            if let error = outcome.error {
                context.console.error("error: \(error)")
            } else if let report = outcome.report {
                let summary = report.summary(listing: 10)
                if dryRun {
                    context.console.error("\(outcome.path) would \(outcome.changed ? "" : "not ")change: \(summary)")
                } else if outcome.writtenTo != nil, !result.wrote {
                    context.console.error("\(verb) \(outcome.path) (not written): \(summary)")
                } else {
                    context.console.error("\(verb) \(outcome.path): \(summary)")
                }
            }
        }
        for note in result.notes {
            context.console.error(note)
        }
        return status
    }

    /// One file's entry: what ran (every step of the document and of each object) or the error.
    private static func json(_ outcome: BatchProcessor.Outcome) -> ArchiveValue {
        var entry: ArchiveDictionary = [
            "file": .string(outcome.path), "ok": .bool(outcome.error == nil), "changed": .bool(outcome.changed),
        ]
        if let writtenTo = outcome.writtenTo, outcome.error == nil { entry["output"] = .string(writtenTo) }
        if let note = outcome.note { entry["note"] = .string(note) }
        if let error = outcome.error {
            entry["error"] = .string(error.description)
            entry["code"] = .string(error.code.rawValue)
            if !error.path.isRoot { entry["path"] = .string(error.path.description) }
        }
        guard let report = outcome.report else { return .dictionary(entry) }
        if let document = report.document {
            entry["document"] = [
                "name": .string(document.name), "from": .int(Int64(document.fromVersion)),
                "to": .int(Int64(document.toVersion)), "unversioned": .bool(document.wasUnversioned),
                "steps": .array(document.steps.map { .string($0) }),
            ]
        }
        entry["migrated"] = .int(Int64(report.migratedObjectCount))
        entry["objects"] = .array(
            report.entries.map { item in
                [
                    "path": .string(item.path.description), "type": .string(item.archivedTypeName),
                    "newType": .string(item.typeName), "from": .int(Int64(item.fromVersion)),
                    "to": .int(Int64(item.toVersion)), "steps": .array(item.steps.map { .string($0) }),
                ]
            })
        if !report.newer.isEmpty {
            entry["newer"] = .array(
                report.newer.map { item in
                    [
                        "path": .string(item.path.description), "name": .string(item.name),
                        "version": .int(Int64(item.version)), "known": .int(Int64(item.knownVersion)),
                    ]
                })
        }
        if let carried = report.carriedSteps {
            entry["carriedSteps"] = [
                "release": .string(carried.release), "digest": .string(carried.digest),
                "migrated": .int(Int64(carried.counts.reduce(0) { $0 + $1.count })),
                "kept": .int(Int64(carried.keptCount)),
            ]
        }
        if report.restoredCount > 0 { entry["restored"] = .int(Int64(report.restoredCount)) }
        if !report.unknownTypeNames.isEmpty {
            entry["unknownTypes"] = .dictionary(
                ArchiveDictionary(
                    report.unknownTypeNames.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) }))
        }
        return .dictionary(entry)
    }
}
