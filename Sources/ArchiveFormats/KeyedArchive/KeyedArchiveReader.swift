import Foundation

/// Reads an NSKeyedArchiver archive (a binary or XML property list) into an archive tree,
/// without Foundation's unarchiver: every part is validated and every resource is bounded by
/// `ArchiveLimits`.
///
/// ```swift
/// let root = try KeyedArchiveReader.read(data, options: ArchiveReadingOptions(limits: .untrusted))
/// ```
///
/// The envelope must be exact: `$archiver` is `"NSKeyedArchiver"`, `$version` is 100000, `$top`
/// is a dictionary and `$objects` an array whose first entry is `"$null"`. The result is the
/// root object (see ``KeyedArchiveOptions/rootKey`` for archives with other top-level keys),
/// not the envelope. When `$top` also holds `$archive` (with `$document` and
/// `$documentVersion`: an archive this library wrote from an envelope, see
/// ``KeyedArchiveOptions/writesEnvelope``), the result is that envelope around the root
/// object, unless the markup is ``MarkupMode/plain``.
///
/// How objects map onto the tree:
///
/// | archived | tree |
/// |---|---|
/// | inline string, NSString/NSMutableString (`NS.string`) | `ArchiveValue.string(_:)` |
/// | inline number or Boolean | `ArchiveValue.int(_:)`, `ArchiveValue.uint(_:)`, `ArchiveValue.double(_:)`, `ArchiveValue.bool(_:)` |
/// | inline data, NSData/NSMutableData (`NS.data`) | `ArchiveValue.data(_:)` |
/// | NSDate (`NS.time`) | `ArchiveValue.date(_:)` |
/// | NSArray, NSSet, NSOrderedSet, NSCountedSet (and mutable forms) | `ArchiveValue.array(_:)` (a counted set repeats each object by its count) |
/// | NSDictionary, NSMutableDictionary with string keys | `ArchiveValue.dictionary(_:)` |
/// | NSURL (`NS.base`, `NS.relative`) | the absolute URL as a string |
/// | NSUUID (`NS.uuidbytes`) | the uppercase UUID string |
/// | NSNull, UID 0, a `"$null"` entry | `ArchiveValue.null` |
/// | NSValue holding a range, point, size, rectangle or edge insets | a dictionary: `location`/`length`, `x`/`y`, `width`/`height`, `x`/`y`/`width`/`height`, `top`/`left`/`bottom`/`right` |
/// | any other class | `ArchiveValue.object(_:)`: the class name, `$classes` after the class itself (none when it is only `NSObject`), `MTLModelVersion` as the version, the other keys as fields |
///
/// A field key the archiver escaped (`$$key`, for a key that starts with `$`) is unescaped;
/// unkeyed values keep their generated keys `$0`, `$1`, ….
///
/// Identity: an object (any class of the last row) reached more than once — shared, or part of
/// a cycle — is written in full where the depth-first walk meets it first, with its UID as its
/// `ArchiveObject.id`; every later use is a `ArchiveValue.reference(_:)` to that UID.
/// Foundation collections and values have no identity in the tree: each use expands them
/// again, and every node copied that way counts against
/// `ArchiveLimits.maxReferencesExpanded`. A collection that contains itself through other
/// collections only (an NSMutableArray holding itself) cannot be expanded; it stays an object
/// of its class with its `NS.objects` (and `NS.keys`) fields and an identity, so the cycle
/// becomes a reference. An NSDictionary whose keys are not all strings stays such an object
/// too.
///
/// The walk starts at `$top` and validates what it follows: every UID it meets must be in range,
/// every `$class` must lead to a valid class entry. Entries nothing refers to are not read. Time
/// is linear in the archive plus the copies counted against
/// `ArchiveLimits.maxReferencesExpanded`; when a collection turns out to contain itself, the
/// collections on cycles are found (Tarjan, linear) and the walk starts over once.
///
/// - Throws: `ArchiveError` with code `ArchiveError.Code.malformedInput` naming what is wrong
///   and where in the archive (`$objects[12]["NS.keys"][3]`), or
///   `ArchiveError.Code.limitExceeded` naming the limit.
struct KeyedArchiveReader {
    /// Reads an archive from bytes.
    static func read(_ data: Data, options: ArchiveReadingOptions) throws -> ArchiveValue {
        let plain = ArchiveReadingOptions(limits: options.limits, markup: .plain)
        let propertyList = try PropertyListReader.read(data, options: plain)
        return try read(propertyList: propertyList, options: options)
    }

    /// Reads an archive from its property list, read plainly (UIDs as references).
    static func read(propertyList: ArchiveValue, options: ArchiveReadingOptions) throws -> ArchiveValue {
        let (top, objects) = try envelope(of: propertyList, limits: options.limits)
        var reader = KeyedArchiveReader(objects: objects, limits: options.limits)
        let restoresEnvelope = options.markup != .plain
        do {
            return try reader.readRoot(top, options: options.keyedArchive, restoresEnvelope: restoresEnvelope)
        } catch is CollectionCycle {
            // A collection was entered again while being expanded: find the collections that
            // contain themselves and read again, keeping those as objects.
            let cyclic = try reader.collectionsOnCycles()
            reader.reset(identifying: cyclic)
            return try reader.readRoot(top, options: options.keyedArchive, restoresEnvelope: restoresEnvelope)
        }
    }

