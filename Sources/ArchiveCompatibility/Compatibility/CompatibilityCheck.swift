import Foundation
import ModelVersioning

/// The CI gate: refuses a model change that forgot its version bump or its migration, any
/// archived fixture that no longer opens, and any chain that does not keep the migration laws.
///
/// It checks, in order:
/// 1. **Schemas.** Each registered model's current schema (``ModelSchema/init(of:)``, with
///    every nested type it reaches) against the committed snapshot of the same version in the
///    ``SchemaStore``: a difference is a change without a version bump — reported with its
///    path (`+ rect: Frame.depth: Double`), every model that archives a changed nested type,
///    and the migration step to write (``MigrationProposal``, in ``CheckReport/proposals``); a
///    missing snapshot must be recorded.
/// 2. **Migration paths.** Every version with a snapshot, for every type with a chain (Swift or
///    rules file), has a chain of steps to today's version; snapshots of types nobody knows any
///    more are reported too.
/// 3. **Fixture coverage.** Some fixture holds every version a release archived (and today's)
///    of every type (``FixtureCoverage``); recording writes one where none does.
/// 4. **Fixtures.** Every archive under the fixtures folder upgrades, decodes into its current
///    type and matches its golden (see ``FixtureSuite``).
/// 5. **Laws.** Every chain, on objects generated from the snapshots of each version
///    (``MigrationLaws``): upgrading then downgrading gives the original, downgrading then
///    upgrading gives it too, and upgraded objects open today.
///
/// ```swift
/// let check = CompatibilityCheck(
///     registry: try AppModels.registry(),
///     fixtures: repository.appendingPathComponent("Fixtures/archives"),
///     schemas: SchemaStore(directory: repository.appendingPathComponent("Fixtures/schemas")))
/// let report = try check.run()
/// print(report)
/// ```
///
/// Without registered Swift types (the `archive-migrate` tool working from a rules file), the
/// schema check is skipped; migration paths, coverage, fixtures and laws are still checked
/// against the rules, with today's shapes from the snapshots. Snapshots, goldens and fixtures
/// are written only when ``records`` is set (`ARCHIVE_MIGRATE_RECORD=1`).
public struct CompatibilityCheck: Sendable {
    /// Today's types and chains.
    public var registry: ModelRegistry
    /// The fixtures folder, if any.
    public var fixtures: URL?
    /// The schema snapshots, if any.
    public var schemas: SchemaStore?
    /// Whether missing or changed snapshots and goldens, and fixtures of versions that have
    /// none, are recorded instead of reported.
    public var records: Bool
    /// Limits and leniency for the fixtures.
    public var options: DecodingOptions
    /// Paths in the report are written relative to this folder.
    public var baseDirectory: URL?
    /// How many objects the law check generates and from which seed; `nil` skips it.
    public var laws: LawOptions?
    /// Whether snapshots written before nested types were recorded are upgraded first
    /// (``SchemaStore/upgradeSnapshots(from:isModel:)``).
    public var upgradesSnapshots: Bool
    /// How the check is run, for the commands its messages suggest (`sketch-migrate check`).
    public var command: String

    /// Creates a check. `records` defaults to whether `ARCHIVE_MIGRATE_RECORD=1` is set.
    public init(
        registry: ModelRegistry, fixtures: URL?, schemas: SchemaStore?, records: Bool? = nil,
        options: DecodingOptions = .init(), baseDirectory: URL? = nil, laws: LawOptions? = LawOptions(),
        upgradesSnapshots: Bool = false, command: String = "archive-migrate check"
    ) {
        self.registry = registry
        self.fixtures = fixtures
        self.schemas = schemas
        self.records =
            records ?? (ProcessInfo.processInfo.environment[FixtureSuite.recordEnvironmentVariable] == "1")
        self.options = options
        self.baseDirectory = baseDirectory
        self.laws = laws
        self.upgradesSnapshots = upgradesSnapshots
        self.command = command
    }

