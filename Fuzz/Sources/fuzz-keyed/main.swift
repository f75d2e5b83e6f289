import Foundation
import FuzzSupport
import ModelVersioning

// libFuzzer target: bytes → the keyed-archive reader (the object graph of an NSKeyedArchiver or
// Mantle archive, binary or XML), with the root chosen three ways, then every writer and back.
// A value or an ArchiveError; anything else crashes.

private let keyedOptions: [KeyedArchiveOptions] = {
    var all = KeyedArchiveOptions()
    all.readsAllTopLevelObjects = true
    return [.default, all, KeyedArchiveOptions(rootKey: "foundItems")]
}()

/// libFuzzer's entry point: reads the `count` bytes at `start` as a keyed archive (the root chosen by
/// `count`), then writes the tree in every format and reads it back. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyedArchive(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let options = ArchiveReadingOptions(limits: FuzzCheck.limits, keyedArchive: keyedOptions[count % 3])
    if let tree = FuzzCheck.valueOrArchiveError(
        "keyed-archive reader",
        {
            try ArchiveFormat.keyedArchive.read(data, options: options)
        })
    {
        FuzzCheck.roundTrip(tree, formats: [.keyedArchive, .json])
    }
    return 0
}
