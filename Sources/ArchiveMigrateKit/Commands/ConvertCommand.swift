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
            as dictionaries with their $type and $version keys, dates as ISO 8601 strings, data as base64.
            """,
        arguments: [ArgumentSpec("file", help: "The archive to convert.")],
        options: [
            OptionSpec("to", .value(name: "format"), help: "json, xml-plist or binary-plist (required)."),
            OptionSpec("output", short: "o", .value(name: "file"), help: "Write here instead of standard output."),
            OptionSpec("plain", help: "Write without the archive markup (for other programs; may lose types)."),
            OptionSpec("compact", help: "No line breaks or indentation."),
        ])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        guard let name = arguments.value("to") else { throw UsageError("'--to <format>' is required") }
        guard let format = ArchiveFormat(rawValue: name) else {
            throw UsageError(
                "'--to' must be one of \(ArchiveFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'"
            )
        }
        let path = arguments.positional[0]
        let (tree, _) = try context.readArchive(path)
        let options = ArchiveWritingOptions(
            prettyPrinted: !arguments.flag("compact"), markup: arguments.flag("plain") ? .plain : .archive)
        let data = try format.write(tree, options: options)
        if let output = arguments.value("output") {
            try AtomicFile.write(data, to: context.url(output))
        } else {
            context.console.write(data)
        }
        return .success
    }
}

/// `archive-migrate diff A B`
enum DiffCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Show the semantic difference of two archives as paths (exit 1 when they differ).",
        discussion: """
            Formats may differ (a JSON archive and its property-list copy are equal). Keys compare as sets, arrays \
            element by element, objects by type name, version and fields; 1 and 1.0 are the same number unless \
            --exact-numbers.
            """,
        arguments: [ArgumentSpec("a", help: "The first archive."), ArgumentSpec("b", help: "The second archive.")],
        options: [
            OptionSpec("exact-numbers", help: "Treat 1 and 1.0 as different."),
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments)
        let (old, _) = try context.readArchive(arguments.positional[0])
        let (new, _) = try context.readArchive(arguments.positional[1])
        let differences = ArchiveDiff.differences(
            from: old, to: new, options: ArchiveDiff.Options(numbersByValue: !arguments.flag("exact-numbers")))
        if format == "json" {
            try context.printJSON([
                "equal": .bool(differences.isEmpty),
                "differences": .array(
                    differences.map { difference in
                        var entry: ArchiveDictionary = [
                            "path": .string(difference.path.description), "kind": .string(difference.kind.rawValue),
                        ]
                        if let old = difference.old { entry["old"] = old }
                        if let new = difference.new { entry["new"] = new }
                        return .dictionary(entry)
                    }),
            ])
        } else if differences.isEmpty {
            context.console.print("no differences")
        } else {
            context.console.print(differences.map(\.description).joined(separator: "\n"))
        }
        return differences.isEmpty ? .success : .findings
    }
}
