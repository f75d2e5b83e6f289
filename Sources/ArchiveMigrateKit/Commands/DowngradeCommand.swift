import Foundation
import ModelVersioning

/// `archive-migrate downgrade FILE… --rules R --to V`
enum DowngradeCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "downgrade",
        abstract: "Downgrade archives to the versions an older app reads.",
        discussion: """
            Runs the inverse of each migration step, from today's versions down to the versions --to names (a \
            document version, or TYPE=VERSION, repeatable). A step with a rule that has no inverse fails with an \
            error naming the step and the rule; nothing is then written.
            """ + "\n\n" + BatchHelp.discussion(verb: "downgrade"),
        arguments: [ArgumentSpec("file", repeating: true, help: "The archives to downgrade.")],
        options: OptionSpec.migration + OptionSpec.destination + [
            .downgradeTarget, .format,
        ])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments)
        let target = try DowngradeTarget(arguments: arguments.all(.downgradeTarget))
        guard !target.isEmpty else { throw UsageError("'--to <version>' is required") }
        let registry = try context.registry(rules: arguments.all(.rules))
        guard !registry.catalog.isEmpty else {
            throw UsageError("no migration chains: give a rules file with '--rules <file>'")
        }
        try target.check(against: registry.catalog, document: arguments.value(.document))
        let pass = MigrationPass(catalog: registry.catalog, options: MigrationOptions(recordsSteps: true))
        let processor = try BatchProcessor(
            context: context, arguments: arguments, catalog: registry.catalog, format: format)
        let result = try processor.run(arguments.positional) { tree, document in
            try pass.downgrade(&tree, to: target, document: document)
        }
        return try Reporting.print(
            result, verb: "downgraded", format: format, dryRun: processor.dryRun, context: context)
    }
}
