import Foundation

extension DirectJSONEncoder {
    /// A key sequence, all keys distinct, and the bytes each key was written as (`"key":`, with
    /// the run's escaping and spacing), in memory of its own so that frames read it through
    /// plain pointers (no reference counting per key).
    final class KnownKeys {
        struct Pointers {
            var count = 0
            var keys: UnsafePointer<String>?
            /// Where each key's bytes end in `bytes`.
            var ends: UnsafePointer<Int>?
            var bytes: UnsafePointer<UInt8>?

            /// The bytes of the key at `index`.
            @inline(__always)
            func bytes(at index: Int) -> UnsafeBufferPointer<UInt8> {
                let start = index > 0 ? ends.unsafelyUnwrapped[index &- 1] : 0
                return UnsafeBufferPointer(
                    start: bytes.unsafelyUnwrapped + start, count: ends.unsafelyUnwrapped[index] &- start)
            }
        }

        let pointers: Pointers
        private let keys: UnsafeMutableBufferPointer<String>
        private let ends: UnsafeMutableBufferPointer<Int>
        private let bytes: UnsafeMutableBufferPointer<UInt8>

        init(keys: some Collection<String>, ends: some Collection<Int>, bytes: some Collection<UInt8>) {
            self.keys = .allocate(capacity: keys.count)
            _ = self.keys.initialize(from: keys)
            self.ends = .allocate(capacity: ends.count)
            _ = self.ends.initialize(from: ends)
            self.bytes = .allocate(capacity: bytes.count)
            _ = self.bytes.initialize(from: bytes)
            pointers = Pointers(
                count: keys.count, keys: UnsafePointer(self.keys.baseAddress),
                ends: UnsafePointer(self.ends.baseAddress),
                bytes: UnsafePointer(self.bytes.baseAddress))
        }

        deinit {
            keys.deinitialize().deallocate()
            ends.deallocate()
            bytes.deallocate()
        }

        /// The first `count` keys of `pointers`.
        static func prefix(_ count: Int, of pointers: Pointers) -> KnownKeys {
            guard count > 0, let keys = pointers.keys, let ends = pointers.ends, let bytes = pointers.bytes else {
                return KnownKeys(keys: [], ends: [], bytes: [])
            }
            return KnownKeys(
                keys: UnsafeBufferPointer(start: keys, count: count),
                ends: UnsafeBufferPointer(start: ends, count: count),
                bytes: UnsafeBufferPointer(start: bytes, count: ends[count - 1]))
        }
    }
}
