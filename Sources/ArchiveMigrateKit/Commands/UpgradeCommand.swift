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
        let registry = try context.registry(rules: arguments.all(.rules))
        let target = try DowngradeTarget(arguments: arguments.all(.upgradeTarget))
        let document = arguments.value(.document)
        let catalog = target.isEmpty ? registry.catalog : try target.truncating(registry.catalog, document: document)
        guard !catalog.isEmpty else {
            throw UsageError("no migration chains: give a rules file with '--rules <file>'")
        }
        let processor = try BatchProcessor(context: context, arguments: arguments, catalog: catalog, format: format)
        let pass = MigrationPass(
            catalog: catalog,
            options: MigrationOptions(
                allowsNewerVersions: arguments.flag(.allowNewer), recordsSteps: processor.recordsSteps))
        let readableBy = try ReadableBy(arguments, catalog: registry.catalog)
        // Up to the current versions and nothing else written into the tree: JSON archives whose
        // old objects only move keys can be upgraded by rewriting their text, to the same bytes.
        let textUpgrade = target.isEmpty && readableBy == nil ? catalog : nil
        return try processor.run(arguments.positional, verb: "upgraded", textUpgrade: textUpgrade) { tree, document in
            let report = try pass.upgrade(&tree, document: document)
            try readableBy?.write(into: &tree)
            return report
        }
    }
}
