/// The package's one seeded random number generator (SplitMix64): the same seed gives the same
/// numbers on every platform and every run, so the migration laws' generated objects, the
/// randomised tests and the benchmark's inputs replay from their seeds.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A seed derived from `seed` and the parts naming one generated object (type, version, law,
    /// index), independent of Swift's per-process hash seeds.
    package static func seed(_ seed: UInt64, _ parts: [String]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for part in parts {
            for byte in part.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            hash = (hash ^ 0xFF) &* 0x0000_0100_0000_01B3
        }
        var mixer = SplitMix64(seed: seed ^ hash)
        return mixer.next()
    }

    /// `true` with probability `percent` / 100.
    package mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &self) < percent
    }

    /// One element of a non-empty array.
    package mutating func pick<T>(_ items: [T]) -> T {
        items[Int.random(in: 0..<items.count, using: &self)]
    }
}
