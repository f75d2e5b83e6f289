import Foundation

/// The makers of one coder's keyed containers, one per key type: a keyed container made
/// through one costs a single look-up in the Swift runtime instead of three, and none once its
/// maker has a free box to put it in (``SpareBox``).
///
/// `KeyedDecodingContainer(MyContainer<Key>(…))` in code generic over `Key` (a coder's
/// `container(keyedBy:)`) asks the runtime on every call for the metadata of `MyContainer<Key>`,
/// for its conformance to `KeyedDecodingContainerProtocol`, and for the metadata of the
/// standard library's box around it. Each is a search of a concurrent hash map, about 350
/// instructions; for small models the three cost more than reading the object.
///
/// A maker holds `MyContainer<Key>` and its conformance, looked up once, as an existential
/// metatype of a protocol with the container's initializer, and makes containers in a function
/// generic over the container type: the existential passes both in, and only the box is looked
/// up. A container says what it is made from (its `Parts`: the object it reads, the encoder and
/// where it writes) by conforming to ``MadeKeyedDecodingContainer`` or
/// ``MadeKeyedEncodingContainer``; the two makers differ only in the box they wrap it in.
///
/// ```swift
/// let maker = makers.maker(keyedBy: Key.self) {
///     KeyedDecodingContainerMaker(DirectKeyedDecodingContainer<Key>.self)
/// }
/// return maker.container(consume object)
/// ```
///
/// Hand over parts the caller is done with by `consume`: passed as a generic `Parts`, a class
/// reference is otherwise copied, a retain and a release per container.
///
/// A table holds makers of one kind only: the one filed under a key type is the one the
/// `make` closure made for it.
final class KeyedContainerMakers {
    /// Two ways per set, the set chosen by a multiplicative hash of the key type's address, so
    /// that any two key types (a model's and its nested model's) keep their makers side by side.
    /// A new maker goes first in its set and the one filed earlier in its second slot moves to
    /// ``overflow``, looked up when neither slot holds the key type. A maker made again costs the
    /// look-ups it saves: when a model's and its point's key types shared a slot of the
    /// direct-mapped table this replaced, encoding 10,000 shapes took 145.4M instructions instead
    /// of 112.6M. And no maker is dropped before the run ends: a container made by it may still
    /// be in use, and the run closes every container a maker made (``removeAll()``).
    ///
    /// The table holds each maker by a retain of its own (`Unmanaged`), so that finding one
    /// counts no reference: reading a strong reference out of an array retains it, and the
    /// caller releases it again, per container.
    private let slots: UnsafeMutablePointer<Unmanaged<KeyedContainerMaker>?>
    private static let slotCount = 64
    /// The makers moved out of their set by newer ones, by key type (each held by a retain of
    /// its own). There are at most as many as the program has key types.
    @exclusivity(unchecked) private var overflow: [ObjectIdentifier: Unmanaged<KeyedContainerMaker>] = [:]

    init() {
        slots = .allocate(capacity: Self.slotCount)
        slots.initialize(repeating: nil, count: Self.slotCount)
    }

    deinit {
        removeAll()
        slots.deallocate()
    }

    /// The maker filed under `Key`, made by `make` (and filed) when there is none.
    @inline(__always)
    func maker<Key: CodingKey, Maker: KeyedContainerMaker>(
        keyedBy type: Key.Type, _ make: () -> Maker
    ) -> Maker {
        unretainedMaker(keyedBy: Key.self, make).takeUnretainedValue()
    }

