// swift-tools-version:6.0
import PackageDescription

// Module graph (dependencies point one way, nothing imports upward):
//
//   archive-migrate ──▶ ModelVersioning ──▶ MigrationRules
//
// The archive value tree lives in MigrationRules, the lowest module: migrations are edits of
// that tree and must be written, tested and loaded from rules files without Codable, formats or
// any app code. ModelVersioning adds models, the registry, the Codable coders and the formats on
// top of it and re-exports MigrationRules, so apps import one module.
let package = Package(
    name: "ModelVersioning",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ModelVersioning", targets: ["ModelVersioning"]),
        .library(name: "MigrationRules", targets: ["MigrationRules"]),
        .executable(name: "archive-migrate", targets: ["archive-migrate"]),
    ],
    targets: [
        .target(name: "MigrationRules"),
        .target(name: "ModelVersioning", dependencies: ["MigrationRules"]),
        .executableTarget(name: "archive-migrate", dependencies: ["ModelVersioning"]),
        .testTarget(name: "MigrationTests", dependencies: ["ModelVersioning", "MigrationRules"]),
    ],
    swiftLanguageModes: [.v6]
)
