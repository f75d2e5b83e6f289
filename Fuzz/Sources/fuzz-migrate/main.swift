import Foundation
import FuzzSupport
import ModelVersioning

// libFuzzer target: bytes → a tree (read as an archive when they are one, otherwise built from
// the bytes by TreeGenerator) → the migration pass with a catalog of every rule kind
// (FuzzCatalog.swift): upgrade strictly and leniently, then downgrade what upgraded. A value or an
// ArchiveError; anything else crashes.
//
// `FUZZ_WRITE_SEEDS=dir fuzz-migrate` writes generated trees as JSON archives.

private let target = DowngradeTarget(
    documentVersion: 1, typeVersions: ["Shape": 1, "Group": 1, "Person": 1, "Stamp": 1])

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>)
    -> CInt
{
    FuzzCheck.writeSeedsIfAsked {
        var seeds: [(name: String, data: Data)] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for number in 0..<64 {
            var bytes: [UInt8] = []
            for _ in 0..<256 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            seeds.append(("generated-\(number)", Data(bytes)))
        }
        return seeds
    }
    return 0
}

private func tree(from data: Data) -> ArchiveValue {
    if let (tree, _) = try? ArchiveFormat.read(data, options: ArchiveReadingOptions(limits: FuzzCheck.limits)) {
        return tree
    }
    var generator = TreeGenerator(data)
    return generator.value()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMigrate(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let original = tree(from: data)
    let document: String? = count % 2 == 0 ? "FuzzDocument" : nil
    var upgraded = original
    let strict = MigrationPass(catalog: fuzzCatalog, options: MigrationOptions(limits: FuzzCheck.limits))
    let report = FuzzCheck.valueOrArchiveError("upgrade") { try strict.upgrade(&upgraded, document: document) }
    if report != nil {
        _ = report?.description
        var downgraded = upgraded
        _ = FuzzCheck.valueOrArchiveError("downgrade") {
            try strict.downgrade(&downgraded, to: target, document: document)
        }
    }
    var lenientTree = original
    let lenient = MigrationPass(
        catalog: fuzzCatalog, options: MigrationOptions(allowsNewerVersions: true, limits: .untrusted))
    _ = FuzzCheck.valueOrArchiveError("lenient upgrade") { try lenient.upgrade(&lenientTree) }
    return 0
}
