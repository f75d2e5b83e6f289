import Foundation
import ModelVersioning

/// `archive-migrate convert FILE --to json|xml-plist|binary-plist [--output FILE]`
enum ConvertCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "convert",
        abstract: "Convert an archive to another format (to standard output unless --output).",
        discussion: """
            The archive tree is written as is: objects keep their type names, versions and identities, so \
            converting back gives the same tree, and no value loses its type. A plain document (a property list, \
            foreign JSON) stays plain; but plain JSON has no dates, data, NaN or infinity: a plain document that \
            holds them, converted to JSON, is written in a plain envelope ({"$archive": 1, "plain": true, \
            "root": ...}) whose markup keeps their types (a note names the first one), so that converting it back \
            gives the same property list. --plain drops types on request: JSON or property lists for other \
            programs, objects as dictionaries with their $type and $version keys, dates as ISO 8601 strings, data \
            as base64 (NaN and infinity are an error). With --document naming a plain document chain (from --rules \
            or the app's own chains) a plain document's dates and data are written in that chain's spellings. \
            --output FILE is replaced atomically when it exists, keeping its mode, owner, group, extended \
            attributes and symbolic link; a new file gets the input's permissions. --readable-by RELEASE (with \
            --rules) adds the steps down to that older release, so that it opens the converted archive.
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
        // A plain document stays plain and an archive keeps its markup, neither losing a type,
        // unless --plain asks otherwise (ArchiveDocument.data(as:)).
        var markup: MarkupMode? = arguments.flag(.plain) ? .plain : nil
        if let catalog {
            try MigrationEngine.Options.check(document: document, against: catalog)
            try MigrationEngine.Options.check(readableBy: readableBy, against: catalog)
            // A plain document is written in its chain's spellings.
            if let conventions = document.flatMap({ catalog.document(named: $0)?.style.conventions }) {
                archive.conventions = conventions
                if archive.markup == .plain { markup = .plain }
            }
            if let readableBy { try catalog.writeWayDown(toRelease: readableBy, into: &archive.tree) }
        }
        let prettyPrinted = !arguments.flag(.compact)
        let data = try archive.data(as: format, prettyPrinted: prettyPrinted, markup: markup)
        // `-o -` is standard output, as `-` is standard input: never a file named "-".
        if let output = arguments.value(.outputFile), output != "-" {
            try FileTransaction.write(
                data, to: context.url(output), shownAs: output, permissionsFrom: context.url(path), context: context)
        } else {
            context.console.write(data)
        }
        if format == .json,
            archive.writingOptions(as: format, prettyPrinted: prettyPrinted, markup: markup).plainEnvelope
                == .whenNeeded,
            let first = ArchiveMarkup.firstValuePlainJSONCannotHold(in: archive.tree)
        {
            let file = path == "-" ? InputFile.standardInputName : path
            context.console.error("note: " + Self.plainEnvelopeNote(file: file, path: first.path, kind: first.kind))
        }
        return .success
    }

    /// Why a plain document was written in a plain envelope: the first value plain JSON has no
    /// type for.
    static func plainEnvelopeNote(file: String, path: ArchivePath, kind: ArchiveValue.Kind) -> String {
        let value: String
        switch kind {
        case .date: value = "a date"
        case .data: value = "data"
        case .double: value = "a number JSON cannot spell (NaN or infinity)"
        case .object: value = "an object"
        case .reference: value = "a reference"
        default: value = "a \(kind)"
        }
        let place = path.isRoot ? "at the top" : "at \(path)"
        return "\(file) holds \(value) \(place), which plain JSON has no type for: "
            + "written in a plain envelope ({\"$archive\": 1, \"plain\": true, \"root\": …}) that keeps its type, so that "
            + "converting back restores it; --plain writes such values as text instead"
    }
}