    /// Whether a property list is an NSKeyedArchiver archive: a dictionary with `$archiver`.
    static func isKeyedArchive(_ propertyList: ArchiveValue) -> Bool {
        guard case .dictionary(let entries) = propertyList else { return false }
        return entries.index(forKey: "$archiver") != nil
    }

    // MARK: - Envelope

    /// Validates the envelope and returns `$top` and `$objects`.
    private static func envelope(of propertyList: ArchiveValue, limits: ArchiveLimits) throws -> (
        ArchiveDictionary, [ArchiveValue]
    ) {
        guard case .dictionary(let envelope) = propertyList else {
            throw ArchiveError(
                .malformedInput,
                "a keyed archive is a dictionary at the top level, not a \(propertyList.kind)")
        }
        var archiver: ArchiveValue?
        var version: ArchiveValue?
        var top: ArchiveValue?
        var objects: ArchiveValue?
        for (key, value) in envelope {
            switch key {
            case "$archiver": archiver = value
            case "$version": version = value
            case "$top": top = value
            case "$objects": objects = value
            default: break
            }
        }
        guard let archiver else {
            throw ArchiveError(.malformedInput, "the archive has no '$archiver': it is not an NSKeyedArchiver archive")
        }
        guard case .string(let archiverName) = archiver, archiverName.hasSameScalars(as: "NSKeyedArchiver") else {
            throw ArchiveError(
                .malformedInput, "'$archiver' is \(describe(archiver)), not \"NSKeyedArchiver\"",
                path: [.key("$archiver")])
        }
        guard let version else {
            throw ArchiveError(.malformedInput, "the archive has no '$version'")
        }
        guard case .int(100_000) = version else {
            throw ArchiveError(
                .malformedInput, "'$version' is \(describe(version)); NSKeyedArchiver archives have version 100000",
                path: [.key("$version")])
        }
        guard let top else {
            throw ArchiveError(.malformedInput, "the archive has no '$top' (the table of its root objects)")
        }
        guard case .dictionary(let topEntries) = top else {
            throw ArchiveError(.malformedInput, "'$top' must be a dictionary, not a \(top.kind)", path: [.key("$top")])
        }
        guard let objects else {
            throw ArchiveError(.malformedInput, "the archive has no '$objects' (the table of its objects)")
        }
        guard case .array(let table) = objects else {
            throw ArchiveError(
                .malformedInput, "'$objects' must be an array, not a \(objects.kind)", path: [.key("$objects")])
        }
        guard case .string("$null")? = table.first else {
            throw ArchiveError(
                .malformedInput, "the first entry of '$objects' must be the string \"$null\"",
                path: table.isEmpty ? [.key("$objects")] : [.key("$objects"), .index(0)])
        }
        guard table.count <= limits.maxObjectCount else {
            throw ArchiveError.limitExceeded(
                .objectCount,
                "'$objects' has \(table.count) entries, more than the limit of \(limits.maxObjectCount)",
                path: [.key("$objects")])
        }
        return (topEntries, table)
    }

    /// A short description of an unexpected envelope value.
    private static func describe(_ value: ArchiveValue) -> String {
        switch value {
        case .string(let text): return "\"\(text.prefix(40))\""
        case .int(let number): return "\(number)"
        default: return "a \(value.kind)"
        }
    }

    // MARK: - State

    /// Where an entry stands in the walk.
    enum Visit: UInt8 {
        /// Not met yet.
        case unvisited
        /// A collection being expanded.
        case expanding
        /// A collection expanded before (it is expanded again where it is met again).
        case expanded
        /// An object with identity, written inline where first met: later uses are references.
        case identified
        /// A Foundation value (NSURL, NSString, …) being read: meeting it again is a cycle.
        case readingValue
    }

    /// Thrown (and caught by ``read(propertyList:options:)``) when a collection is entered
    /// while it is being expanded, before the collections on cycles are known.
    struct CollectionCycle: Error {}

    /// Where a UID or value sits in the archive, turned into an `ArchivePath` only for errors.
    struct Site {
        /// The `$objects` index of the entry holding it; -1 for `$top`.
        var entry: Int
        /// The key inside that entry.
        var key: String
        /// The position in the key's inline array; -1 when the key holds the value directly.
        var index: Int = -1

        var path: ArchivePath {
            var components: [ArchivePath.Component] =
                entry < 0 ? [.key("$top")] : [.key("$objects"), .index(entry)]
            components.append(.key(key))
            if index >= 0 { components.append(.index(index)) }
            return ArchivePath(components)
        }
    }

