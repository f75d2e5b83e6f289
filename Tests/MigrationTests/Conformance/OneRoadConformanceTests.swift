import Foundation
import ModelVersioning
import TestSupport
import Testing

/// One road, one answer: every fixture through every operation once through the Swift API
/// (``MigrationEngine``, ``ArchiveDocument``) and once through the built `archive-migrate`, with
/// the same bytes out (or both refusing). An app that links the library and a CI job that runs
/// the tool must never disagree about what an archive becomes.
///
/// The corpus is every archive under `Fixtures/archives` (every format and version of the sample
/// app, the Mantle-layout keyed archive) and the plain foreign documents of
/// `Fixtures/versioned-json` (a people file at three schema versions, an Excalidraw library),
/// each with its rules file, and the real-shaped property lists of `Fixtures/plist` (a Terminal
/// profile, as XML and as the JSON convert writes for it, and an app's preferences), which have
/// no rules. The operations: upgrade; downgrade to each release the rules declare; upgrade
/// written for each release (`readableBy`); convert to each format.
@Suite("One road: the Swift API and archive-migrate give the same bytes")
struct OneRoadConformanceTests {
    /// A fixture and the rules it is migrated with, relative to the package root (`nil`: it is
    /// only converted).
    struct Subject: Sendable, CustomTestStringConvertible {
        var path: String
        var rules: String?
        var testDescription: String { path }
    }

    /// One operation on one subject.
    struct Case: Sendable, CustomStringConvertible {
        enum Operation: Sendable {
            case upgrade
            case downgrade(release: String)
            case readableBy(release: String)
            case convert(ArchiveFormat)
        }

        var subject: Subject
        var operation: Operation

        var description: String { "\(subject.path) \(arguments.dropFirst(2).joined(separator: " "))" }

        /// The tool's arguments (a JSON report, which names an error's code, where there is one).
        var arguments: [String] {
            switch operation {
            case .upgrade: return ["upgrade", subject.path, "--rules", subject.rules ?? "", "--format", "json"]
            case .downgrade(let release):
                return ["downgrade", subject.path, "--rules", subject.rules ?? "", "--to", release, "--format", "json"]
            case .readableBy(let release):
                return [
                    "upgrade", subject.path, "--rules", subject.rules ?? "", "--readable-by", release, "--format",
                    "json",
                ]
            case .convert(let format): return ["convert", subject.path, "--to", format.rawValue]
            }
        }

        /// Whether the tool's report names an error's code (convert has no report).
        var reportsCodes: Bool {
            if case .convert = operation { return false }
            return true
        }