    /// ``maker(keyedBy:_:)``, unretained: the table holds it until ``removeAll()``.
    @inline(__always)
    func unretainedMaker<Key: CodingKey, Maker: KeyedContainerMaker>(
        keyedBy type: Key.Type, _ make: () -> Maker
    ) -> Unmanaged<Maker> {
        let keyType = ObjectIdentifier(Key.self)
        let address = UInt64(UInt(bitPattern: keyType))
        let set = Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) &>> 59) &<< 1
        if let maker = filed(keyType, set: set) ?? overflowed(keyType) {
            assert(maker.takeUnretainedValue() is Maker, "a table of makers of two kinds")
            // Not a checked cast: that would look up the metadata makers save.
            return Unmanaged<Maker>.fromOpaque(maker.toOpaque())
        }
        return file(make(), set: set)
    }

    /// The maker of `keyType` in ``overflow``, if any.
    @inline(__always)
    private func overflowed(_ keyType: ObjectIdentifier) -> Unmanaged<KeyedContainerMaker>? {
        overflow.isEmpty ? nil : overflow[keyType]
    }

    /// The maker filed under the key type `keyType` in `set`, if any.
    @inline(__always)
    private func filed(_ keyType: ObjectIdentifier, set: Int) -> Unmanaged<KeyedContainerMaker>? {
        if let maker = slots[set], maker._withUnsafeGuaranteedRef({ $0.keyType == keyType }) { return maker }
        if let maker = slots[set | 1], maker._withUnsafeGuaranteedRef({ $0.keyType == keyType }) { return maker }
        return nil
    }

    /// Files `maker` first in `set`; the one in the set's second slot moves to ``overflow``.
    private func file<Maker: KeyedContainerMaker>(_ maker: Maker, set: Int) -> Unmanaged<Maker> {
        if let moved = slots[set | 1] { overflow[moved._withUnsafeGuaranteedRef { $0.keyType }] = moved }
        slots[set | 1] = slots[set]
        slots[set] = Unmanaged.passRetained(maker as KeyedContainerMaker)
        return Unmanaged.passUnretained(maker)
    }

    /// Closes every container the makers made and lets go of the makers. A run calls it when it
    /// ends: a maker's spare box holds its last container, whose parts refer back to the run (see
    /// ``SpareBox``), and a container that holds its parts by hand lets go of them only when
    /// closed (``MadeKeyedDecodingContainer/close()``).
    func removeAll() {
        var makers = overflow.values.map { $0 }
        overflow = [:]
        for index in 0..<Self.slotCount {
            guard let maker = slots[index] else { continue }
            slots[index] = nil
            makers.append(maker)
        }
        for maker in makers {
            maker._withUnsafeGuaranteedRef { $0.close() }
            maker.release()
        }
    }
}

/// A maker of keyed containers, as ``KeyedContainerMakers`` files it.
class KeyedContainerMaker {
    /// The key type of the containers it makes.
    let keyType: ObjectIdentifier

    init(keyType: ObjectIdentifier) {
        self.keyType = keyType
    }

    /// Closes the containers it made (see ``KeyedContainerMakers/removeAll()``).
    func close() {}
}

/// A maker that puts each new container into the box of the one before when nothing else holds
/// it any more (see ``SpareBox``); `Erased` is the standard library's container it hands out,
/// `KeyedDecodingContainer<Key>` or `KeyedEncodingContainer<Key>`.
class BoxReusingMaker<Erased>: KeyedContainerMaker {
    private let erasure: any KeyedContainerErasure<Erased>.Type
    @exclusivity(unchecked) fileprivate var spare = SpareBox()

    init(keyType: ObjectIdentifier, erasure: any KeyedContainerErasure<Erased>.Type) {
        self.erasure = erasure
        super.init(keyType: keyType)
    }

    /// The spare box when it is free, unretained (the maker holds it), for a caller that changes
    /// the container in it in place (``SpareBox/container(in:as:)``, fewer reference counts than
    /// a whole new container) and hands it out with ``erased(_:)``.
    @inline(__always)
    final func reusableBox() -> Unmanaged<AnyObject>? {
        spare.reusableBox()
    }

    /// The container whose box is `box`, retained once for the caller.
    @inline(__always)
    final func erased(_ box: Unmanaged<AnyObject>) -> Erased {
        box._withUnsafeGuaranteedRef { erasure.erased($0) }
    }

