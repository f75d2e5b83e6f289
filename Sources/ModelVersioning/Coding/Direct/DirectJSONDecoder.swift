@_spi(Coders) import ArchiveFormats
import Foundation

/// Decodes a current JSON archive straight from its bytes, without building an `ArchiveValue`
/// tree first.
///
/// ``ArchiveDecoder/decode(_:from:)`` tries it first for JSON. One validating pass
/// (``JSONStructure``) finds where every array and object ends and where each key and element
/// starts; then the models' `init(from:)` read the values where they are: an object's keys are
/// located once, when it is first read, and strings and numbers are built only when asked for.
/// The bytes are borrowed for the run: a container or decoder a model keeps afterwards reads
/// nothing and throws.
///
/// It covers what an app reads on every launch after its archives were upgraded: an envelope
/// (or a top-level object) whose objects are all at their types' current versions, decoded
/// into exactly their declared model types, plain structs, arrays, optionals, strings, numbers
/// and Booleans, with the tree decoder's rules (allow lists, excluded keys, exact numeric
/// conversions, depth limit). Objects whose chains only move keys (rename, add a scalar
/// default, remove, nest into a new container, rename the type) are upgraded as they are read
/// (``DirectMigration``), so the first launch after such a model change reads the old
/// archive this way too. Anything else ends the run (``Unsupported``) and the tree decoder
/// decodes the archive instead: an object that needs any other migration (or a document chain
/// to run), a rule that fails, identities and references, polymorphic values and subclasses,
/// tagged values (`$date`, `$data`, `$double`), archived extras (``UnknownFields``), escaped or
/// non-ASCII keys, plain (markup-free) JSON, a container the models never read (it might hold
/// something the migration pass would reject), super decoders, and every error, so that error
/// messages and paths are the tree decoder's. A run that ended is not resumed: an error a
/// model catches (`try?`) still sends the archive to the tree decoder, so both give the same
/// result.
///
/// One instance serves a run, as ``TreeDecoder`` does: ``frames`` holds the values whose
/// `init(from:)` is running, with their keys for the coding path.
final class DirectJSONDecoder: Decoder {
    /// Ends a run that the tree decoder must do. A model sees it only by using a decoder or
    /// container it kept after the run.
    struct Unsupported: Error, CustomStringConvertible {
        var description: String {
            "this decoder's run has ended: a decoder or container must not be used after init(from:) returns"
        }
    }

    /// A value in the text: the offset of its first byte and, for arrays and objects, its
    /// ordinal in the ``JSONStructure`` (`-1` for scalars).
    struct ValueRef {
        var offset: Int
        var ordinal: Int
    }

    /// One level of the decode, as ``TreeDecoder/Frame``.
    struct Frame {
        var key: TreeDecoder.PathKey?
        var value: ValueRef
        /// The members of the value when it is an object, once read.
        var object: DirectObject?
        /// Not retained: the session's model cache holds every model's information for the run,
        /// and the decoder holds the session.
        var model: Unmanaged<ModelInfo>?
        var allowed: Set<String>?
    }

    let session: DirectDecodingSession
    /// The levels, outermost first (never empty). A stack of its own: pushing and popping check
    /// no uniqueness, and the top is changed in place.
    @exclusivity(unchecked) private var frames = MoveStack<Frame>(initialCapacity: 16)

    init(session: DirectDecodingSession, value: ValueRef, keys: [TreeDecoder.PathKey] = []) {
        self.session = session
        frames.append(Frame(key: nil, value: value, object: nil, model: nil, allowed: nil))
        for key in keys {
            frames.append(Frame(key: key, value: value, object: nil, model: nil, allowed: nil))
        }
    }

