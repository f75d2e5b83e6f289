@_spi(Coders) import ArchiveFormats
import Foundation

/// Encodes a value straight to JSON bytes, without building an `ArchiveValue` tree first.
///
/// ``ArchiveEncoder/encode(_:)`` tries it first for JSON. It covers what most archives hold:
/// structs and enums, models that are value types, arrays, optionals, strings, numbers, dates and
/// data. It writes through ``JSONWriter/Emitter``, the tree writer's own scalar and layout code,
/// in the order the tree encoder would put things in the tree, so the bytes are the ones
/// `JSONWriter.write(encoder.encodeTree(value))` gives.
///
/// What needs the whole tree ends the run (``Unsupported``) and the tree encoder encodes the
/// value instead: a model class instance met a second time (shared, or a cycle: identities and
/// references are assigned over the whole graph; an instance written once keeps none),
/// conditional references, sets of non-scalars and dictionaries without `String` keys (sorted
/// as trees; sets of scalars and dictionaries with `String` keys are written in the tree's
/// order directly), archived extras
/// (``UnknownFields``), a key written twice (the tree keeps its first position and last
/// value), nested containers, a model's super encoder, a super encoder used after its
/// container went on, and every error, so that error messages and paths are the tree
/// encoder's. Super encoders of plain containers (`@Polymorphic` writes each element through
/// one) are levels of their own, finished when their container writes its next entry or
/// closes.
///
/// One instance serves a run: ``levels`` holds the values whose `encode(to:)` is running (their
/// keys are the coding path), ``frames`` the JSON arrays and objects still open. Each running
/// value gets a ``DirectLevelEncoder`` naming its level, and each container the serial of
/// the frame it writes into: they work only while their level or frame is the innermost one, so
/// an encoder or container kept past its value's `encode(to:)` ends the run instead of writing
/// somewhere else.
final class DirectJSONEncoder {
    /// Ends a run that the tree encoder must do.
    struct Unsupported: Error {}

    /// A level's key in the coding path, as it came: an array position stays an index until
    /// the path is asked for. (An optional existential key costs a copy and a destroy through
    /// the standard library's generic `Optional` witnesses, and an array position's key a heap
    /// box of its own: keeping them so took 6.1M of 112.6M instructions encoding 10,000 shapes.)
    enum PathKey {
        /// The envelope's level, and a single value container's value: no key of its own.
        case noKey
        case index(Int)
        case key(any CodingKey)

        var codingKey: (any CodingKey)? {
            switch self {
            case .noKey: nil
            case .index(let index): ArchiveCodingKey(index: index)
            case .key(let key): key
            }
        }
    }

    /// A value whose `encode(to:)` is running, or the value a super encoder writes.
    struct Level {
        var serial: Int
        var key: PathKey
        var model: ModelInfo?
        /// The serial of the frame its container opened, ``noContainer`` or ``singleValue``.
        var container: Int
        /// A super encoder's value: finished when its container writes its next entry or closes.
        var isDetached: Bool
    }

    /// An open JSON array or object.
    struct Frame {
        var serial: Int
        var isArray: Bool
        /// Children written so far; for an object, its metadata keys too.
        var count: Int
        /// Keys written so far.
        var written: Int
        /// The `CodingKey` type of its container, for ``recentKeys``.
        var keyType: ObjectIdentifier?
        /// The keys the last container of that type wrote at this depth: while this one writes
        /// the same keys in the same order, none of them can repeat, its keys need not be kept,
        /// and each is written as it was then.
        /// `known` is kept alive by ``recentKeys``: only this frame's own close replaces it.
        var known: KnownKeys.Pointers
        var matchesKnown: Bool
        /// Once it has left `known`: where its keys start on ``keys`` and ``keyEnds``, and their
        /// bytes on ``keyBytes``.
        var keysStart: Int
        var bytesStart: Int
        /// Once it has left `known` with many keys: those keys, so that each new one is checked
        /// in constant time (as `ArchiveDictionary.firstDuplicateKey()` does past 16 keys).
        var seenKeys: Set<ExactString>?
    }