    /// Whether the next container made is to come with a sample, to check its box's layout.
    final var needsSample: Bool { spare.needsCheck }

    /// Keeps the box of `made`'s container, just made (with whether it holds the container where
    /// expected, when that was asked), as the spare, and returns the container.
    final func keep(_ made: (container: Erased, layoutHolds: Bool?)) -> Erased {
        spare.keep(erasure.box(of: made.container), layoutHolds: made.layoutHolds)
        return made.container
    }
}

// MARK: - Decoding

/// A keyed decoding container made from its coder's `Parts` (what the coder hands a new
/// container: the object it reads, its state).
protocol MadeKeyedDecodingContainer<Key, Parts>: KeyedDecodingContainerProtocol {
    associatedtype Parts
    init(parts: consuming Parts)
    /// Lets go of the parts, when the container holds them by hand (the maker calls it on every
    /// container it made when the run ends, and on those it drops before); the container then
    /// reads nothing.
    mutating func close()
}

extension MadeKeyedDecodingContainer {
    /// Containers that hold their parts as plain references let go of them by themselves.
    mutating func close() {}
}

/// Makes the keyed decoding containers of one key type (see ``KeyedContainerMakers``), and
/// puts each new container into the box of the one before when nothing else holds it any more
/// (see ``SpareBox``).
final class KeyedDecodingContainerMaker<Key: CodingKey, Parts>: BoxReusingMaker<KeyedDecodingContainer<Key>> {
    private let containerType: any MadeKeyedDecodingContainer<Key, Parts>.Type

    init(_ containerType: any MadeKeyedDecodingContainer<Key, Parts>.Type) {
        self.containerType = containerType
        super.init(keyType: ObjectIdentifier(Key.self), erasure: KeyedDecodingContainerErasure<Key>.self)
    }

    /// A container made from `parts`: in the spare box when it is free, else in a new one.
    func container(_ parts: consuming Parts) -> KeyedDecodingContainer<Key> {
        if let box = reusableBox() {
            Self.refill(box, containerType, consume parts)
            return erased(box)
        }
        return makeAndKeep(consume parts)
    }

    /// A container in a new box, which becomes the spare (see
    /// ``KeyedEncodingContainerMaker/makeAndKeep(_:)``). The spare before is still held (by a
    /// model that kept its container, or one whose `init(from:)` is still running): it is
    /// kept with the others like it until it can be closed.
    @inline(never)
    func makeAndKeep(_ parts: consuming Parts) -> KeyedDecodingContainer<Key> {
        if let previous = spare.box, spare.layoutHolds { retire(previous) }
        return keep(Self.make(containerType, consume parts, checking: needsSample))
    }

    /// Boxes that were the spare while something else held them, kept to be closed: the ones
    /// held by nothing else are closed whenever the list doubles, the rest when the run ends.
    @exclusivity(unchecked) private var retired: [AnyObject] = []
    @exclusivity(unchecked) private var sweepsAt = 16

    private func retire(_ box: AnyObject) {
        retired.append(box)
        guard retired.count >= sweepsAt else { return }
        var kept = 0
        for index in retired.indices {
            if isKnownUniquelyReferenced(&retired[index]) {
                Self.close(retired[index], containerType)
            } else {
                retired.swapAt(kept, index)
                kept &+= 1
            }
        }
        retired.removeLast(retired.count &- kept)
        sweepsAt = Swift.max(16, kept &* 2)
    }

    /// Closes every container this maker made: the spare's and the retired ones.
    override func close() {
        guard spare.layoutHolds else { return }
        for box in retired { Self.close(box, containerType) }
        retired.removeAll()
        if let box = spare.box { Self.close(box, containerType) }
    }

    private static func close<Container: MadeKeyedDecodingContainer<Key, Parts>>(
        _ box: AnyObject, _ type: Container.Type
    ) {
        SpareBox.container(in: .passUnretained(box), as: Container.self).pointee.close()
    }

