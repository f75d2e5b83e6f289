import Foundation
import FuzzSupport
import ModelVersioning

// libFuzzer target: bytes → the property-list reader (binary, XML and OpenStep, told apart by
// content), then the detecting facade (which also reads keyed archives), then every writer and
// back. A value or an ArchiveError; anything else crashes.

/// libFuzzer's entry point: reads the `count` bytes at `start` as a property list and through the
/// detecting reader, then writes the tree in every format and reads it back. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPropertyList(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let options = ArchiveReadingOptions(limits: FuzzCheck.limits, markup: count % 2 == 0 ? .automatic : .archive)
    let tree = FuzzCheck.valueOrArchiveError("property-list reader") {
        try ArchiveFormat.binaryPropertyList.read(data, options: options)
    }
    if let tree {
        _ = FuzzCheck.valueOrArchiveError("ArchiveFormat.read") { try ArchiveFormat.read(data, options: options) }
        FuzzCheck.roundTrip(tree)
    }
    return 0
}
