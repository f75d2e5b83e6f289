import Foundation
import FuzzSupport
import ModelVersioning

// libFuzzer target: bytes → the JSON reader (markup automatic, on or off, chosen by the input's
// length), then every writer and back. A value or an ArchiveError; anything else crashes.

private let modes: [MarkupMode] = [.automatic, .archive, .plain]

/// libFuzzer's entry point: reads the `count` bytes at `start` as JSON (the markup mode chosen by `count`),
/// then writes the tree in every format and reads it back. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let options = ArchiveReadingOptions(limits: FuzzCheck.limits, markup: modes[count % 3])
    if let tree = FuzzCheck.valueOrArchiveError("JSON reader", { try ArchiveFormat.json.read(data, options: options) })
    {
        FuzzCheck.roundTrip(tree)
    }
    return 0
}
