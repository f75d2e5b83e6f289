// swift-tools-version:6.0
import PackageDescription

// Module graph (dependencies point one way, nothing imports upward):
//
//   archive-migrate ──▶ ArchiveMigrateKit ──▶ ModelVersioning ──▶ MigrationRules
//
// The archive value tree lives in MigrationRules, the lowest module: migrations are edits of
// that tree and must be written, tested and loaded from rules files without Codable, formats or
// any app code. ModelVersioning adds models, the registry, the Codable coders and the formats on
// top of it and re-exports MigrationRules, so apps import one module. ArchiveMigrateKit holds the
// command-line tool as a library, so an app builds the same tool with its own registered models.
let package = Package(
    name: "ModelVersioning",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ModelVersioning", targets: ["ModelVersioning"]),
        .library(name: "MigrationRules", targets: ["MigrationRules"]),
        .library(name: "ArchiveMigrateKit", targets: ["ArchiveMigrateKit"]),
        .executable(name: "archive-migrate", targets: ["archive-migrate"]),
        .executable(name: "archive-bench", targets: ["archive-bench"]),
    ],
    targets: [
        .target(name: "MigrationRules"),
        .target(name: "ModelVersioning", dependencies: ["MigrationRules"]),
        .target(name: "ArchiveMigrateKit", dependencies: ["ModelVersioning"]),
        .executableTarget(name: "archive-migrate", dependencies: ["ArchiveMigrateKit"]),
        .executableTarget(name: "archive-bench", dependencies: ["ModelVersioning"], path: "Benchmarks/archive-bench"),
        .testTarget(
            name: "MigrationTests",
            // The command-line tool is a dependency so that it is built for the tests that run it.
            dependencies: ["ModelVersioning", "MigrationRules", "ArchiveMigrateKit", "archive-migrate"]),
    ],
    swiftLanguageModes: [.v6]
)
