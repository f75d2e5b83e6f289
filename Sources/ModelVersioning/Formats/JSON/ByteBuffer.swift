import Foundation

/// A growable byte buffer for writers: appends are a capacity check and a store, with no
/// uniqueness check or generic `append(contentsOf:)` per call.
///
/// ```swift
/// var buffer = ByteBuffer(capacity: 1024)
/// buffer.append(UInt8(ascii: "["))
/// buffer.append(contentsOf: "1,2]")
/// let data = buffer.data()      // "[1,2]"
/// ```
///
/// Noncopyable because it owns its memory.
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The number of bytes written.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if capacity &- count < extra { grow(extra) }
    }

    private mutating func grow(_ extra: Int) {
        var newCapacity = capacity &* 2
        while newCapacity &- count < extra { newCapacity &*= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
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
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count &+= bytes.count
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

    /// The bytes written so far.
    func data() -> Data {
        Data(bytes: base, count: count)
    }
}
