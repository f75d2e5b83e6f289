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
            parallel.
            """ + "\n\n" + BatchHelp.discussion(verb: "upgrade"),
        arguments: [
            ArgumentSpec(
                "file", repeating: true, optional: true, help: "The archives to upgrade ('-': standard input).")
        ],
        options: OptionSpec.migration + OptionSpec.destination + OptionSpec.stores + [
            .skipFailed, .nested, .upgradeTarget, .allowNewer, .readableBy, .format,
        ])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments)
        let catalog = try context.registry(rules: arguments.all(.rules)).catalog
        let target = try DowngradeTarget(arguments: arguments.all(.upgradeTarget))
        if !target.isEmpty { try target.checkTruncation(of: catalog, document: arguments.value(.document)) }
        guard !catalog.isEmpty else {
            throw UsageError("no migration chains: give a rules file with '--rules <file>'")
        }
        let processor = try BatchProcessor(context: context, arguments: arguments, catalog: catalog, format: format)
        return try processor.run(
            arguments.positional, verb: "upgraded", catalog: catalog,
            operation: .upgrade(to: target.isEmpty ? nil : target))
    }
}
