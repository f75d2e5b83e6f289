import Foundation

/// A growable byte buffer for writers: appends are a capacity check and a store, with no
/// uniqueness check or generic `append(contentsOf:)` per call.
///
/// ```swift
/// var buffer = ByteBuffer(capacity: 1024)
/// buffer.append(UInt8(ascii: "["))
/// buffer.append(contentsOf: "1,2]")
/// let data = buffer.takeData()  // "[1,2]"
/// ```
///
/// Noncopyable because it owns its memory, which comes from `malloc`: growing is a `realloc`
/// (for a large buffer the system remaps its pages instead of copying them, so the old and new
/// buffer are never both resident), and ``takeData()`` hands the memory to `Data` as it is.
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The number of bytes written.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 16)
        base = Self.allocate(self.capacity)
    }

    deinit {
        free(base)
    }

    private static func allocate(_ capacity: Int, resizing old: UnsafeMutablePointer<UInt8>? = nil)
        -> UnsafeMutablePointer<UInt8>
    {
        guard let memory = realloc(old, capacity) else {
            // As `UnsafeMutablePointer.allocate` does when the system is out of memory.
            fatalError("out of memory: could not allocate \(capacity) bytes for the writer's output")
        }
        return memory.assumingMemoryBound(to: UInt8.self)
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if capacity &- count < extra { grow(extra) }
    }

    private mutating func grow(_ extra: Int) {
        var newCapacity = capacity &* 2
        while newCapacity &- count < extra { newCapacity &*= 2 }
        base = Self.allocate(newCapacity, resizing: base)
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(1) }
        base[count] = byte
        count &+= 1
    }

    /// Appends a byte the caller has made room for with ``reserve(_:)``.
    @inline(__always)
    mutating func appendReserved(_ byte: UInt8) {
        assert(count < capacity)
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let length = bytes.count
        reserve(length)
        let destination = UnsafeMutableRawPointer(base + count)
        let from = UnsafeRawPointer(source)
        // Most appends are short (keys, numbers, short strings): two overlapping word copies
        // instead of a call to memcpy. Both read and write stay within the `length` bytes.
        if length >= 8 && length <= 16 {
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
            destination.storeBytes(of: head, as: UInt64.self)
            destination.storeBytes(of: tail, toByteOffset: length &- 8, as: UInt64.self)
        } else if length >= 4 && length < 8 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: length &- 4, as: UInt32.self)
            destination.storeBytes(of: head, as: UInt32.self)
            destination.storeBytes(of: tail, toByteOffset: length &- 4, as: UInt32.self)
        } else if length < 4 {
            for offset in 0..<length {
                base[count &+ offset] = source[offset]
            }
        } else {
            (base + count).update(from: source, count: length)
        }
        count &+= length
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `count` copies of `byte`.
    @inline(__always)
    mutating func append(repeating byte: UInt8, count repeated: Int) {
        guard repeated > 0 else { return }
        reserve(repeated)
        (base + count).update(repeating: byte, count: repeated)
        count &+= repeated
    }

    /// Calls `body` with the bytes written from `start` on.
    func withBytes<R>(from start: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base + start, count: count &- start))
    }

    /// The bytes written so far, handed over without a copy; the buffer starts again empty.
    ///
    /// The memory is first shrunk to the bytes written (in place, or for a large buffer by
    /// remapping), so that a short document kept as `Data` does not hold the buffer's spare
    /// capacity; the `Data` owns it from here on.
    mutating func takeData() -> Data {
        base = Self.allocate(Swift.max(count, 1), resizing: base)
        let written = Data(bytesNoCopy: base, count: count, deallocator: .free)
        capacity = 16
        base = Self.allocate(capacity)
        count = 0
        return written
    }
}
