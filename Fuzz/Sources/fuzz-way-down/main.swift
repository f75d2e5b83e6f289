import Foundation
import FuzzSupport
import ModelVersioning

// libFuzzer target: bytes → an archive carrying a way down (WayDown) → older apps' migration
// passes → today's pass on what they kept for the way back.
//
// The archive is the bytes themselves when they are a JSON document (the seeds are archives the
// Sketch sample app wrote for its releases 1.1 and 1.0, and what those releases made of them),
// and otherwise one of those archives mutated by WayDownMutator: its way down (sealed again with
// a correct digest seven times in eight, so that most inputs get past the digest) or the kept
// values (`$wayBack`) an older release wrote. Then:
// - the way down alone through `WayDown(tree:limits:)` with `ArchiveLimits.untrusted`: a
//   rejection must be invalidWayDown, limitExceeded or newerVersion (a format it does not read);
// - the upgrade of apps 1.0, 1.1 and 1.2 (each knowing only its own chains), strictly and
//   leniently: they run the carried steps down to their versions, keeping what they cannot hold;
// - today's upgrade of what each older app made of it: kept values restored, references resolved.
// A value or an ArchiveError; anything else crashes.
//
// `FUZZ_WRITE_SEEDS=dir fuzz-way-down` writes the archives and generator seeds.

private let limits = ArchiveLimits.untrusted

private let fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // fuzz-way-down
    .deletingLastPathComponent()  // Sources
    .deletingLastPathComponent()  // Fuzz
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("Fixtures/archives")

private func rules(_ name: String) -> MigrationCatalog? {
    guard let data = try? Data(contentsOf: fixtures.appendingPathComponent(name)),
        let tree = try? ArchiveFormat.json.read(data, options: ArchiveReadingOptions(markup: .plain))
    else { return nil }
    return try? MigrationCatalog(rulesFile: tree, fileName: name)
}

/// Today's Sketch rules, and what releases 1.2, 1.1 and 1.0 knew.
private let today = rules("rules.json") ?? .empty
private let release11 = rules("Sketch-1.1.rules.json") ?? .empty
/// Release 1.2: today's chains cut at its versions (every type already had today's name).
private let release12: MigrationCatalog = {
    let versions = ["Drawing": 3, "Circle": 3, "Rectangle": 2, "RoundedRectangle": 1, "Style": 2, "Model": 2]
    let types = today.types.map { chain in
        TypeMigrations(
            typeName: chain.typeName, currentVersion: versions[chain.typeName] ?? chain.currentVersion,
            aliases: chain.aliases,
            steps: chain.steps.filter { $0.to <= versions[chain.typeName] ?? chain.currentVersion },
            downgradeFallback: chain.downgradeFallback)
    }
    let document = today.documents.map { chain in
        DocumentMigrations(name: chain.name, currentVersion: 3, steps: chain.steps.filter { $0.to <= 3 })
    }
    return (try? MigrationCatalog(types: types, documents: document)) ?? .empty
}()
/// Release 1.0: no steps at all.
private let release10: MigrationCatalog = {
    let types = ["Drawing", "Circle", "Rect", "Style", "Model"].map {
        TypeMigrations(typeName: $0, currentVersion: 1, aliases: $0 == "Rect" ? ["SketchApp.Rect"] : [])
    }
    return (try? MigrationCatalog(types: types, documents: [DocumentMigrations(name: "Sketch", currentVersion: 1)]))
        ?? .empty
}()
private let olderApps = [release10, release11, release12]

/// Sketch archives at today's versions carrying a way down to 1.1 or 1.0, and what an older app
/// made of each (objects at its versions, `$wayBack` fields).
private let archives: [ArchiveValue] = {
    let names = ["v4/moodboard.json", "v3/ui-mockup.json", "v2/stamps.json", "v1/kyoto-trip.json"]
    var made: [ArchiveValue] = []
    for name in names {
        guard let data = try? Data(contentsOf: fixtures.appendingPathComponent("Sketch/" + name)),
            var tree = try? ArchiveFormat.json.read(data)
        else { continue }
        _ = try? MigrationPass(catalog: today).upgrade(&tree)
        for (release, older) in [("1.1", release11), ("1.0", release10)] {
            var carried = tree
            guard (try? today.writeWayDown(toRelease: release, into: &carried)) != nil else { continue }
            made.append(carried)
            var opened = carried
            if (try? MigrationPass(catalog: older).upgrade(&opened)) != nil { made.append(opened) }
        }
    }
    return made
}()

