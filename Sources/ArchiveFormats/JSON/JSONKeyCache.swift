import Foundation

/// Keys the JSON reader has built before, found again by their bytes, so that a document that
/// repeats the same keys (every document does) builds each key's `String` once.
///
/// A slot holds one key: the first and last eight bytes of its text, its length, the string,
/// and what the key means to ``ArchiveMarkup`` (``JSONKeyCache/Role``). A key up to 16 bytes
/// long is identified exactly by its first and last eight bytes and its length; longer ones are
/// also compared in full.
///
/// Each slot also remembers the slot of the key read after it (``Slot/next``), which the reader
/// tries first for the next key.
///
/// ```swift
/// var cache = JSONKeyCache(documentBytes: count)
/// let (head, tail) = JSONKeyCache.words(base, length: length, readable: readable)
/// let slot = cache.slot(hash: hash)
/// if !JSONKeyCache.matches(slot, head: head, tail: tail, base: base, length: length) { … }
/// ```
///
/// Noncopyable because it owns its slots.
struct JSONKeyCache: ~Copyable {
    /// What a key means in archive markup, decided once per key.
    enum Role: UInt8 {
        /// A key that does not start with `$`.
        case plain = 0
        case type
        case version
        case id
        case classes
        /// Any other key that starts with `$`.
        case otherReserved

        /// The role of `key`.
        init(of key: String) {
            guard ArchiveMarkup.isReservedSpelling(key) else {
                self = .plain
                return
            }
            switch key {
            case ArchiveMarkup.typeKey: self = .type
            case ArchiveMarkup.versionKey: self = .version
            case ArchiveMarkup.idKey: self = .id
            case ArchiveMarkup.classesKey: self = .classes
            default: self = .otherReserved
            }
        }

        /// Whether the key is one of the metadata keys that make a dictionary an object.
        @inline(__always)
        var isObjectMetadata: Bool {
            self != .plain && self != .otherReserved
        }
    }

    struct Slot {
        var head: UInt64
        var tail: UInt64
        var length: Int
        /// The key's fingerprint for duplicate detection.
        var print: UInt64
        var role: Role
        var string: String
        /// The slot of the key that followed this one the last time it was read.
        var next: UnsafeMutablePointer<Slot>?
    }

    /// The most slots a cache has: enough for the keys of any model-shaped document.
    static let maxSlotCount = 256

    private let slots: UnsafeMutablePointer<Slot>
    private let slotCount: Int
    /// How far a key's mixed hash shifts right to give its slot (64 minus log₂ of the count).
    private let shift: UInt64

    /// A cache sized for a document of `documentBytes` bytes: one slot per 16 bytes, from 16 to
    /// ``maxSlotCount``, so that reading a small archive (a database row, an NDJSON line) does not
    /// set up and tear down slots for keys it cannot have.
    init(documentBytes: Int = .max) {
        var bits = 4
        while bits < 8 && (1 << bits) * 16 < documentBytes { bits += 1 }
        slotCount = 1 << bits
        shift = UInt64(64 - bits)
        slots = .allocate(capacity: slotCount)
        slots.initialize(
            repeating: Slot(head: 0, tail: 0, length: -1, print: 0, role: .plain, string: "", next: nil),
            count: slotCount)
    }

    deinit {
        slots.deinitialize(count: slotCount)
        slots.deallocate()
    }

    /// The first and last eight bytes of the `length` bytes at `base` (zero-extended when
    /// shorter), reading at most `readable` bytes from `base`.
    @inline(__always)
    static func words(_ base: UnsafePointer<UInt8>, length: Int, readable: Int) -> (head: UInt64, tail: UInt64) {
        if length >= 8 {
            return (
                UnsafeRawPointer(base).loadUnaligned(as: UInt64.self),
                UnsafeRawPointer(base + (length &- 8)).loadUnaligned(as: UInt64.self)
            )
        }
        var head: UInt64 = 0
        if readable >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(as: UInt64.self))
            head = word & ((1 << (UInt64(truncatingIfNeeded: length) &* 8)) &- 1)
        } else {
            for offset in 0..<length {
                head |= UInt64(base[offset]) << (UInt64(truncatingIfNeeded: offset) &* 8)
            }
        }
        return (head, 0)
    }

    /// The slot for a key whose bytes hash to `hash`.
    @inline(__always)
    func slot(hash: UInt64) -> UnsafeMutablePointer<Slot> {
        slots + Int(truncatingIfNeeded: (hash &* 0xD6E8_FEB8_6659_FD93) >> shift)
    }

    /// Whether `slot` holds the key spelled by the `length` bytes at `base`, whose first and
    /// last eight bytes are `head` and `tail`.
    @inline(__always)
    static func matches(
        _ slot: UnsafeMutablePointer<Slot>, head: UInt64, tail: UInt64, base: UnsafePointer<UInt8>, length: Int
    ) -> Bool {
        guard slot.pointee.length == length, slot.pointee.head == head, slot.pointee.tail == tail else {
            return false
        }
        if length <= 16 { return true }
        return slot.pointee.string.utf8.withContiguousStorageIfAvailable { stored in
            guard let storedBase = stored.baseAddress, stored.count == length else { return false }
            return memcmp(storedBase, base, length) == 0
        } ?? false
    }
}
