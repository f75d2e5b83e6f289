import Foundation

/// Writes an archive tree as an NSKeyedArchiver archive (a binary property list), so that an
/// old NSCoding or Mantle app can read it with `NSKeyedUnarchiver`.
///
/// ```swift
/// let data = try KeyedArchiveWriter.write(tree, options: ArchiveWritingOptions())
/// ```
///
/// The `$objects` table is built here, in time linear in the tree, and encoded by the binary
/// property-list writer. What each value becomes:
///
/// | tree | archived |
/// |---|---|
/// | string, number, Boolean, data | inline in `$objects` (equal strings and numbers stored once); the string `"$null"` as an NSString object, because a `"$null"` entry means nil |
/// | date | an NSDate (`NS.time`) |
/// | array | an NSArray (`NS.objects`) |
/// | dictionary | an NSDictionary (`NS.keys`, `NS.objects`) |
/// | null | UID 0 (nil) in an object's field or at the root; an NSNull inside arrays and dictionaries, which cannot hold nil |
/// | object | an object of class `ArchiveObject.typeName` with `$classes` = type name + `ArchiveObject.superclassNames` (+ `NSObject` when that is empty); its fields under their keys (a key that starts with `$` gets one more `$`, as NSKeyedArchiver escapes it; generated keys `$0`, `$1`, … stay) |
/// | reference | the UID of the object with that identity |
///
/// The root: an envelope (see the article *The archive format* of ModelVersioning) is not archived as a dictionary. Its
/// root is the archive's root object, under `$top.root` (or ``KeyedArchiveOptions/rootKey``),
/// where `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)` looks for it; its format, document
/// name and version go beside it in `$top` as `$archive`, `$document` and `$documentVersion`
/// (keys `NSKeyedArchiver` never writes there, since it escapes an app's `$` keys) unless
/// ``KeyedArchiveOptions/writesEnvelope`` is off. Any other tree is the root as it is, and so is
/// every tree written with ``MarkupMode/plain``.
///
/// In an object's fields, numbers and Booleans are stored inline (as `encodeInteger:forKey:`
/// writes them) unless ``KeyedArchiveOptions/writesNumbersAsObjects`` is set; everything else
/// is a UID. Each object's version is stored under `MTLModelVersion` as an NSNumber object, as
/// Mantle does, unless ``KeyedArchiveOptions/writesModelVersion`` is off. An object in Mantle's
/// form (``KeyedArchiveOptions/mantleModels``, or an object whose class chain names `MTLModel`)
/// is written as `MTLModel` writes itself: `MTLModelVersion` first, numbers and Booleans as
/// objects, null fields left out, and `MTLModel`, `NSObject` as its chain when it records none.
/// An object of a Foundation collection class (how the reader keeps a collection that contains
/// itself) has its `NS.objects` and `NS.keys` arrays written inline, as NSKeyedArchiver writes
/// them.
///
/// Identities: every object with an `ArchiveObject.id` is written once, wherever the first
/// reference to it or the object itself appears. When the identities are small enough (at most
/// the number of values in the tree, as they are in trees the reader produces), an object's
/// identity is its UID, so reading the archive back gives the same identities; otherwise they
/// are numbered in order of appearance.
///
/// - Throws: `ArchiveError` with code `ArchiveError.Code.unresolvedReference` for a
///   reference to an identity no object has, `ArchiveError.Code.invalidValue` for two objects
///   with the same identity, a non-finite date, a field named `MTLModelVersion` (the reader
///   takes that key as the version) or an envelope with a key of its own,
///   `ArchiveError.Code.malformedInput` for an envelope `ArchiveEnvelope` cannot read,
///   `ArchiveError.Code.limitExceeded` for nesting deeper than `ArchiveLimits.maxDepth`; each
///   with the path of the value.
struct KeyedArchiveWriter {
    static func write(_ value: ArchiveValue, options: ArchiveWritingOptions) throws -> Data {
        let keyed = options.keyedArchive
        let envelope = options.markup == .plain ? nil : try Self.envelope(of: value)
        let root = envelope?.root ?? value
        // Errors inside an envelope's root name the path in the tree that was given.
        let rootPath: ArchivePath = envelope == nil ? [] : [.key(ArchiveEnvelope.rootKey)]
        var writer: KeyedArchiveWriter
        let rootUID: Int
        do {
            var scan = IdentityScan(maxDepth: options.limits.maxDepth)
            try scan.visit(root, depth: 0)
            writer = KeyedArchiveWriter(scan: scan, options: keyed, maxDepth: options.limits.maxDepth)
            rootUID = try writer.reference(to: root, depth: 0, inCollection: false)
        } catch let error as ArchiveError {
            throw error.prefixingPath(rootPath)
        }
        var top = ArchiveDictionary(minimumCapacity: 4)
        top.appendUnchecked(
            .reference(ArchiveObjectID(rootUID)), forKey: KeyedArchiveReader.escape(keyed.rootKey ?? "root"))
        if let envelope, keyed.writesEnvelope {
            let format = Int64(envelope.formatVersion)
            top.appendUnchecked(
                .reference(ArchiveObjectID(writer.number(.int(format), .int(format)))),
                forKey: KeyedArchiveReader.envelopeMarkerKey)
            if let document = envelope.document {
                top.appendUnchecked(
                    .reference(ArchiveObjectID(writer.string(document))), forKey: KeyedArchiveReader.envelopeDocumentKey
                )
            }
            if let documentVersion = envelope.documentVersion.map({ Int64($0) }) {
                top.appendUnchecked(
                    .reference(ArchiveObjectID(writer.number(.int(documentVersion), .int(documentVersion)))),
                    forKey: KeyedArchiveReader.envelopeDocumentVersionKey)
            }
        }
        var archive = ArchiveDictionary(minimumCapacity: 4)
        archive.appendUnchecked(.int(100_000), forKey: "$version")
        archive.appendUnchecked(.string("NSKeyedArchiver"), forKey: "$archiver")
        archive.appendUnchecked(.dictionary(top), forKey: "$top")
        archive.appendUnchecked(.array(writer.table), forKey: "$objects")
        var plistLimits = options.limits
        plistLimits.maxDepth = max(plistLimits.maxDepth, 8)
        return try BinaryPropertyListWriter.write(
            .dictionary(archive),
            options: ArchiveWritingOptions(prettyPrinted: false, markup: .plain, limits: plistLimits))
    }

