@_spi(Coders) import ArchiveFormats
import Foundation

/// State shared by every decoder of one ``DirectJSONDecoder`` run: the text, its
/// ``JSONStructure``, and which containers the models have read.
final class DirectDecodingSession {
    let text: JSONText
    let structure: JSONStructure
    let containers: FlatBuffer<JSONStructure.Container>
    let entries: FlatBuffer<UInt32>
    let keyLengths: FlatBuffer<UInt8>
    let registry: ModelRegistry
    let options: DecodingOptions
    let catalog: MigrationCatalog
    // Touched on every model object; never accessed overlappingly (one run, one thread).
    @exclusivity(unchecked) var infos: ModelInfoCache
    /// Set when the run ended (``DirectJSONDecoder/unsupported()``), even if a model caught
    /// the error.
    @exclusivity(unchecked) var failed = false
    /// Whether the bytes are still there: a container or decoder a model kept past the run finds
    /// `false` and reads nothing (the bytes are only borrowed for the run).
    @exclusivity(unchecked) var isOpen = true
    /// One bit per container: read (its members checked, or its elements walked) or not.
    @exclusivity(unchecked) private var readBits: [UInt64]
    @exclusivity(unchecked) private var readCount = 0
    @exclusivity(unchecked) private var scratch: [UInt8] = []
    @exclusivity(unchecked) private var shortStrings = ShortStringCache()
    /// Objects no one holds any more (``recycle(_:)``), emptied, for the next ones read: an
    /// array of models of one shape then allocates its objects once.
    @exclusivity(unchecked) private var spareObjects = MoveStack<DirectObject>(initialCapacity: 16)
    private static let maxSpareObjects = 16
    /// The room every object is made with at least, so that any spare one serves any object of
    /// up to this many members (an upgrade's archived object, its upgraded one and the
    /// dictionaries it makes differ in size): 16 bytes a member.
    static let pooledCapacity = 16
    /// The makers of the keyed containers, by key type.
    let keyedContainerMakers = KeyedContainerMakers()
    /// Upgrades by moving keys (``DirectMigration``): the ones objects were last upgraded
    /// with, and every one made (their keys must outlive the objects that point at them).
    @exclusivity(unchecked) var recentMigrations: [DirectMigration] = []
    @exclusivity(unchecked) var migrations: [DirectMigration] = []
    /// The values upgrades added, referred to by ``DirectJSONDecoder/ValueRef/constant(_:)``.
    @exclusivity(unchecked) var constants: [ArchiveValue] = []
    /// The layouts of the dictionaries upgrades make (their keys and values' sources), and the
    /// values of every dictionary made, in its layout's order: a made dictionary costs 8 bytes
    /// per member (``DirectJSONDecoder/ValueRef/dictionary(layout:first:)``).
    @exclusivity(unchecked) var madeLayouts: [DirectMigration.MadeLayout] = []
    let madeValues = FlatBuffer<DirectMigration.MadeValue>(capacity: 0)

    init(text: JSONText, structure: JSONStructure, decoder: ArchiveDecoder) {
        self.text = text
        self.structure = structure
        self.containers = structure.containers
        self.entries = structure.entries
        self.keyLengths = structure.keyLengths
        self.registry = decoder.registry
        self.options = decoder.options
        self.catalog = decoder.registry.catalog
        self.infos = ModelInfoCache(registry: decoder.registry)
        self.readBits = Array(repeating: 0, count: (structure.containers.count + 63) / 64)
    }

    /// Ends the run: the tree decoder takes over, even if a model catches the error.
    func unsupported() -> DirectJSONDecoder.Unsupported {
        failed = true
        return DirectJSONDecoder.Unsupported()
    }

    /// Whether every container of the text was read: the ones that were not might hold objects
    /// the migration pass would stop at.
    var allContainersRead: Bool { readCount == containers.count }

    @inline(__always)
    func markRead(_ ordinal: Int) {
        let word = ordinal &>> 6
        let bit = UInt64(1) &<< UInt64(truncatingIfNeeded: ordinal & 63)
        if readBits[word] & bit == 0 {
            readBits[word] |= bit
            readCount &+= 1
        }
    }

