import ArchiveFormats
import Foundation

/// Files under the repository's `Fixtures/` folder.
package enum Fixture {
    /// The repository's `Fixtures/` folder, found from this source file.
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Fixtures")

    package static func url(_ path: String) -> URL {
        root.appendingPathComponent(path)
    }

    package static func data(_ path: String) throws -> Data {
        try Data(contentsOf: url(path))
    }

    /// The file read into a tree by its detected format.
    package static func tree(_ path: String, markup: MarkupMode = .automatic) throws -> ArchiveValue {
        try ArchiveFormat.read(try data(path), options: ArchiveReadingOptions(markup: markup)).0
    }

    /// A rules file read into a catalog.
    package static func rules(_ path: String) throws -> MigrationCatalog {
        try MigrationCatalog(rulesFile: try tree(path, markup: .plain), fileName: path)
    }

    /// `v1/kyoto-trip.json`, …: every archive under `Fixtures/archives/Sketch`, found by listing
    /// the folders (a file added there without an expectation in `SketchHistoryTests` fails its `everyFixtureIsChecked`).
    package static let sketchArchives: [String] = {
        let folder = url("archives/Sketch")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return versions.filter { $0.hasPrefix("v") }.flatMap { version in
            let files =
                (try? FileManager.default.contentsOfDirectory(
                    atPath: folder.appendingPathComponent(version).path)) ?? []
            return files.map { "\(version)/\($0)" }
        }.sorted()
    }()

    /// The app release (1 = app 1.0, 2 = 1.1, 3 = 1.2, 4 = 2.0) that wrote a fixture: its folder.
    package static func sketchRelease(of fixture: String) -> Int {
        Int(fixture.dropFirst().prefix { $0.isNumber }) ?? 0
    }
}
