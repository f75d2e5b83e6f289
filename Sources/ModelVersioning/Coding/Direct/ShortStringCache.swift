/// Short strings read before, found again by their bytes.
///
/// Archives repeat short values: kinds, tags, states, units. A string of 1 to 15 bytes is kept
/// in one of 64 slots chosen by its bytes; reading the same bytes again returns the kept
/// `String` (a small string: copying it takes no reference count) instead of making a new one.
/// A miss costs a hash and a compare. Each hit gives the kept string a credit (up to 3) and each
/// miss in its slot takes one; the new string takes the slot only when there is none left, so
/// values that never repeat (names, titles) do not push out the ones that do.
///
/// ```swift
/// var cache = ShortStringCache()
/// let kind = cache.string(at: bytes, length: 6) { String(decoding: …, as: UTF8.self) }  // made
/// let same = cache.string(at: later, length: 6) { … }  // the same bytes: `kind`, not made
/// ```
///
/// Noncopyable because it owns its slots.
struct ShortStringCache: ~Copyable {
    private struct Entry {
        /// 0 for an empty slot (no string it keeps is empty).
        var length: Int
        /// The first 8 bytes and the rest, zero past the end.
        var head: UInt64
        var tail: UInt64
        var string: String
        /// Hits not yet spent on misses.
        var credit: Int
    }

    private static let slotCount = 64
    private let slots: UnsafeMutablePointer<Entry>

    init() {
        slots = .allocate(capacity: Self.slotCount)
        slots.initialize(repeating: Entry(length: 0, head: 0, tail: 0, string: "", credit: 0), count: Self.slotCount)
    }

    deinit {
        slots.deinitialize(count: Self.slotCount)
        slots.deallocate()
    }

    /// The longest string kept.
    static let maxLength = 15

    /// The string of the `length` bytes at `start` (1 to ``maxLength`` of them, valid UTF-8),
    /// which must be followed by enough readable bytes to make 16 in all: the one kept for
    /// the same bytes, or `make()`'s, which may then be kept.
    @inline(__always)
    mutating func string(at start: UnsafePointer<UInt8>, length: Int, make: () -> String) -> String {
        let raw = UnsafeRawPointer(start)
        let head = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) & Self.mask(keeping: length)
        let tail =
            length > 8
            ? UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                & Self.mask(keeping: length &- 8) : 0
        let golden: UInt64 = 0x9E37_79B9_7F4A_7C15
        let hash = (head ^ (tail &* golden) ^ UInt64(truncatingIfNeeded: length)) &* golden
        let slot = slots + Int(truncatingIfNeeded: hash &>> 58)
        if slot.pointee.length == length && slot.pointee.head == head && slot.pointee.tail == tail {
            if slot.pointee.credit < 3 { slot.pointee.credit &+= 1 }
            return slot.pointee.string
        }
        let string = make()
        if slot.pointee.credit > 0 {
            slot.pointee.credit &-= 1
        } else {
            slot.pointee = Entry(length: length, head: head, tail: tail, string: string, credit: 0)
        }
        return string
    }

    /// A mask of the low `bytes` bytes of a little-endian word (all of them from 8 up).
    @inline(__always)
    private static func mask(keeping bytes: Int) -> UInt64 {
        bytes >= 8 ? ~0 : (1 &<< UInt64(truncatingIfNeeded: bytes &* 8)) &- 1
    }
}
