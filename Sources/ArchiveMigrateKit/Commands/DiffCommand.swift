import Foundation
import ModelVersioning

/// `archive-migrate diff A B`
enum DiffCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Show the semantic difference of two archives as paths (exit 1 when they differ).",
        discussion: """
            Formats may differ (a JSON archive and its property-list copy are equal). Keys compare as sets, arrays \
            element by element, objects by type name, version and fields; 1 and 1.0 are the same number unless \
            --exact-numbers. Otherwise types matter: data and its base64 text, a date and its ISO 8601 text differ, \
            and the difference names both kinds ("(data → string)"; oldKind and newKind with --format json).
            """,
        arguments: [ArgumentSpec("a", help: "The first archive."), ArgumentSpec("b", help: "The second archive.")],
        options: [
            .exactNumbers, .format,
        ])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments)
        let old = try context.readArchive(arguments.positional[0]).tree
        let new = try context.readArchive(arguments.positional[1]).tree
        let differences = ArchiveDiff.differences(
            from: old, to: new, options: ArchiveDiff.Options(numbersByValue: !arguments.flag(.exactNumbers)))
        if format == .json {
            try context.printJSON([
                "equal": .bool(differences.isEmpty),
                "differences": .array(
                    differences.map { difference in
                        var entry: ArchiveDictionary = [
                            "path": .string(difference.path.description), "kind": .string(difference.kind.rawValue),
                        ]
                        // The values are written as plain JSON, where data and dates read as text:
                        // their kinds say what they are.
                        if let old = difference.old {
                            entry["old"] = old
                            entry["oldKind"] = .string(old.kind.rawValue)
                        }
                        if let new = difference.new {
                            entry["new"] = new
                            entry["newKind"] = .string(new.kind.rawValue)
                        }
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
