import ArchiveCompatibility
import Foundation
import ModelVersioning

/// `archive-migrate check [DIR]`: the CI gate.
enum CheckCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "The CI gate: schemas, migration paths and archived fixtures (exit 1 on findings).",
        discussion: """
            With no arguments, checks the current repository: the archived fixtures in Fixtures/archives \
            (upgraded with Fixtures/archives/rules.json when present) against their goldens, and the schema \
            snapshots in Fixtures/schemas. It fails when a model changed without a version bump (an app's own \
            tool, built with ArchiveMigrateKit, compares its models with the snapshots), when a version has no \
            migration path to today's, or when a fixture fails to upgrade, decode or match its golden. \
            Set ARCHIVE_MIGRATE_RECORD=1 (or --record) to write missing snapshots and goldens.

            With --sqlite FILE --table T --column C (or --ndjson), checks a store instead: every archive in it \
            must read and upgrade with the rules.
            """,
        arguments: [
            ArgumentSpec("fixtures", optional: true, help: "The fixtures folder (default: Fixtures/archives).")
        ],
        options: [
            .checkRules, .schemas, .junit, .record, .checkAllowNewer, .checkFormat, .sqlite, .table, .column, .key,
            .busyTimeout, .ndjson,
        ])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments, allowed: [.text, .json, .github])
        let source = try ArchiveSource(arguments, context: context, filesOptional: true)
        guard case .files = source else {
            return try StoreCensus.check(source, rules: arguments.all(.checkRules), format: format, context: context)
        }
        let fixtures = context.url(arguments.positional.first ?? "Fixtures/archives")
        guard FileManager.default.fileExists(atPath: fixtures.path) else {
            throw ArchiveError(.io, "no fixtures folder at \(fixtures.path)")
        }
        var rules = arguments.all(.checkRules)
        let defaultRules = fixtures.appendingPathComponent("rules.json")
        // An app's own tool has its chains in Swift; the stand-alone tool reads them from the rules.
        if rules.isEmpty, context.registry.types.isEmpty, FileManager.default.fileExists(atPath: defaultRules.path) {
            rules = [defaultRules.path]
        }
        let registry = try context.registry(rules: rules)
        let schemas = context.url(
            arguments.value(.schemas) ?? fixtures.deletingLastPathComponent().appendingPathComponent("schemas").path)
        var options = DecodingOptions()
        options.allowsNewerVersions = arguments.flag(.checkAllowNewer)
        let check = CompatibilityCheck(
            registry: registry, fixtures: fixtures,
            schemas: FileManager.default.fileExists(atPath: schemas.path) || !registry.types.isEmpty
                ? SchemaStore(directory: schemas) : nil,
            records: arguments.flag(.record) ? true : nil, options: options, baseDirectory: context.workingDirectory)
        let report = try check.run()
        if let junit = arguments.value(.junit) {
            try FileTransaction.write(
                Data(report.junitXML.utf8), to: context.url(junit), shownAs: junit, context: context)
        }
        switch format {
        case .json: try context.printJSON(report.tree)
        case .github: context.console.print(report.githubAnnotations)
        case .text: context.console.print(report.description)
        }
        return report.passed ? .success : .findings
    }
}
