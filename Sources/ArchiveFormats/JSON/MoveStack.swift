/// A growable stack whose elements leave by being moved into exactly sized arrays, never copied.
///
/// The JSON reader collects the children of every open container on one such stack and, when a
/// container closes, moves its children out in one step: no reference count is taken per child
/// and no array grows element by element.
///
/// ```swift
/// var stack = MoveStack<ArchiveValue>()
/// let start = stack.count
/// stack.append(.int(1))
/// stack.append(.int(2))
/// let elements = stack.removeArray(from: start)   // [1, 2]; the stack is back to `start`
/// ```
///
/// Noncopyable because it owns its buffer: `deinit` destroys what is left (a reader that stops
/// with an error leaves partly built containers behind).
@_spi(Coders) public struct MoveStack<Element>: ~Copyable {
    // Public as SPI, with its pushes, pops and addresses `@inlinable`, so that the direct coders
    // in ModelVersioning get them specialised and inlined: a `package` type's members are called
    // unspecialised across modules.
    @usableFromInline var base: UnsafeMutablePointer<Element>
    @usableFromInline var capacity: Int
    /// The number of elements on the stack.
    @usableFromInline package internal(set) var count = 0

    package init(initialCapacity: Int = 64) {
        capacity = Swift.max(initialCapacity, 4)
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Pushes an element.
    @inlinable @inline(__always)
    package mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    @usableFromInline
    mutating func grow() {
        let newCapacity = capacity &* 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// The element at `index`, which must be below ``count``.
    @inlinable @inline(__always)
    subscript(index: Int) -> Element {
        assert(index >= 0 && index < count)
        return base[index]
    }

    /// Moves the elements from `start` to the top into a new array of exactly that size and
    /// shrinks the stack to `start`.
    @inlinable @inline(__always)
    mutating func removeArray(from start: Int) -> [Element] {
        assert(start >= 0 && start <= count)
        let moving = count &- start
        guard moving > 0 else { return [] }
        // `reserveCapacity` + `append(move())` is specialised for `Element`, unlike
        // `Array(unsafeUninitializedCapacity:)`, whose allocation looks the array type up at run
        // time; `move()` hands each element over without a retain.
        var array: [Element] = []
        array.reserveCapacity(moving)
        let source = base + start
        for offset in 0..<moving {
            array.append((source + offset).move())
        }
        count = start
        return array
    }

    /// The address of the top element, valid until the next push or pop; the stack must not be
    /// empty.
    @inlinable @inline(__always)
    package var lastAddress: UnsafeMutablePointer<Element> {
        assert(count > 0)
        return base + (count &- 1)
    }

    /// The address of the element at `index` (below ``count``), valid until the next push or
    /// pop.
    @inlinable @inline(__always)
    package func address(at index: Int) -> UnsafeMutablePointer<Element> {
        assert(index >= 0 && index < count)
        return base + index
    }

    /// Removes every element, keeping the memory.
    mutating func removeAll() {
        base.deinitialize(count: count)
        count = 0
    }

    /// Moves the top element out; the stack must not be empty.
    @inlinable @inline(__always)
    package mutating func removeLast() -> Element {
        assert(count > 0)
        count -= 1
        return (base + count).move()
    }

    /// Destroys the top `removing` elements.
    @inlinable @inline(__always)
    mutating func removeLast(_ removing: Int) {
        assert(removing >= 0 && removing <= count)
        count -= removing
        (base + count).deinitialize(count: removing)
    }

    /// Calls `body` with the elements from `start` to the top.
    package func withElements<R>(from start: Int, _ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        assert(start >= 0 && start <= count)
        return try body(UnsafeBufferPointer(start: base + start, count: count - start))
    }
}
