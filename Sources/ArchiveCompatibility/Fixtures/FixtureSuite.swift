import Foundation
import ModelVersioning

/// Runs every archived fixture of every shipped version through today's code: upgrade, decode
/// into the current type, re-encode, compare with the golden.
///
/// The layout, one folder per document (or root type):
///
/// ```
/// Fixtures/archives/
///   Sketch/
///     v1/drawing.json            ← as version 1 of the app wrote it (any format)
///     v2/drawing.json, v2/shapes.bplist
///     expected/v1/drawing.json   ← the golden: what v1/drawing.json becomes today
///     expected/v2/drawing.json, expected/v2/shapes.json
/// ```
///
/// Call it from your app's test target:
///
/// ```swift
/// @Test func archivedFixturesOpenInTodaysModels() throws {
///     let suite = FixtureSuite(directory: fixturesURL, registry: try AppModels.registry())
///     let report = try suite.run()
///     #expect(report.failures.isEmpty, "\(report)")
/// }
/// ```
///
/// A mismatch is reported as a semantic diff with paths (`~ root.shapes[1].radius: 3 → 3.5`);
/// numbers compare by value and a key holding `null` equals a missing key (both decode alike).
/// Goldens are written only when asked: set the environment variable
/// `ARCHIVE_MIGRATE_RECORD=1` (or ``recordsGoldens``) to record missing or changed goldens.
///
/// When the root object's type is not registered (the command-line tool working from a rules
/// file alone), the upgraded tree itself is compared with the golden. A plain document (one
/// without the envelope that names its document) is upgraded by the document chain named like
/// its folder.
///
/// A golden is written as its fixture is spelled: an archive with the archive markup, a plain
/// document as plain JSON — its own `$` keys as they are, its dates and data in its chain's
/// `DocumentConventions` (`DocumentStyle.plain(_:)`), its version at the chain's version
/// path — and it is compared as written, so a golden just recorded always passes.
public struct FixtureSuite: Sendable {
    /// One archived fixture.
    public struct Fixture: Sendable, Hashable, CustomStringConvertible {
        /// The path below the suite's directory (`Sketch/v1/drawing.json`).
        public var path: String
        /// The archive.
        public var url: URL
        /// Where its golden lives (`Sketch/expected/v1/drawing.json`).
        public var goldenURL: URL

        /// The fixture's ``path``.
        public var description: String { path }

        /// The folder the fixture belongs to: its document or root type (`Sketch`).
        public var group: String {
            String(path.prefix { $0 != "/" })
        }
    }

    /// What happened to one fixture.
    public enum Outcome: Sendable, Hashable {
        /// It matches its golden.
        case passed
        /// Its golden was (re)written.
        case recorded
        /// It failed: the reasons, one per line.
        case failed([String])
    }

    /// One fixture's result.
    public struct FixtureResult: Sendable, Hashable {
        /// The fixture run.
        public var fixture: Fixture
        /// Whether it matched its golden, had it recorded, or failed.
        public var outcome: Outcome
        /// Which migration steps ran on it.
        public var report: MigrationReport?
    }

    /// The environment variable that makes ``run()`` record goldens.
    public static let recordEnvironmentVariable = "ARCHIVE_MIGRATE_RECORD"

    /// The fixtures folder (`Fixtures/archives`).
    public var directory: URL
    /// Today's types and chains.
    public var registry: ModelRegistry
    /// Limits and leniency for decoding fixtures.
    public var options: DecodingOptions
    /// Whether missing or changed goldens are written instead of reported.
    public var recordsGoldens: Bool

    /// Creates a suite. `recordsGoldens` defaults to whether `ARCHIVE_MIGRATE_RECORD=1` is set.
    public init(
        directory: URL, registry: ModelRegistry, options: DecodingOptions = .init(), recordsGoldens: Bool? = nil
    ) {
        self.directory = directory
        self.registry = registry
        self.options = options
        self.recordsGoldens =
            recordsGoldens ?? (ProcessInfo.processInfo.environment[Self.recordEnvironmentVariable] == "1")
    }

