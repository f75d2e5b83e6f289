// swift-tools-version:6.2
import PackageDescription

// Module graph (dependencies point one way, nothing imports upward):
//
//   archive-migrate ──▶ ArchiveMigrateKit ──▶ ArchiveCompatibility ──▶ ModelVersioning ──▶ ArchiveFormats ──▶ MigrationRules
//
// The archive value tree lives in MigrationRules, the lowest module: migrations are edits of
// that tree and must be written, tested and loaded from rules files without Codable, formats or
// any app code (its own test target, MigrationRulesTests, depends on nothing else, so the build
// checks that). ArchiveFormats reads bytes into that tree and writes the tree into bytes (JSON
// and its structural index, property lists, keyed archives, archives nested in data values, the
// `$` markup) and knows no models; ArchiveFormatsTests depends on it alone. ModelVersioning adds
// models, the registry, the Codable coders and the bulk-migration engine on top and re-exports
// both, so apps import one module. ArchiveCompatibility is the
// tooling for test targets and CI (fixture suites, schema snapshots, the compatibility check with
// JUnit and GitHub output): an app that only reads and writes archives links none of it.
// ArchiveMigrateKit holds the command-line tool as a library, so an app builds the same tool with
// its own registered models; it alone links SQLite (the system library: SQLite3 on Apple platforms,
// CSQLite's module map for libsqlite3 elsewhere), for archives kept in database columns.
let package = Package(
    name: "ModelVersioning",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ModelVersioning", targets: ["ModelVersioning"]),
        .library(name: "MigrationRules", targets: ["MigrationRules"]),
        .library(name: "ArchiveFormats", targets: ["ArchiveFormats"]),
        .library(name: "ArchiveCompatibility", targets: ["ArchiveCompatibility"]),
        .library(name: "ArchiveMigrateKit", targets: ["ArchiveMigrateKit"]),
        .executable(name: "archive-migrate", targets: ["archive-migrate"]),
        .executable(name: "archive-bench", targets: ["archive-bench"]),
        .executable(name: "sketch-migrate", targets: ["sketch-migrate"]),
    ],
    targets: [
        .target(name: "MigrationRules"),
        .target(name: "ArchiveFormats", dependencies: ["MigrationRules"]),
        .target(name: "ModelVersioning", dependencies: ["ArchiveFormats", "MigrationRules"]),
        .target(name: "ArchiveCompatibility", dependencies: ["ModelVersioning"]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .yum(["sqlite-devel"]), .brew(["sqlite"])]),
        .target(
            name: "ArchiveMigrateKit",
            dependencies: [
                "ArchiveCompatibility",
                .target(name: "CSQLite", condition: .when(platforms: [.linux, .android, .openbsd, .windows])),
            ]),
        .executableTarget(name: "archive-migrate", dependencies: ["ArchiveMigrateKit"]),
        // The store case runs ArchiveMigrateKit's SQLite path, beside a Python script doing the same; the
        // front-door case an app's own SQLite code on the public API, beside the tool.
        .executableTarget(
            name: "archive-bench",
            dependencies: [
                "ModelVersioning", "ArchiveMigrateKit",
                .target(name: "CSQLite", condition: .when(platforms: [.linux, .android, .openbsd, .windows])),
            ],
            path: "Benchmarks/archive-bench",
            exclude: ["sqlite_migrate.py", "sqlite_ceiling.c"]),
        // The repository's own sample app, whose shipped archives are in Fixtures/archives/Sketch, and its
        // own archive-migrate built with ArchiveMigrateKit (the three lines an app writes).
        .target(name: "SketchModel", dependencies: ["ModelVersioning"], path: "Examples/Sketch/SketchModel"),
        .executableTarget(
            name: "sketch-migrate", dependencies: ["ArchiveMigrateKit", "SketchModel"],
            path: "Examples/Sketch/sketch-migrate"),
        // The models of each shipped release of the sample app, as that release compiled them, knowing nothing
        // of any later one: the tests open every archive written for a release with that release's own code.
        .target(
            name: "SketchRelease1_0", dependencies: ["ModelVersioning"], path: "Examples/Sketch/Releases/Sketch1_0"),
        .target(
            name: "SketchRelease1_1", dependencies: ["ModelVersioning"], path: "Examples/Sketch/Releases/Sketch1_1"),
        .target(
            name: "SketchRelease1_2", dependencies: ["ModelVersioning"], path: "Examples/Sketch/Releases/Sketch1_2"),
        // One test target per library module, each depending on its module (and what is below it) alone, so
        // that the build checks the layering: MigrationRulesTests proves migrations need no Codable and no
        // formats, ArchiveFormatsTests that formats need no models. TestSupport holds what several targets
        // share (the Fixtures folder, running the package's tools as processes, file facts) and depends on
        // ArchiveFormats only.
        .target(name: "TestSupport", dependencies: ["ArchiveFormats"], path: "Tests/TestSupport"),
        // Model types several test targets archive: polymorphic shapes, an NSCoding-era model, object graphs.
        .target(name: "TestModels", dependencies: ["ModelVersioning"], path: "Tests/TestModels"),
        .testTarget(name: "MigrationRulesTests", dependencies: ["MigrationRules"]),
        .testTarget(name: "ArchiveFormatsTests", dependencies: ["ArchiveFormats", "TestSupport"]),
        .testTarget(
            name: "ModelVersioningTests",
            dependencies: [
                "ModelVersioning", "TestSupport", "TestModels", "SketchModel", "SketchRelease1_0", "SketchRelease1_1",
                "SketchRelease1_2",
            ]),
        .testTarget(
            name: "ArchiveCompatibilityTests",
            dependencies: ["ArchiveCompatibility", "TestSupport", "TestModels", "SketchModel"]),
        // ArchiveMigrateKit's tests, and the ones that take both roads: the Swift API and the built
        // archive-migrate on the same inputs (the conformance test), the README's and the articles' examples,
        // the sample app's history through every release. The command-line tools are dependencies so that
        // they are built for the tests that run them.
        .testTarget(
            name: "MigrationTests",
            dependencies: [
                "ModelVersioning", "ArchiveCompatibility", "ArchiveMigrateKit", "TestSupport", "TestModels",
                "SketchModel",
                "SketchRelease1_0", "SketchRelease1_1", "SketchRelease1_2", "archive-migrate", "sketch-migrate",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
