import Foundation
import FuzzSupport
import ModelVersioning

// libFuzzer target: bytes → any reader → migration → ArchiveDecoder into a recursive polymorphic
// model set (FuzzModels.swift), strictly and leniently; what decodes is encoded again in every
// format and decoded back, and its JSON written straight from the values must equal the tree
// writer's, and decoding the bytes directly must give what decoding their tree gives. A value or an
// ArchiveError; anything else crashes.
//
// `FUZZ_WRITE_SEEDS=dir fuzz-decode` writes archives of a sample document in every format.

private let strict: ArchiveDecoder = {
    var options = DecodingOptions()
    options.limits = FuzzCheck.limits
    return ArchiveDecoder(registry: fuzzRegistry, options: options)
}()
private let lenient: ArchiveDecoder = {
    var options = DecodingOptions()
    options.allowsNewerVersions = true
    options.unknownTypeStrategy = .keepArchivedObject
    options.requiresAllowedTypes = true
    options.limits = .untrusted
    return ArchiveDecoder(registry: fuzzRegistry, options: options)
}()

/// libFuzzer's set-up: when `FUZZ_WRITE_SEEDS` names a folder, writes archives of a sample document in
/// every format into it. Returns 0.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>)
    -> CInt
{
    FuzzCheck.writeSeedsIfAsked {
        let document = sampleFuzzDocument()
        var seeds: [(name: String, data: Data)] = []
        for format in ArchiveFormat.allCases {
            var encoder = ArchiveEncoder(format: format, registry: fuzzRegistry)
            encoder.document = "FuzzDocument"
            encoder.documentVersion = 2
            seeds.append(("document.\(format)", try encoder.encode(document)))
            seeds.append(("node.\(format)", try encoder.encode(document.root as? Node)))
        }
        // Current JSON archives of value-type models, which decode straight from the bytes.
        var tagged = Tagged(tags: ["a", "b\u{1}é"], point: FuzzPoint(x: 1.5, y: -2))
        tagged.flags = [true, false]
        tagged.nested = [[], [1, 2.5e-3]]
        tagged.table = ["t": ["x": -3, "": 7]]
        for pretty in [false, true] {
            let encoder = ArchiveEncoder(
                writingOptions: ArchiveWritingOptions(prettyPrinted: pretty), registry: fuzzRegistry)
            seeds.append(
                ("tagged-\(pretty).json", try encoder.encode([tagged, Tagged(tags: [], point: FuzzPoint(x: 0, y: 0))])))
            seeds.append(("box-\(pretty).json", try encoder.encode(Box(content: tagged, more: [tagged]))))
            seeds.append(("table-\(pretty).json", try encoder.encode(["k": tagged])))
            seeds.append(
                ("relocated-\(pretty).json", try encoder.encode([Relocated(title: "r", point: FuzzPoint(x: 1, y: 2))])))
        }
        // Old archives of a model whose chain only moves keys: upgraded while they are read.
        seeds.append(
            (
                "relocated-old.json",
                Data(
                    (#"{"$archive":1,"root":[{"$type":"Relocated","$version":1,"name":"a","x":1,"y":2,"#
                        + #""junk":[1,{"k":null}],"tags":["t"]},{"$type":"Relocated","$version":2,"title":"b","#
                        + #""x":0.5,"y":-1},{"$type":"Relocated","name":"c","y":4,"x":3,"note":"n","kids":["#
                        + #"{"$type":"Relocated","$version":1,"name":"d","x":1,"y":1,"kids":[]},"#
                        + #"{"$type":"Relocated","$version":3,"title":"e","point":{"x":0,"y":0},"visible":false,"#
                        + #""rank":2}]}]}"#).utf8)
            ))
        return seeds
    }
    return 0
}

/// libFuzzer's entry point: decodes the `count` bytes at `start` into the fuzz models, strictly and
/// leniently, and checks that every other path (re-encoding, direct decoding) agrees. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecode(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    // Straight from the bytes (current JSON archives) and through the tree: the same values.
    for decoder in [strict, lenient] {
        FuzzCheck.sameDecoding(FuzzDocument.self, from: data, with: decoder, registry: fuzzRegistry)
        FuzzCheck.sameDecoding([Tagged].self, from: data, with: decoder, registry: fuzzRegistry)
        FuzzCheck.sameDecoding(Box<Tagged>.self, from: data, with: decoder, registry: fuzzRegistry)
        FuzzCheck.sameDecoding([String: Tagged].self, from: data, with: decoder, registry: fuzzRegistry)
        FuzzCheck.sameDecoding([Relocated].self, from: data, with: decoder, registry: fuzzRegistry)
    }
    guard
        let (tree, _) = FuzzCheck.valueOrArchiveError(
            "ArchiveFormat.read",
            { try ArchiveFormat.read(data, options: ArchiveReadingOptions(limits: FuzzCheck.limits)) })
    else {
        return 0
    }
    let document = FuzzCheck.valueOrArchiveError("strict decode of FuzzDocument") {
        try strict.decode(FuzzDocument.self, fromTree: tree)
    }
    _ = FuzzCheck.valueOrArchiveError("strict decode of Node") { try strict.decode(Node.self, fromTree: tree) }
    let lenientDocument = FuzzCheck.valueOrArchiveError("lenient decode of FuzzDocument") {
        try lenient.decode(FuzzDocument.self, fromTree: tree)
    }
    let table = FuzzCheck.valueOrArchiveError("lenient decode of [String: Tagged]") {
        try lenient.decode([String: Tagged].self, fromTree: tree)
    }
    // Value-type models, arrays and optionals: what `encode(_:)` writes without the tree.
    let tagged = FuzzCheck.valueOrArchiveError("lenient decode of [Tagged]") {
        try lenient.decode([Tagged].self, fromTree: tree)
    }
    let box = FuzzCheck.valueOrArchiveError("lenient decode of Box<Tagged>") {
        try lenient.decode(Box<Tagged>.self, fromTree: tree)
    }
    if let table { FuzzCheck.sameJSON(table, registry: fuzzRegistry) }
    if let tagged { FuzzCheck.sameJSON(tagged, registry: fuzzRegistry) }
    if let box { FuzzCheck.sameJSON(box, registry: fuzzRegistry) }
    for decoded in [document, lenientDocument].compactMap({ $0 }) {
        FuzzCheck.sameJSON(decoded, registry: fuzzRegistry)
        for format in [ArchiveFormat.json, .keyedArchive] {
            let encoder = ArchiveEncoder(format: format, registry: fuzzRegistry)
            if let bytes = FuzzCheck.valueOrArchiveError("encode", { try encoder.encode(decoded) }) {
                _ = FuzzCheck.valueOrArchiveError("decode again") {
                    try lenient.decode(FuzzDocument.self, from: bytes)
                }
            }
        }
    }
    return 0
}