    /// The envelope of `tree`, when it is one; `nil` for any other tree.
    ///
    /// - Throws: What `ArchiveEnvelope.init(tree:)` throws, and `ArchiveError.Code.invalidValue`
    ///   for a key beside the envelope's own, which a keyed archive has no place for.
    private static func envelope(of tree: ArchiveValue) throws -> ArchiveEnvelope? {
        guard ArchiveEnvelope.isEnvelope(tree), case .dictionary(let entries) = tree else { return nil }
        let known = [
            ArchiveEnvelope.markerKey, ArchiveEnvelope.documentKey, ArchiveEnvelope.documentVersionKey,
            ArchiveEnvelope.rootKey,
        ]
        if let extra = entries.keys.first(where: { !known.contains($0) }) {
            throw ArchiveError(
                .invalidValue,
                "the envelope holds the key '\(extra)', which a keyed archive has no place for (it keeps the root "
                    + "object, the document and its version)", path: [.key(extra)])
        }
        return try ArchiveEnvelope(tree: tree)
    }

    /// The identities of a tree, found before writing so that references may come first.
    struct IdentityScan {
        let maxDepth: Int
        /// Identities in order of appearance.
        var identities: [ArchiveObjectID] = []
        var seen: Set<ArchiveObjectID> = []
        var nodes = 0

        init(maxDepth: Int) {
            self.maxDepth = maxDepth
        }

        mutating func visit(_ value: ArchiveValue, depth: Int) throws {
            nodes += 1
            switch value {
            case .array(let elements):
                guard depth < maxDepth else { throw KeyedArchiveWriter.depthError(maxDepth) }
                for (index, element) in elements.enumerated() {
                    do {
                        try visit(element, depth: depth + 1)
                    } catch let error as ArchiveError {
                        throw error.prefixingPath([.index(index)])
                    }
                }
            case .dictionary(let dictionary):
                guard depth < maxDepth else { throw KeyedArchiveWriter.depthError(maxDepth) }
                try visit(dictionary, depth: depth)
            case .object(let object):
                guard depth < maxDepth else { throw KeyedArchiveWriter.depthError(maxDepth) }
                if let id = object.id {
                    guard seen.insert(id).inserted else {
                        throw ArchiveError(
                            .invalidValue, "two objects have the identity \(id)", typeName: object.typeName,
                            archivedVersion: object.version)
                    }
                    identities.append(id)
                }
                do {
                    try visit(object.fields, depth: depth)
                } catch let error as ArchiveError {
                    throw error.adding(typeName: object.typeName, archivedVersion: object.version)
                }
            default:
                break
            }
        }

