import Foundation
import ModelVersioning

/// Which version of each type the fixtures hold, so that every version a release archived has
/// at least one fixture; and the recording of one for a version that has none.
///
/// ```swift
/// let coverage = try FixtureCoverage(fixtures: suite.fixtures(), catalog: registry.catalog)
/// for gap in coverage.gaps {
///     print(gap)   // Model v4 (archived by release 2.1): no fixture
/// }
/// ```
///
/// The versions required are those the catalog's releases archived and today's, or, without
/// releases, every version of every chain. A recorded fixture is generated from today's schema
/// and downgraded to the version — as the release that archived it, when the catalog declares
/// releases, so that the objects it holds are at that release's versions too — and written to
/// `<fixtures>/<Type>/v<N>/generated.json`, a folder of its own type (``FixtureSuite`` then
/// records its golden).
public struct FixtureCoverage: Sendable {
    /// A version no fixture holds.
    public struct Gap: Sendable, Hashable, CustomStringConvertible {
        /// The type.
        public var typeName: String
        /// The version of it no fixture holds.
        public var version: Int
        /// The release that archived it, when the catalog declares releases.
        public var release: String?

        /// The gap at `version` of `typeName`, archived by `release` when the catalog declares releases.
        public init(typeName: String, version: Int, release: String? = nil) {
            self.typeName = typeName
            self.version = version
            self.release = release
        }

        /// `Model v4 (archived by release 2.1): no fixture`.
        public var description: String {
            "\(typeName) v\(version)" + (release.map { " (archived by release \($0))" } ?? "") + ": no fixture"
        }
    }

    /// The fixtures (paths below the fixtures folder) holding each chain's versions.
    public var holders: [String: [Int: [String]]]
    /// The versions each chain must have fixtures of, sorted.
    public var required: [String: [Int]]
    /// The release that archived each chain's version, when declared.
    var releases: [String: [Int: String]]

    /// Surveys `fixtures` for the objects they hold.
    ///
    /// - Throws: `ArchiveError` when a fixture cannot be read (``FixtureSuite`` reports the
    ///   same problem with the fixture).
    public init(fixtures: [FixtureSuite.Fixture], catalog: MigrationCatalog) {
        var holders: [String: [Int: [String]]] = [:]
        for fixture in fixtures {
            guard let data = try? Data(contentsOf: fixture.url),
                let tree = try? ArchiveFormat.read(data).0
            else { continue }
            var seen: Set<String> = []
            Self.visit(tree) { object in
                guard let chain = catalog.migrations(forTypeName: object.typeName),
                    let version = object.version ?? chain.unversionedVersion
                else { return }
                let key = "\(chain.typeName) \(version)"
                guard seen.insert(key).inserted else { return }
                holders[chain.typeName, default: [:]][version, default: []].append(fixture.path)
            }
        }
        var required: [String: [Int]] = [:]
        var releases: [String: [Int: String]] = [:]
        for chain in catalog.types {
            var versions: Set<Int> = [chain.currentVersion]
            if let manifest = catalog.releases {
                for release in manifest.releases {
                    guard let version = release.types[chain.typeName]?.version else { continue }
                    versions.insert(version)
                    if releases[chain.typeName]?[version] == nil {
                        releases[chain.typeName, default: [:]][version] = release.name
                    }
                }
            } else {
                versions.formUnion(chain.oldestVersion...chain.currentVersion)
            }
            required[chain.typeName] = versions.sorted()
        }
        self.holders = holders
        self.required = required
        self.releases = releases
    }

    /// Every required version no fixture holds, by type name and version.
    public var gaps: [Gap] {
        required.keys.sorted().flatMap { typeName in
            (required[typeName] ?? []).filter { holders[typeName]?[$0] == nil }.map {
                Gap(typeName: typeName, version: $0, release: releases[typeName]?[$0])
            }
        }
    }

    private static func visit(_ value: ArchiveValue, _ body: (ArchiveObject) -> Void) {
        switch value {
        case .object(let object):
            body(object)
            for (_, field) in object.fields { visit(field, body) }
        case .array(let items):
            for item in items { visit(item, body) }
        case .dictionary(let entries):
            for (_, item) in entries { visit(item, body) }
        default:
            break
        }
    }