    /// Every fixture: files under `<directory>/<Name>/v<N>/`, sorted by path.
    ///
    /// - Throws: `ArchiveError` with code `io` when the directory cannot be listed.
    public func fixtures() throws -> [Fixture] {
        let manager = FileManager.default
        var fixtures: [Fixture] = []
        let groups: [String]
        do {
            groups = try manager.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw ArchiveError(.io, "cannot list the fixtures folder \(directory.path)", underlyingError: error)
        }
        for group in groups.sorted() where !group.hasPrefix(".") {
            let groupURL = directory.appendingPathComponent(group)
            guard isDirectory(groupURL) else { continue }
            let versions = (try? manager.contentsOfDirectory(atPath: groupURL.path)) ?? []
            for version in versions.sorted() where Self.isVersionFolder(version) {
                let versionURL = groupURL.appendingPathComponent(version)
                for file in try files(under: versionURL) {
                    let relative = String(file.path.dropFirst(versionURL.path.count + 1))
                    let golden = groupURL.appendingPathComponent("expected").appendingPathComponent(version)
                        .appendingPathComponent(relative).deletingPathExtension().appendingPathExtension("json")
                    fixtures.append(Fixture(path: "\(group)/\(version)/\(relative)", url: file, goldenURL: golden))
                }
            }
        }
        return fixtures
    }

    /// Runs every fixture.
    ///
    /// - Throws: `ArchiveError` with code `io` when the fixtures cannot be listed; problems with
    ///   single fixtures are reported in the result, not thrown.
    public func run() throws -> FixtureReport {
        let fixtures = try fixtures()
        // Fixtures are independent: they run on every processor.
        return FixtureReport(results: Parallel.map(fixtures) { fixture in check(fixture) })
    }

    /// Runs one fixture.
    public func check(_ fixture: Fixture) -> FixtureResult {
        var report: MigrationReport?
        do {
            let data = try Data(contentsOf: fixture.url)
            let document = try ArchiveDocument(data: data, options: ArchiveReadingOptions(limits: options.limits))
            var tree = document.tree
            var options = self.options
            if options.document == nil, registry.catalog.document(named: fixture.group) != nil {
                // A plain document's chain is named by its folder (`people/v1/…` → "people").
                options.document = fixture.group
            }
            let decoder = ArchiveDecoder(registry: registry, options: options)
            report = try decoder.upgrade(&tree)
            let archived = { try? ArchiveFormat.read(data, options: ArchiveReadingOptions(limits: options.limits)).0 }
            let current = try reencode(tree, with: decoder, archived: archived) ?? Self.withoutArchivedNames(tree)
            let spelling = GoldenSpelling(document, chain: options.document.flatMap(registry.catalog.document(named:)))
            return FixtureResult(
                fixture: fixture, outcome: try compare(spelling.asWritten(current), with: fixture, spelling: spelling),
                report: report)
        } catch {
            return FixtureResult(fixture: fixture, outcome: .failed(["\(error)"]), report: report)
        }
    }

    /// `value` without the `$archivedAs` fields an upgrade writes beside objects archived under an
    /// alias a release declared (for a downgrade to that release): the library's note, not what
    /// today's app writes, so the upgraded tree compares with a golden as the re-encoded model does.
    static func withoutArchivedNames(_ value: ArchiveValue) -> ArchiveValue {
        switch value {
        case .object(var object):
            var fields = object.fields
            _ = fields.removeValue(forKey: "$archivedAs")
            for (key, field) in fields {
                _ = fields.updateValue(withoutArchivedNames(field), forKey: key)
            }
            object.fields = fields
            return .object(object)
        case .dictionary(var entries):
            for (key, field) in entries {
                _ = entries.updateValue(withoutArchivedNames(field), forKey: key)
            }
            return .dictionary(entries)
        case .array(let items):
            return .array(items.map(withoutArchivedNames))
        default:
            return value
        }
    }

    /// Decodes the upgraded tree into its root type and encodes it again; `nil` when the root
    /// type is not registered.
    private func reencode(
        _ upgraded: ArchiveValue, with decoder: ArchiveDecoder, archived: () -> ArchiveValue?
    ) throws -> ArchiveValue? {
        let envelope = try ArchiveEnvelope(tree: upgraded)
        let root = envelope?.root ?? upgraded
        guard case .object(let object) = root, let type = registry.type(named: object.typeName) else { return nil }
        var encoder = ArchiveEncoder(registry: registry)
        encoder.document = envelope?.document
        encoder.documentVersion = envelope?.documentVersion
        func roundTrip<M: VersionedModel>(_ type: M.Type) throws -> ArchiveValue {
            let model = try decoder.decodeMigrated(M.self, from: upgraded, explainingWith: archived)
            return envelope == nil ? try encoder.encodeValue(model) : try encoder.encodeTree(model)
        }
        return try roundTrip(type)
    }

