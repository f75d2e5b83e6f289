import ArchiveCompatibility
import Foundation
import ModelVersioning

/// `archive-migrate check [DIR]`: the CI gate.
enum CheckCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "The CI gate: schemas, migration paths, fixtures and migration laws (exit 1 on findings).",
        discussion: """
            With no arguments, checks the current repository: the archived fixtures in Fixtures/archives \
            (upgraded with Fixtures/archives/rules.json when present) against their goldens, and the schema \
            snapshots in Fixtures/schemas. It fails when a model changed without a version bump, nested types \
            included (an app's own tool, built with ArchiveMigrateKit, compares its models with the snapshots, \
            names the models to bump and proposes the migration step; --write writes it), when a version has no \
            migration path to today's, when a version a release archived has no fixture, when a fixture fails to \
            upgrade, decode or match its golden, or when a chain breaks a migration law on objects generated from \
            the snapshots (upgrading then downgrading, or downgrading then upgrading, does not give the original; \
            an upgraded object does not open today): the failure shows the smallest object found and the seed \
            that replays it. Set ARCHIVE_MIGRATE_RECORD=1 (or --record) to write missing snapshots, goldens and \
            fixtures.

            With --sqlite FILE --table T --column C (or --ndjson), checks a store instead: every archive in it \
            must read and upgrade with the rules.
            """,
        arguments: [
            ArgumentSpec("fixtures", optional: true, help: "The fixtures folder (default: Fixtures/archives).")
        ],
        options: [
            .checkRules, .schemas, .junit, .record, .writeProposals, .proposals, .seed, .lawObjects,
            .upgradeSnapshots, .checkAllowNewer, .checkFormat, .sqlite, .table, .column, .key, .busyTimeout, .ndjson,
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
        var laws = LawOptions()
        if let text = arguments.value(.seed) {
            guard let seed = Self.number(text) else {
                throw UsageError("--seed takes a non-negative integer (decimal or 0x…), not '\(text)'")
            }
            laws.seed = seed
        }
        if let text = arguments.value(.lawObjects) {
            guard let count = Int(text), count >= 0, count <= 100_000 else {
                throw UsageError("--law-objects takes a number from 0 to 100000, not '\(text)'")
            }
            laws.objectsPerVersion = count
        }
        // As given, or next to the fixtures folder as the user named it (`Fixtures/proposals`).
        let fixturesParent = ((arguments.positional.first ?? "Fixtures/archives") as NSString).deletingLastPathComponent
        let proposalsFolder =
            arguments.value(.proposals) ?? (fixturesParent.isEmpty ? "proposals" : fixturesParent + "/proposals")
        let check = CompatibilityCheck(
            registry: registry, fixtures: fixtures,
            schemas: FileManager.default.fileExists(atPath: schemas.path) || !registry.types.isEmpty
                ? SchemaStore(directory: schemas) : nil,
            records: arguments.flag(.record) ? true : nil, options: options, baseDirectory: context.workingDirectory,
            laws: laws.objectsPerVersion > 0 ? laws : nil, upgradesSnapshots: arguments.flag(.upgradeSnapshots),
            command: invocation(arguments, tool: context.tool))
        var report = try check.run()
        if let junit = arguments.value(.junit) {
            try FileTransaction.write(
                Data(report.junitXML.utf8), to: context.url(junit), shownAs: junit, context: context)
        }
        if arguments.flag(.writeProposals), !report.proposals.isEmpty {
            report.notes += try writeProposals(
                report.proposals, into: context.url(proposalsFolder), shownAs: proposalsFolder, context: context)
        }
        switch format {
        case .json: try context.printJSON(report.tree)
        case .github: context.console.print(report.githubAnnotations)
        case .text: context.console.print(report.description)
        }
        return report.passed ? .success : .findings
    }

    /// The command that runs this check again, for the commands its messages suggest
    /// (`archive-migrate check --rules broken.json --seed 1`): the tool, the rules, the schemas
    /// and the fixtures folder, as given.
    static func invocation(_ arguments: ParsedArguments, tool: String) -> String {
        var words = [tool, "check"]
        for rules in arguments.all(.checkRules) { words += ["--rules", rules] }
        if let schemas = arguments.value(.schemas) { words += ["--schemas", schemas] }
        if let fixtures = arguments.positional.first { words.append(fixtures) }
        return words.map(shellQuoted).joined(separator: " ")
    }

    /// `a b` → `'a b'`; words of letters, digits and `-_./:=@%+,` as they are.
    static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "-_./:=@%+,".unicodeScalars.contains($0)
        }
        if plain, !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `42`, `0x2A`.
    static func number(_ text: String) -> UInt64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }

    /// Writes each proposal as `<Type>-v<N>.swift` and `<Type>-v<N>.json`, all or nothing.
    static func writeProposals(
        _ proposals: [MigrationProposal], into folder: URL, shownAs: String, context: ToolContext
    ) throws -> [String] {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ArchiveError(.io, "cannot create the folder \(shownAs)", underlyingError: error)
        }
        let command = "\(context.tool) check"
        var files: [(name: String, data: Data)] = []
        for proposal in proposals {
            files.append(("\(proposal.fileName).swift", Data(proposal.swiftFile(command: command).utf8)))
            files.append(("\(proposal.fileName).json", Data(proposal.rulesFile(command: command).utf8)))
        }
        let entries = files.map {
            WritePlan.Entry(
                url: folder.appendingPathComponent($0.name), shownAs: shownAs + "/" + $0.name, role: .named)
        }
        let plan = try WritePlan(entries, overwrite: true)
        let contents = Dictionary(uniqueKeysWithValues: files.enumerated().map { ($0.offset, $0.element.data) })
        let transaction = try FileTransaction(plan: plan, tool: context.tool) { context.console.error($0) }
        defer { transaction.finish() }
        if let problem = plan.check(contents).problems.sorted(by: { $0.key < $1.key }).first?.value { throw problem }
        do {
            _ = try transaction.commit(contents)
        } catch {
            throw error.error
        }
        return proposals.map {
            "wrote the proposed step for \($0.typeName) v\($0.fromVersion) → v\($0.toVersion): "
                + "\(shownAs)/\($0.fileName).swift and \(shownAs)/\($0.fileName).json"
        }
    }
}