    /// The string whose opening quote is at `offset`. One without escapes is made from its
    /// bytes as they are, a short one looked up by them first (``ShortStringCache``): archives
    /// repeat short values.
    @inline(__always)
    func string(at offset: Int) -> String {
        let contentStart = offset &+ 1
        let (stop, _) = text.scanString(from: contentStart)
        guard stop < text.end, text.bytes[stop] == UInt8(ascii: "\"") else {
            return text.string(at: offset, scratch: &scratch)
        }
        let content = UnsafeBufferPointer(start: text.bytes + contentStart, count: stop &- contentStart)
        // The cache reads 16 bytes from the start.
        guard content.count > 0, content.count <= ShortStringCache.maxLength, text.end &- contentStart >= 16 else {
            return JSONParser.string(validUTF8: content)
        }
        return shortStrings.string(at: text.bytes + contentStart, length: content.count) {
            JSONParser.string(validUTF8: content)
        }
    }

    // MARK: Walking values

    /// The value starting at `offset`. `nextOrdinal` (the ordinal the next container takes) moves
    /// past this value's containers, and `nextEntry` past their entries.
    @inline(__always)
    func value(at offset: Int, nextOrdinal: inout Int, nextEntry: inout Int) -> DirectJSONDecoder.ValueRef {
        var cursor = JSONStructure.Cursor(entry: nextEntry, ordinal: nextOrdinal)
        let ordinal = structure.containerOrdinal(at: offset, in: text, cursor: &cursor)
        nextOrdinal = cursor.ordinal
        nextEntry = cursor.entry
        return DirectJSONDecoder.ValueRef(offset: offset, ordinal: ordinal)
    }

    /// The elements of an array, in order; marks the array read.
    func elements(of array: DirectJSONDecoder.ValueRef) -> ElementCursor {
        markRead(array.ordinal)
        let container = containers[array.ordinal]
        return ElementCursor(
            session: self, first: Int(container.firstEntry), count: Int(container.count),
            nextOrdinal: array.ordinal &+ 1)
    }

    /// Walks the elements of one array.
    struct ElementCursor {
        /// Not retained: whoever holds a cursor holds the session (a decoder, or a container
        /// that holds its decoder), and copying a cursor then counts no reference.
        unowned(unsafe) let session: DirectDecodingSession
        private var nextEntry: Int
        let count: Int
        private(set) var index = 0
        private var nextOrdinal: Int

        init(session: DirectDecodingSession, first: Int, count: Int, nextOrdinal: Int) {
            self.session = session
            self.nextEntry = first
            self.count = count
            self.nextOrdinal = nextOrdinal
        }

        var isAtEnd: Bool { index >= count }

        /// The first byte of the next element (at the end: of the closing bracket's entry, unused).
        var offset: Int { Int(session.entries[nextEntry]) }

        @inline(__always)
        mutating func next() -> DirectJSONDecoder.ValueRef? {
            guard index < count else { return nil }
            let offset = Int(session.entries[nextEntry])
            nextEntry &+= 1
            let value = session.value(at: offset, nextOrdinal: &nextOrdinal, nextEntry: &nextEntry)
            index &+= 1
            return value
        }
    }

    // MARK: Objects

    /// An empty object with room for `capacity` members whose keys are at `keys`: the last
    /// spare one when it has the room, a new one otherwise.
    @inline(__always)
    func makeObject(capacity: Int, keys: UnsafePointer<UInt8>) -> DirectObject {
        // Every spare has room for ``pooledCapacity`` members.
        if capacity <= Self.pooledCapacity, spareObjects.count > 0 {
            // Emptied when it was recycled.
            let object = spareObjects.removeLast()
            object.state.pointee.keys = keys
            return object
        }
        return DirectObject.make(capacity: Swift.max(capacity, Self.pooledCapacity), keys: keys)
    }