    let objects: [ArchiveValue]
    let limits: ArchiveLimits
    /// The walk state of each entry.
    var visits: [Visit]
    /// For each entry, its class in ``classes`` (+1), 0 when not looked up yet.
    var classSlots: [Int32]
    var classes: [KeyedArchiveClass] = []
    /// Collections on cycles (kept as objects), once known.
    var cyclic: [Bool]?
    /// UIDs that references were written for.
    var referenced: Set<Int> = []
    /// How many objects were written with an identity.
    var identifiedCount = 0
    /// Tree nodes written.
    var nodeCount = 0
    /// Nodes written while expanding a collection again.
    var expandedCount = 0
    /// How many expansions of an already expanded collection are under way.
    var reexpanding = 0
    /// Collections expanded a second time, with the size and height of their tree: every later
    /// use shares that value (and counts its nodes) instead of walking the collection again, so a
    /// reference bomb stops at its first uses over the limit, not after copying a million values.
    /// (The first expansion cannot be kept: it holds the objects met there for the first time in
    /// full, where later expansions hold references to them.)
    var reexpansions: [Int: Expansion] = [:]

    /// A collection's tree, kept for reuse.
    struct Expansion {
        var value: ArchiveValue
        var nodes: Int
        var height: Int
    }

    init(objects: [ArchiveValue], limits: ArchiveLimits) {
        self.objects = objects
        self.limits = limits
        self.visits = Array(repeating: .unvisited, count: objects.count)
        self.classSlots = Array(repeating: 0, count: objects.count)
    }

    /// Forgets the walk (class look-ups stay) and sets the collections to keep as objects.
    mutating func reset(identifying cyclic: [Bool]) {
        self.cyclic = cyclic
        for index in visits.indices { visits[index] = .unvisited }
        referenced = []
        identifiedCount = 0
        nodeCount = 0
        expandedCount = 0
        reexpanding = 0
        reexpansions = [:]
    }

    // MARK: - Root

    /// The root value, from `$top`; identities nothing refers to are removed afterwards. With
    /// `restoresEnvelope`, a root object read from its key (`root` or `rootKey`) comes back in
    /// the envelope `$top` records beside it, if any.
    mutating func readRoot(_ top: ArchiveDictionary, options: KeyedArchiveOptions, restoresEnvelope: Bool) throws
        -> ArchiveValue
    {
        var root = try topValue(top, rootKey: options.rootKey, readsAllTopLevelObjects: options.readsAllTopLevelObjects)
        if identifiedCount > referenced.count {
            Self.removeUnusedIdentities(&root, keeping: referenced)
        }
        if restoresEnvelope, options.rootKey != nil || top.index(forKey: "root") != nil,
            let marker = top[Self.envelopeMarkerKey]
        {
            return try envelope(around: root, marker: marker, top: top)
        }
        return root
    }

    // MARK: - Envelope in `$top`

    /// The `$top` key of an envelope's format (``ArchiveEnvelope/currentFormatVersion``): one `$`,
    /// which `NSKeyedArchiver` never writes there (it escapes an app's keys to `$$…`).
    static let envelopeMarkerKey = "$archive"
    /// The `$top` key of an envelope's document name.
    static let envelopeDocumentKey = "$document"
    /// The `$top` key of an envelope's document version.
    static let envelopeDocumentVersionKey = "$documentVersion"

    /// The envelope `$top` records around `root`: its format, document name and version.
    private mutating func envelope(around root: ArchiveValue, marker: ArchiveValue, top: ArchiveDictionary) throws
        -> ArchiveValue
    {
        var entries = ArchiveDictionary(minimumCapacity: 4)
        let format = try value(marker, at: Site(entry: -1, key: Self.envelopeMarkerKey), depth: 1)
        guard case .int(let number) = format, number >= 1 else {
            throw Self.envelopeError(Self.envelopeMarkerKey, "a positive integer (the envelope format)", format)
        }
        entries.appendUnchecked(format, forKey: ArchiveEnvelope.markerKey)
        if let stored = top[Self.envelopeDocumentKey] {
            let name = try value(stored, at: Site(entry: -1, key: Self.envelopeDocumentKey), depth: 1)
            guard case .string = name else {
                throw Self.envelopeError(Self.envelopeDocumentKey, "a string (the document name)", name)
            }
            entries.appendUnchecked(name, forKey: ArchiveEnvelope.documentKey)
        }
        if let stored = top[Self.envelopeDocumentVersionKey] {
            let version = try value(stored, at: Site(entry: -1, key: Self.envelopeDocumentVersionKey), depth: 1)
            guard case .int(let number) = version, number >= 0 else {
                throw Self.envelopeError(
                    Self.envelopeDocumentVersionKey, "a non-negative integer (the document version)", version)
            }
            entries.appendUnchecked(version, forKey: ArchiveEnvelope.documentVersionKey)
        }
        entries.appendUnchecked(root, forKey: ArchiveEnvelope.rootKey)
        try countNode()
        return .dictionary(entries)
    }

    @inline(never)
    private static func envelopeError(_ key: String, _ expected: String, _ found: ArchiveValue) -> ArchiveError {
        ArchiveError(
            .malformedInput, "'\(key)' in '$top' must be \(expected), not \(describe(found))",
            path: [.key("$top"), .key(key)])
    }