    /// Runs every check.
    ///
    /// - Throws: `ArchiveError` when the fixtures folder cannot be listed; every other problem
    ///   is an item of the report.
    public func run() throws -> CheckReport {
        let today = registry.types.map { type in
            (info: ModelInfo(type), schema: Result { try ModelSchema(of: type) })
        }
        var items: [CheckReport.Item] = []
        if upgradesSnapshots { items += upgradeSnapshots(today) }
        let (schemaItems, proposals) = checkSchemas(today)
        items += schemaItems
        items += checkMigrationPaths()
        items += try checkCoverage(today.compactMap { try? $0.schema.get() })
        items += try checkFixtures()
        var notes: [String] = []
        if let laws {
            let (lawItems, summary) = checkLaws(laws)
            items += lawItems
            notes += summary
        }
        return CheckReport(items: items, proposals: proposals, notes: notes)
    }

    /// Whether `name` is a model's: registered, or a name of a chain.
    func isModel(_ name: String) -> Bool {
        registry.type(named: name) != nil || registry.catalog.migrations(forTypeName: name) != nil
    }

    // MARK: Schemas

    func upgradeSnapshots(_ today: [(info: ModelInfo, schema: Result<ModelSchema, any Error>)]) -> [CheckReport.Item] {
        guard let schemas else { return [] }
        guard !registry.types.isEmpty else {
            return [
                CheckReport.Item(
                    category: .schema, subject: "snapshots",
                    outcome: .failed([
                        "upgrading snapshots needs today's Swift types: run the app's own tool (built with "
                            + "ArchiveMigrateKit) with --upgrade-snapshots"
                    ]))
            ]
        }
        do {
            let upgrades = try schemas.upgradeSnapshots(
                from: today.compactMap { try? $0.schema.get() }, isModel: isModel)
            return upgrades.map { upgrade in
                CheckReport.Item(
                    category: .schema, subject: "\(upgrade.typeName) v\(upgrade.version) snapshot",
                    outcome: upgrade.undefinedTypes.isEmpty ? .recorded : .failed([upgrade.description]),
                    file: relative(schemas.url(typeName: upgrade.typeName, version: upgrade.version)),
                    detail: "upgraded: " + upgrade.description)
            }
        } catch {
            return [CheckReport.Item(category: .schema, subject: "snapshots", outcome: .failed(["\(error)"]))]
        }
    }

    func checkSchemas(
        _ today: [(info: ModelInfo, schema: Result<ModelSchema, any Error>)]
    ) -> (items: [CheckReport.Item], proposals: [MigrationProposal]) {
        guard let schemas else { return ([], []) }
        guard !registry.types.isEmpty else {
            return (
                [
                    CheckReport.Item(
                        category: .schema, subject: "models",
                        outcome: .skipped(
                            "no Swift models are registered: an app's own archive-migrate (ArchiveMigrateKit) checks schemas"
                        ))
                ], []
            )
        }
        // Which models archive each nested type: a change to one needs a bump of each.
        var archivedBy: [String: [String]] = [:]
        for (info, result) in today {
            for nested in (try? result.get())?.nestedTypes ?? [] {
                archivedBy[nested.name, default: []].append(info.typeName)
            }
        }
        var items: [CheckReport.Item] = []
        var proposals: [MigrationProposal] = []
        for (info, result) in today {
            let subject = "\(info.typeName) v\(info.version)"
            let file = relative(schemas.url(typeName: info.typeName, version: info.version))
            do {
                let current = try result.get()
                guard let snapshot = try schemas.snapshot(typeName: info.typeName, version: info.version) else {
                    if records {
                        try schemas.record(current)
                        items.append(
                            CheckReport.Item(category: .schema, subject: subject, outcome: .recorded, file: file))
                        continue
                    }
                    items.append(
                        CheckReport.Item(
                            category: .schema, subject: subject,
                            outcome: .failed([
                                "no schema snapshot for \(subject) at \(file); record it with "
                                    + "\(FixtureSuite.recordEnvironmentVariable)=1 (or `\(command) --record`) when this "
                                    + "version ships"
                            ]), file: file))
                    continue
                }
                let undefined = snapshot.undefinedNames(isModel: isModel)
                if snapshot.isLegacy, !undefined.isEmpty, !records {
                    items.append(
                        CheckReport.Item(
                            category: .schema, subject: subject,
                            outcome: .failed([legacyMessage(file: file, undefined: undefined)]), file: file))
                    continue
                }
                let changes = current.changes(from: snapshot)
                if changes.isEmpty, !(snapshot.isLegacy && records) {
                    items.append(CheckReport.Item(category: .schema, subject: subject, outcome: .passed, file: file))
                    continue
                }
                if records {
                    try schemas.record(current)
                    items.append(CheckReport.Item(category: .schema, subject: subject, outcome: .recorded, file: file))
                    continue
                }
                let proposal = MigrationProposal(
                    typeName: info.typeName, version: info.version, changes: changes, old: snapshot, new: current)
                proposals.append(proposal)
                var reasons = [
                    "\(info.typeName) changed without a version bump (still v\(info.version)): raise its "
                        + "modelVersion and add a migration step"
                ]
                reasons += changes.map { "  " + $0.description }
                var nestedTypes: [String] = []
                for change in changes {
                    if let nested = change.nestedType, !nestedTypes.contains(nested) { nestedTypes.append(nested) }
                }
                for nested in nestedTypes {
                    let models = archivedBy[nested] ?? [info.typeName]
                    reasons.append(
                        "\(nested) is archived by \(SchemaText.list(models)): "
                            + (models.count > 1
                                ? "each of them needs a version bump" : "\(info.typeName) needs a version bump"))
                }
                reasons.append(
                    "proposed step (\(info.typeName) v\(proposal.fromVersion) → v\(proposal.toVersion)); "
                        + "`\(command) --write` writes it in Swift and as a rules-file step:")
                reasons += proposal.swiftStep.split(separator: "\n").map { "    " + $0 }
                reasons += proposal.notes.map { "  note: " + $0 }
                items.append(
                    CheckReport.Item(category: .schema, subject: subject, outcome: .failed(reasons), file: file))
            } catch {
                items.append(
                    CheckReport.Item(category: .schema, subject: subject, outcome: .failed(["\(error)"]), file: file))
            }
        }
        return (items, proposals)
    }

