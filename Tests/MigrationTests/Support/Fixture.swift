import Foundation
import ModelVersioning

/// Files under the repository's `Fixtures/` folder.
enum Fixture {
    /// The repository's `Fixtures/` folder, found from this source file.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // MigrationTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Fixtures")

    static func url(_ path: String) -> URL {
        root.appendingPathComponent(path)
    }

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: url(path))
    }

    /// The file read into a tree by its detected format.
    static func tree(_ path: String, markup: MarkupMode = .automatic) throws -> ArchiveValue {
        try ArchiveFormat.read(try data(path), options: ArchiveReadingOptions(markup: markup)).0
    }

    /// A rules file read into a catalog.
    static func rules(_ path: String) throws -> MigrationCatalog {
        try MigrationCatalog(rulesFile: try tree(path, markup: .plain), fileName: path)
    }
}