    private mutating func topValue(_ top: ArchiveDictionary, rootKey: String?, readsAllTopLevelObjects: Bool) throws
        -> ArchiveValue
    {
        if let rootKey {
            let key = Self.escape(rootKey)
            guard let stored = top[key] else {
                let keys = top.keys.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
                throw ArchiveError(
                    .malformedInput,
                    "the archive has no root object: '$top' has no key '\(rootKey)'"
                        + (keys.isEmpty ? " (it is empty)" : " (it has \(keys))"),
                    path: [.key("$top")])
            }
            return try value(stored, at: Site(entry: -1, key: key), depth: 0)
        }
        if let stored = top["root"] {
            return try value(stored, at: Site(entry: -1, key: "root"), depth: 0)
        }
        guard 0 < limits.maxDepth else { throw depthError(at: [.key("$top")]) }
        if let order = Self.unkeyedOrder(top) {
            var elements: [ArchiveValue] = []
            elements.reserveCapacity(order.count)
            for position in order {
                let (key, element) = top[position]
                elements.append(try value(element, at: Site(entry: -1, key: key), depth: 1))
            }
            try countNode()
            return .array(elements)
        }
        guard readsAllTopLevelObjects else {
            let keys = top.keys.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
            throw ArchiveError(
                .malformedInput,
                "the archive has no root object: '$top' has no key 'root'"
                    + (keys.isEmpty
                        ? " (it is empty)" : " (it has \(keys); read one with KeyedArchiveOptions.rootKey)"),
                path: [.key("$top")])
        }
        var entries = ArchiveDictionary(minimumCapacity: top.count)
        var unescaped = false
        for (key, element) in top {
            let plainKey = Self.unescape(key)
            unescaped = unescaped || plainKey.utf8.count != key.utf8.count
            entries.appendUnchecked(try value(element, at: Site(entry: -1, key: key), depth: 1), forKey: plainKey)
        }
        if unescaped, let duplicate = entries.firstDuplicateKey() {
            throw ArchiveError(.malformedInput, "'$top' holds the key '\(duplicate)' twice", path: [.key("$top")])
        }
        try countNode()
        return .dictionary(entries)
    }

    /// For `$top` keys that are exactly `$0`, `$1`, … `$n-1` (in any order), the positions in
    /// numeric order; `nil` otherwise.
    static func unkeyedOrder(_ top: ArchiveDictionary) -> [Int]? {
        guard !top.isEmpty else { return nil }
        var order = [Int](repeating: -1, count: top.count)
        for (position, entry) in top.enumerated() {
            guard let number = generatedKeyNumber(entry.key), number < top.count, order[number] < 0 else {
                return nil
            }
            order[number] = position
        }
        return order
    }

    /// The number of an unkeyed value's generated key (`$0`, `$12`), or `nil` for any other key.
    static func generatedKeyNumber(_ key: String) -> Int? {
        let utf8 = key.utf8
        guard utf8.count >= 2, utf8.count <= 10, utf8.first == UInt8(ascii: "$") else { return nil }
        let digits = utf8.dropFirst()
        guard digits.first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        var number = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return number
    }

    // MARK: - Keys

    /// The archiver's spelling of a key: one more `$` in front of a key that starts with `$`,
    /// except the generated keys of unkeyed values (`$0`, `$1`, …), which are never escaped.
    static func escape(_ key: String) -> String {
        guard key.utf8.first == UInt8(ascii: "$"), generatedKeyNumber(key) == nil else { return key }
        return "$" + key
    }