    /// Keeps `object`, which nothing else holds, for ``makeObject(capacity:keys:)``, emptied
    /// but for its decoder and model (``DirectObject/reset(keys:)``; the run lets go of the spares
    /// when it ends, ``releaseSpareObjects()``).
    @inline(__always)
    func recycle(_ object: consuming DirectObject) {
        guard spareObjects.count < Self.maxSpareObjects, object.state.pointee.capacity >= Self.pooledCapacity else {
            return
        }
        object.reset(keys: text.bytes)
        spareObjects.append(consume object)
    }

    /// Takes over the retain `object` comes with: keeps the object for
    /// ``makeObject(capacity:keys:)`` when nothing else holds it, lets go of it otherwise.
    @inline(__always)
    func recycle(retained object: Unmanaged<DirectObject>) {
        var strong = object.takeRetainedValue()
        // Handed on, not copied: a copy is a retain and a release.
        if isKnownUniquelyReferenced(&strong) { recycle(consume strong) }
    }

    /// Lets go of the spare objects (each holds the decoder it last served, which holds this
    /// session): the run calls it when it ends.
    func releaseSpareObjects() {
        while spareObjects.count > 0 { _ = spareObjects.removeLast() }
    }

    /// Reads the keys of the object `value` once: its markup (`$type`, `$version`; `$archive`
    /// at the top), its fields and where their values are; upgrades it when its chain only
    /// moves keys (``upgraded(_:typeName:version:depth:)``; `depth` is where it is in the
    /// upgraded archive). Ends the run for anything the tree decoder must handle (see
    /// ``DirectJSONDecoder``); marks the object read.
    func readObject(_ value: DirectJSONDecoder.ValueRef, depth: Int) throws -> DirectObject {
        let count = Int(containers[value.ordinal].count)
        var cursor = structure.cursor(overContainer: value.ordinal)
        let object = makeObject(capacity: count, keys: text.bytes)
        let state = object.state
        let bytes = text.bytes
        var typeName: String?
        var version: Int?
        var sawVersion = false
        for index in 0..<count {
            // Escaped and non-ASCII keys are left to the tree (both compare keys by their exact
            // scalars; this path only reads plain ones).
            guard let entry = structure.nextMember(in: text, cursor: &cursor), entry.keyIsASCII else {
                throw unsupported()
            }
            let keyStart = entry.keyStart
            let keyLength = entry.keyLength
            let member = DirectJSONDecoder.ValueRef(offset: entry.value, ordinal: entry.ordinal)
            if keyLength > 0 && bytes[keyStart] == UInt8(ascii: "$") {
                switch MarkupKey(bytes + keyStart, length: keyLength) {
                case .type?:
                    guard typeName == nil, bytes[entry.value] == UInt8(ascii: "\"") else { throw unsupported() }
                    typeName = try self.typeName(at: entry.value)
                    if index == 0 { state.pointee.startsMarkup = true }
                case .version?:
                    var position = entry.value
                    guard !sawVersion, member.ordinal < 0, let number = text.number(at: &position),
                        case .int(let archived) = number, archived >= 0, let int = Int(exactly: archived)
                    else { throw unsupported() }
                    version = int
                    sawVersion = true
                case .archive? where value.ordinal == 0:
                    // A plain key of the top-level dictionary (the envelope's marker).
                    object.append(keyStart: keyStart, keyLength: keyLength, value: member)
                    if index == 0 { state.pointee.startsMarkup = true }
                default:
                    throw unsupported()
                }
            } else {
                object.append(keyStart: keyStart, keyLength: keyLength, value: member)
            }
        }
        if sawVersion && typeName == nil { throw unsupported() }
        markRead(value.ordinal)
        if let typeName, needsUpgrade(typeName, version) {
            // The upgrade checks the keys: the ones it was laid out for are all different.
            let upgraded = try upgraded(object, typeName: typeName, version: version, depth: depth)
            recycle(object)
            return upgraded
        }
        guard !object.hasDuplicateKey() else { throw unsupported() }
        // Up to date, but holding a key the last step moves away: the pass checks the layout.
        if typeName != nil && object.holdsLastStepSource(recentType) { throw unsupported() }
        state.pointee.typeName = typeName
        state.pointee.version = version
        return object
    }

