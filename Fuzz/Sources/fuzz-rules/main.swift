import Foundation
import FuzzSupport
import ModelVersioning

// libFuzzer target: bytes → a rules file → a catalog → the migration pass over fixed archives.
//
// The rules file is the bytes themselves when they are a JSON document (the seeds are the
// repository's rules files), and otherwise one RulesGenerator builds from the bytes: well-formed
// files with mutated content — extreme versions, ambiguous maps, empty names, deep scopes.
// The catalog is read with `ArchiveLimits.untrusted`; what it rejects must be an ArchiveError of
// a rules-file code (invalidRules, invalidChain, limitExceeded) located in the file. What it
// accepts runs, alone and merged into the fuzz registry, over the Sketch fixtures and trees
// built here with objects at extreme versions: upgrade strictly and leniently, then downgrade
// to the oldest versions the chains reach. A value or an ArchiveError; anything else crashes.
//
// `FUZZ_WRITE_SEEDS=dir fuzz-rules` writes generator seeds and generated rules files as JSON.

private let fileName = "fuzz-rules.json"
private let limits = ArchiveLimits.untrusted

/// The Sketch sample app's archives, one per version, found from this source file.
private let sketchTrees: [ArchiveValue] = {
    let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // fuzz-rules
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()  // Fuzz
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Fixtures/archives/Sketch")
    let files = ["v1/kyoto-trip.json", "v2/kyoto-trip.json", "v3/kyoto-trip.json", "v4/moodboard.json"]
    return files.compactMap { file in
        guard let data = try? Data(contentsOf: fixtures.appendingPathComponent(file)) else { return nil }
        return try? ArchiveFormat.json.read(data)
    }
}()

/// Trees with objects at the versions a rules file may get wrong: unversioned, 0, the last
/// 32-bit version and its neighbours, `Int.max`.
private let builtTrees: [ArchiveValue] = {
    func object(_ type: String, _ version: Int?, _ fields: ArchiveDictionary) -> ArchiveValue {
        .object(ArchiveObject(typeName: type, version: version, fields: fields))
    }
    let style = object("Style", 1, ["color": "#D7263D"])
    let shapes: [ArchiveValue] = [
        object("Circle", 1, ["x": 1.5, "y": -2, "r": 3, "style": style]),
        object("Circle", nil, ["x": 0, "y": 0, "r": "7", "tags": ["a", "b"]]),
        object("Circle", Int.max, ["center": ["x": 1, "y": 2], "radius": 3]),
        object("Rect", 2_147_483_647, ["x": 0, "y": 0, "w": 4, "h": 5]),
        object("SketchApp.Rect", 2_147_483_646, ["x": 0, "y": 0, "w": 4, "h": 5, "style": style]),
        object("Rectangle", 0, ["origin": ["x": 0, "y": 0], "size": ["width": 1, "height": 2]]),
        object("Shape", Int.max - 1, ["name": "Ada Lovelace", "state": "open", "created": "2020-01-02T03:04:05Z"]),
    ]
    let drawing = object(
        "Drawing", 1,
        [
            "title": "Kyoto trip", "meta": ["author": "Ada", "created": "1999-12-31"], "shapes": .array(shapes),
            "models": [
                object("Model", 1, ["name": "m", "tags": "t"]), object("Person", nil, ["name": "Grace Hopper"]),
            ],
        ])
    let envelope: ArchiveValue = [
        "$archive": 1, "document": "Sketch", "documentVersion": .int(2_147_483_646), "root": drawing,
    ]
    let plain: ArchiveValue = [
        "schema_version": 1, "documentVersion": .int(Int64.max), "meta": ["version": 2],
        "people": [
            ["id": 1, "name": "Fred Weasley", "state": "open", "tags": ["x"]],
            ["id": 2, "name": "George", "state": "closed", "first_name": "G"],
        ],
        "shapes": .array(shapes),
    ]
    return [envelope, plain, drawing]
}()

private let trees = sketchTrees + builtTrees