    static let noContainer = -1
    static let singleValue = -2

    let session: EncodingSession
    /// `KnownTypes`, read once per run: a global's every read costs a `swift_once` call.
    private let stringArrayType = KnownTypes.stringArray
    private let doubleArrayType = KnownTypes.doubleArray
    private let intArrayType = KnownTypes.intArray
    private let markup: Bool
    private let maxDepth: Int
    // The state below is touched on every value; its accesses never overlap (one run, one
    // thread, no access spans a call into a model), so the exclusivity checks are off.
    @exclusivity(unchecked) var emitter: JSONWriter.Emitter
    @exclusivity(unchecked) private var levels = MoveStack<Level>(initialCapacity: 16)
    @exclusivity(unchecked) private var frames = MoveStack<Frame>(initialCapacity: 16)
    /// The keys of the open objects that have left their known sequence, innermost last, with
    /// the bytes they were written as and where each one's bytes end.
    @exclusivity(unchecked) private var keys: [String] = []
    @exclusivity(unchecked) private var keyBytes: [UInt8] = []
    @exclusivity(unchecked) private var keyEnds: [Int] = []
    /// The last key sequence written at each depth, with its `CodingKey` type.
    @exclusivity(unchecked) private var recentKeys: [(keyType: ObjectIdentifier, keys: KnownKeys)] = []
    /// The model class instances written so far.
    @exclusivity(unchecked) private var writtenObjects: Set<ObjectIdentifier> = []
    @exclusivity(unchecked) private var heldObjects: [AnyObject] = []
    /// The encoder last handed to a running value at each depth (see `levelEncoder(for:)`).
    @exclusivity(unchecked) private var levelEncoders: [DirectLevelEncoder] = []
    /// The makers of the keyed containers, by key type.
    private let keyedContainerMakers = KeyedContainerMakers()
    /// The `$type`/`$version` entries of each model type met, as written without pretty-printing
    /// (`JSONWriter.Emitter.compactTypeAndVersion`), and the type of the last one copied: an
    /// array of one model copies the same bytes into each object instead of writing them anew.
    @exclusivity(unchecked) private var stamps: [ObjectIdentifier: [UInt8]] = [:]
    @exclusivity(unchecked) private var lastStamp: (model: ObjectIdentifier?, bytes: [UInt8]) = (nil, [])
    private var nextSerial = 0
    /// Set when a method that cannot throw met something only the tree encoder can do.
    private var failed = false

    private init(session: EncodingSession, options: ArchiveWritingOptions) {
        self.session = session
        markup = options.markup != .plain
        maxDepth = options.limits.maxDepth
        emitter = JSONWriter.Emitter(options: options)
    }

    /// The archive `archiveEncoder` writes for `value` in JSON, or `nil` when the tree encoder
    /// must write it (see the type's discussion).
    static func encode<T: Encodable>(_ value: T, with archiveEncoder: ArchiveEncoder) -> Data? {
        let options = archiveEncoder.writingOptions
        let session = EncodingSession(
            registry: archiveEncoder.registry, limits: options.limits, userInfo: archiveEncoder.userInfo)
        let encoder = DirectJSONEncoder(session: session, options: options)
        // The level encoders and the makers' spare containers refer back to the run.
        defer {
            encoder.levelEncoders = []
            encoder.keyedContainerMakers.removeAll()
        }
        do {
            try encoder.writeEnvelope(
                value, document: archiveEncoder.document, documentVersion: try archiveEncoder.stampedDocumentVersion)
        } catch {
            return nil
        }
        if options.prettyPrinted {
            encoder.emitter.output.append(UInt8(ascii: "\n"))
        }
        // Out of memory: the tree writer reports it.
        guard !encoder.emitter.output.allocationFailed else { return nil }
        return encoder.emitter.output.takeData()
    }