    /// How a fixture's golden is spelled: as the fixture was read (markup for an archive, none for
    /// a plain document), with a plain document's dates and data in its chain's conventions.
    struct GoldenSpelling {
        var writing: ArchiveWritingOptions
        var reading: ArchiveReadingOptions

        init(_ document: ArchiveDocument, chain: DocumentMigrations?) {
            switch document.markup {
            case .plain:
                writing = ArchiveWritingOptions(
                    markup: .plain, conventions: chain?.style.conventions ?? DocumentConventions())
                reading = ArchiveReadingOptions(markup: .plain)
            case .archive, .automatic:
                writing = ArchiveWritingOptions()
                reading = ArchiveReadingOptions(markup: .automatic)
            }
        }

        /// `tree` as its golden holds it: a plain document's dates and data become the strings
        /// or numbers they are written as (an archive reads back exactly as it is).
        func asWritten(_ tree: ArchiveValue) throws -> ArchiveValue {
            guard writing.markup == .plain else { return tree }
            return try ArchiveFormat.json.read(try ArchiveFormat.json.write(tree, options: writing), options: reading)
        }
    }

    private func compare(_ current: ArchiveValue, with fixture: Fixture, spelling: GoldenSpelling) throws -> Outcome {
        let manager = FileManager.default
        guard manager.fileExists(atPath: fixture.goldenURL.path) else {
            if recordsGoldens {
                try write(current, to: fixture.goldenURL, options: spelling.writing)
                return .recorded
            }
            return .failed([
                "no golden at \(relativePath(fixture.goldenURL)); record it with \(Self.recordEnvironmentVariable)=1"
            ])
        }
        let golden = try ArchiveFormat.json.read(try Data(contentsOf: fixture.goldenURL), options: spelling.reading)
        // A migration may add `"key": null` where the encoder leaves an absent optional out: both
        // decode the same, so they compare equal here.
        let differences = ArchiveDiff.differences(
            from: golden, to: current, options: ArchiveDiff.Options(nullMeansAbsent: true))
        if differences.isEmpty { return .passed }
        if recordsGoldens {
            try write(current, to: fixture.goldenURL, options: spelling.writing)
            return .recorded
        }
        return .failed(
            ["differs from \(relativePath(fixture.goldenURL)) (golden → today):"]
                + differences.map { "  " + $0.description })
    }

    private func write(_ tree: ArchiveValue, to url: URL, options: ArchiveWritingOptions) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try ArchiveFormat.json.write(tree, options: options).write(to: url, options: .atomic)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(.io, "cannot write the golden \(url.path)", underlyingError: error)
        }
    }

    private func relativePath(_ url: URL) -> String {
        url.path.hasPrefix(directory.path + "/") ? String(url.path.dropFirst(directory.path.count + 1)) : url.path
    }

    private func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private func files(under folder: URL) throws -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [URL] = []
        for case let url as URL in enumerator where !url.lastPathComponent.hasPrefix(".") && !isDirectory(url) {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// `v1`, `v12`: a folder of archives written at one version.
    static func isVersionFolder(_ name: String) -> Bool {
        name.count > 1 && name.first == "v" && name.dropFirst().allSatisfy(\.isASCIIDigitCharacter)
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}

/// The results of a ``FixtureSuite`` run.
public struct FixtureReport: Sendable, Hashable, CustomStringConvertible {
    /// One result per fixture, in path order.
    public var results: [FixtureSuite.FixtureResult]

    /// The fixtures that failed.
    public var failures: [FixtureSuite.FixtureResult] {
        results.filter { if case .failed = $0.outcome { return true } else { return false } }
    }

    /// The fixtures whose golden was written.
    public var recorded: [FixtureSuite.FixtureResult] {
        results.filter { $0.outcome == .recorded }
    }

    /// One line per fixture, failures with their reasons.
    public var description: String {
        var lines: [String] = []
        for result in results {
            switch result.outcome {
            case .passed:
                lines.append("ok        \(result.fixture.path)")
            case .recorded:
                lines.append("recorded  \(result.fixture.path)")
            case .failed(let reasons):
                lines.append("FAILED    \(result.fixture.path)")
                lines.append(contentsOf: reasons.map { "          " + $0 })
            }
        }
        lines.append("\(results.count) fixtures: \(failures.count) failed, \(recorded.count) recorded")
        return lines.joined(separator: "\n")
    }
}