    /// Generates a fixture of `gap`'s type and version and writes it under `directory` (the
    /// fixtures folder).
    ///
    /// - Parameters:
    ///   - gap: The type and version to record, and the release that archived it.
    ///   - directory: The fixtures folder.
    ///   - catalog: The chains (and releases) that downgrade the generated object.
    ///   - schemas: The snapshots, for types without a registered Swift type.
    ///   - today: Today's schemas of the registered types (none for a rules file alone: today's
    ///     snapshots are used).
    ///   - seed: The seed the object is generated from.
    ///   - registry: Today's Swift types: a generated object is written only once it upgrades
    ///     and opens as today's type, so that a recorded fixture never fails the check.
    /// - Returns: The file written.
    /// - Throws: `ArchiveError` when no object can be generated, downgraded to the version and
    ///   opened again, or the file cannot be written.
    public static func record(
        _ gap: Gap, into directory: URL, catalog: MigrationCatalog, schemas: SchemaStore?, today: [ModelSchema],
        seed: UInt64 = LawOptions.defaultSeed, registry: ModelRegistry? = nil
    ) throws -> URL {
        let set = SchemaSet(catalog: catalog, store: schemas, today: today)
        guard let (chain, schema) = set.today(named: gap.typeName) else {
            throw ArchiveError(
                .io, "cannot record a fixture of \(gap.typeName) v\(gap.version): no schema of today's \(gap.typeName)")
        }
        let pass = MigrationPass(catalog: catalog, options: MigrationOptions(recordsSteps: false))
        var lastError: (any Error)?
        for attempt in 0..<50 {
            var generator = ArchiveGenerator(
                seed: SplitMix64.seed(seed, [chain.typeName, "fixture", String(gap.version), String(attempt)]),
                schemas: set)
            do {
                var tree = try generator.object(schema, archivedAs: chain.typeName)
                if gap.version != chain.currentVersion || gap.release != nil {
                    if let name = gap.release, let release = catalog.releases?.release(matching: name) {
                        // The object alone, not a document: the release's type versions and names.
                        var target = DowngradeTarget(release: release)
                        target.documentVersion = nil
                        try pass.downgrade(&tree, to: target)
                    } else {
                        try pass.downgrade(&tree, to: DowngradeTarget(typeVersions: [chain.typeName: gap.version]))
                    }
                }
                if let registry, let type = registry.type(named: chain.typeName) {
                    try opensToday(tree, as: type, registry: registry, pass: pass)
                }
                let url = directory.appendingPathComponent(chain.typeName).appendingPathComponent("v\(gap.version)")
                    .appendingPathComponent("generated.json")
                do {
                    try FileManager.default.createDirectory(
                        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try ArchiveFormat.json.write(tree, options: ArchiveWritingOptions(prettyPrinted: true))
                        .write(to: url, options: .atomic)
                } catch let error as ArchiveError {
                    throw error
                } catch {
                    throw ArchiveError(.io, "cannot write the fixture \(url.path)", underlyingError: error)
                }
                return url
            } catch let error as ArchiveError where error.code == .io {
                throw error
            } catch {
                lastError = error
            }
        }
        throw ArchiveError(
            .migrationFailed,
            "cannot record a fixture of \(gap.typeName) v\(gap.version): no generated object could be written for it"
                + (lastError.map { " (\($0))" } ?? ""))
    }

    /// Throws unless `tree` upgrades and decodes as today's `type`, as the check will open it.
    private static func opensToday(
        _ tree: ArchiveValue, as type: any VersionedModel.Type, registry: ModelRegistry, pass: MigrationPass
    ) throws {
        var upgraded = tree
        try pass.upgrade(&upgraded)
        func open<M: VersionedModel>(_ type: M.Type) throws {
            _ = try ArchiveDecoder(registry: registry).decodeMigrated(M.self, from: upgraded)
        }
        try open(type)
    }
}
