/// SHA-256 (FIPS 180-4), for the digest of a carried way down (``WayDown/digest``).
///
/// Our own, because the package has no dependencies and CryptoKit does not exist on Linux. It is
/// not used for secrets: the digest tells a way down that was damaged or edited by hand from the
/// one its writer computed, so the implementation favours being short and obviously right over
/// speed. It takes its message in pieces (``update(_:)``), so that a way down's canonical bytes
/// are hashed as they are made rather than held whole.
///
/// ```swift
/// SHA256.hexDigest(of: Array("abc".utf8))
/// // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
package struct SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    /// The hash so far, over every whole 64-byte block.
    private var state: [UInt32] = SHA256.initialState
    /// The bytes after the last whole block (fewer than 64).
    private var pending: [UInt8] = []
    /// How many bytes the message has had.
    private var length: UInt64 = 0
    /// The message schedule, kept to spare an allocation per block.
    private var schedule = [UInt32](repeating: 0, count: 64)

    /// A hash of the empty message, to add to with ``update(_:)``.
    package init() {
        pending.reserveCapacity(64)
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: [UInt8]) {
        length &+= UInt64(truncatingIfNeeded: bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let taken = Swift.min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<taken])
            offset = taken
            guard pending.count == 64 else { return }
            let block = pending
            compress(block, at: 0)
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - offset >= 64 {
            compress(bytes, at: offset)
            offset += 64
        }
        pending.append(contentsOf: bytes[offset...])
    }

    /// The 32-byte digest of the message.
    package mutating func finalize() -> [UInt8] {
        let bitCount = length &* 8
        var tail: [UInt8] = [0x80]
        while (pending.count + tail.count) % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift)))
        }
        let length = self.length
        update(tail)
        self.length = length
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in state {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    /// The 32-byte digest of `message`.
    package static func digest(of message: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(message)
        return hash.finalize()
    }

    /// The digest of `message` as 64 lowercase hexadecimal digits.
    package static func hexDigest(of message: [UInt8]) -> String {
        hexadecimal(digest(of: message))
    }

    /// `digest` as lowercase hexadecimal digits.
    package static func hexadecimal(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Runs the compression function over the 64 bytes of `bytes` from `blockStart`.
    private mutating func compress(_ bytes: [UInt8], at blockStart: Int) {
        for index in 0..<16 {
            let offset = blockStart + index * 4
            schedule[index] =
                UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
        }
        for index in 16..<64 {
            let s0 =
                Self.rotate(schedule[index - 15], 7) ^ Self.rotate(schedule[index - 15], 18)
                ^ (schedule[index - 15] >> 3)
            let s1 =
                Self.rotate(schedule[index - 2], 17) ^ Self.rotate(schedule[index - 2], 19)
                ^ (schedule[index - 2] >> 10)
            schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for index in 0..<64 {
            let sum1 = Self.rotate(e, 6) ^ Self.rotate(e, 11) ^ Self.rotate(e, 25)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ sum1 &+ choice &+ Self.roundConstants[index] &+ schedule[index]
            let sum0 = Self.rotate(a, 2) ^ Self.rotate(a, 13) ^ Self.rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = sum0 &+ majority
            h = g
            g = f
            f = e
            e = d &+ temp1
            d = c
            c = b
            b = a
            a = temp1 &+ temp2
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
