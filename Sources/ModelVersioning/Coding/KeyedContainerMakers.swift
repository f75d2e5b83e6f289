import Foundation

/// The makers of one coder's keyed containers, one per key type: a keyed container made
/// through one costs a single look-up in the Swift runtime instead of three.
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
/// up. Each coder has its own protocol and maker (``StreamingKeyedDecodingContainerMaker``,
/// ``StreamingKeyedEncodingContainerMaker``, ``TreeKeyedDecodingContainerMaker``,
/// ``TreeKeyedEncodingContainerMaker``): one protocol with the initializer's arguments as an
/// associated type measured slower.
///
/// ```swift
/// let maker = makers.maker(keyedBy: Key.self) {
///     StreamingKeyedDecodingContainerMaker<Key>(StreamingKeyedDecodingContainer<Key>.self)
/// }
/// return maker.container(object)
/// ```
///
/// A table holds makers of one kind only: the one filed under a key type is the one the
/// `make` closure made for it.
struct KeyedContainerMakers {
    /// Direct-mapped by the key type's address; a collision replaces the slot (the type it held
    /// gets a new maker when it comes again).
    private var slots: [KeyedContainerMaker?] = Array(repeating: nil, count: 32)

    /// The maker filed under `Key`, made by `make` (and filed) when there is none.
    @inline(__always)
    mutating func maker<Key: CodingKey, Maker: KeyedContainerMaker>(
        keyedBy type: Key.Type, _ make: () -> Maker
    ) -> Maker {
        let keyType = ObjectIdentifier(Key.self)
        let address = UInt(bitPattern: keyType)
        let index = Int(truncatingIfNeeded: (address &>> 4 ^ address &>> 9) & 31)
        if let maker = slots[index], maker.keyType == keyType {
            assert(maker is Maker, "a table of makers of two kinds")
            // Not a checked cast: that would look up the metadata makers save.
            return unsafeDowncast(maker, to: Maker.self)
        }
        let maker = make()
        slots[index] = maker
        return maker
    }
}

/// A maker of keyed containers, as ``KeyedContainerMakers`` files it.
class KeyedContainerMaker {
    /// The key type of the containers it makes.
    let keyType: ObjectIdentifier

    init(keyType: ObjectIdentifier) {
        self.keyType = keyType
    }
}

// MARK: - Streaming decoder

/// A keyed decoding container over a ``StreamingObject`` (``StreamingKeyedDecodingContainer``).
protocol KeyedDecodingContainerOverObject<Key>: KeyedDecodingContainerProtocol {
    init(object: consuming StreamingObject)
}

/// Makes ``StreamingJSONDecoder``'s keyed containers (see ``KeyedContainerMakers``).
final class StreamingKeyedDecodingContainerMaker<Key: CodingKey>: KeyedContainerMaker {
    private let containerType: any KeyedDecodingContainerOverObject<Key>.Type

    init(_ containerType: any KeyedDecodingContainerOverObject<Key>.Type) {
        self.containerType = containerType
        super.init(keyType: ObjectIdentifier(Key.self))
    }

    @inline(__always)
    func container(_ object: consuming StreamingObject) -> KeyedDecodingContainer<Key> {
        Self.make(containerType, object)
    }

    /// Generic over the container type, which the existential passes in with its conformance.
    private static func make<Container: KeyedDecodingContainerOverObject<Key>>(
        _ type: Container.Type, _ object: consuming StreamingObject
    ) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(object: object))
    }
}

// MARK: - Streaming encoder

/// A keyed encoding container that writes into a level of a ``StreamingJSONEncoder``
/// (``StreamingKeyedEncodingContainer``).
protocol KeyedEncodingContainerOverLevel<Key>: KeyedEncodingContainerProtocol {
    init(encoder: StreamingJSONEncoder, serial: Int, model: ModelInfo?)
}

/// Makes ``StreamingJSONEncoder``'s keyed containers (see ``KeyedContainerMakers``).
final class StreamingKeyedEncodingContainerMaker<Key: CodingKey>: KeyedContainerMaker {
    private let containerType: any KeyedEncodingContainerOverLevel<Key>.Type

    init(_ containerType: any KeyedEncodingContainerOverLevel<Key>.Type) {
        self.containerType = containerType
        super.init(keyType: ObjectIdentifier(Key.self))
    }

    @inline(__always)
    func container(encoder: StreamingJSONEncoder, serial: Int, model: ModelInfo?) -> KeyedEncodingContainer<Key> {
        Self.make(containerType, encoder: encoder, serial: serial, model: model)
    }

    /// Generic over the container type, which the existential passes in with its conformance.
    private static func make<Container: KeyedEncodingContainerOverLevel<Key>>(
        _ type: Container.Type, encoder: StreamingJSONEncoder, serial: Int, model: ModelInfo?
    ) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Container(encoder: encoder, serial: serial, model: model))
    }
}

// MARK: - Tree decoder

/// A keyed decoding container over a ``KeyedDecodingState`` (``TreeKeyedDecodingContainer``).
protocol KeyedDecodingContainerOverState<Key>: KeyedDecodingContainerProtocol {
    init(state: KeyedDecodingState)
}

/// Makes ``TreeDecoder``'s keyed containers (see ``KeyedContainerMakers``).
final class TreeKeyedDecodingContainerMaker<Key: CodingKey>: KeyedContainerMaker {
    private let containerType: any KeyedDecodingContainerOverState<Key>.Type

    init(_ containerType: any KeyedDecodingContainerOverState<Key>.Type) {
        self.containerType = containerType
        super.init(keyType: ObjectIdentifier(Key.self))
    }

    @inline(__always)
    func container(_ state: KeyedDecodingState) -> KeyedDecodingContainer<Key> {
        Self.make(containerType, state)
    }

    /// Generic over the container type, which the existential passes in with its conformance.
    private static func make<Container: KeyedDecodingContainerOverState<Key>>(
        _ type: Container.Type, _ state: KeyedDecodingState
    ) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(state: state))
    }
}

// MARK: - Tree encoder

/// A keyed encoding container that fills a ``KeyedEncodingStorage`` (``TreeKeyedEncodingContainer``).
protocol KeyedEncodingContainerOverStorage<Key>: KeyedEncodingContainerProtocol {
    init(encoder: TreeEncoder, storage: KeyedEncodingStorage, model: ModelInfo?)
}

/// Makes ``TreeEncoder``'s keyed containers (see ``KeyedContainerMakers``).
final class TreeKeyedEncodingContainerMaker<Key: CodingKey>: KeyedContainerMaker {
    private let containerType: any KeyedEncodingContainerOverStorage<Key>.Type

    init(_ containerType: any KeyedEncodingContainerOverStorage<Key>.Type) {
        self.containerType = containerType
        super.init(keyType: ObjectIdentifier(Key.self))
    }

    @inline(__always)
    func container(encoder: TreeEncoder, storage: KeyedEncodingStorage, model: ModelInfo?)
        -> KeyedEncodingContainer<Key>
    {
        Self.make(containerType, encoder: encoder, storage: storage, model: model)
    }

    /// Generic over the container type, which the existential passes in with its conformance.
    private static func make<Container: KeyedEncodingContainerOverStorage<Key>>(
        _ type: Container.Type, encoder: TreeEncoder, storage: KeyedEncodingStorage, model: ModelInfo?
    ) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Container(encoder: encoder, storage: storage, model: model))
    }
}