        private mutating func visit(_ dictionary: ArchiveDictionary, depth: Int) throws {
            for (key, element) in dictionary {
                do {
                    try visit(element, depth: depth + 1)
                } catch let error as ArchiveError {
                    throw error.prefixingPath([.key(key)])
                }
            }
        }
    }

    /// A number's archived identity: equal numbers of the same kind share one entry.
    enum NumberKey: Hashable {
        case int(Int64)
        case uint(UInt64)
        case double(UInt64)
        case bool(Bool)
    }

    let options: KeyedArchiveOptions
    let maxDepth: Int
    /// The `$objects` table.
    private(set) var table: [ArchiveValue]
    /// The UID of each identity.
    private var slots: [ArchiveObjectID: Int]
    /// Slots reserved for identities (below ``reservedEnd``), which other entries skip.
    private var reserved: [Bool]
    private var reservedEnd: Int
    /// The next slot below ``reservedEnd`` to try for an entry without identity.
    private var cursor = 1
    private var written: Set<ArchiveObjectID> = []
    /// Strings written so far, by their exact scalars (`"\u{E9}"` and `"e\u{301}"` are two).
    private var strings: [ExactString: Int] = [:]
    private var numbers: [NumberKey: Int] = [:]
    private var classEntries: [[String]: Int] = [:]
    private var nullEntry: Int?

    private init(scan: IdentityScan, options: KeyedArchiveOptions, maxDepth: Int) {
        self.options = options
        self.maxDepth = maxDepth
        let ids = scan.identities
        var slots: [ArchiveObjectID: Int] = [:]
        slots.reserveCapacity(ids.count)
        let largest = ids.map(\.rawValue).max() ?? 0
        if ids.allSatisfy({ $0.rawValue >= 1 }), largest <= scan.nodes + 16 {
            for id in ids { slots[id] = id.rawValue }
            reservedEnd = largest + 1
        } else {
            for (position, id) in ids.enumerated() { slots[id] = position + 1 }
            reservedEnd = ids.count + 1
        }
        self.slots = slots
        reserved = Array(repeating: false, count: reservedEnd)
        for slot in slots.values { reserved[slot] = true }
        // Unused reserved slots hold "$null" (what NSKeyedArchiver leaves in a slot it never
        // filled) until an entry without identity takes them.
        table = Array(repeating: .string("$null"), count: reservedEnd)
    }

    // MARK: - Entries

    /// A slot for a new entry without identity.
    private mutating func allocate() -> Int {
        while cursor < reservedEnd && reserved[cursor] { cursor += 1 }
        if cursor < reservedEnd {
            cursor += 1
            return cursor - 1
        }
        table.append(.null)
        return table.count - 1
    }

    private mutating func append(_ entry: ArchiveValue) -> Int {
        let slot = allocate()
        table[slot] = entry
        return slot
    }

    /// The UID of `value`, adding its entries.
    ///
    /// - Parameter inCollection: Whether the value is an element of an array or dictionary,
    ///   where null must be an NSNull.
    mutating func reference(to value: ArchiveValue, depth: Int, inCollection: Bool) throws -> Int {
        // Containers and leaves are handled out of line, so that the functions on the recursive
        // path keep small stack frames.
        switch value {
        case .array(let elements):
            return try arrayReference(elements, depth: depth)
        case .dictionary(let dictionary):
            return try dictionaryReference(dictionary, depth: depth)
        case .object(let object):
            do {
                return try self.object(object, depth: depth)
            } catch let error as ArchiveError {
                throw error.adding(typeName: object.typeName, archivedVersion: object.version)
            }
        default:
            return try leafReference(value, inCollection: inCollection)
        }
    }

