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
@_spi(Coders) public struct ByteBuffer: ~Copyable {
    // Public as SPI, with its appends `@inlinable`, so that the writers in the other modules
    // (the direct JSON encoder, the text rewrite) inline them: a `package` type's members are
    // called, not inlined, across modules.
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// The number of bytes written.
    @usableFromInline package internal(set) var count = 0
    /// Whether the output outgrew the memory the system would give: the bytes written are
    /// dropped (``count`` goes back to 0; later appends that fit the memory it has are written
    /// from there, the others are dropped too), and the writer reports an error instead of
    /// trapping as `UnsafeMutablePointer.allocate` would. A caller that keeps offsets into the
    /// buffer checks this after each append.
    package private(set) var allocationFailed = false

    /// Stands for "no memory" (capacity 0); never written, never freed.
    private nonisolated(unsafe) static let noMemory = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    package init(capacity: Int) {
        base = Self.noMemory
        self.capacity = 0
        _ = reserve(Swift.max(capacity, 16))
    }

    deinit {
        if base != Self.noMemory { free(base) }
    }

    /// Makes room for `extra` more bytes; `false` when the memory could not be had (see
    /// ``allocationFailed``).
    @inlinable @inline(__always)
    package mutating func reserve(_ extra: Int) -> Bool {
        capacity &- count >= extra || grow(extra)
    }

    @usableFromInline
    mutating func grow(_ extra: Int) -> Bool {
        var newCapacity = Swift.max(capacity, 16)
        while newCapacity &- count < extra {
            let (doubled, overflow) = newCapacity.multipliedReportingOverflow(by: 2)
            if overflow { return fail(needing: extra) }
            newCapacity = doubled
        }
        guard let memory = realloc(base == Self.noMemory ? nil : base, newCapacity) else {
            return fail(needing: extra)
        }
        base = memory.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
        return true
    }

    private mutating func fail(needing extra: Int) -> Bool {
        allocationFailed = true
        count = 0
        return capacity >= extra
    }

    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity && !reserve(1) { return }
        base[count] = byte
        count &+= 1
    }

    @inlinable @inline(__always)
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let length = bytes.count
        guard reserve(length) else { return }
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

    @inlinable @inline(__always)
    package mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `count` copies of `byte`.
    @inlinable @inline(__always)
    package mutating func append(repeating byte: UInt8, count repeated: Int) {
        guard repeated > 0, reserve(repeated) else { return }
        (base + count).update(repeating: byte, count: repeated)
        count &+= repeated
    }

    /// Appends the last `digits` (at most 20) decimal digits of `number`, with leading zeros,
    /// written in place two at a time.
    package mutating func appendDigits(_ number: UInt64, count digits: Int) {
        guard digits > 0, reserve(digits) else { return }
        let pairs: StaticString = """
            00010203040506070809101112131415161718192021222324252627282930313233343536373839\
            40414243444546474849505152535455565758596061626364656667686970717273747576777879\
            8081828384858687888990919293949596979899
            """
        var remaining = number
        var index = count &+ digits
        while index &- count >= 2 {
            let (rest, pair) = remaining.quotientAndRemainder(dividingBy: 100)
            index &-= 2
            base[index] = pairs.utf8Start[Int(pair) &* 2]
            base[index &+ 1] = pairs.utf8Start[Int(pair) &* 2 &+ 1]
            remaining = rest
        }
        if index > count {
            base[count] = UInt8(truncatingIfNeeded: remaining % 10) &+ UInt8(ascii: "0")
        }
        count &+= digits
    }

    /// The bytes it can hold without growing.
    package var reservedCapacity: Int { capacity }

    /// Forgets the bytes written (and a failed allocation), keeping the memory.
    package mutating func removeAll() {
        count = 0
        allocationFailed = false
    }

    /// A copy of the bytes written.
    package func copyData() -> Data {
        count == 0 ? Data() : Data(bytes: base, count: count)
    }

    /// Calls `body` with the bytes written from `start` on.
    /// (Nothing when the bytes were dropped since: see ``allocationFailed``.)
    package func withBytes<R>(from start: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let from = Swift.min(start, count)
        return try body(UnsafeBufferPointer(start: base + from, count: count &- from))
    }

    /// The bytes written so far, handed over without a copy; the buffer starts again empty.
    ///
    /// The memory is first shrunk to the bytes written (in place, or for a large buffer by
    /// remapping), so that a short document kept as `Data` does not hold the buffer's spare
    /// capacity; the `Data` owns it from here on, and the buffer allocates anew if written again.
    package mutating func takeData() -> Data {
        guard count > 0, base != Self.noMemory else { return Data() }
        if let shrunk = realloc(base, count) { base = shrunk.assumingMemoryBound(to: UInt8.self) }
        let written = Data(bytesNoCopy: base, count: count, deallocator: .free)
        base = Self.noMemory
        capacity = 0
        count = 0
        return written
    }
}
