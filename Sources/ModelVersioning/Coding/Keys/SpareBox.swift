import Foundation

/// The box of the keyed container a maker made last, to be made again for the next container
/// of its key type once nothing else holds it.
///
/// `KeyedEncodingContainer(_:)` and `KeyedDecodingContainer(_:)` wrap a container in a box, an
/// object of the standard library whose metadata the runtime looks up on every call in code
/// generic over the key (a coder's `container(keyedBy:)`); the box is freed again when the
/// model's `encode(to:)` or `init(from:)` returns. The look-up, the allocation and the release
/// cost about 850 instructions a container. With the spare, encoding 10,000 shapes (a shape and
/// its point each ask for a container) went from 101.3M instructions to 85.6M, and decoding them
/// from 162.3M to 150.7M.
///
/// A box held by nothing but its maker is free: the model that asked for its container has
/// returned and kept no copy of it (one kept is a second reference, and the next container gets
/// a new box, which becomes the spare). The box keeps the container it wraps in its one stored
/// property, right after the object's header; whether it does is checked on the first box each
/// maker makes, whose bytes there must be those of the same container made apart. Where they are
/// not (another standard library), every container gets a new box, as before.
///
/// A spare box holds its last container, and that container's parts (the encoder, the decoder,
/// the object read) refer back to the run that owns the maker: a run lets go of its makers when
/// it ends (``KeyedContainerMakers/removeAll()``).
struct SpareBox {
    /// The box kept last (``keep(_:layoutHolds:)``).
    private(set) var box: AnyObject?
    /// `nil` until the first box is checked.
    private var layoutChecked: Bool?

    /// Where the box keeps its container: after the object's header (its metadata and
    /// reference counts).
    private static var containerOffset: Int { 2 &* MemoryLayout<Int>.size }

    /// Whether the next box made is to be checked (see ``keep(_:layoutHolds:)``).
    var needsCheck: Bool { layoutChecked == nil }

    /// The box, when it can be made again: its layout checked, and nothing else holding it.
    /// Unretained: the spare holds it, and the one retain a container handed out needs is taken
    /// by ``KeyedContainerErasure/erased(_:)``.
    @inline(__always)
    mutating func reusableBox() -> Unmanaged<AnyObject>? {
        guard layoutChecked == true, isKnownUniquelyReferenced(&box), let box else { return nil }
        return Unmanaged.passUnretained(box)
    }

    /// Whether the box kept last can be changed in place (its layout checked and found as
    /// expected).
    var layoutHolds: Bool { layoutChecked == true }

    /// Keeps `box`, just made, with whether it holds its container where expected
    /// (``holds(_:_:)``, asked of the first box; `nil` once checked).
    mutating func keep(_ box: AnyObject, layoutHolds: Bool?) {
        if layoutChecked == nil {
            layoutChecked = layoutHolds ?? false
        }
        self.box = box
    }

    /// The container of type `type` in `box` (a box ``reusableBox()`` returned, or one a maker
    /// keeps), to change in place: a caller that knows its container's parts changes only those
    /// that differ.
    @inline(__always)
    static func container<Container>(in box: Unmanaged<AnyObject>, as type: Container.Type)
        -> UnsafeMutablePointer<Container>
    {
        containerAddress(in: box).assumingMemoryBound(to: Container.self)
    }

    @inline(__always)
    private static func containerAddress(in box: Unmanaged<AnyObject>) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(box.toOpaque()) + containerOffset
    }

    /// Whether `box` holds the bytes of `sample` right after the object's header. Reads within
    /// the box: an object holding a container is at least the header and the container long.
    static func holds<Container>(_ box: AnyObject, _ sample: borrowing Container) -> Bool {
        let size = MemoryLayout<Container>.size
        guard size > 0, MemoryLayout<Container>.alignment <= containerOffset else { return false }
        let address = UnsafeRawPointer(containerAddress(in: .passUnretained(box)))
        return withUnsafeBytes(of: copy sample) { bytes in
            guard let start = bytes.baseAddress else { return false }
            return memcmp(start, address, size) == 0
        }
    }
}

/// Names `KeyedEncodingContainer<Key>` or `KeyedDecodingContainer<Key>` through a conformance:
/// code generic over the key then reads the type's metadata from the witness table (a load,
/// after the first time) instead of asking the runtime for it on every call.
protocol KeyedContainerErasure<Erased> {
    associatedtype Erased
}

extension KeyedContainerErasure {
    /// The container whose box is `box`. (`KeyedEncodingContainer` and
    /// `KeyedDecodingContainer` hold their box and nothing else.)
    static func erased(_ box: AnyObject) -> Erased {
        unsafeBitCast(box, to: Erased.self)
    }

    /// The box `container` holds.
    static func box(of container: Erased) -> AnyObject {
        unsafeBitCast(container, to: AnyObject.self)
    }
}

enum KeyedEncodingContainerErasure<Key: CodingKey>: KeyedContainerErasure {
    typealias Erased = KeyedEncodingContainer<Key>
}

enum KeyedDecodingContainerErasure<Key: CodingKey>: KeyedContainerErasure {
    typealias Erased = KeyedDecodingContainer<Key>
}