    /// The `$` keys an object may have here.
    private enum MarkupKey {
        case type, version, archive

        @inline(__always)
        init?(_ key: UnsafePointer<UInt8>, length: Int) {
            switch length {
            case 5 where memcmp(key, "$type", 5) == 0: self = .type
            case 8 where memcmp(key, "$version", 8) == 0: self = .version
            case 8 where memcmp(key, "$archive", 8) == 0: self = .archive
            default: return nil
            }
        }
    }

    /// The last type name read, and whether objects of it need upgrading.
    @exclusivity(unchecked) private var recentType = RecentTypeName()

    /// The `$type` string at `offset`, the same `String` as the previous object's when the
    /// bytes are equal.
    private func typeName(at offset: Int) throws -> String {
        let contentStart = offset &+ 1
        let (stop, _) = text.scanString(from: contentStart)
        if stop < text.end, text.bytes[stop] == UInt8(ascii: "\""),
            let name = recentType.name(spelledBy: text.bytes + contentStart, length: stop &- contentStart)
        {
            return name
        }
        let name = string(at: offset)
        guard !name.isEmpty else { throw unsupported() }
        return name
    }

    /// `MigrationCatalog.needsUpgrade(typeName:version:)`, remembered for the last type.
    @inline(__always)
    private func needsUpgrade(_ typeName: String, _ version: Int?) -> Bool {
        recentType.needsUpgrade(typeName, version, catalog: catalog)
    }

    /// The value to decode: the envelope's root, or the top-level object. `nil` for what the
    /// tree decoder must read: plain JSON, a plain envelope, an envelope of another format
    /// version, or a document with a migration chain.
    func rootValue() throws -> DirectJSONDecoder.ValueRef? {
        let top = DirectJSONDecoder.ValueRef(offset: text.skipWhitespace(from: 0), ordinal: 0)
        let object = try readObject(top, depth: 0)
        guard object.state.pointee.startsMarkup else { return nil }
        if object.typeName != nil { return top }
        func member(_ key: String) -> DirectJSONDecoder.ValueRef? {
            object.find(key)
        }
        guard let marker = member(ArchiveEnvelope.markerKey), marker.ordinal < 0 else { return nil }
        // A plain envelope holds a plain document, which the tree decoder reads with its chain.
        guard member(ArchiveEnvelope.plainKey) == nil else { return nil }
        var position = marker.offset
        guard case .int(let format) = text.number(at: &position), format >= 1,
            format <= ArchiveEnvelope.currentFormatVersion
        else { return nil }
        var documentVersion: Int64?
        if let version = member(ArchiveEnvelope.documentVersionKey), bytes(version) != UInt8(ascii: "n") {
            var position = version.offset
            guard version.ordinal < 0, case .int(let number) = text.number(at: &position), number >= 0 else {
                return nil
            }
            documentVersion = number
        }
        if let document = member(ArchiveEnvelope.documentKey), bytes(document) != UInt8(ascii: "n") {
            guard bytes(document) == UInt8(ascii: "\"") else { return nil }
            // A document with a chain: the pass leaves it alone only at the chain's current version.
            if let chain = catalog.document(named: string(at: document.offset)) {
                guard documentVersion == Int64(chain.currentVersion) else { return nil }
            }
        }
        // A way down to an older release (`WayDown`) is for older apps: when every object is one
        // this app knows, the tree path leaves it unread too (any other object ends the run).
        if let wayDown = member(ArchiveEnvelope.wayDownKey), wayDown.ordinal >= 0 {
            let end = wayDown.ordinal &+ 1 &+ Int(containers[wayDown.ordinal].descendants)
            for ordinal in wayDown.ordinal..<end { markRead(ordinal) }
        }
        return member(ArchiveEnvelope.rootKey)
    }

    private func bytes(_ value: DirectJSONDecoder.ValueRef) -> UInt8 {
        text.bytes[value.offset]
    }
}
