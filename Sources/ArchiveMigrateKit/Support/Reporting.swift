import Foundation
import ModelVersioning

/// The per-file summary of `upgrade` and `downgrade`.
enum Reporting {
    static func print(
        _ result: BatchProcessor.Result, verb: String, format: OutputFormat, processor: BatchProcessor,
        context: ToolContext
    ) throws -> ExitStatus {
        let outcomes = result.outcomes
        let failed = outcomes.filter { $0.error != nil }
        // When the archive itself went to standard output, the report goes to standard error.
        let toError: Bool
        if case .standardOutput = processor.destination { toError = true } else { toError = false }
        if format == .json {
            let entries: [ArchiveValue] = outcomes.map { outcome in
                var entry: ArchiveDictionary = ["file": .string(outcome.path), "ok": .bool(outcome.error == nil)]
                if let error = outcome.error {
                    entry["error"] = .string(error.description)
                    entry["code"] = .string(error.code.rawValue)
                }
                if let report = outcome.report {
                    entry["migrated"] = .int(Int64(report.migratedObjectCount))
                    entry["steps"] = .array(
                        report.entries.map { item in
                            [
                                "path": .string(item.path.description), "type": .string(item.archivedTypeName),
                                "from": .int(Int64(item.fromVersion)), "to": .int(Int64(item.toVersion)),
                            ]
                        })
                }
                return .dictionary(entry)
            }
            let tree: ArchiveValue = [
                "files": .array(entries), "failed": .int(Int64(failed.count)),
                "notes": .array(result.notes.map { .string($0) }),
            ]
            if toError {
                let data = try ArchiveFormat.json.write(tree, options: ArchiveWritingOptions(markup: .plain))
                context.console.error(String(decoding: data, as: UTF8.self))
            } else {
                try context.printJSON(tree)
            }
        } else {
            for outcome in outcomes {
                if let error = outcome.error {
                    context.console.error("error: \(error)")
                } else if let report = outcome.report {
                    let line = "\(verb) \(outcome.path): \(report.summary(listing: 10))"
                    if toError { context.console.error(line) } else { context.console.print(line) }
                }
            }
            for note in result.notes {
                context.console.error(note)
            }
        }
        // 2 for any error but a newer version, else 3 for a newer version.
        var status = ExitStatus.success
        for error in failed.compactMap(\.error) {
            status = status.combined(with: ExitStatus(error: error))
        }
        return status
    }
}
