import Foundation
import ModelVersioning

/// The CI gate: refuses a model change that forgot its version bump or its migration, and any
/// archived fixture that no longer opens.
///
/// It checks, in order:
/// 1. **Schemas.** Each registered model's current schema (``ModelSchema/init(of:)``) against the
///    committed snapshot of the same version in the ``SchemaStore``: a difference is a change
///    without a version bump; a missing snapshot must be recorded.
/// 2. **Migration paths.** Every version with a snapshot, for every type with a chain (Swift or
///    rules file), has a chain of steps to today's version; snapshots of types nobody knows any
///    more are reported too.
/// 3. **Fixtures.** Every archive under the fixtures folder upgrades, decodes into its current
///    type and matches its golden (see ``FixtureSuite``).
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
/// schema check is skipped; migration paths and fixtures are still checked against the rules.
/// Snapshots and goldens are written only when ``records`` is set (`ARCHIVE_MIGRATE_RECORD=1`).
public struct CompatibilityCheck: Sendable {
    /// Today's types and chains.
    public var registry: ModelRegistry
    /// The fixtures folder, if any.
    public var fixtures: URL?
    /// The schema snapshots, if any.
    public var schemas: SchemaStore?
    /// Whether missing or changed snapshots and goldens are recorded instead of reported.
    public var records: Bool
    /// Limits and leniency for the fixtures.
    public var options: DecodingOptions
    /// Paths in the report are written relative to this folder.
    public var baseDirectory: URL?

    /// Creates a check. `records` defaults to whether `ARCHIVE_MIGRATE_RECORD=1` is set.
    public init(
        registry: ModelRegistry, fixtures: URL?, schemas: SchemaStore?, records: Bool? = nil,
        options: DecodingOptions = .init(), baseDirectory: URL? = nil
    ) {
        self.registry = registry
        self.fixtures = fixtures
        self.schemas = schemas
        self.records =
            records ?? (ProcessInfo.processInfo.environment[FixtureSuite.recordEnvironmentVariable] == "1")
        self.options = options
        self.baseDirectory = baseDirectory
    }

    /// Runs every check.
    ///
    /// - Throws: `ArchiveError` when the fixtures folder cannot be listed; every other problem
    ///   is an item of the report.
    public func run() throws -> CheckReport {
        var items = checkSchemas()
        items += checkMigrationPaths()
        items += try checkFixtures()
        return CheckReport(items: items)
    }

    // MARK: Schemas

    func checkSchemas() -> [CheckReport.Item] {
        guard let schemas else { return [] }
        guard !registry.types.isEmpty else {
            return [
                CheckReport.Item(
                    category: .schema, subject: "models",
                    outcome: .skipped(
                        "no Swift models are registered: an app's own archive-migrate (ArchiveMigrateKit) checks schemas"
                    ))
            ]
        }
        return registry.types.map { type in
            let info = ModelInfo(type)
            let subject = "\(info.typeName) v\(info.version)"
            let file = relative(schemas.url(typeName: info.typeName, version: info.version))
            do {
                let current = try ModelSchema(of: type)
                guard let snapshot = try schemas.snapshot(typeName: info.typeName, version: info.version) else {
                    if records {
                        try schemas.record(current)
                        return CheckReport.Item(category: .schema, subject: subject, outcome: .recorded, file: file)
                    }
                    return CheckReport.Item(
                        category: .schema, subject: subject,
                        outcome: .failed([
                            "no schema snapshot for \(subject) at \(file); record it with "
                                + "\(FixtureSuite.recordEnvironmentVariable)=1 when this version ships"
                        ]), file: file)
                }
                let differences = current.differences(from: snapshot)
                if differences.isEmpty {
                    return CheckReport.Item(category: .schema, subject: subject, outcome: .passed, file: file)
                }
                if records {
                    try schemas.record(current)
                    return CheckReport.Item(category: .schema, subject: subject, outcome: .recorded, file: file)
                }
                return CheckReport.Item(
                    category: .schema, subject: subject,
                    outcome: .failed(
                        [
                            "\(info.typeName) changed without a version bump (still v\(info.version)): raise its "
                                + "modelVersion and add a migration step"
                        ] + differences.map { "  " + $0 }), file: file)
            } catch {
                return CheckReport.Item(category: .schema, subject: subject, outcome: .failed(["\(error)"]), file: file)
            }
        }
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
                } else {
                    outcome = .passed
                }
                items.append(CheckReport.Item(category: .migrationPath, subject: subject, outcome: outcome, file: file))
            }
        }
        return items
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
