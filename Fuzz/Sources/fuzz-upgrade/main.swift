import Foundation
import FuzzSupport
import ModelVersioning

// libFuzzer target: bytes → ArchiveUpgrader with chains that only move keys (UpgradeCatalog.swift),
// beside the tree path run on its own (ArchiveDocument, MigrationPass, document.data()). A result or
// an ArchiveError; and whenever the upgrader rewrote the text, the tree path must have succeeded
// with the same bytes and the same answer to "changed". Anything else crashes.
//
// `FUZZ_WRITE_SEEDS=dir fuzz-upgrade` writes seed archives of the catalog's types.

private let options = ArchiveReadingOptions(limits: FuzzCheck.limits)
private let upgrader: ArchiveUpgrader = {
    do {
        return try ArchiveUpgrader(catalog: upgradeCatalog, options: options)
    } catch {
        preconditionFailure("the fuzz catalog has no document to name: \(error)")
    }
}()
private let pass = MigrationPass(catalog: upgradeCatalog, options: MigrationOptions(limits: FuzzCheck.limits))

private let seeds = [
    #"{"$type":"Shape","$version":1,"id":1,"name":"a","x":1.50,"y":-0,"legacy":[1,{"k":2}],"tags":["a","b"]}"#,
    #"{"$type":"OldShape","$version":1,"id":2,"name":"caf\u00e9","x":1e2,"y":0.1}"#,
    #"{"$type":"Shape","id":3,"name":"\ud83d\ude00","x":-12,"y":9223372036854775808}"#,
    #"{"$type":"Shape","$version":3,"id":4,"title":"t","center":{"x":1,"y":2}}"#,
    "{\n  \"$type\": \"Board\",\n  \"$version\": 1,\n  \"user\": \"kim\",\n  \"shapes\": [\n    {\"$version\": 2, \"$type\": \"Shape\", \"id\": 5, \"title\": \"s\", \"x\": 0.25, \"y\": 1E-7}\n  ]\n}\n",
    #"{"$type":"Board","$version":2,"owner":{"name":"n","$type":"Tag","$version":1},"shapes":[]}"#,
    #"{"$type":"Frame","$version":1,"size":3,"inner":{"$type":"Shape","$version":1,"id":6,"name":"a","x":1,"y":2}}"#,
    #"{"$type":"Tag","$version":1,"name":"x","extra":[true,false,null,"\"quoted\\"]}"#,
    #"{"$archive":1,"root":{"$type":"Shape","$version":1,"id":7,"name":"a","x":1,"y":2}}"#,
    #"{"$type":"Shape","$version":1,"id":8,"name":"a","x":1,"y":2,"legacy":{"$type":"Tag","$version":1,"name":"t"}}"#,
    "{\"$type\":\t\"Shape\" ,\r\n\"$version\" : 2 , \"id\":9,\"title\":\"x\",\"x\":[],\"y\":{}}",
    #"{"$type":"\u212Aite","$version":1,"a":[1,2]}"#,
    #"{"$type":"Kite","$version":1,"a":{"k":"\u212A"}}"#,
]

/// libFuzzer's set-up: when `FUZZ_WRITE_SEEDS` names a folder, writes seed archives of the catalog's
/// types into it. Returns 0.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>)
    -> CInt
{
    FuzzCheck.writeSeedsIfAsked {
        seeds.enumerated().map { ("seed-\($0.offset).json", Data($0.element.utf8)) }
    }
    return 0
}

/// libFuzzer's entry point: upgrades the `count` bytes at `start` with `ArchiveUpgrader` and checks that
/// the tree path, run on its own, gives the same bytes. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUpgrade(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let result = FuzzCheck.valueOrArchiveError("upgrade") { try upgrader.upgrade(data) }
    guard let result, result.rewroteText else { return 0 }
    // The tree path, on its own: it must agree byte for byte.
    let tree = FuzzCheck.valueOrArchiveError("tree path") { () throws -> (Bool, Data) in
        var document = try ArchiveDocument(data: data, options: options)
        let report = try pass.upgrade(&document.tree)
        return (report.changedTree, try document.data())
    }
    guard let (changed, output) = tree else {
        preconditionFailure("the text was rewritten, but the tree path fails on it")
    }
    precondition(result.changed == changed, "the rewrite says changed: \(result.changed), the tree path \(changed)")
    precondition(result.data == (changed ? output : data), "the rewrite's bytes are not the tree path's")
    return 0
}