        /// What the Swift API gives, or the error it throws.
        func throughTheAPI() throws -> Result<Data, ArchiveError> {
            let data = try Fixture.data(String(subject.path.dropFirst("Fixtures/".count)))
            let catalog =
                try subject.rules.map { try Fixture.rules(String($0.dropFirst("Fixtures/".count))) }
                ?? MigrationCatalog()
            do {
                var options = MigrationEngine.Options()
                options.reporting = .everyObject  // as the tool reports files
                switch operation {
                case .upgrade:
                    let engine = try MigrationEngine(catalog: catalog, options: options)
                    return .success(try #require(try engine.migrate(data, writingUnchanged: true).data))
                case .downgrade(let name):
                    let release = try #require(catalog.releases?.release(matching: name))
                    let engine = try MigrationEngine(
                        catalog: catalog, operation: .downgrade(to: DowngradeTarget(release: release)), options: options
                    )
                    return .success(try #require(try engine.migrate(data, writingUnchanged: true).data))
                case .readableBy(let release):
                    options.readableBy = release
                    let engine = try MigrationEngine(catalog: catalog, options: options)
                    return .success(try #require(try engine.migrate(data, writingUnchanged: true).data))
                case .convert(let format):
                    return .success(try ArchiveDocument(data: data).data(as: format))
                }
            } catch let error as ArchiveError {
                return .failure(error)
            }
        }
    }

    static let subjects: [Subject] = {
        var subjects = Fixture.sketchArchives.map {
            Subject(path: "Fixtures/archives/Sketch/\($0)", rules: "Fixtures/archives/rules.json")
        }
        subjects += ["simple-v1", "simple-v2", "simple-v3"].map {
            Subject(
                path: "Fixtures/versioned-json/zorn-VersionedFilesDemo/\($0).people.json",
                rules: "Fixtures/versioned-json/zorn-VersionedFilesDemo/people.rules.json")
        }
        subjects.append(
            Subject(
                path: "Fixtures/versioned-json/excalidraw/fixture_library.v1.excalidrawlib",
                rules: "Fixtures/versioned-json/excalidraw/excalidrawlib.rules.json"))
        subjects += [
            "Fixtures/plist/terminal/Harbor.terminal", "Fixtures/plist/terminal/Harbor.json",
            "Fixtures/plist/preferences/com.example.Harbor.plist",
        ].map { Subject(path: $0, rules: nil) }
        return subjects
    }()

    /// Every operation on every subject: releases come from each subject's rules.
    static func cases() throws -> [Case] {
        try subjects.flatMap { subject -> [Case] in
            guard let rules = subject.rules else {
                return ArchiveFormat.allCases.map { Case(subject: subject, operation: .convert($0)) }
            }
            let releases =
                try Fixture.rules(String(rules.dropFirst("Fixtures/".count))).releases?.releases.map(\.name) ?? []
            return [Case(subject: subject, operation: .upgrade)]
                + releases.map { Case(subject: subject, operation: .downgrade(release: $0)) }
                + releases.map { Case(subject: subject, operation: .readableBy(release: $0)) }
                + ArchiveFormat.allCases.map { Case(subject: subject, operation: .convert($0)) }
        }
    }

    @Test("every fixture through every operation: the same bytes through the Swift API and archive-migrate")
    func sameBytes() throws {
        let cases = try Self.cases()
        let root = Fixture.root.deletingLastPathComponent()
        // Each case runs the tool once; they run on every processor.
        let outcomes = Parallel.map(cases) { item -> String? in
            do {
                let api = try item.throughTheAPI()
                let run = try ToolProcess.run(item.arguments, in: root)
                switch api {
                case .success(let bytes):
                    guard run.status == 0 else {
                        return "\(item): the API wrote it, the tool failed: \(run.standardError)"
                    }
                    guard run.standardOutput == bytes else {
                        return "\(item): other bytes (API \(bytes.count), tool \(run.standardOutput.count))"
                    }
                    return nil
                case .failure(let error):
                    let code = error.code
                    guard run.status != 0, run.standardOutput.isEmpty else {
                        return "\(item): the API refused it (\(code)), the tool wrote it"
                    }
                    guard !item.reportsCodes || run.standardError.contains("\"code\": \"\(code.rawValue)\"") else {
                        return "\(item): the API refused it with \(code), the tool otherwise: \(run.standardError)"
                    }
                    return nil
                }
            } catch {
                return "\(item): \(error)"
            }
        }
        let disagreements = outcomes.compactMap { $0 }
        #expect(
            disagreements.isEmpty,
            "\(disagreements.count) of \(cases.count) disagree:\n\(disagreements.joined(separator: "\n"))")
        // The corpus is what the suite promises: every format, every release, plain documents.
        let extensions = Set(Self.subjects.map { URL(fileURLWithPath: $0.path).pathExtension })
        #expect(extensions.isSuperset(of: ["json", "plist", "excalidrawlib", "terminal"]))
        #expect(Set(Fixture.sketchArchives.map(Fixture.sketchRelease(of:))) == [1, 2, 3, 4])
        print(
            "One road: \(cases.count) operations on \(Self.subjects.count) fixtures, \(cases.count - disagreements.count) byte-equal or refused by both"
        )
    }
}