    /// Generic over the container type, which the existential passes in with its conformance;
    /// with a second container made apart when the box's layout is to be checked. (The sample
    /// is not closed: a container that holds its parts by hand shares them with it.)
    private static func make<Container: MadeKeyedDecodingContainer<Key, Parts>>(
        _ type: Container.Type, _ parts: consuming Parts, checking: Bool
    ) -> (container: KeyedDecodingContainer<Key>, layoutHolds: Bool?) {
        guard checking else { return (KeyedDecodingContainer(Container(parts: consume parts)), nil) }
        let sample = Container(parts: copy parts)
        let container = KeyedDecodingContainer(Container(parts: consume parts))
        return (container, SpareBox.holds(KeyedDecodingContainerErasure<Key>.box(of: container), sample))
    }

    /// Puts a container made from `parts` into `box`, closing the one there first (one that
    /// holds its parts by hand lets go of them only then).
    private static func refill<Container: MadeKeyedDecodingContainer<Key, Parts>>(
        _ box: Unmanaged<AnyObject>, _ type: Container.Type, _ parts: consuming Parts
    ) {
        let container = SpareBox.container(in: box, as: Container.self)
        container.pointee.close()
        container.pointee = Container(parts: consume parts)
    }
}

// MARK: - Encoding

/// A keyed encoding container made from its coder's `Parts` (the encoder, where it writes, the
/// model whose behaviours it applies).
protocol MadeKeyedEncodingContainer<Key, Parts>: KeyedEncodingContainerProtocol {
    associatedtype Parts
    init(parts: consuming Parts)
}

/// Makes the keyed encoding containers of one key type (see ``KeyedContainerMakers``), and
/// puts each new container into the box of the one before when nothing else holds it any more
/// (see ``SpareBox``).
final class KeyedEncodingContainerMaker<Key: CodingKey, Parts>: BoxReusingMaker<KeyedEncodingContainer<Key>> {
    private let containerType: any MadeKeyedEncodingContainer<Key, Parts>.Type

    init(_ containerType: any MadeKeyedEncodingContainer<Key, Parts>.Type) {
        self.containerType = containerType
        super.init(keyType: ObjectIdentifier(Key.self), erasure: KeyedEncodingContainerErasure<Key>.self)
    }

    /// A container made from `parts`: in the spare box when it is free, else in a new one.
    func container(_ parts: consuming Parts) -> KeyedEncodingContainer<Key> {
        if let box = reusableBox() {
            Self.refill(box, containerType, consume parts)
            return erased(box)
        }
        return makeAndKeep(consume parts)
    }

    /// A container in a new box, which becomes the spare. Kept apart from the reuse: the
    /// metadata it needs would otherwise be looked up on every call, box reused or not.
    @inline(never)
    func makeAndKeep(_ parts: consuming Parts) -> KeyedEncodingContainer<Key> {
        keep(Self.make(containerType, consume parts, checking: needsSample))
    }

    /// Generic over the container type, which the existential passes in with its conformance;
    /// with a second container made apart when the box's layout is to be checked.
    private static func make<Container: MadeKeyedEncodingContainer<Key, Parts>>(
        _ type: Container.Type, _ parts: consuming Parts, checking: Bool
    ) -> (container: KeyedEncodingContainer<Key>, layoutHolds: Bool?) {
        guard checking else { return (KeyedEncodingContainer(Container(parts: consume parts)), nil) }
        let sample = Container(parts: copy parts)
        let container = KeyedEncodingContainer(Container(parts: consume parts))
        return (container, SpareBox.holds(KeyedEncodingContainerErasure<Key>.box(of: container), sample))
    }

    private static func refill<Container: MadeKeyedEncodingContainer<Key, Parts>>(
        _ box: Unmanaged<AnyObject>, _ type: Container.Type, _ parts: consuming Parts
    ) {
        SpareBox.container(in: box, as: Container.self).pointee = Container(parts: consume parts)
    }
}