/// libFuzzer's set-up: when `FUZZ_WRITE_SEEDS` names a folder, writes the archives and mutator seeds
/// into it. Returns 0.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>)
    -> CInt
{
    FuzzCheck.writeSeedsIfAsked {
        var seeds: [(name: String, data: Data)] = []
        for (index, archive) in archives.enumerated() {
            if let json = try? ArchiveFormat.json.write(archive, options: ArchiveWritingOptions(prettyPrinted: false)) {
                seeds.append(("archive-\(index).json", json))
            }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for number in 0..<64 {
            var bytes: [UInt8] = []
            for _ in 0..<256 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            if bytes.first == UInt8(ascii: "{") { bytes[0] = 0 }
            seeds.append(("mutator-\(number)", Data(bytes)))
        }
        return seeds
    }
    return 0
}

/// The archive the bytes stand for: the JSON document they are, or a mutated one.
private func archive(from data: Data) -> ArchiveValue? {
    if let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") {
        return try? ArchiveFormat.json.read(data, options: ArchiveReadingOptions(limits: limits))
    }
    guard !archives.isEmpty else { return nil }
    var mutator = WayDownMutator(data)
    var tree = archives[Int(mutator.choice()) % archives.count]
    guard case .dictionary(var envelope) = tree else { return tree }
    if case .dictionary(var wayDown)? = envelope["wayDown"], mutator.choice() % 4 != 0 {
        var value = ArchiveValue.dictionary(wayDown)
        mutator.mutate(&value)
        if case .dictionary(let mutated) = value {
            wayDown = mutated
            if mutator.choice() % 8 != 0, let digest = WayDown.digest(ofTree: value) {
                wayDown["digest"] = .string(digest)
            }
            envelope["wayDown"] = .dictionary(wayDown)
        } else {
            envelope["wayDown"] = value
        }
    } else if var root = envelope["root"] {
        // What an older app kept (or anything in the tree).
        mutator.mutate(&root)
        envelope["root"] = root
    }
    tree = .dictionary(envelope)
    return tree
}

/// libFuzzer's entry point: reads the way down of the archive made from the `count` bytes at `start`,
/// runs the older apps' upgrades on it, then today's on what they made. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWayDown(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    guard let tree = archive(from: data) else { return 0 }
    if let wayDown = tree["wayDown"] {
        do {
            let read = try WayDown(tree: wayDown, limits: limits)
            _ = read.summary
            _ = FuzzCheck.valueOrArchiveError("writing a way down read") { try read.tree }
        } catch let error as ArchiveError {
            precondition(
                [.invalidWayDown, .limitExceeded, .newerVersion].contains(error.code),
                "a way down was rejected with \(error.code), not a way-down code: \(error)")
            _ = error.description
        } catch {
            preconditionFailure("WayDown(tree:) threw \(type(of: error)), not an ArchiveError: \(error)")
        }
    }
    let choice = data.last ?? 0
    let older = olderApps[Int(choice) % olderApps.count]
    let lenient = choice & 8 != 0
    let options = MigrationOptions(allowsNewerVersions: lenient, limits: limits)
    var opened = tree
    if let report = FuzzCheck.valueOrArchiveError(
        "an older app's upgrade",
        {
            try MigrationPass(catalog: older, options: options).upgrade(&opened)
        })
    {
        _ = report.description
        var back = opened
        if let restored = FuzzCheck.valueOrArchiveError(
            "today's upgrade",
            {
                try MigrationPass(catalog: today, options: options).upgrade(&back)
            })
        {
            _ = restored.description
        }
    }
    // Today's app reading the archive as it is (kept values from a mutated older app included).
    var direct = tree
    _ = FuzzCheck.valueOrArchiveError("today's upgrade of the input") {
        try MigrationPass(catalog: today, options: options).upgrade(&direct)
    }
    return 0
}