    /// Writes the envelope (`ArchiveEnvelope.tree`'s keys in its order) around `value`.
    private func writeEnvelope<T: Encodable>(_ value: T, document: String?, documentVersion: Int?) throws {
        levels.append(
            Level(serial: takeSerial(), key: .noKey, model: nil, container: Self.noContainer, isDetached: false))
        let serial = try openFrame(isArray: false, keyType: nil)
        beginChild()
        emitter.writeKey(ArchiveEnvelope.markerKey)
        emitter.writeInteger(Int64(ArchiveEnvelope.currentFormatVersion))
        if let document {
            beginChild()
            emitter.writeKey(ArchiveEnvelope.documentKey, escapingReserved: markup)
            emitter.writeString(document)
        }
        if let documentVersion {
            beginChild()
            emitter.writeKey(ArchiveEnvelope.documentVersionKey, escapingReserved: markup)
            emitter.writeInteger(Int64(documentVersion))
        }
        beginChild()
        emitter.writeKey(ArchiveEnvelope.rootKey, escapingReserved: markup)
        try box(value, key: .noKey)
        try closeFrame(serial)
    }

    // MARK: Encoder

    var codingPath: [any CodingKey] { levels.withElements(from: 0) { $0.compactMap(\.key.codingKey) } }

    var userInfo: [CodingUserInfoKey: Any] { session.userInfo }

    /// The encoder for the running value at `level`: the one last used at this depth when
    /// nothing else holds it, else a new one.
    private func levelEncoder(for level: Int) -> DirectLevelEncoder {
        let depth = levels.count
        if depth < levelEncoders.count {
            if isKnownUniquelyReferenced(&levelEncoders[depth]) {
                levelEncoders[depth].level = level
            } else {
                levelEncoders[depth] = DirectLevelEncoder(encoder: self, level: level)
            }
            return levelEncoders[depth]
        }
        let encoder = DirectLevelEncoder(encoder: self, level: level)
        while levelEncoders.count < depth { levelEncoders.append(DirectLevelEncoder(encoder: self, level: -1)) }
        levelEncoders.append(encoder)
        return encoder
    }

    /// Makes the level `serial` the innermost one for a container request, finishing the super
    /// encoders' values above it (its value goes on, so they are done); marks the run failed when
    /// something else is open above it.
    func prepareRequest(from serial: Int) -> Bool {
        while !failed, levels.count > 0, levels.lastAddress.pointee.serial != serial,
            levels.lastAddress.pointee.isDetached
        {
            do {
                try finishTopLevel()
            } catch {
                failed = true
            }
        }
        if !failed, levels.count > 0, levels.lastAddress.pointee.serial == serial { return true }
        failed = true
        return false
    }