    func legacyMessage(file: String, undefined: [String]) -> String {
        "\(file) was written before snapshots recorded nested types: it names "
            + SchemaText.list(undefined) + " without their shapes, so changes inside them go unnoticed; upgrade the "
            + "snapshots with the app's own tool, `\(command) --upgrade-snapshots`, and review the diff"
    }

    // MARK: Migration paths

    func checkMigrationPaths() -> [CheckReport.Item] {
        guard let schemas else { return [] }
        var items: [CheckReport.Item] = []
        for (typeName, versions) in schemas.inventory() {
            guard let chain = registry.catalog.migrations(forTypeName: typeName) else {
                items.append(
                    CheckReport.Item(
                        category: .migrationPath, subject: typeName,
                        outcome: .failed([
                            "schema snapshots of \(typeName) exist but no registered type or rules chain has that name; "
                                + "archives holding it can no longer be opened (keep an alias, or delete the snapshots "
                                + "to acknowledge)"
                        ]), file: relative(schemas.directory.appendingPathComponent(typeName))))
                continue
            }
            for version in versions {
                let subject = "\(typeName) v\(version) → v\(chain.currentVersion)"
                let file = relative(schemas.url(typeName: typeName, version: version))
                let outcome: CheckReport.Outcome
                if version > chain.currentVersion {
                    outcome = .failed([
                        "a snapshot of \(typeName) v\(version) exists but the model is at v\(chain.currentVersion)"
                    ])
                } else if version < chain.oldestVersion {
                    outcome = .failed([
                        "no migration path from \(typeName) v\(version) to v\(chain.currentVersion): its chain starts "
                            + "at v\(chain.oldestVersion)"
                    ])
                } else if let snapshot = try? schemas.snapshot(typeName: typeName, version: version),
                    snapshot.isLegacy, registry.type(named: typeName) == nil || version != chain.currentVersion,
                    case let undefined = snapshot.undefinedNames(isModel: isModel), !undefined.isEmpty
                {
                    outcome = .failed([legacyMessage(file: file, undefined: undefined)])
                } else {
                    outcome = .passed
                }
                items.append(CheckReport.Item(category: .migrationPath, subject: subject, outcome: outcome, file: file))
            }
        }
        return items
    }

    // MARK: Fixture coverage

