// swift-tools-version:6.2
import PackageDescription

// libFuzzer targets for ModelVersioning's readers, decoder, migration pass, rules-file reader and the way
// downs archives carry. A separate package, so that the root package's `swift build` never builds fuzzers.
// Build and run one with
//
//   bash Fuzz/run.sh fuzz-json 60
//
// (see Fuzz/README.md). Each target's `main.swift` exports `LLVMFuzzerTestOneInput`.
let package = Package(
    name: "ModelVersioningFuzz",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "fuzz-json", targets: ["fuzz-json"]),
        .executable(name: "fuzz-plist", targets: ["fuzz-plist"]),
        .executable(name: "fuzz-keyed", targets: ["fuzz-keyed"]),
        .executable(name: "fuzz-decode", targets: ["fuzz-decode"]),
        .executable(name: "fuzz-migrate", targets: ["fuzz-migrate"]),
        .executable(name: "fuzz-rules", targets: ["fuzz-rules"]),
        .executable(name: "fuzz-way-down", targets: ["fuzz-way-down"]),
        .executable(name: "fuzz-upgrade", targets: ["fuzz-upgrade"]),
    ],
    dependencies: [.package(name: "ModelVersioning", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "ModelVersioning", package: "ModelVersioning")]),
        .executableTarget(name: "fuzz-json", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-plist", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-keyed", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-decode", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-migrate", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-rules", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-way-down", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-upgrade", dependencies: ["FuzzSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
