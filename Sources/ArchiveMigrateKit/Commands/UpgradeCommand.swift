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
            parallel. With --in-place each file is replaced atomically (temporary file, fsync, rename), keeping its \
            mode, owner, group and extended attributes; a symbolic link stays a link and its file is replaced; a \
            file with several hard links is refused. -o DIR refuses two inputs with one name, and files DIR already \
            has unless --overwrite; --backup keeps a .bak that already holds the original and refuses one that \
            differs unless --overwrite. Nothing is written unless every file upgraded and every new file (and \
            backup) was written in full to a temporary: a damaged archive or a full disk leaves every original \
            untouched. A run waits for another run writing into the same folder. Exit status: 0 success, 2 an \
            error, 3 an archive written by a newer version than the rules know (2 wins over 3 in a batch).
            """,
        arguments: [ArgumentSpec("file", repeating: true, help: "The archives to upgrade.")],
        options: OptionSpec.migration + OptionSpec.destination + [
            .upgradeTarget, .allowNewer, .format,
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
        let pass = MigrationPass(
            catalog: catalog,
            options: MigrationOptions(allowsNewerVersions: arguments.flag(.allowNewer), recordsSteps: true))
        let processor = try BatchProcessor(context: context, arguments: arguments)
        let result = try processor.run(arguments.positional) { tree in try pass.upgrade(&tree, document: document) }
        return try Reporting.print(result, verb: "upgraded", format: format, processor: processor, context: context)
    }
}