    func checkCoverage(_ today: [ModelSchema]) throws -> [CheckReport.Item] {
        guard let fixtures, !registry.catalog.types.isEmpty else { return [] }
        let suite = FixtureSuite(directory: fixtures, registry: registry, options: options, recordsGoldens: false)
        let coverage = FixtureCoverage(fixtures: try suite.fixtures(), catalog: registry.catalog)
        var items: [CheckReport.Item] = []
        for typeName in coverage.required.keys.sorted() {
            for version in coverage.required[typeName] ?? [] {
                let subject = "\(typeName) v\(version)"
                if let holders = coverage.holders[typeName]?[version] {
                    let shown = holders.prefix(2).joined(separator: ", ") + (holders.count > 2 ? ", …" : "")
                    items.append(
                        CheckReport.Item(
                            category: .fixtureCoverage, subject: subject, outcome: .passed, detail: "in \(shown)"))
                    continue
                }
                guard let gap = coverage.gaps.first(where: { $0.typeName == typeName && $0.version == version }) else {
                    continue
                }
                if records {
                    do {
                        let url = try FixtureCoverage.record(
                            gap, into: fixtures, catalog: registry.catalog, schemas: schemas, today: today,
                            seed: laws?.seed ?? LawOptions.defaultSeed,
                            registry: registry.types.isEmpty ? nil : registry)
                        items.append(
                            CheckReport.Item(
                                category: .fixtureCoverage, subject: subject, outcome: .recorded, file: relative(url),
                                detail: "generated from today's schema"
                                    + (gap.release.map { ", as release \($0) wrote it" } ?? "")))
                    } catch {
                        items.append(
                            CheckReport.Item(
                                category: .fixtureCoverage, subject: subject, outcome: .failed(["\(error)"])))
                    }
                    continue
                }
                items.append(
                    CheckReport.Item(
                        category: .fixtureCoverage, subject: subject,
                        outcome: .failed([
                            "no fixture holds \(subject)" + (gap.release.map { " (archived by release \($0))" } ?? "")
                                + ": keep an archive that version wrote under \(relative(fixtures))/, or record a "
                                + "generated one with `\(command) --record`"
                        ]), file: relative(fixtures)))
            }
        }
        return items
    }

    // MARK: Laws

    func checkLaws(_ options: LawOptions) -> (items: [CheckReport.Item], notes: [String]) {
        guard let schemas, !registry.catalog.types.isEmpty else { return ([], []) }
        let laws =
            registry.types.isEmpty
            ? MigrationLaws(catalog: registry.catalog, schemas: schemas, options: options)
            : MigrationLaws(registry: registry, schemas: schemas, options: options)
        let report = laws.run()
        let items = report.results.map { result in
            let file = result.snapshot.map(relative)
            switch result.outcome {
            case .passed(let text):
                return CheckReport.Item(
                    category: .law, subject: result.subject, outcome: .passed, file: file, detail: text)
            case .skipped(let reason):
                return CheckReport.Item(category: .law, subject: result.subject, outcome: .skipped(reason), file: file)
            case .cannotGenerate(let reason):
                return CheckReport.Item(category: .law, subject: result.subject, outcome: .failed([reason]), file: file)
            case .failed(let violation):
                return CheckReport.Item(
                    category: .law, subject: result.subject, outcome: .failed(violation.lines(replay: command)),
                    file: file)
            }
        }
        return (items, [report.summary])
    }

    // MARK: Fixtures

    func checkFixtures() throws -> [CheckReport.Item] {
        guard let fixtures else { return [] }
        let suite = FixtureSuite(directory: fixtures, registry: registry, options: options, recordsGoldens: records)
        return try suite.run().results.map { result in
            let outcome: CheckReport.Outcome
            switch result.outcome {
            case .passed: outcome = .passed
            case .recorded: outcome = .recorded
            case .failed(let reasons): outcome = .failed(reasons)
            }
            return CheckReport.Item(
                category: .fixture, subject: result.fixture.path, outcome: outcome,
                file: relative(result.fixture.url))
        }
    }

    private func relative(_ url: URL) -> String {
        guard let base = baseDirectory?.standardizedFileURL.path else { return url.path }
        let path = url.standardizedFileURL.path
        return path.hasPrefix(base + "/") ? String(path.dropFirst(base.count + 1)) : path
    }
}