    /// Decodes a `T` from `data` if the whole archive can be read this way; `nil` otherwise (the
    /// tree decoder then reads it).
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, with decoder: ArchiveDecoder) -> T? {
        guard decoder.options.document == nil, containersCanBeClosed else { return nil }
        return data.withUnsafeBytes { raw -> T? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), !raw.isEmpty else { return nil }
            let text = JSONText(bytes: base, end: raw.count)
            // Objects only: a byte-order mark, an array or a scalar at the top goes to the parser.
            guard text.byte(at: text.skipWhitespace(from: 0)) == UInt8(ascii: "{"),
                let structure = JSONStructure.scan(
                    base, count: raw.count, limits: decoder.options.limits,
                    stopsAt: needsMigrationPass(decoder.registry.catalog))
            else { return nil }
            let session = DirectDecodingSession(text: text, structure: structure, decoder: decoder)
            do {
                guard let root = try session.rootValue() else { return nil }
                let direct = DirectJSONDecoder(session: session, value: root)
                defer {
                    // The root frame holds the root object, which holds the decoder, as do the
                    // makers' spare containers; and the bytes are gone after this call.
                    direct.releaseObjects()
                    session.keyedContainerMakers.removeAll()
                    session.releaseSpareObjects()
                    session.isOpen = false
                }
                let value = try direct.unbox(root, as: T.self)
                guard !session.failed, session.allContainersRead else { return nil }
                return value
            } catch {
                return nil
            }
        }
    }

    /// Whether the standard library's box keeps a keyed container where ``SpareBox`` expects it,
    /// checked once: the makers close every container at the end of a run in its box
    /// (``DirectKeyedDecodingContainer`` holds its object by hand). Where it does not, the tree
    /// decoder reads every archive.
    private static let containersCanBeClosed: Bool = {
        let keys = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        defer { keys.deallocate() }
        var sample = DirectKeyedDecodingContainer<DictionaryCodingKey>(
            parts: .passRetained(DirectObject.make(capacity: 0, keys: keys)))
        let container = KeyedDecodingContainer(copy sample)
        defer { sample.close() }
        return SpareBox.holds(KeyedDecodingContainerErasure<DictionaryCodingKey>.box(of: container), sample)
    }()

    /// Whether an object needs the migration pass, on the bytes of its type name, as the
    /// structural pass asks it: it needs upgrading (`MigrationCatalog.needsUpgrade(typeName:version:)`),
    /// and by more than moving keys (those are upgraded as they are read, ``DirectMigration``).
    private static func needsMigrationPass(_ catalog: MigrationCatalog) -> JSONStructure.ObjectCheck? {
        guard !catalog.isEmpty else { return nil }
        let check = UpgradeCheck(catalog: catalog)
        return { name, version in check.needsMigrationPass(name, version) }
    }

    /// Remembers the answer for the last name and version: objects of one type come in runs.
    private final class UpgradeCheck {
        let catalog: MigrationCatalog
        @exclusivity(unchecked) private var lastName: [UInt8] = []
        @exclusivity(unchecked) private var lastVersion: Int64?
        @exclusivity(unchecked) private var lastAnswer = false

        init(catalog: MigrationCatalog) {
            self.catalog = catalog
        }

        func needsMigrationPass(_ name: UnsafeBufferPointer<UInt8>, _ version: Int64?) -> Bool {
            if version == lastVersion && name.count == lastName.count
                && lastName.withUnsafeBufferPointer({ last in
                    guard let previous = last.baseAddress, let current = name.baseAddress else { return last.isEmpty }
                    return memcmp(previous, current, last.count) == 0
                })
            {
                return lastAnswer
            }
            lastName = Array(name)
            lastVersion = version
            let typeName = String(decoding: name, as: UTF8.self)
            let archivedVersion = version.flatMap { Int(exactly: $0) }
            lastAnswer =
                catalog.needsUpgrade(typeName: typeName, version: archivedVersion)
                && !catalog.upgradeMovesKeysOnly(typeName: typeName, version: archivedVersion)
            return lastAnswer
        }
    }

    // MARK: State

    /// Drops the objects the frames hold (their headers hold this decoder); the frames stay, so
    /// that a decoder a model kept still has a current level.
    func releaseObjects() {
        for index in 0..<frames.count { frames.address(at: index).pointee.object = nil }
    }

    /// The innermost level. Read in place (`current.object` copies the object, not the frame).
    var current: Frame {
        _read { yield frames.lastAddress.pointee }
        _modify { yield &frames.lastAddress.pointee }
    }

    var depth: Int { frames.count - 1 }

    var keys: [TreeDecoder.PathKey] { frames.withElements(from: 0) { $0.compactMap(\.key) } }

    var codingPath: [any CodingKey] { keys.map(\.codingKey) }

    func codingPath(depth: Int) -> [any CodingKey] {
        keys.prefix(depth).map(\.codingKey)
    }

    var userInfo: [CodingUserInfoKey: Any] { session.options.userInfo }

    /// Ends the run: the tree decoder takes over.
    func unsupported() -> Unsupported {
        session.unsupported()
    }

    @inline(__always)
    func push(_ key: TreeDecoder.PathKey, value: ValueRef, allowed: Set<String>?) throws {
        frames.append(Frame(key: key, value: value, object: nil, model: nil, allowed: allowed))
        guard frames.count <= session.options.limits.maxDepth + 1 else { throw unsupported() }
    }

    /// Leaves the innermost level; its object goes back to the session when nothing else holds
    /// it (no container a model kept).
    @inline(__always)
    func pop() {
        var frame = frames.removeLast()
        if isKnownUniquelyReferenced(&frame.object), let object = frame.object.take() {
            session.recycle(object)
        }
    }

    /// Decodes `value` as a `T` one level below the current one, under `key`.
    @inline(__always)
    func decode<T: Decodable>(_ type: T.Type, from value: ValueRef, key: TreeDecoder.PathKey, allowed: Set<String>?)
        throws -> T
    {
        try push(key, value: value, allowed: allowed)
        defer { pop() }
        return try unbox(value, as: T.self)
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        // The container's own retain of the object, taken once (see `DirectKeyedDecodingContainer`).
        let held = try currentObjectRetained()
        held._withUnsafeGuaranteedRef {
            $0.attach(to: self, model: current.model, allowed: current.allowed, depth: depth)
        }
        // The maker and its spare box unretained: the session's table holds the maker, and the
        // maker the box.
        let maker = session.keyedContainerMakers.unretainedMaker(keyedBy: Key.self) {
            KeyedDecodingContainerMaker(DirectKeyedDecodingContainer<Key>.self)
        }
        return maker._withUnsafeGuaranteedRef { maker in
            guard let box = maker.reusableBox() else { return maker.makeAndKeep(held) }
            // The object the spare container read before goes back to the session, as `pop()`
            // would have given it back had the spare not held it.
            if let previous = SpareBox.container(in: box, as: DirectKeyedDecodingContainer<Key>.self).pointee
                .exchange(held)
            {
                session.recycle(retained: previous)
            }
            return maker.erased(box)
        }
    }

    /// ``currentObject()``, retained once for a container.
    @inline(__always)
    private func currentObjectRetained() throws -> Unmanaged<DirectObject> {
        if let object = frames.lastAddress.pointee.object { return Unmanaged.passUnretained(object).retain() }
        return Unmanaged.passRetained(try currentObject())
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = current.value
        guard session.isOpen, !value.isMade, session.text.bytes[value.offset] == UInt8(ascii: "["),
            depth < session.options.limits.maxDepth
        else {
            throw unsupported()
        }
        session.markRead(value.ordinal)
        return DirectUnkeyedDecodingContainer(decoder: self, array: value, allowed: current.allowed, depth: depth)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        DirectSingleValueDecodingContainer(
            decoder: self, value: current.value, allowed: current.allowed, depth: depth)
    }

    /// The members of the current value, which must be an object.
    private func currentObject() throws -> DirectObject {
        if let object = current.object { return object }
        let value = current.value
        // Upgrades can nest values deeper than the text does: the migration pass's limit.
        guard session.isOpen, depth < session.options.limits.maxDepth else { throw unsupported() }
        if value.isMade {
            guard value.isMadeDictionary else { throw unsupported() }
            return session.madeDictionary(value)
        }
        guard session.text.bytes[value.offset] == UInt8(ascii: "{") else { throw unsupported() }
        // Not kept in the frame: a nested decoder's frames are never popped, and the object will
        // hold this decoder.
        return try session.readObject(value, depth: depth)
    }

    /// A separate decoder for a value one level down (nested containers outlive the current
    /// decode, so they cannot share this decoder's stack).
    func nestedDecoder(value: ValueRef, key: TreeDecoder.PathKey, depth: Int) throws -> DirectJSONDecoder {
        var path = Array(keys.prefix(depth))
        path.append(key)
        guard path.count <= session.options.limits.maxDepth else { throw unsupported() }
        let nested = DirectJSONDecoder(session: session, value: value, keys: path)
        nested.current.allowed = current.allowed
        return nested
    }

    // MARK: Values

    /// Decodes `value`, the current value, as a `T`: ``TreeDecoder/unbox(_:as:)`` on the text.
    func unbox<T: Decodable>(_ value: ValueRef, as type: T.Type) throws -> T {
        guard session.isOpen else { throw unsupported() }
        if value.isMade { return try unboxMade(value, as: T.self) }
        let text = session.text
        switch text.bytes[value.offset] {
        case UInt8(ascii: "{"):
            // Upgrades can nest values deeper than the text does: the migration pass's limit.
            guard depth < session.options.limits.maxDepth else { throw unsupported() }
            let object = try session.readObject(value, depth: depth)
            current.object = object
            guard let typeName = object.typeName else {
                return try decodeComposite(as: T.self)
            }
            return try decodeModel(object, typeName: typeName, as: T.self)
        case UInt8(ascii: "["):
            guard depth < session.options.limits.maxDepth else { throw unsupported() }
            let requested = ObjectIdentifier(T.self)
            if requested == KnownTypes.stringArray {
                return unsafeBitCast(try strings(in: value), to: T.self)
            }
            if requested == KnownTypes.doubleArray {
                return unsafeBitCast(try doubles(in: value), to: T.self)
            }
            if requested == KnownTypes.intArray {
                return unsafeBitCast(try ints(in: value), to: T.self)
            }
            if let array = T.self as? any ArchiveDecodableArray.Type {
                return try decodeArray(array, value, as: T.self)
            }
            return try decodeComposite(as: T.self)
        case UInt8(ascii: "\""):
            if T.self == String.self { return unsafeBitCast(session.string(at: value.offset), to: T.self) }
            return try unboxScalar(value, as: T.self)
        default:
            return try unboxScalar(value, as: T.self)
        }
    }

    /// A value an upgrade made: a dictionary (read as a plain one) or an added scalar.
    private func unboxMade<T: Decodable>(_ value: ValueRef, as type: T.Type) throws -> T {
        guard value.isMadeDictionary else { return try unboxScalar(value, as: T.self) }
        guard depth < session.options.limits.maxDepth else { throw unsupported() }
        current.object = session.madeDictionary(value)
        return try decodeComposite(as: T.self)
    }

    /// A scalar: the common primitives, the other integer types and `Float`, or the type's own
    /// `init(from:)` (enums with raw values). Other primitive types (dates, data, URLs…) go to
    /// the tree decoder.
    private func unboxScalar<T: Decodable>(_ value: ValueRef, as type: T.Type) throws -> T {
        if T.self == Int.self { return unsafeBitCast(try int(at: value), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try double(at: value), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(at: value), to: T.self) }
        if T.self == String.self { return unsafeBitCast(try string(at: value), to: T.self) }
        if T.self is any ArchiveDecodablePrimitive.Type {
            if let integer = T.self as? any FixedWidthInteger.Type {
                return try makeInteger(integer, at: value, as: T.self)
            }
            if T.self == Float.self { return unsafeBitCast(try float(at: value), to: T.self) }
            throw unsupported()
        }
        return try decodeComposite(as: T.self)
    }

    private func makeInteger<T>(_ integer: any FixedWidthInteger.Type, at value: ValueRef, as type: T.Type) throws -> T
    {
        func make<I: FixedWidthInteger>(_ type: I.Type) throws -> T {
            // `I` is `T`: the metatype was cast from `T.self`.
            unsafeBitCast(try self.integer(at: value, as: I.self), to: T.self)
        }
        return try make(integer)
    }

    /// Any other value: the type's own `init(from:)` reads it through the containers. (The types
    /// that read archived objects themselves, ``DecodesArchivedObjectsItself``, end the run in
    /// their `init(from:)`: a conformance check here would cost every value.)
    private func decodeComposite<T: Decodable>(as type: T.Type) throws -> T {
        if T.self == ArchiveValue.self { throw unsupported() }
        if current.model != nil { current.model = nil }
        return try T(from: self)
    }

    /// An object: decoded when it is exactly the declared model type, archived at its current
    /// version (or at none, as the tree decoder accepts), with no identity.
    private func decodeModel<T: Decodable>(_ object: DirectObject, typeName: String, as type: T.Type) throws -> T {
        guard let info = session.infos.info(for: T.self), info.typeName == typeName else { throw unsupported() }
        if let version = object.version, version != info.version { throw unsupported() }
        if let allowed = current.allowed {
            guard allowed.contains(info.typeName) else { throw unsupported() }
            current.allowed = nil
        }
        current.model = Unmanaged.passUnretained(info)
        var value = try T(from: self)
        try withUnsafeMutablePointer(to: &value) { try info.awaken(UnsafeMutableRawPointer($0)) }
        return value
    }

    private func decodeArray<T>(_ array: any ArchiveDecodableArray.Type, _ value: ValueRef, as type: T.Type) throws
        -> T
    {
        func make<A: ArchiveDecodableArray>(_ type: A.Type) throws -> T {
            // `A` is `T`: the metatype was cast from `T.self`.
            unsafeBitCast(try A.decodeElements(of: value, with: self, allowed: current.allowed), to: T.self)
        }
        return try make(array)
    }

    // MARK: Scalars

    func string(at value: ValueRef) throws -> String {
        guard session.isOpen else { throw unsupported() }
        if value.isMade {
            guard case .string(let string)? = session.madeConstant(value) else { throw unsupported() }
            return string
        }
        guard session.text.bytes[value.offset] == UInt8(ascii: "\"") else { throw unsupported() }
        return session.string(at: value.offset)
    }

    func bool(at value: ValueRef) throws -> Bool {
        guard session.isOpen else { throw unsupported() }
        if value.isMade {
            guard case .bool(let bool)? = session.madeConstant(value) else { throw unsupported() }
            return bool
        }
        switch session.text.bytes[value.offset] {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: throw unsupported()
        }
    }

    /// The number at `value` as ``JSONParser`` reads it (`.int`, `.uint` or `.double`).
    @inline(__always)
    func number(at value: ValueRef) throws -> ArchiveValue {
        if let short = shortNumber(at: value) { return short.value }
        return try otherNumber(at: value)
    }

    /// The short number at `value` in the text (``JSONNumberParser/readShort(_:at:end:)``), read
    /// without making an `ArchiveValue`; `nil` for any other value (``otherNumber(at:)``).
    @inline(__always)
    private func shortNumber(at value: ValueRef) -> JSONNumberParser.ShortNumber? {
        guard !value.isMade, session.isOpen else { return nil }
        var position = value.offset
        return JSONNumberParser.readShort(session.text.bytes, at: &position, end: session.text.end)
    }

    /// A number ``shortNumber(at:)`` does not read: one an upgrade added, or a long one in the
    /// text (read by the general parser, without trying the short form again).
    private func otherNumber(at value: ValueRef) throws -> ArchiveValue {
        guard session.isOpen else { throw unsupported() }
        if value.isMade {
            switch session.madeConstant(value) {
            case .int(let number)?: return .int(number)
            case .uint(let number)?: return .uint(number)
            case .double(let number)?: return .double(number)
            default: throw unsupported()
            }
        }
        let first = session.text.bytes[value.offset]
        guard first == UInt8(ascii: "-") || first &- UInt8(ascii: "0") < 10 else { throw unsupported() }
        let text = session.text
        guard case .value(let number, _) = JSONNumberParser.parse(text.bytes, from: value.offset, end: text.end) else {
            throw unsupported()
        }
        return number
    }

    @inline(__always)
    func int(at value: ValueRef) throws -> Int {
        if let short = shortNumber(at: value), short.fractionDigits == 0, let result = Int(exactly: short.integer) {
            return result
        }
        guard let result = try number(at: value).exactInteger(as: Int.self) else { throw unsupported() }
        return result
    }

    func integer<I: FixedWidthInteger>(at value: ValueRef, as type: I.Type) throws -> I {
        guard let result = try number(at: value).exactInteger(as: I.self) else { throw unsupported() }
        return result
    }

    @inline(__always)
    func double(at value: ValueRef) throws -> Double {
        if let short = shortNumber(at: value) { return short.double }
        guard let result = try otherNumber(at: value).numberAsDouble else { throw unsupported() }
        return result
    }

    func float(at value: ValueRef) throws -> Float {
        guard let float = ArchiveValue.float(fitting: try double(at: value)) else { throw unsupported() }
        return float
    }

    func isNull(_ value: ValueRef) -> Bool {
        guard session.isOpen else { return false }
        if value.isMade { return session.madeConstant(value)?.isNull ?? false }
        return session.text.bytes[value.offset] == UInt8(ascii: "n")
    }

    // MARK: Arrays of primitives

    private func strings(in array: ValueRef) throws -> [String] {
        try elements(of: array) { try string(at: $0) }
    }

    private func doubles(in array: ValueRef) throws -> [Double] {
        try elements(of: array) { try double(at: $0) }
    }

    private func ints(in array: ValueRef) throws -> [Int] {
        try elements(of: array) { try int(at: $0) }
    }

    /// The elements of `array`, each read by `read`, into an array of exactly their count.
    @inline(__always)
    private func elements<Element>(of array: ValueRef, _ read: (ValueRef) throws -> Element) throws -> [Element] {
        var result: [Element] = []
        var elements = session.elements(of: array)
        result.reserveCapacity(elements.count)
        while let element = elements.next() {
            result.append(try read(element))
        }
        return result
    }
}

extension Array where Element: Decodable {
    static func decodeElements(
        of array: DirectJSONDecoder.ValueRef, with decoder: DirectJSONDecoder, allowed: Set<String>?
    ) throws -> [Element] {
        var elements = decoder.session.elements(of: array)
        // Each element is decoded into its place: in this unspecialized code, `append` copies
        // the decoded value and destroys the original (a retain and a release per reference in
        // it).
        return try [Element](unsafeUninitializedCapacity: elements.count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            while let element = elements.next() {
                (base + initialized).initialize(
                    to: try decoder.decode(Element.self, from: element, key: .index(initialized), allowed: allowed))
                initialized &+= 1
            }
        }
    }
}