    @inline(never)
    private mutating func leafReference(_ value: ArchiveValue, inCollection: Bool) throws -> Int {
        switch value {
        case .null:
            return inCollection ? nsNull() : 0
        case .bool(let flag):
            return number(.bool(flag), value)
        case .int(let number):
            return self.number(.int(number), value)
        case .uint(let number):
            return number <= UInt64(Int64.max)
                ? self.number(.int(Int64(number)), .int(Int64(number))) : self.number(.uint(number), value)
        case .double(let number):
            return self.number(.double(number.bitPattern), value)
        case .string(let text):
            return string(text)
        case .data:
            return append(value)
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            guard seconds.isFinite else {
                throw ArchiveError(.invalidValue, "a date must be finite to be archived as an NSDate")
            }
            let entry: ArchiveDictionary = [
                "$class": .reference(ArchiveObjectID(classEntry(["NSDate", "NSObject"]))), "NS.time": .double(seconds),
            ]
            return append(.dictionary(entry))
        case .reference(let id):
            guard let slot = slots[id] else {
                throw ArchiveError(.unresolvedReference, "the reference \(id) points to no object of the archive")
            }
            return slot
        case .array, .dictionary, .object:
            // Containers are written by reference(to:depth:inCollection:) and never get here.
            throw ArchiveError(.invalidValue, "a \(value.kind) is not a single value")
        }
    }

    private mutating func arrayReference(_ elements: [ArchiveValue], depth: Int) throws -> Int {
        guard depth < maxDepth else { throw Self.depthError(maxDepth) }
        let slot = allocate()
        let references = try elementReferences(elements, depth: depth + 1)
        table[slot] = .dictionary([
            "$class": .reference(ArchiveObjectID(classEntry(["NSArray", "NSObject"]))),
            "NS.objects": .array(references),
        ])
        return slot
    }

