import Foundation
import ModelVersioning

/// `archive-migrate downgrade FILE… --rules R --to RELEASE`
enum DowngradeCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "downgrade",
        abstract: "Downgrade archives to exactly what an older release of the app reads.",
        discussion: """
            Runs the inverse of each migration step, from today's versions down to the release --to names: a \
            release of the rules' (or app's) release manifest by its name (--to 1.1) or by the document version \
            it wrote (--to 2). Every object goes to the version that release archived its type at, under the \
            name it used. An object whose type the release did not have is an error naming the type, the path \
            and the release, unless its chain declares how that release saw it (a downgrade fallback) or \
            --drop-absent leaves such objects out; the report lists each one. Experts may name versions type by \
            type instead (--to TYPE=VERSION, repeatable). A step with a rule that has no inverse fails with an \
            error naming the step and the rule; nothing is then written.
            """ + "\n\n" + BatchHelp.discussion(verb: "downgrade"),
        arguments: [
            ArgumentSpec(
                "file", repeating: true, optional: true, help: "The archives to downgrade ('-': standard input).")
        ],
        options: OptionSpec.migration + OptionSpec.destination + OptionSpec.stores + [
            .skipFailed, .nested, .downgradeTarget, .dropAbsent, .readableBy, .format,
        ])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments)
        guard !arguments.all(.downgradeTarget).isEmpty else { throw UsageError("'--to <release>' is required") }
        let registry = try context.registry(rules: arguments.all(.rules))
        guard !registry.catalog.isEmpty else {
            throw UsageError("no migration chains: give a rules file with '--rules <file>'")
        }
        let target = try DowngradeTarget(
            arguments: arguments.all(.downgradeTarget), catalog: registry.catalog,
            droppingAbsentTypes: arguments.flag(.dropAbsent))
        try target.checkArguments(against: registry.catalog, document: arguments.value(.document))
        let processor = try BatchProcessor(
            context: context, arguments: arguments, catalog: registry.catalog, format: format)
        return try processor.run(
            arguments.positional, verb: "downgraded", catalog: registry.catalog, operation: .downgrade(to: target))
    }
}
