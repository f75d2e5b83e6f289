import Foundation
import ModelVersioning

/// `archive-migrate convert FILE --to json|xml-plist|binary-plist [--output FILE]`
enum ConvertCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "convert",
        abstract: "Convert an archive to another format (to standard output unless --output).",
        discussion: """
            The archive tree is written as is: objects keep their type names, versions and identities, so \
            converting back gives the same tree. --plain writes JSON or property lists for other programs: objects \
            as dictionaries with their $type and $version keys, dates as ISO 8601 strings, data as base64. \
            A plain document stays plain; with --document naming a plain document chain (from --rules or the \
            app's own chains) its dates and data are written in that chain's spellings. --output FILE is \
            replaced atomically when it exists, keeping its mode, owner, group, extended attributes and symbolic \
            link; a new file gets the input's permissions. --readable-by RELEASE (with --rules) adds the steps \
            down to that older release, so that it opens the converted archive.
            """,
        arguments: [ArgumentSpec("file", help: "The archive to convert.")],
        options: [
            .convertTarget, .outputFile, .plain, .compact, .readableBy,
        ] + OptionSpec.migration)

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        guard let name = arguments.value(.convertTarget) else { throw UsageError("'--to <format>' is required") }
        guard let format = ArchiveFormat(rawValue: name) else {
            throw UsageError(
                "'--to' must be one of \(ArchiveFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'"
            )
        }
        let path = arguments.positional[0]
        let document = arguments.value(.document)
        let readableBy = arguments.value(.readableBy)
        let catalog =
            document != nil || readableBy != nil ? try context.registry(rules: arguments.all(.rules)).catalog : nil
        var archive = try context.readArchive(path)
        if let catalog {
            try MigrationEngine.Options.check(document: document, against: catalog)
            try MigrationEngine.Options.check(readableBy: readableBy, against: catalog)
            // A plain document is written in its chain's spellings.
            if let conventions = document.flatMap({ catalog.document(named: $0)?.style.conventions }) {
                archive.conventions = conventions
            }
            if let readableBy { try catalog.writeWayDown(toRelease: readableBy, into: &archive.tree) }
        }
        // A plain document stays plain; an archive keeps its markup unless --plain asks otherwise.
        let data = try archive.data(
            as: format, prettyPrinted: !arguments.flag(.compact), markup: arguments.flag(.plain) ? .plain : nil)
        if let output = arguments.value(.outputFile) {
            try FileTransaction.write(
                data, to: context.url(output), shownAs: output, permissionsFrom: context.url(path), context: context)
        } else {
            context.console.write(data)
        }
        return .success
    }
}
