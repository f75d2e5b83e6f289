import Foundation
import ModelVersioning

/// `archive-migrate upgrade FILE… --rules R [--to V] [--output DIR | --in-place [--backup]]`
enum UpgradeCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "upgrade",
        abstract: "Upgrade archives to today's versions (or to the versions --to names).",
        discussion: """
            Reads each archive (JSON or a property list), runs every object through its type's migration chain \
            and the document through its chain, and writes it back in the same format. Files are processed in \
            parallel. With --in-place each file is replaced atomically (temporary file, fsync, rename), and nothing \
            is written unless every file upgraded: a damaged archive in the batch leaves every original untouched.
            """,
        arguments: [ArgumentSpec("file", repeating: true, help: "The archives to upgrade.")],
        options: CommonOptions.migration + CommonOptions.destination + [
            OptionSpec(
                "to", .value(name: "version"), repeatable: true,
                help: "Stop at this document version, or at TYPE=VERSION for one type."),
            OptionSpec("allow-newer", help: "Leave objects written by a newer app as they are instead of failing."),
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments)
        let registry = try context.registry(rules: arguments.all("rules"))
        let targets = try MigrationTargets(arguments.all("to"))
        let document = arguments.value("document")
        let catalog = targets.isEmpty ? registry.catalog : try targets.truncating(registry.catalog, document: document)
        guard !catalog.isEmpty else {
            throw UsageError("no migration chains: give a rules file with '--rules <file>'")
        }
        let pass = MigrationPass(
            catalog: catalog, options: MigrationOptions(lenient: arguments.flag("allow-newer"), recordsSteps: true))
        let processor = try BatchProcessor(context: context, arguments: arguments)
        let outcomes = processor.run(arguments.positional) { tree in try pass.upgrade(&tree, document: document) }
        return try Reporting.print(outcomes, verb: "upgraded", format: format, processor: processor, context: context)
    }
}

/// `archive-migrate downgrade FILE… --rules R --to V`
enum DowngradeCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "downgrade",
        abstract: "Downgrade archives to the versions an older app reads.",
        discussion: """
            Runs the inverse of each migration step, from today's versions down to the versions --to names (a \
            document version, or TYPE=VERSION, repeatable). A step with a rule that has no inverse fails with an \
            error naming the step and the rule; the file is then left untouched.
            """,
        arguments: [ArgumentSpec("file", repeating: true, help: "The archives to downgrade.")],
        options: CommonOptions.migration + CommonOptions.destination + [
            OptionSpec(
                "to", .value(name: "version"), repeatable: true,
                help: "The document version, or TYPE=VERSION for a type (required)."),
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments)
        let targets = try MigrationTargets(arguments.all("to"))
        guard !targets.isEmpty else { throw UsageError("'--to <version>' is required") }
        let registry = try context.registry(rules: arguments.all("rules"))
        guard !registry.catalog.isEmpty else {
            throw UsageError("no migration chains: give a rules file with '--rules <file>'")
        }
        let document = arguments.value("document")
        let pass = MigrationPass(catalog: registry.catalog)
        let processor = try BatchProcessor(context: context, arguments: arguments)
        let outcomes = processor.run(arguments.positional) { tree in
            try pass.downgrade(&tree, to: targets.downgradeTarget, document: document)
        }
        return try Reporting.print(outcomes, verb: "downgraded", format: format, processor: processor, context: context)
    }
}

/// Options several commands share.
enum CommonOptions {
    static let migration = [
        OptionSpec(
            "rules", short: "r", .value(name: "file"), repeatable: true,
            help: "A rules file with migration chains (see the rules-file format)."),
        OptionSpec("document", .value(name: "name"), help: "The document chain for archives that do not name one."),
    ]

    static let destination = [
        OptionSpec("output", short: "o", .value(name: "dir"), help: "Write the results into this folder."),
        OptionSpec("in-place", help: "Replace each archive atomically; the original survives any failure."),
        OptionSpec("backup", help: "With --in-place, keep each original as <file>.bak."),
    ]

    static let format = OptionSpec("format", .value(name: "text|json"), help: "Output format (default: text).")
}

/// The per-file summary of `upgrade` and `downgrade`.
enum Reporting {
    static func print(
        _ outcomes: [BatchProcessor.Outcome], verb: String, format: String, processor: BatchProcessor,
        context: ToolContext
    ) throws -> ExitStatus {
        let failed = outcomes.filter { $0.error != nil }
        // When the archive itself went to standard output, the report goes to standard error.
        let toError: Bool
        if case .standardOutput = processor.destination { toError = true } else { toError = false }
        if format == "json" {
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
            let tree: ArchiveValue = ["files": .array(entries), "failed": .int(Int64(failed.count))]
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
        }
        return failed.isEmpty ? .success : .failure
    }
}
