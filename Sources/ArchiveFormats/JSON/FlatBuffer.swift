import Foundation

/// A growable array of plain values in one `malloc`'d block, for the structural pass's hot loop
/// (``JSONStructure``): appending and reading check no uniqueness and no bounds (a Swift array
/// in a struct checks its uniqueness on every mutation in a loop that also calls out), and the
/// block grows with `realloc`.
///
/// It never traps: when memory runs out (or a size would overflow) it drops its elements and
/// sets ``failed``, and later appends are ignored. Reads are the caller's to keep below
/// ``count``.
@_spi(Coders) public final class FlatBuffer<Element: BitwiseCopyable> {
    // `@usableFromInline`, with the reads `@inlinable`, so that the direct decoder in
    // ModelVersioning reads elements in place: across modules a `package` member is a call, and
    // the caller retains the buffer around it.
    @exclusivity(unchecked) @usableFromInline var base: UnsafeMutablePointer<Element>?
    @exclusivity(unchecked) package private(set) var count = 0
    @exclusivity(unchecked) private var capacity = 0
    /// Whether an allocation failed; the buffer is then empty for good.
    @exclusivity(unchecked) package private(set) var failed = false

    package init(capacity: Int) {
        reserve(Swift.max(capacity, 8))
    }

    deinit {
        free(base)
    }

    /// Empties the buffer for another use with room for `capacity` elements: a block much larger
    /// than that (left by one large input) is given back, and a failed buffer starts again.
    func reset(capacity wanted: Int) {
        let wanted = Swift.max(wanted, 8)
        count = 0
        if failed || (capacity > 4096 && capacity > wanted &* 4) {
            free(base)
            base = nil
            capacity = 0
            failed = false
        }
        if capacity < wanted {
            // Nothing to keep: a fresh block, not a `realloc` that copies the old elements.
            free(base)
            base = nil
            capacity = 0
            reserve(wanted)
        }
    }

    @inline(__always)
    package func append(_ element: Element) {
        if count == capacity {
            reserve(capacity &* 2)
            guard !failed else { return }
        }
        base.unsafelyUnwrapped[count] = element
        count &+= 1
    }

    /// Appends `added` copies of `element`; returns the index of the first, or `nil` when memory
    /// ran out (the buffer has then failed).
    package func append(repeating element: Element, count added: Int) -> Int? {
        let first = count
        for _ in 0..<added { append(element) }
        return failed ? nil : first
    }

    /// Replaces the element at `index`; `false`, changing nothing, when there is none there (the
    /// buffer failed since the index was handed out, or it is past the end).
    @inline(__always)
    package func replace(at index: Int, with element: Element) -> Bool {
        guard index >= 0, index < count else { return false }
        base.unsafelyUnwrapped[index] = element
        return true
    }

    /// The last element, removed. The caller checks that there is one.
    @inline(__always)
    func removeLast() -> Element {
        count &-= 1
        return base.unsafelyUnwrapped[count]
    }

    @inlinable @inline(__always)
    package subscript(index: Int) -> Element {
        get { base.unsafelyUnwrapped[index] }
        set { base.unsafelyUnwrapped[index] = newValue }
    }

    private func reserve(_ newCapacity: Int) {
        guard !failed else { return }
        let (bytes, overflow) = newCapacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        guard !overflow, newCapacity > capacity, let grown = realloc(base, bytes) else {
            free(base)
            base = nil
            count = 0
            capacity = 0
            failed = true
            return
        }
        base = grown.assumingMemoryBound(to: Element.self)
        capacity = newCapacity
    }
}