/// libFuzzer's set-up: when `FUZZ_WRITE_SEEDS` names a folder, writes generator seeds and the rules
/// files they generate into it. Returns 0.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>)
    -> CInt
{
    FuzzCheck.writeSeedsIfAsked {
        var seeds: [(name: String, data: Data)] = []
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for number in 0..<64 {
            var bytes: [UInt8] = []
            for _ in 0..<512 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            // Never `{`: these seeds drive the generator; the JSON ones below are files.
            if bytes.first == UInt8(ascii: "{") { bytes[0] = 0 }
            seeds.append(("generator-\(number)", Data(bytes)))
            var generator = RulesGenerator(Data(bytes))
            let file = generator.file()
            if let json = try? ArchiveFormat.json.write(file, options: ArchiveWritingOptions(markup: .plain)) {
                seeds.append(("generated-\(number).json", json))
            }
        }
        return seeds
    }
    return 0
}

/// The rules file the bytes stand for: the JSON document they are, or a generated one.
private func rulesFile(from data: Data) -> ArchiveValue {
    if let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{"),
        let tree = try? ArchiveFormat.json.read(data, options: ArchiveReadingOptions(limits: limits, markup: .plain))
    {
        return tree
    }
    var generator = RulesGenerator(data)
    return generator.file()
}

/// Reads the catalog; a rejection must be a rules-file error located in the file.
private func catalog(_ file: ArchiveValue) -> MigrationCatalog? {
    do {
        return try MigrationCatalog(rulesFile: file, fileName: fileName, limits: limits)
    } catch let error as ArchiveError {
        precondition(
            [.invalidRules, .invalidChain, .limitExceeded].contains(error.code),
            "a rules file was rejected with \(error.code), not a rules-file code: \(error)")
        precondition(error.location?.file == fileName, "a rules-file error without the file: \(error)")
        _ = error.description
        return nil
    } catch {
        preconditionFailure("MigrationCatalog(rulesFile:) threw \(type(of: error)), not an ArchiveError: \(error)")
    }
}

/// Runs `catalog` over the trees `choice` picks (two of them: every tree each time would take
/// most of an execution copying trees): upgrade strictly (then down to the oldest or the current
/// versions) and leniently.
private func migrate(with catalog: MigrationCatalog, choice: UInt8) {
    let strict = MigrationPass(catalog: catalog, options: MigrationOptions(limits: limits))
    let lenient = MigrationPass(catalog: catalog, options: MigrationOptions(allowsNewerVersions: true, limits: limits))
    let document = choice & 1 == 0 ? catalog.documents.first?.name : nil
    var typeVersions: [String: Int] = [:]
    for chain in catalog.types {
        typeVersions[chain.typeName] = choice & 2 == 0 ? chain.oldestVersion : chain.currentVersion
    }
    let target = DowngradeTarget(
        documentVersion: document.flatMap { catalog.document(named: $0)?.steps.map(\.from).min() },
        typeVersions: typeVersions)
    let first = Int(choice >> 2) % trees.count
    for index in Set([first, (first + 1 + Int(choice >> 5)) % trees.count]) {
        let tree = trees[index]
        var upgraded = tree
        if let report = FuzzCheck.valueOrArchiveError("upgrade", { try strict.upgrade(&upgraded, document: document) })
        {
            _ = report.description
            var downgraded = upgraded
            if let down = FuzzCheck.valueOrArchiveError(
                "downgrade", { try strict.downgrade(&downgraded, to: target, document: document) })
            {
                _ = down.description
            }
        }
        var lenientTree = tree
        _ = FuzzCheck.valueOrArchiveError("lenient upgrade") { try lenient.upgrade(&lenientTree) }
    }
}

/// libFuzzer's entry point: reads a rules file from the `count` bytes at `start` (or generates one from
/// them) and runs its catalog over the fixed archives. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRules(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let file = rulesFile(from: data)
    guard let catalog = catalog(file) else { return 0 }
    let choice = data.last ?? 0
    migrate(with: catalog, choice: choice)
    // As the command-line tool uses it, merged into a registry of models (for one input in four).
    if count % 4 == 0,
        let registry = FuzzCheck.valueOrArchiveError(
            "adding rules to a registry", { try fuzzRegistry.adding(rules: catalog) })
    {
        migrate(with: registry.catalog, choice: choice &* 37)
    }
    return 0
}
