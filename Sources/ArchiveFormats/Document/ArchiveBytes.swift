import Foundation

/// An archive's bytes in memory of their own, immutable: what a `Data` holds, for the hot path of
/// a store that hands thousands of small archives from thread to thread (`upgrade --sqlite`).
///
/// Foundation's `Data` makes three run-time exclusivity checks each time it is opened and three
/// more when it is freed, about 1,000 instructions over a small archive's life in a batch; these
/// bytes are opened and freed without any.
///
/// ```swift
/// let bytes = ArchiveBytes.copy(of: Data(#"{"a":1}"#.utf8))
/// let first = bytes.withUnsafeBytes { $0.first }  // UInt8(ascii: "{"), read in place
/// let data = bytes.data  // a copy, for APIs that take `Data`
/// ```
package final class ArchiveBytes: @unchecked Sendable {
    // @unchecked Sendable: the memory is written once, in `init`, and only read after.
    private let base: UnsafeMutableRawPointer?
    /// The number of bytes.
    package let count: Int

    /// A copy of `bytes`.
    package init(copying bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        if let source = bytes.baseAddress, bytes.count > 0 {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
            memory.copyMemory(from: source, byteCount: bytes.count)
            base = memory
        } else {
            base = nil
        }
    }

    /// A copy of `data`'s bytes.
    package static func copy(of data: Data) -> ArchiveBytes {
        data.withUnsafeBytes { ArchiveBytes(copying: $0) }
    }

    deinit {
        base?.deallocate()
    }

    /// Calls `body` with the bytes.
    @inline(__always)
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes as `Data` (a copy).
    package var data: Data {
        withUnsafeBytes { Data($0) }
    }
}