    /// The keyed container of the innermost level.
    func innermostKeyedContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let serial = openContainer(isArray: false, keyType: ObjectIdentifier(Key.self))
        let model = levels.count > 0 ? levels.lastAddress.pointee.model : nil
        let maker = keyedContainerMakers.maker(keyedBy: Key.self) {
            KeyedEncodingContainerMaker(DirectKeyedEncodingContainer<Key>.self)
        }
        if let box = maker.reusableBox() {
            // Its encoder is this one: the makers are this run's. (The serial and the model
            // changed in place: two reference counts fewer than a new container, 1.4M of 87.0M
            // instructions encoding 10,000 shapes.)
            SpareBox.container(in: box, as: DirectKeyedEncodingContainer<Key>.self).pointee.reuse(
                serial: serial, model: model)
            return maker.erased(box)
        }
        return maker.makeAndKeep((encoder: self, serial: serial, model: model))
    }

    /// The unkeyed container of the innermost level.
    func innermostUnkeyedContainer() -> any UnkeyedEncodingContainer {
        DirectUnkeyedEncodingContainer(encoder: self, serial: openContainer(isArray: true, keyType: nil))
    }

    // MARK: Values

    /// Writes `value` where the output stands (after its key or its array separator).
    func box<T: Encodable>(_ value: T, key: PathKey) throws {
        let type = T.self
        if type == String.self { return emitter.writeString(unsafeBitCast(value, to: String.self)) }
        if type == Int.self { return emitter.writeInteger(Int64(unsafeBitCast(value, to: Int.self))) }
        if type == Double.self { return try emitter.writeDouble(unsafeBitCast(value, to: Double.self)) }
        if type == Bool.self { return writeBool(unsafeBitCast(value, to: Bool.self)) }
        if type == Date.self { return try emitter.writeDate(unsafeBitCast(value, to: Date.self)) }
        let requested = ObjectIdentifier(type)
        if requested == stringArrayType {
            return try writeArray(unsafeBitCast(value, to: [String].self)) { $0.emitter.writeString($1) }
        }
        if requested == doubleArrayType {
            return try writeArray(unsafeBitCast(value, to: [Double].self)) { try $0.emitter.writeDouble($1) }
        }
        if requested == intArrayType {
            return try writeArray(unsafeBitCast(value, to: [Int].self)) { $0.emitter.writeInteger(Int64($1)) }
        }
        switch session.infos.encodingTraits(for: Swift.type(of: value)) {
        case .primitive:
            guard let primitive = value as? any ArchivePrimitive else {
                return try encodeComposite(value, model: nil, key: key)
            }
            try writeScalar(primitive.primitiveValue)
        case .model(let info):
            if info.isClass {
                // An instance written once keeps no identity in the tree either (see
                // `EncodingGraph.finalize(_:)`); one met again is the tree's to reference.
                let object = value as AnyObject
                guard writtenObjects.insert(ObjectIdentifier(object)).inserted else { throw Unsupported() }
                // Held so that no other object takes its identifier during the run.
                heldObjects.append(object)
            }
            try encodeComposite(value, model: info, key: key)
        case .plain:
            try encodeComposite(value, model: nil, key: key)
        case .unordered(.keys):
            // The tree sorts a dictionary's keys after `encode(to:)` wrote them; written here in
            // that order to begin with. Only `String` keys (others encode differently).
            guard let dictionary = value as? any StringKeyedDictionary else { throw Unsupported() }
            try dictionary.encodeSorted(to: self, key: key)
        case .unordered(.elements):
            // A set of scalars: sorted as the tree sorts its elements.
            guard let set = value as? any ScalarSet, let elements = set.archivedScalars() else { throw Unsupported() }
            try encodeSorted(elements.sorted { $0.canonicallyPrecedes($1) }, key: key)
        case .needsTree:
            throw Unsupported()
        }
    }

    /// A set's elements as scalar nodes, in the order given: an array.
    private func encodeSorted(_ elements: [ArchiveValue], key: PathKey) throws {
        try withLevel(key: key, model: nil) { _ in
            let serial = openContainer(isArray: true, keyType: nil)
            for element in elements {
                _ = try beginElement(serial)
                try writeScalar(element)
            }
        }
    }

    /// A dictionary with `String` keys, its entries in the order of their keys, as
    /// `Dictionary.encode(to:)` and the tree encoder's sorting write it.
    func encodeSorted<Value: Encodable>(_ dictionary: [String: Value], key: PathKey) throws {
        try withLevel(key: key, model: nil) { _ in
            let serial = openContainer(isArray: false, keyType: nil)
            for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
                // A dictionary's keys are distinct: no check for repeats.
                beginChild(of: try innermostFrame(serial))
                emitter.writeKey(name, escapingReserved: markup)
                try box(value, key: .key(DictionaryCodingKey(name)))
            }
        }
    }

    /// A value encoded by its own `encode(to:)`, as ``TreeEncoder`` does in `boxComposite`.
    private func encodeComposite<T: Encodable>(_ value: T, model: ModelInfo?, key: PathKey) throws {
        try withLevel(key: key, model: model) { level in
            try value.encode(to: levelEncoder(for: level))
        }
    }

    /// Runs `write` as the value of a new level under `key` (the tree encoder's child encoder:
    /// one level deeper, within `ArchiveLimits.maxDepth`), then writes what it left open and
    /// leaves the level.
    @inline(__always)
    private func withLevel(key: PathKey, model: ModelInfo?, _ write: (Int) throws -> Void) throws {
        guard levels.count - 1 < session.limits.maxDepth else { throw Unsupported() }
        let level = takeSerial()
        levels.append(Level(serial: level, key: key, model: model, container: Self.noContainer, isDetached: false))
        try write(level)
        if failed { throw Unsupported() }
        try settle(untilLevel: level)
        try finishTopLevel()
    }

    /// Writes what the innermost value left open, and leaves it.
    private func finishTopLevel() throws {
        switch levels.lastAddress.pointee.container {
        case Self.noContainer:
            // Nothing written: an empty dictionary, or an object with its metadata only.
            let serial = openContainer(isArray: false, keyType: nil)
            if failed { throw Unsupported() }
            try closeFrame(serial)
        case Self.singleValue:
            break
        case let serial:
            try closeFrame(serial)
        }
        _ = levels.removeLast()
    }

    /// Finishes the super encoders' values above the level `serial`.
    private func settle(untilLevel serial: Int) throws {
        while levels.count > 0 && levels.lastAddress.pointee.serial != serial {
            guard levels.lastAddress.pointee.isDetached else { throw Unsupported() }
            try finishTopLevel()
        }
        guard levels.count > 0 else { throw Unsupported() }
    }

    /// Finishes the super encoders' values written into the frame `serial` or above it: the
    /// frame goes on, so they are done. Fails unless the frame is then the innermost one.
    private func settle(untilFrame serial: Int) throws {
        while levels.count > 0, levels.lastAddress.pointee.isDetached, levels.lastAddress.pointee.container != serial {
            try finishTopLevel()
        }
        guard frames.count > 0, frames.lastAddress.pointee.serial == serial else { throw Unsupported() }
    }

    private func takeSerial() -> Int {
        defer { nextSerial &+= 1 }
        return nextSerial
    }

    /// A scalar node (what a primitive such as `Data` or `URL` stands for).
    private func writeScalar(_ value: ArchiveValue) throws {
        switch value {
        case .array, .dictionary, .object, .reference:
            throw Unsupported()
        default:
            try emitter.write(value, isTopLevel: false)
        }
    }

    @inline(__always)
    func writeBool(_ value: Bool) {
        emitter.output.append(value ? "true" : "false")
    }

    @inline(__always)
    func writeNull() {
        emitter.output.append("null")
    }

    private func writeArray<Element>(
        _ elements: [Element], _ write: (DirectJSONEncoder, Element) throws -> Void
    ) throws {
        let serial = try openFrame(isArray: true, keyType: nil)
        for element in elements {
            _ = try beginElement(serial)
            try write(self, element)
        }
        try closeFrame(serial)
    }

    // MARK: Containers

    /// The frame of the running value's keyed or unkeyed container, opened on the first request;
    /// on anything the tree encoder would do differently, marks the run failed and returns a
    /// serial no frame has.
    private func openContainer(isArray: Bool, keyType: ObjectIdentifier?) -> Int {
        guard !failed, levels.count > 0 else { return fail() }
        // Read through its address: a copy of the level would copy its key.
        let level = levels.lastAddress
        let container = level.pointee.container
        if container >= 0 {
            // Asked again: the same container, as long as nothing nested is still open.
            guard frames.count > 0, frames.lastAddress.pointee.serial == container,
                frames.lastAddress.pointee.isArray == isArray
            else { return fail() }
            return container
        }
        let model = level.pointee.model
        guard container == Self.noContainer, !(isArray && model != nil) else { return fail() }
        if let model {
            guard !model.typeName.isEmpty, model.version >= 0 else { return fail() }
        }
        guard let serial = try? openFrame(isArray: isArray, keyType: keyType) else { return fail() }
        if let model {
            writeStamp(of: model)
            frames.lastAddress.pointee.count = 2
        }
        levels.lastAddress.pointee.container = serial
        return serial
    }

    /// Writes `model`'s `$type` and `$version` entries into the object just opened.
    private func writeStamp(of model: ModelInfo) {
        // The run's model information stays alive until it ends, so identifiers are not reused.
        let type = ObjectIdentifier(model)
        if lastStamp.model != type {
            let bytes =
                stamps[type]
                ?? JSONWriter.Emitter.compactTypeAndVersion(typeName: model.typeName, version: model.version)
            stamps[type] = bytes
            lastStamp = (type, bytes)
        }
        emitter.writeTypeAndVersion(
            lastStamp.bytes, typeName: model.typeName, version: model.version, level: frames.count)
    }

    private func fail() -> Int {
        failed = true
        return Self.noContainer
    }

    /// Writes `[` or `{` and pushes its frame, within `ArchiveLimits.maxDepth` as the tree
    /// writer counts it.
    private func openFrame(isArray: Bool, keyType: ObjectIdentifier?) throws -> Int {
        guard frames.count < maxDepth else { throw Unsupported() }
        emitter.output.append(isArray ? UInt8(ascii: "[") : UInt8(ascii: "{"))
        let depth = frames.count
        var known = KnownKeys.Pointers()
        if let keyType, depth < recentKeys.count, recentKeys[depth].keyType == keyType {
            known = recentKeys[depth].keys.pointers
        }
        let serial = takeSerial()
        frames.append(
            Frame(
                serial: serial, isArray: isArray, count: 0, written: 0, keyType: keyType, known: known,
                matchesKnown: true, keysStart: 0, bytesStart: 0, seenKeys: nil))
        emitter.baseLevel = frames.count
        return serial
    }

    /// Closes the frame `serial`, innermost once the super encoders above it are finished.
    private func closeFrame(_ serial: Int) throws {
        try settle(untilFrame: serial)
        let frame = frames.removeLast()
        let depth = frames.count
        if let keyType = frame.keyType, !frame.matchesKnown || frame.written != frame.known.count {
            let sequence: KnownKeys
            if frame.matchesKnown {
                sequence = KnownKeys.prefix(frame.written, of: frame.known)
            } else {
                sequence = KnownKeys(
                    keys: keys[frame.keysStart...],
                    ends: keyEnds[frame.keysStart...].lazy.map { $0 - frame.bytesStart },
                    bytes: keyBytes[frame.bytesStart...])
                keys.removeSubrange(frame.keysStart...)
                keyBytes.removeSubrange(frame.bytesStart...)
                keyEnds.removeSubrange(frame.keysStart...)
            }
            let recent = (keyType: keyType, keys: sequence)
            if depth < recentKeys.count {
                recentKeys[depth] = recent
            } else {
                recentKeys.append(contentsOf: repeatElement(recent, count: depth + 1 - recentKeys.count))
            }
        }
        emitter.baseLevel = depth
        if frame.count > 0 { emitter.newline(depth) }
        emitter.output.append(frame.isArray ? UInt8(ascii: "]") : UInt8(ascii: "}"))
    }

    /// The separator and indentation before the next child of the innermost frame.
    @inline(__always)
    private func beginChild() {
        beginChild(of: frames.lastAddress)
    }

    @inline(__always)
    private func beginChild(of frame: UnsafeMutablePointer<Frame>) {
        if frame.pointee.count > 0 { emitter.output.append(UInt8(ascii: ",")) }
        frame.pointee.count &+= 1
        emitter.newline(frames.count)
    }

    /// The frame `serial`, innermost once the super encoders above it are finished.
    @inline(__always)
    private func innermostFrame(_ serial: Int) throws -> UnsafeMutablePointer<Frame> {
        guard !failed, frames.count > 0, levels.count > 0 else { throw Unsupported() }
        if frames.lastAddress.pointee.serial != serial || levels.lastAddress.pointee.isDetached {
            try settle(untilFrame: serial)
        }
        // Valid until the next push or pop of a frame.
        return frames.lastAddress
    }

    /// Starts the entry `key` of the object `serial`: a key it has not written yet.
    func beginKey(_ key: String, in serial: Int) throws {
        let frame = try innermostFrame(serial)
        let position = frame.pointee.written
        let known = frame.pointee.known
        // Keys are the same key when they have the same Unicode scalars, as in the tree.
        if frame.pointee.matchesKnown, position < known.count,
            known.keys.unsafelyUnwrapped[position].hasSameScalars(as: key)
        {
            frame.pointee.written = position &+ 1
            beginChild(of: frame)
            emitter.output.append(known.bytes(at: position))
            return
        }
        if frame.pointee.matchesKnown {
            // Off the known sequence: keep the keys from here on, and check each new one.
            frame.pointee.matchesKnown = false
            frame.pointee.keysStart = keys.count
            frame.pointee.bytesStart = keyBytes.count
            if position > 0, let knownKeys = known.keys, let ends = known.ends, let bytes = known.bytes {
                keys.append(contentsOf: UnsafeBufferPointer(start: knownKeys, count: position))
                keyBytes.append(contentsOf: UnsafeBufferPointer(start: bytes, count: ends[position &- 1]))
                let base = frame.pointee.bytesStart
                keyEnds.append(contentsOf: UnsafeBufferPointer(start: ends, count: position).lazy.map { $0 + base })
            }
        }
        try checkNewKey(key, in: frame)
        keys.append(key)
        frame.pointee.written = position &+ 1
        beginChild(of: frame)
        let start = emitter.output.count
        emitter.writeKey(key, escapingReserved: markup)
        emitter.output.withBytes(from: start) { keyBytes.append(contentsOf: $0) }
        keyEnds.append(keyBytes.count)
    }

    /// Throws ``Unsupported`` when the frame (off its known sequence) already has `key`.
    private func checkNewKey(_ key: String, in frame: UnsafeMutablePointer<Frame>) throws {
        let start = frame.pointee.keysStart
        if frame.pointee.seenKeys == nil {
            if keys.count &- start < 16 {
                for index in start..<keys.count where keys[index].hasSameScalars(as: key) { throw Unsupported() }
                return
            }
            frame.pointee.seenKeys = Set(keys[start...].lazy.map(ExactString.init))
        }
        guard frame.pointee.seenKeys?.insert(ExactString(key)).inserted == true else { throw Unsupported() }
    }

    /// Starts the next element of the array `serial`; returns its index.
    func beginElement(_ serial: Int) throws -> Int {
        let frame = try innermostFrame(serial)
        let index = frame.pointee.count
        beginChild(of: frame)
        return index
    }

    /// The elements written into the array `serial`.
    func elementCount(_ serial: Int) -> Int {
        guard frames.count > 0, frames.lastAddress.pointee.serial == serial else { return 0 }
        return frames.lastAddress.pointee.count
    }

    /// Starts the single value of the level `serial`, which must be the innermost one and have
    /// written nothing.
    func beginSingleValue(level serial: Int) throws {
        guard !failed, levels.count > 1 else { throw Unsupported() }
        let current = levels.lastAddress
        guard current.pointee.serial == serial, current.pointee.container == Self.noContainer,
            current.pointee.model == nil
        else { throw Unsupported() }
        current.pointee.container = Self.singleValue
    }

    /// An encoder for the entry just begun in the frame of the innermost level (see
    /// `superEncoder()`): a level of its own, finished when that frame goes on.
    func superEncoder(key: PathKey, frame serial: Int) -> any Encoder {
        guard !failed, frames.count > 0, frames.lastAddress.pointee.serial == serial, levels.count > 0,
            levels.lastAddress.pointee.container == serial, levels.lastAddress.pointee.model == nil
        else {
            return unsupportedEncoder()
        }
        let level = takeSerial()
        levels.append(Level(serial: level, key: key, model: nil, container: Self.noContainer, isDetached: true))
        return DirectLevelEncoder(encoder: self, level: level)
    }

    /// Marks the run failed, for methods that cannot throw.
    func markUnsupported() {
        failed = true
    }

    /// Marks the run failed and returns an encoder of no level.
    func unsupportedEncoder() -> any Encoder {
        failed = true
        return DirectLevelEncoder(encoder: self, level: Self.noContainer)
    }
}