    /// The UIDs of a collection's elements at `depth`.
    private mutating func elementReferences(_ elements: [ArchiveValue], depth: Int) throws -> [ArchiveValue] {
        var references: [ArchiveValue] = []
        references.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                references.append(
                    .reference(ArchiveObjectID(try reference(to: element, depth: depth, inCollection: true))))
            } catch let error as ArchiveError {
                throw error.prefixingPath([.index(index)])
            }
        }
        return references
    }

    private mutating func dictionaryReference(_ dictionary: ArchiveDictionary, depth: Int) throws -> Int {
        guard depth < maxDepth else { throw Self.depthError(maxDepth) }
        let slot = allocate()
        var keys: [ArchiveValue] = []
        var values: [ArchiveValue] = []
        keys.reserveCapacity(dictionary.count)
        values.reserveCapacity(dictionary.count)
        for (key, element) in dictionary {
            keys.append(.reference(ArchiveObjectID(string(key))))
            do {
                values.append(
                    .reference(ArchiveObjectID(try reference(to: element, depth: depth + 1, inCollection: true))))
            } catch let error as ArchiveError {
                throw error.prefixingPath([.key(key)])
            }
        }
        table[slot] = .dictionary([
            "$class": .reference(ArchiveObjectID(classEntry(["NSDictionary", "NSObject"]))),
            "NS.keys": .array(keys), "NS.objects": .array(values),
        ])
        return slot
    }

    /// An object of its own class, written at the slot of its identity.
    private mutating func object(_ object: ArchiveObject, depth: Int) throws -> Int {
        guard depth < maxDepth else { throw Self.depthError(maxDepth) }
        let slot: Int
        if let id = object.id, let identitySlot = slots[id] {
            // The scan rejected duplicate identities, so each is written once.
            guard written.insert(id).inserted else {
                throw ArchiveError(.invalidValue, "two objects have the identity \(id)")
            }
            slot = identitySlot
        } else {
            slot = allocate()
        }
        let foundationKind = KeyedArchiveClass.foundationKinds[object.typeName]
        let isMantle =
            foundationKind == nil
            && (object.superclassNames.contains(Self.mantleModelClass)
                || options.mantleModels.contains(object.typeName))
        let chain: [String]
        if !object.superclassNames.isEmpty {
            chain = object.superclassNames
        } else {
            chain = isMantle ? [Self.mantleModelClass, "NSObject"] : ["NSObject"]
        }
        var entry = ArchiveDictionary(minimumCapacity: object.fields.count + 2)
        entry.appendUnchecked(.reference(ArchiveObjectID(classEntry([object.typeName] + chain))), forKey: "$class")
        // Mantle's -encodeWithCoder: encodes the version first, NSCoding objects of ours last.
        if isMantle, let version = object.version {
            entry.appendUnchecked(modelVersion(version), forKey: KeyedArchiveOptions.modelVersionKey)
        }
        let inlinesCollections = foundationKind?.isCollection == true
        let numbersAsObjects = isMantle || options.writesNumbersAsObjects
        for (key, value) in object.fields {
            guard key != KeyedArchiveOptions.modelVersionKey else { throw Self.modelVersionFieldError() }
            // Mantle leaves nil properties out.
            if isMantle, case .null = value { continue }
            do {
                if inlinesCollections, key == "NS.objects" || key == "NS.keys", case .array(let elements) = value {
                    entry.appendUnchecked(.array(try elementReferences(elements, depth: depth + 2)), forKey: key)
                } else {
                    entry.appendUnchecked(
                        try field(value, depth: depth + 1, asObject: numbersAsObjects),
                        forKey: KeyedArchiveReader.escape(key))
                }
            } catch let error as ArchiveError {
                throw error.prefixingPath([.key(key)])
            }
        }
        if !isMantle, options.writesModelVersion, let version = object.version {
            entry.appendUnchecked(modelVersion(version), forKey: KeyedArchiveOptions.modelVersionKey)
        }
        table[slot] = .dictionary(entry)
        return slot
    }

    /// The superclass of every Mantle model.
    static let mantleModelClass = "MTLModel"

    /// A UID of an object's version, an NSNumber object as Mantle stores it.
    private mutating func modelVersion(_ version: Int) -> ArchiveValue {
        .reference(ArchiveObjectID(number(.int(Int64(version)), .int(Int64(version)))))
    }

    /// The value stored under a field of an object: an inline number or Boolean, or a UID.
    ///
    /// - Parameter asObject: Whether numbers and Booleans are NSNumber objects too.
    private mutating func field(_ value: ArchiveValue, depth: Int, asObject: Bool) throws -> ArchiveValue {
        if !asObject {
            switch value {
            case .bool, .int, .double:
                return value
            case .uint(let number):
                return ArchiveValue(number)
            default:
                break
            }
        }
        return .reference(ArchiveObjectID(try reference(to: value, depth: depth, inCollection: false)))
    }

    mutating func number(_ key: NumberKey, _ value: ArchiveValue) -> Int {
        if let slot = numbers[key] { return slot }
        let slot = append(value)
        numbers[key] = slot
        return slot
    }

    mutating func string(_ text: String) -> Int {
        if let slot = strings[ExactString(text)] { return slot }
        let slot: Int
        if text.hasSameScalars(as: "$null") {
            // A "$null" entry reads as nil; NSString's own coding keeps the text.
            let entry: ArchiveDictionary = [
                "$class": .reference(ArchiveObjectID(classEntry(["NSString", "NSObject"]))),
                "NS.string": .string(text),
            ]
            slot = append(.dictionary(entry))
        } else {
            slot = append(.string(text))
        }
        strings[ExactString(text)] = slot
        return slot
    }

    private mutating func nsNull() -> Int {
        if let nullEntry { return nullEntry }
        let slot = append(.dictionary(["$class": .reference(ArchiveObjectID(classEntry(["NSNull", "NSObject"])))]))
        nullEntry = slot
        return slot
    }

    /// The UID of the class entry for a class chain (the class first), shared by its objects.
    private mutating func classEntry(_ chain: [String]) -> Int {
        if let slot = classEntries[chain] { return slot }
        let slot = append(
            .dictionary([
                "$classname": .string(chain[0]), "$classes": .array(chain.map { .string($0) }),
            ]))
        classEntries[chain] = slot
        return slot
    }

    @inline(never)
    static func modelVersionFieldError() -> ArchiveError {
        ArchiveError(
            .invalidValue,
            "the field 'MTLModelVersion' cannot be archived: keyed archives keep an object's version under that key",
            path: [.key(KeyedArchiveOptions.modelVersionKey)])
    }

    @inline(never)
    static func depthError(_ maxDepth: Int) -> ArchiveError {
        ArchiveError.limitExceeded(.depth, "the values are nested deeper than the limit of \(maxDepth)")
    }
}