    /// A key as the app encoded it: `$$key` → `$key`; `$class` and generated keys stay.
    @inline(__always)
    static func unescape(_ key: String) -> String {
        var utf8 = key.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "$"), utf8.next() == UInt8(ascii: "$") else { return key }
        return String(key.dropFirst())
    }

    // MARK: - Values

    /// The tree value of a value stored inline in an entry or in `$top`: a UID is resolved,
    /// inline arrays and dictionaries are read element by element, everything else is itself.
    mutating func value(_ value: ArchiveValue, at site: Site, depth: Int) throws -> ArchiveValue {
        switch value {
        case .reference(let uid):
            return try resolve(uid.rawValue, at: site, depth: depth)
        case .array, .dictionary:
            return try inlineCollection(value, at: site, depth: depth)
        case .object:
            // Property lists read plainly hold no objects.
            throw Self.unexpectedObject(at: site)
        default:
            try countNode()
            return value
        }
    }

    /// An array or dictionary stored inline in an entry, read element by element.
    @inline(never)
    private mutating func inlineCollection(_ value: ArchiveValue, at site: Site, depth: Int) throws -> ArchiveValue {
        guard depth < limits.maxDepth else { throw depthError(at: site.path) }
        if case .array(let elements) = value {
            var result: [ArchiveValue] = []
            result.reserveCapacity(elements.count)
            var inner = site
            for (index, element) in elements.enumerated() {
                inner.index = index
                result.append(try self.value(element, at: inner, depth: depth + 1))
            }
            try countNode()
            return .array(result)
        }
        guard case .dictionary(let dictionary) = value else { return value }
        var result = ArchiveDictionary(minimumCapacity: dictionary.count)
        for (key, element) in dictionary {
            result.appendUnchecked(try self.value(element, at: site, depth: depth + 1), forKey: key)
        }
        try countNode()
        return .dictionary(result)
    }

    /// The tree value of the entry a UID points to.
    mutating func resolve(_ uid: Int, at site: Site, depth: Int) throws -> ArchiveValue {
        guard uid != 0 else {
            try countNode()
            return .null
        }
        guard uid > 0, uid < objects.count else {
            throw Self.danglingUID(uid, count: objects.count, at: site)
        }
        if case .dictionary(let entry) = objects[uid] {
            return try object(uid, entry, depth: depth)
        }
        return try inlineObject(uid)
    }

    /// An entry of `$objects` that is not a dictionary: a string, number or data.
    @inline(never)
    private mutating func inlineObject(_ uid: Int) throws -> ArchiveValue {
        switch objects[uid] {
        case .string(let text):
            try countNode()
            return text == "$null" ? .null : .string(text)
        case .int, .uint, .double, .bool, .data, .date:
            try countNode()
            return objects[uid]
        case let other:
            throw ArchiveError(
                .malformedInput,
                "'$objects' entry \(uid) is a \(other.kind); an archived object is a dictionary with '$class', a "
                    + "string, a number or data",
                path: [.key("$objects"), .index(uid)])
        }
    }

    /// The tree value of an object entry (a dictionary with `$class`).
    private mutating func object(_ uid: Int, _ entry: ArchiveDictionary, depth: Int) throws -> ArchiveValue {
        let classIndex = try self.classIndex(of: uid, entry)
        switch classes[classIndex].kind {
        case .object:
            return try identifiedObject(uid, entry, classIndex: classIndex, depth: depth)
        case .array, .countedSet, .dictionary:
            return try collection(uid, entry, classIndex: classIndex, depth: depth)
        case .value:
            if visits[uid] != .identified, let geometry = try geometryValue(uid, entry) {
                return geometry
            }
            return try identifiedObject(uid, entry, classIndex: classIndex, depth: depth)
        case .null:
            try countNode()
            return .null
        case .string, .data, .date, .url, .uuid:
            return try foundationObject(uid, entry, classIndex: classIndex, depth: depth)
        }
    }

    /// An NSValue holding a range, point, size, rectangle or edge insets, as a dictionary.
    @inline(never)
    private mutating func geometryValue(_ uid: Int, _ entry: ArchiveDictionary) throws -> ArchiveValue? {
        guard let geometry = geometry(uid, entry) else { return nil }
        try countNode(1 + (geometry.dictionaryValue?.count ?? 0))
        return geometry
    }

    /// An NSString, NSData, NSDate, NSURL or NSUUID object.
    @inline(never)
    private mutating func foundationObject(_ uid: Int, _ entry: ArchiveDictionary, classIndex: Int, depth: Int)
        throws -> ArchiveValue
    {
        guard visits[uid] != .readingValue else {
            throw ArchiveError(
                .malformedInput, "the \(classes[classIndex].name) refers to itself",
                path: [.key("$objects"), .index(uid)])
        }
        guard depth < limits.maxDepth else { throw depthError(at: [.key("$objects"), .index(uid)]) }
        let previous = visits[uid]
        visits[uid] = .readingValue
        let value = try foundationValue(uid, entry, kind: classes[classIndex].kind, depth: depth)
        visits[uid] = previous
        try countNode()
        return value
    }

    /// The index in ``classes`` of the class of entry `uid`, validated on first use.
    mutating func classIndex(of uid: Int, _ entry: ArchiveDictionary) throws -> Int {
        let cached = Int(classSlots[uid])
        if cached > 0 { return cached - 1 }
        guard let position = entry.index(forKey: "$class") else {
            throw ArchiveError(
                .malformedInput,
                "'$objects' entry \(uid) is a dictionary without '$class' (class entries cannot be used as objects)",
                path: [.key("$objects"), .index(uid)])
        }
        guard case .reference(let classUID) = entry[position].value else {
            throw ArchiveError(
                .malformedInput, "'$class' must be a UID, not a \(entry[position].value.kind)",
                path: [.key("$objects"), .index(uid), .key("$class")])
        }
        let classEntry = classUID.rawValue
        guard classEntry > 0, classEntry < objects.count else {
            throw ArchiveError(
                .malformedInput,
                "'$class' refers to UID \(classEntry), which is no class entry ('$objects' has \(objects.count) entries)",
                path: [.key("$objects"), .index(uid), .key("$class")])
        }
        let index: Int
        if classSlots[classEntry] < 0 {
            index = Int(-classSlots[classEntry]) - 1
        } else {
            let info = try KeyedArchiveClass(entry: objects[classEntry], path: [.key("$objects"), .index(classEntry)])
            classes.append(info)
            index = classes.count - 1
            // Class entries are marked with negative slots, so an object using one as an object
            // is told apart from one using it as a class.
            classSlots[classEntry] = Int32(-(index + 1))
        }
        classSlots[uid] = Int32(index + 1)
        return index
    }

    /// An object with identity: written in full the first time, as a reference afterwards.
    private mutating func identifiedObject(
        _ uid: Int, _ entry: ArchiveDictionary, classIndex: Int, depth: Int
    ) throws -> ArchiveValue {
        if visits[uid] == .identified {
            referenced.insert(uid)
            try countNode()
            return .reference(ArchiveObjectID(uid))
        }
        guard depth < limits.maxDepth else { throw depthError(at: [.key("$objects"), .index(uid)]) }
        visits[uid] = .identified
        identifiedCount += 1
        let info = classes[classIndex]
        var fields = ArchiveDictionary(minimumCapacity: entry.count - 1)
        var version: Int?
        var unescaped = false
        for (key, element) in entry {
            if key == "$class" { continue }
            let field = try value(element, at: Site(entry: uid, key: key), depth: depth + 1)
            if key == KeyedArchiveOptions.modelVersionKey {
                version = try Self.modelVersion(field, uid: uid, typeName: info.name)
                continue
            }
            let plainKey = Self.unescape(key)
            unescaped = unescaped || plainKey.utf8.count != key.utf8.count
            fields.appendUnchecked(field, forKey: plainKey)
        }
        if unescaped, let duplicate = fields.firstDuplicateKey() {
            throw Self.escapedDuplicate(duplicate, uid: uid, typeName: info.name)
        }
        try countNode()
        return .object(
            ArchiveObject(
                typeName: info.name, version: version, id: ArchiveObjectID(uid), superclassNames: info.superclassNames,
                fields: fields))
    }

    // MARK: - Collections

    /// A Foundation collection, expanded wherever it is used.
    private mutating func collection(
        _ uid: Int, _ entry: ArchiveDictionary, classIndex: Int, depth: Int
    ) throws -> ArchiveValue {
        let previous = visits[uid]
        switch previous {
        case .identified:
            referenced.insert(uid)
            try countNode()
            return .reference(ArchiveObjectID(uid))
        case .expanding where cyclic == nil:
            throw CollectionCycle()
        case .unvisited where cyclic?[uid] == true:
            return try identifiedObject(uid, entry, classIndex: classIndex, depth: depth)
        case .expanded:
            if let kept = reexpansions[uid] { return try reuse(kept, uid: uid, depth: depth) }
        default:
            break
        }
        guard depth < limits.maxDepth else { throw depthError(at: [.key("$objects"), .index(uid)]) }
        let isReexpansion = previous != .unvisited
        if isReexpansion { reexpanding += 1 }
        let nodesBefore = nodeCount
        visits[uid] = .expanding
        let result: ArchiveValue
        switch classes[classIndex].kind {
        case .dictionary:
            result = try dictionary(uid, entry, classIndex: classIndex, depth: depth)
        case .countedSet:
            result = .array(try countedSet(uid, entry, depth: depth))
        default:
            result = .array(try elements(uid, entry, depth: depth))
        }
        if isReexpansion { reexpanding -= 1 }
        if case .object = result {
            // A dictionary kept as an object (keys that are not strings): later uses refer to it.
            visits[uid] = .identified
            identifiedCount += 1
        } else {
            visits[uid] = previous == .expanding ? .expanding : .expanded
        }
        try countNode()
        if previous == .expanded, result.kind == .array || result.kind == .dictionary {
            reexpansions[uid] = Expansion(
                value: result, nodes: nodeCount &- nodesBefore, height: Self.height(of: result))
        }
        return result
    }

    /// A collection expanded before, used again: its kept tree, counted as copied.
    @inline(never)
    private mutating func reuse(_ kept: Expansion, uid: Int, depth: Int) throws -> ArchiveValue {
        guard depth + kept.height <= limits.maxDepth else {
            throw depthError(at: [.key("$objects"), .index(uid)])
        }
        // As when it is expanded: what it holds counts as copied, the collection itself as one node.
        reexpanding += 1
        try countNode(kept.nodes &- 1)
        reexpanding -= 1
        try countNode()
        return kept.value
    }

    /// The nesting of a tree: 1 for a flat array or dictionary, 0 for a leaf. Trees read here
    /// nest at most `ArchiveLimits.maxDepth` levels.
    static func height(of value: ArchiveValue) -> Int {
        switch value {
        case .array(let elements):
            return 1 + (elements.lazy.map { height(of: $0) }.max() ?? 0)
        case .dictionary(let entries):
            return 1 + (entries.lazy.map { height(of: $0.value) }.max() ?? 0)
        case .object(let object):
            return 1 + (object.fields.lazy.map { height(of: $0.value) }.max() ?? 0)
        default:
            return 0
        }
    }

    /// The elements of an NSArray, NSSet or NSOrderedSet: `NS.objects`, or `NS.object.0`,
    /// `NS.object.1`, … (how NSOrderedSet is archived).
    private mutating func elements(_ uid: Int, _ entry: ArchiveDictionary, depth: Int) throws -> [ArchiveValue] {
        if let position = entry.index(forKey: "NS.objects") {
            return try inlineArray(entry[position].value, at: Site(entry: uid, key: "NS.objects"), depth: depth)
        }
        let numbered = try numberedKeys(entry, prefix: "NS.object.", uid: uid)
        var elements: [ArchiveValue] = []
        elements.reserveCapacity(numbered.count)
        for position in numbered {
            let (key, element) = entry[position]
            elements.append(try value(element, at: Site(entry: uid, key: key), depth: depth + 1))
        }
        return elements
    }

    /// The positions of the keys `prefix0`, `prefix1`, … in numeric order; every key with the
    /// prefix must belong to the sequence.
    private func numberedKeys(_ entry: ArchiveDictionary, prefix: String, uid: Int) throws -> [Int] {
        var numbered: [(number: Int, position: Int)] = []
        for (position, element) in entry.enumerated() where element.key.hasPrefix(prefix) {
            let suffix = element.key.utf8.dropFirst(prefix.utf8.count)
            guard !suffix.isEmpty, suffix.count <= 9, suffix.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                suffix.first != 0x30 || suffix.count == 1, let number = Int(String(decoding: suffix, as: UTF8.self))
            else {
                throw ArchiveError(
                    .malformedInput, "'\(element.key)' is not a numbered key",
                    path: [.key("$objects"), .index(uid), .key(element.key)])
            }
            numbered.append((number, position))
        }
        numbered.sort { $0.number < $1.number }
        for (expected, entry) in numbered.enumerated() where entry.number != expected {
            throw ArchiveError(
                .malformedInput, "the numbered keys '\(prefix)…' skip \(prefix)\(expected)",
                path: [.key("$objects"), .index(uid)])
        }
        return numbered.map(\.position)
    }

    /// An inline array of UIDs (`NS.objects`, `NS.keys`), resolved.
    private mutating func inlineArray(_ value: ArchiveValue, at site: Site, depth: Int) throws -> [ArchiveValue] {
        guard case .array(let references) = value else {
            throw ArchiveError(
                .malformedInput, "'\(site.key)' must be an array of UIDs, not a \(value.kind)", path: site.path)
        }
        var elements: [ArchiveValue] = []
        elements.reserveCapacity(references.count)
        var inner = site
        for (index, reference) in references.enumerated() {
            inner.index = index
            if case .reference(let element) = reference {
                elements.append(try resolve(element.rawValue, at: inner, depth: depth + 1))
            } else {
                elements.append(try self.value(reference, at: inner, depth: depth + 1))
            }
        }
        return elements
    }

    /// An NSCountedSet: each of its `NS.count` objects (`NS.object<i>`) repeated `NS.count<i>`
    /// times. Repetitions after the first count against
    /// `ArchiveLimits.maxReferencesExpanded`.
    private mutating func countedSet(_ uid: Int, _ entry: ArchiveDictionary, depth: Int) throws -> [ArchiveValue] {
        let distinct = try count(entry, key: "NS.count", uid: uid, depth: depth)
        var elements: [ArchiveValue] = []
        var total = 0
        for index in 0..<distinct {
            let objectKey = "NS.object\(index)"
            guard let object = entry[objectKey] else {
                throw ArchiveError(
                    .malformedInput, "the counted set has no '\(objectKey)'", path: [.key("$objects"), .index(uid)])
            }
            let repetitions = try count(entry, key: "NS.count\(index)", uid: uid, depth: depth)
            total += repetitions
            guard total <= limits.maxCollectionCount else {
                throw ArchiveError.limitExceeded(
                    .collectionCount,
                    "the counted set holds more than \(limits.maxCollectionCount) objects",
                    path: [.key("$objects"), .index(uid)])
            }
            for repetition in 0..<repetitions {
                if repetition == 1 { reexpanding += 1 }
                elements.append(try value(object, at: Site(entry: uid, key: objectKey), depth: depth + 1))
            }
            if repetitions > 1 { reexpanding -= 1 }
        }
        return elements
    }

    /// A non-negative count stored inline or as a number object.
    private mutating func count(_ entry: ArchiveDictionary, key: String, uid: Int, depth: Int) throws -> Int {
        guard let stored = entry[key] else {
            throw ArchiveError(.malformedInput, "the object has no '\(key)'", path: [.key("$objects"), .index(uid)])
        }
        let number = try scalar(stored, at: Site(entry: uid, key: key))
        guard let count = number.int64Value, count >= 0 else {
            throw ArchiveError(
                .malformedInput, "'\(key)' must be a non-negative integer, not \(number)",
                path: [.key("$objects"), .index(uid), .key(key)])
        }
        guard count <= Int64(limits.maxCollectionCount) else {
            throw ArchiveError.limitExceeded(
                .collectionCount,
                "'\(key)' is \(count), more than the limit of \(limits.maxCollectionCount) elements",
                path: [.key("$objects"), .index(uid), .key(key)])
        }
        return Int(count)
    }

    /// A value stored inline or behind a UID that must be a number, string or data (never an
    /// object): resolved without walking anything.
    func scalar(_ stored: ArchiveValue, at site: Site) throws -> ArchiveValue {
        guard case .reference(let uid) = stored else { return stored }
        guard uid.rawValue > 0, uid.rawValue < objects.count else {
            throw ArchiveError(
                .malformedInput, "the UID \(uid.rawValue) refers to no number or string", path: site.path)
        }
        return objects[uid.rawValue]
    }

    /// An NSDictionary: `NS.keys` and `NS.objects` of equal length. Keys that are not all
    /// strings keep the dictionary as an object of its class with both arrays as fields.
    private mutating func dictionary(
        _ uid: Int, _ entry: ArchiveDictionary, classIndex: Int, depth: Int
    ) throws -> ArchiveValue {
        let keysPosition = entry.index(forKey: "NS.keys")
        let valuesPosition = entry.index(forKey: "NS.objects")
        guard let keysPosition, let valuesPosition else {
            if keysPosition == nil && valuesPosition == nil { return .dictionary([:]) }
            throw ArchiveError(
                .malformedInput,
                "the dictionary has '\(keysPosition == nil ? "NS.objects" : "NS.keys")' without "
                    + "'\(keysPosition == nil ? "NS.keys" : "NS.objects")'",
                path: [.key("$objects"), .index(uid)])
        }
        guard case .array(let keyReferences) = entry[keysPosition].value,
            case .array(let valueReferences) = entry[valuesPosition].value
        else {
            throw ArchiveError(
                .malformedInput, "'NS.keys' and 'NS.objects' must be arrays of UIDs",
                path: [.key("$objects"), .index(uid)])
        }
        guard keyReferences.count == valueReferences.count else {
            throw ArchiveError(
                .malformedInput,
                "'NS.keys' has \(keyReferences.count) entries but 'NS.objects' has \(valueReferences.count)",
                path: [.key("$objects"), .index(uid)])
        }
        let keys = try inlineArray(entry[keysPosition].value, at: Site(entry: uid, key: "NS.keys"), depth: depth)
        let values = try inlineArray(entry[valuesPosition].value, at: Site(entry: uid, key: "NS.objects"), depth: depth)
        var entries = ArchiveDictionary(minimumCapacity: keys.count)
        for (key, value) in zip(keys, values) {
            guard case .string(let text) = key else {
                let info = classes[classIndex]
                return .object(
                    ArchiveObject(
                        typeName: info.name, version: nil, id: ArchiveObjectID(uid),
                        superclassNames: info.superclassNames,
                        fields: ["NS.keys": .array(keys), "NS.objects": .array(values)]))
            }
            entries.appendUnchecked(value, forKey: text)
        }
        if let duplicate = entries.firstDuplicateKey() {
            throw ArchiveError(
                .malformedInput, "the dictionary holds the key '\(duplicate)' twice",
                path: [.key("$objects"), .index(uid), .key("NS.keys")])
        }
        return .dictionary(entries)
    }

    // MARK: - Errors and counting

    // The errors of the recursive walk are built out of line, so that the functions that recurse
    // keep small stack frames (a debug build reserves a frame slot for every temporary).

    @inline(never)
    static func unexpectedObject(at site: Site) -> ArchiveError {
        ArchiveError(.malformedInput, "unexpected object in a keyed archive", path: site.path)
    }

    @inline(never)
    static func danglingUID(_ uid: Int, count: Int, at site: Site) -> ArchiveError {
        ArchiveError(
            .malformedInput, "the UID \(uid) refers to no object ('$objects' has \(count) entries)", path: site.path)
    }

    @inline(never)
    static func modelVersion(_ field: ArchiveValue, uid: Int, typeName: String) throws -> Int {
        guard case .int(let number) = field, number >= 0, let archived = Int(exactly: number) else {
            throw ArchiveError(
                .malformedInput, "'MTLModelVersion' must be a non-negative integer, not \(field)",
                path: Site(entry: uid, key: KeyedArchiveOptions.modelVersionKey).path, typeName: typeName)
        }
        return archived
    }

    @inline(never)
    static func escapedDuplicate(_ key: String, uid: Int, typeName: String) -> ArchiveError {
        ArchiveError(
            .malformedInput, "the object holds the key '\(key)' twice (once escaped)",
            path: [.key("$objects"), .index(uid)], typeName: typeName)
    }

    @inline(never)
    func depthError(at path: ArchivePath) -> ArchiveError {
        ArchiveError.limitExceeded(
            .depth, "the objects are nested deeper than the limit of \(limits.maxDepth)", path: path)
    }

    /// Counts written nodes against `ArchiveLimits.maxObjectCount` and, while a collection
    /// is expanded again, against `ArchiveLimits.maxReferencesExpanded`.
    @inline(__always)
    mutating func countNode(_ nodes: Int = 1) throws {
        nodeCount &+= nodes
        if nodeCount > limits.maxObjectCount {
            throw ArchiveError.limitExceeded(
                .objectCount, "the archive expands to more than \(limits.maxObjectCount) values")
        }
        if reexpanding > 0 {
            expandedCount &+= nodes
            if expandedCount > limits.maxReferencesExpanded {
                throw ArchiveError.limitExceeded(
                    .referencesExpanded,
                    "shared collections are used so often that more than \(limits.maxReferencesExpanded) values "
                        + "would be copied")
            }
        }
    }

    // MARK: - Identities

    /// Removes the identities of objects no reference points to.
    static func removeUnusedIdentities(_ value: inout ArchiveValue, keeping referenced: Set<Int>) {
        switch value {
        case .object(var object):
            value = .null
            if let id = object.id, !referenced.contains(id.rawValue) {
                object.id = nil
            }
            object.fields.updateValues { _, field in removeUnusedIdentities(&field, keeping: referenced) }
            value = .object(object)
        case .array(var elements):
            value = .null
            for index in elements.indices {
                removeUnusedIdentities(&elements[index], keeping: referenced)
            }
            value = .array(elements)
        case .dictionary(var dictionary):
            value = .null
            dictionary.updateValues { _, field in removeUnusedIdentities(&field, keeping: referenced) }
            value = .dictionary(dictionary)
        default:
            break
        }
    }
}
