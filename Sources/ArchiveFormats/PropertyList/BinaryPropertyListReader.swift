import Foundation

/// Reads a binary property list (`bplist00`) into an archive tree.
///
/// The file is a header, an object table, an offset table (one offset per object) and a 32-byte
/// trailer naming the sizes of offsets and object references, the number of objects, the top
/// object and where the offset table starts. Every part is validated before it is used, with
/// overflow-safe arithmetic: the trailer as a whole, every offset (inside the object table),
/// every reference (a valid object number), every length (inside the object table, within
/// `ArchiveLimits`).
///
/// Objects may be shared (several references to one object): each is decoded once and its value
/// reused, so shared containers share storage (copy-on-write). Each further use of a container
/// counts its nodes against `ArchiveLimits.maxReferencesExpanded` and every node of the
/// resulting tree counts against `ArchiveLimits.maxObjectCount`: a small file that references
/// one large array a million times stops early. An object that contains itself (directly or
/// further down) is a reference cycle and is rejected.
///
/// Values: `0x00` is `ArchiveValue.null`; integers of 1, 2 and 4 bytes are unsigned, of 8
/// bytes signed, of 16 bytes accepted when they fit `Int64` or `UInt64`; reals of 4 and 8 bytes;
/// dates (finite, years 0 to 9999); data; ASCII strings (bytes above 0x7F are read as UTF-8 when
/// they are valid UTF-8, as Apple's reader does); UTF-16BE strings (no lone surrogates); UIDs as
/// `ArchiveValue.reference(_:)`; arrays and sets as arrays; dictionaries with string keys and
/// no duplicates.
///
/// Errors are `ArchiveError` with code `ArchiveError.Code.malformedInput` (or
/// `ArchiveError.Code.limitExceeded`), the byte offset of the object and its path in the tree.
struct BinaryPropertyListReader {
    /// What is known about one object of the table.
    ///
    /// The flag follows the value, in its padding: the offset then costs no memory (a slot
    /// takes 48 bytes with or without it).
    private struct Slot {
        /// The decoded value, once decoded.
        var value: ArchiveValue?
        /// Whether the object is being decoded (seeing it again means a cycle).
        var isDecoding = false
        /// The nodes of the decoded value's tree (1 for a leaf); 0 until decoded.
        var nodes = 0
        /// The nesting depth of the decoded value (0 for a leaf).
        var height = 0
        /// Where the object starts, from the offset table (checked in `init`).
        let offset: Int
    }

    private let bytes: [UInt8]
    private let limits: ArchiveLimits
    private let referenceSize: Int
    private let objectCount: Int
    private let topObject: Int
    private let offsetTableStart: Int
    private var slots: [Slot]
    private var nodeCount = 0
    private var referencesExpanded = 0

    /// Reads a whole binary property list.
    ///
    /// - Throws: `ArchiveError` (`ArchiveError.Code.malformedInput`,
    ///   `ArchiveError.Code.limitExceeded`, or `ArchiveError.Code.unsupportedFormat` for a
    ///   `bplist` version other than `0x`).
    static func read(_ data: Data, limits: ArchiveLimits) throws -> ArchiveValue {
        var reader = try BinaryPropertyListReader(bytes: [UInt8](data), limits: limits)
        return try reader.readTopObject()
    }

    private init(bytes: [UInt8], limits: ArchiveLimits) throws {
        self.bytes = bytes
        self.limits = limits
        let headerLength = 8
        let trailerLength = 32
        guard bytes.count >= headerLength, bytes.starts(with: "bplist".utf8) else {
            throw Self.malformed("the data is not a binary property list (no 'bplist' header)", at: 0)
        }
        guard bytes[6] == UInt8(ascii: "0"), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[7]) else {
            let version = String(decoding: bytes[6..<8], as: UTF8.self)
            throw ArchiveError(
                .unsupportedFormat, "binary property lists of version '\(version)' are not supported (only 'bplist00')",
                location: .init(byteOffset: 6))
        }
        guard bytes.count >= headerLength + 1 + trailerLength else {
            throw Self.malformed(
                "the binary property list is too short (\(bytes.count) bytes) to hold an object and a trailer",
                at: 0)
        }
        let trailer = bytes.count - trailerLength
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let count = Self.readUnsigned(bytes, at: trailer + 8, size: 8)
        let top = Self.readUnsigned(bytes, at: trailer + 16, size: 8)
        let tableOffset = Self.readUnsigned(bytes, at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize) else {
            throw Self.malformed("the trailer's offset size is \(offsetSize), not 1 to 8", at: trailer + 6)
        }
        guard (1...8).contains(referenceSize) else {
            throw Self.malformed("the trailer's object reference size is \(referenceSize), not 1 to 8", at: trailer + 7)
        }
        guard count >= 1 else {
            throw Self.malformed("the trailer says the file holds no objects", at: trailer + 8)
        }
        guard top < count else {
            throw Self.malformed("the top object \(top) is not one of the \(count) objects", at: trailer + 16)
        }
        guard tableOffset >= UInt64(headerLength + 1), tableOffset < UInt64(trailer) else {
            throw Self.malformed(
                "the offset table starts at byte \(tableOffset), outside the object data (bytes 9 to \(trailer - 1))",
                at: trailer + 24)
        }
        let (tableLength, lengthOverflow) = count.multipliedReportingOverflow(by: UInt64(offsetSize))
        let (tableEnd, endOverflow) = tableOffset.addingReportingOverflow(tableLength)
        guard !lengthOverflow, !endOverflow, tableEnd == UInt64(trailer) else {
            throw Self.malformed(
                "an offset table of \(count) offsets of \(offsetSize) bytes at byte \(tableOffset) does not end where the trailer starts (byte \(trailer))",
                at: trailer + 8)
        }
        // Apple's checks: references must be able to name every object, offsets must be able to
        // reach the end of the object data.
        guard referenceSize >= 8 || count <= UInt64(1) << UInt64(8 * referenceSize) else {
            throw Self.malformed(
                "object references of \(referenceSize) bytes cannot name all \(count) objects", at: trailer + 7)
        }
        guard offsetSize >= 8 || tableOffset <= UInt64(1) << UInt64(8 * offsetSize) else {
            throw Self.malformed(
                "offsets of \(offsetSize) bytes cannot reach the end of the object data (byte \(tableOffset))",
                at: trailer + 6)
        }
        // The offset table fits in the file, so these conversions are exact.
        let objectCount = Int(count)
        guard objectCount <= limits.maxObjectCount else {
            throw ArchiveError.limitExceeded(
                .objectCount,
                "the binary property list has \(objectCount) objects, more than the limit of \(limits.maxObjectCount)",
                location: .init(byteOffset: trailer + 8))
        }
        self.referenceSize = referenceSize
        self.objectCount = objectCount
        self.topObject = Int(top)
        self.offsetTableStart = Int(tableOffset)
        for index in 0..<objectCount {
            let entry = offsetTableStart + index * offsetSize
            let offset = Self.readUnsigned(bytes, at: entry, size: offsetSize)
            guard offset >= UInt64(headerLength), offset < tableOffset else {
                throw Self.malformed(
                    "the offset \(offset) of object \(index) is outside the object data (bytes 8 to \(tableOffset - 1))",
                    at: entry)
            }
        }
        // Each slot stored in place, with its object's offset: `Array(repeating:count:)` copied
        // an empty slot through its value witness, 45 instructions an object (3% of reading a
        // keyed archive), and reading an offset from the table at each use cost 50 more.
        let tableStart = offsetTableStart
        self.slots = Array(unsafeUninitializedCapacity: objectCount) { buffer, initialized in
            // Within the buffer (it may hold more than asked for), element by element rather
            // than through an unwrapped base address.
            for index in 0..<Swift.min(objectCount, buffer.count) {
                let offset = Self.readUnsigned(bytes, at: tableStart &+ index &* offsetSize, size: offsetSize)
                buffer.initializeElement(at: index, to: Slot(offset: Int(offset)))
                initialized = index &+ 1
            }
        }
    }

    private mutating func readTopObject() throws -> ArchiveValue {
        var stack: [Container] = []
        do {
            return try walk(from: topObject, stack: &stack)
        } catch let error as ArchiveError {
            // The path from the top object to where the walk stopped.
            throw error.prefixingPath(ArchivePath(stack.compactMap(\.component)))
        }
    }

    // MARK: - Objects

    /// A decoded object with the size and depth of its tree.
    private struct Decoded {
        var value: ArchiveValue
        var nodes: Int
        var height: Int

        /// A container not read yet (every value read counts at least one node).
        static let toOpen = Decoded(value: .null, nodes: 0, height: 0)
    }

    /// An array or dictionary being read: its place in the file, the children read so far.
    ///
    /// The walk keeps open containers on an explicit stack instead of recursing, so nesting as
    /// deep as `ArchiveLimits.maxDepth` needs no more stack than a flat file.
    private struct Container {
        let index: Int
        let start: Int
        let isDictionary: Bool
        let count: Int
        /// Where the child references (for dictionaries, the key references) start.
        let references: Int
        var position = 0
        var elements: [ArchiveValue] = []
        var entries: [ArchiveDictionary.Entry] = []
        /// The key of the child being read (dictionaries).
        var key = ""
        /// Whether the child at `position - 1` is being read (its key and reference were read).
        var isReadingChild = false
        var nodes = 1
        var height = 0

        /// The path component of the child being read, if any.
        var component: ArchivePath.Component? {
            guard isReadingChild else { return nil }
            return isDictionary ? .key(key) : .index(position - 1)
        }

        /// Adds the child just read.
        mutating func add(_ decoded: consuming Decoded) {
            nodes &+= decoded.nodes
            height = max(height, decoded.height)
            if isDictionary {
                entries.append(ArchiveDictionary.Entry(key: key, value: decoded.value))
            } else {
                elements.append(decoded.value)
            }
        }
    }

    /// Reads object `index` and everything below it, depth-first. The container being read is a
    /// local value, the ones around it wait on `stack`; where an error is thrown, `stack` holds
    /// every container open at that point, innermost last, for its path.
    ///
    /// Each child updates the local container: kept on the stack, every update of it checked the
    /// stack's uniqueness (2.7% of reading a keyed archive). Containers are swapped in and out of
    /// the stack, never copied: a copy retains its arrays and key.
    private mutating func walk(from index: Int, stack: inout [Container]) throws -> ArchiveValue {
        // Where the container `begin` did not read starts.
        var start = 0
        let top = try begin(index, depth: 0, start: &start)
        if top.nodes > 0 { return top.value }
        var current = try open(index, at: start, depth: 0)
        // Whether `current` is open (not being closed) where an error is thrown.
        var currentIsOpen = true
        do {
            while true {
                let position = current.position
                guard position < current.count else {
                    currentIsOpen = false
                    let decoded = try finish(current)
                    guard let parent = stack.popLast() else { return decoded.value }
                    current = parent
                    currentIsOpen = true
                    current.add(decoded)
                    continue
                }
                current.isReadingChild = false
                let parent = current.start
                let references = current.references
                let child: Int
                if current.isDictionary {
                    current.key = try self.key(
                        reference(at: references + position * referenceSize, in: parent), in: parent)
                    child = try reference(at: references + (current.count + position) * referenceSize, in: parent)
                } else {
                    child = try reference(at: references + position * referenceSize, in: parent)
                }
                current.position = position + 1
                current.isReadingChild = true
                let depth = stack.count + 1
                let decoded = try begin(child, depth: depth, start: &start)
                if decoded.nodes > 0 {
                    current.add(decoded)
                } else {
                    stack.append(try open(child, at: start, depth: depth))
                    swap(&current, &stack[stack.count - 1])
                }
            }
        } catch {
            if currentIsOpen { stack.append(current) }
            throw error
        }
    }

    /// Starts reading object `index` used at nesting `depth` (the number of enclosing
    /// containers): its value when it is a leaf or was read before; ``Decoded/toOpen`` (no
    /// nodes) when it is an array, set or dictionary not read yet, for
    /// ``open(_:at:depth:)`` (`start` is then where it starts). Not an optional: returning one
    /// cost generic value witness calls per object.
    private mutating func begin(_ index: Int, depth: Int, start: inout Int) throws -> Decoded {
        if slots[index].nodes > 0 {
            // Read before (every decoded value counts at least itself).
            return try reuse(index, depth: depth)
        }
        guard !slots[index].isDecoding else {
            throw Self.malformed("object \(index) contains itself (a reference cycle)", at: offset(of: index))
        }
        start = offset(of: index)
        switch bytes[start] >> 4 {
        case 0xA, 0xC, 0xD:
            return .toOpen
        default:
            let value = try leaf(index, at: start)
            remember(value, of: index, nodes: 1, height: 0)
            return Decoded(value: value, nodes: 1, height: 0)
        }
    }

    /// A value read before, used again: counted against the expanded references, the depth
    /// and the object count.
    private mutating func reuse(_ index: Int, depth: Int) throws -> Decoded {
        let nodes = slots[index].nodes
        let height = slots[index].height
        if nodes > 1 {
            referencesExpanded &+= nodes
            guard referencesExpanded <= limits.maxReferencesExpanded else {
                throw ArchiveError.limitExceeded(
                    .referencesExpanded,
                    "shared objects are used so often that more than \(limits.maxReferencesExpanded) values would be copied",
                    location: .init(byteOffset: offset(of: index)))
            }
        }
        guard depth + height <= limits.maxDepth else {
            throw depthError(at: offset(of: index))
        }
        try countNodes(nodes, at: index)
        return Decoded(value: slots[index].value ?? .null, nodes: nodes, height: height)
    }

    /// Keeps the decoded value of object `index` for its later uses.
    private mutating func remember(_ value: ArchiveValue, of index: Int, nodes: Int, height: Int) {
        slots[index].value = value
        slots[index].nodes = nodes
        slots[index].height = height
        slots[index].isDecoding = false
    }

    /// Opens the array, set or dictionary object `index`, which starts at `start`, at nesting
    /// `depth`.
    private mutating func open(_ index: Int, at start: Int, depth: Int) throws -> Container {
        let isDictionary = bytes[start] >> 4 == 0xD
        guard depth + 1 <= limits.maxDepth else { throw depthError(at: start) }
        let (count, references) = try length(bytes[start] & 0x0F, at: start)
        if isDictionary {
            let (referenceCount, overflow) = count.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw Self.malformed("a dictionary is larger than the file", at: start) }
            try requireReferences(references, count: referenceCount, elements: count, at: start)
        } else {
            try requireReferences(references, count: count, elements: count, at: start)
        }
        try countNodes(1, at: index)
        slots[index].isDecoding = true
        var container = Container(
            index: index, start: start, isDictionary: isDictionary, count: count, references: references)
        if isDictionary {
            container.entries.reserveCapacity(count)
        } else {
            container.elements.reserveCapacity(count)
        }
        return container
    }

    /// Closes a container whose children are all read: its value, remembered for later uses.
    private mutating func finish(_ container: Container) throws -> Decoded {
        let value: ArchiveValue
        if container.isDictionary {
            let dictionary = ArchiveDictionary(uniqueStoredEntries: container.entries)
            if let duplicate = dictionary.firstDuplicateKey() {
                throw Self.malformed("the key '\(duplicate)' occurs twice in a dictionary", at: container.start)
            }
            value = .dictionary(dictionary)
        } else {
            value = .array(container.elements)
        }
        let decoded = Decoded(value: value, nodes: container.nodes, height: container.height + 1)
        remember(value, of: container.index, nodes: decoded.nodes, height: decoded.height)
        return decoded
    }

    private func depthError(at offset: Int) -> ArchiveError {
        ArchiveError.limitExceeded(
            .depth, "the values are nested deeper than the limit of \(limits.maxDepth)",
            location: .init(byteOffset: offset))
    }

    private mutating func countNodes(_ nodes: Int, at index: Int) throws {
        nodeCount &+= nodes
        guard nodeCount <= limits.maxObjectCount else {
            throw ArchiveError.limitExceeded(
                .objectCount, "the property list holds more than \(limits.maxObjectCount) values",
                location: .init(byteOffset: offset(of: index)))
        }
    }

    private func offset(of index: Int) -> Int {
        // Validated in `init`: inside the object data.
        slots[index].offset
    }

    /// The value of a leaf object (anything but an array, set or dictionary).
    private mutating func leaf(_ index: Int, at start: Int) throws -> ArchiveValue {
        let marker = bytes[start]
        let low = marker & 0x0F
        try countNodes(1, at: index)
        switch marker >> 4 {
        case 0x0:
            switch low {
            case 0x0: return .null
            case 0x8: return .bool(false)
            case 0x9: return .bool(true)
            case 0xF: throw Self.malformed("object \(index) is a fill byte, not a value", at: start)
            default: throw Self.malformed("object \(index) has the unknown marker 0x\(Self.hex(marker))", at: start)
            }
        case 0x1:
            return try integer(at: start)
        case 0x2:
            guard low == 2 || low == 3 else {
                throw Self.malformed("a real of \(1 << Int(low)) bytes is not supported (only 4 or 8)", at: start)
            }
            let size = 1 << Int(low)
            try requireObjectBytes(start + 1, count: size, at: start)
            let bits = Self.readUnsigned(bytes, at: start + 1, size: size)
            return .double(
                size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits))
        case 0x3:
            guard low == 3 else { throw Self.malformed("a date must have 8 bytes (marker 0x33)", at: start) }
            try requireObjectBytes(start + 1, count: 8, at: start)
            let seconds = Double(bitPattern: Self.readUnsigned(bytes, at: start + 1, size: 8))
            guard PropertyListDate.isValid(seconds) else {
                throw Self.malformed(
                    "the date \(seconds) (seconds since 2001-01-01) is not a finite date in the years 0 to 9999",
                    at: start)
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4:
            let (count, contents) = try length(low, at: start)
            try requireObjectBytes(contents, count: count, at: start)
            guard count <= limits.maxDataLength else {
                throw ArchiveError.limitExceeded(
                    .dataLength, "a data value has \(count) bytes, more than the limit of \(limits.maxDataLength)",
                    location: .init(byteOffset: start))
            }
            return .data(Data(bytes[contents..<contents + count]))
        case 0x5, 0x6:
            return .string(try string(at: start))
        case 0x8:
            let size = Int(low) + 1
            try requireObjectBytes(start + 1, count: size, at: start)
            var value: UInt64 = 0
            for position in start + 1...start + size {
                // Shifting a value above 0xFFFFFF would leave 32 bits: UIDs are 32-bit.
                guard value <= 0xFF_FFFF else { throw Self.malformed("a UID does not fit 32 bits", at: start) }
                value = value << 8 | UInt64(bytes[position])
            }
            return .reference(ArchiveObjectID(Int(value)))
        case 0xB:
            throw Self.malformed("ordered sets (marker 0xB) are not part of 'bplist00'", at: start)
        default:
            throw Self.malformed("object \(index) has the unknown marker 0x\(Self.hex(marker))", at: start)
        }
    }

    private func integer(at start: Int) throws -> ArchiveValue {
        let low = Int(bytes[start] & 0x0F)
        guard low <= 4 else {
            throw Self.malformed("an integer of \(1 << low) bytes is not supported (only 1, 2, 4, 8 or 16)", at: start)
        }
        let size = 1 << low
        try requireObjectBytes(start + 1, count: size, at: start)
        switch size {
        case 1, 2, 4:
            return .int(Int64(Self.readUnsigned(bytes, at: start + 1, size: size)))
        case 8:
            return .int(Int64(bitPattern: Self.readUnsigned(bytes, at: start + 1, size: 8)))
        default:
            let high = Self.readUnsigned(bytes, at: start + 1, size: 8)
            let low = Self.readUnsigned(bytes, at: start + 9, size: 8)
            if high == 0 { return ArchiveValue(low) }
            if high == UInt64.max, low >= UInt64(1) << 63 { return .int(Int64(bitPattern: low)) }
            throw Self.malformed("a 128-bit integer does not fit Int64 or UInt64", at: start)
        }
    }

    private func string(at start: Int) throws -> String {
        let marker = bytes[start]
        let (count, contents) = try length(marker & 0x0F, at: start)
        if marker >> 4 == 0x5 {
            try requireObjectBytes(contents, count: count, at: start)
            guard count <= limits.maxStringLength else { throw stringTooLong(count, at: start) }
            guard let text = PropertyListText.utf8String(bytes[contents..<contents + count]) else {
                throw Self.malformed("an ASCII string holds bytes that are neither ASCII nor UTF-8", at: start)
            }
            return text
        }
        let (byteCount, overflow) = count.multipliedReportingOverflow(by: 2)
        guard !overflow else { throw Self.malformed("a UTF-16 string is longer than the file", at: start) }
        try requireObjectBytes(contents, count: byteCount, at: start)
        guard count <= limits.maxStringLength else { throw stringTooLong(count, at: start) }
        var units: [UInt16] = []
        units.reserveCapacity(count)
        var position = contents
        while position < contents + byteCount {
            units.append(UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1]))
            position += 2
        }
        guard let text = PropertyListText.utf16String(units) else {
            throw Self.malformed("a UTF-16 string holds a lone surrogate", at: start)
        }
        let utf8Count = text.utf8.count
        guard utf8Count <= limits.maxStringLength else { throw stringTooLong(utf8Count, at: start) }
        return text
    }

    private func stringTooLong(_ count: Int, at start: Int) -> ArchiveError {
        ArchiveError.limitExceeded(
            .stringLength, "a string has \(count) bytes, more than the limit of \(limits.maxStringLength)",
            location: .init(byteOffset: start))
    }

    /// The string of object `index`, used as a dictionary key (keys are not tree nodes).
    private mutating func key(_ index: Int, in dictionaryStart: Int) throws -> String {
        if case .string(let key)? = slots[index].value { return key }
        let start = offset(of: index)
        let kind = bytes[start] >> 4
        guard kind == 0x5 || kind == 0x6 else {
            throw Self.malformed("a dictionary key (object \(index)) is not a string", at: start)
        }
        let key = try string(at: start)
        remember(.string(key), of: index, nodes: 1, height: 0)
        return key
    }

    // MARK: - Bytes

    /// The count in a marker's low nibble, or in the integer object after the marker when the
    /// nibble is 0xF; returns the count and where the contents start.
    private func length(_ low: UInt8, at start: Int) throws -> (count: Int, contents: Int) {
        if low != 0x0F { return (Int(low), start + 1) }
        let position = start + 1
        guard position < offsetTableStart else { throw Self.malformed("a length runs past the object data", at: start) }
        let marker = bytes[position]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw Self.malformed("a length is not an integer of 1, 2, 4 or 8 bytes", at: start)
        }
        let size = 1 << Int(marker & 0x0F)
        try requireObjectBytes(position + 1, count: size, at: start)
        let value = Self.readUnsigned(bytes, at: position + 1, size: size)
        guard value <= UInt64(offsetTableStart) else {
            throw Self.malformed("the length \(Int64(bitPattern: value)) is larger than the file", at: start)
        }
        return (Int(value), position + 1 + size)
    }

    /// Checks that `count` bytes from `position` lie inside the object data.
    private func requireObjectBytes(_ position: Int, count: Int, at start: Int) throws {
        let (end, overflow) = position.addingReportingOverflow(count)
        guard !overflow, count >= 0, end <= offsetTableStart else {
            throw Self.malformed("an object's \(count) bytes run past the object data", at: start)
        }
    }

    /// Checks that `count` object references from `position` lie inside the object data and that
    /// the collection's `elements` are within the limit.
    private func requireReferences(_ position: Int, count: Int, elements: Int, at start: Int) throws {
        let (length, overflow) = count.multipliedReportingOverflow(by: referenceSize)
        guard !overflow else { throw Self.malformed("a collection is larger than the file", at: start) }
        try requireObjectBytes(position, count: length, at: start)
        guard elements <= limits.maxCollectionCount else {
            throw ArchiveError.limitExceeded(
                .collectionCount,
                "a collection has \(elements) elements, more than the limit of \(limits.maxCollectionCount)",
                location: .init(byteOffset: start))
        }
    }

    /// The object number stored at `position` (checked by ``requireReferences``).
    private func reference(at position: Int, in start: Int) throws -> Int {
        let value = Self.readUnsigned(bytes, at: position, size: referenceSize)
        guard value < UInt64(objectCount) else {
            throw Self.malformed("a reference to object \(value) but the file has \(objectCount) objects", at: start)
        }
        return Int(value)
    }

    /// A big-endian unsigned integer of `size` (1 to 8) bytes; the caller checked the range.
    ///
    /// The common sizes are one bounds check and one load (byte by byte they were 50 to 60
    /// instructions a reference); out of bounds traps, as the array's own check would.
    @inline(__always)
    private static func readUnsigned(_ bytes: [UInt8], at position: Int, size: Int) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            precondition(position >= 0 && size >= 0 && size <= raw.count &- position, "a read past the bytes")
            switch size {
            case 1: return UInt64(raw[position])
            case 2: return UInt64(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
            case 4: return UInt64(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
            case 8: return UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            default:
                var value: UInt64 = 0
                for index in position..<position &+ size { value = value << 8 | UInt64(raw[index]) }
                return value
            }
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    private static func malformed(_ message: String, at offset: Int) -> ArchiveError {
        ArchiveError(.malformedInput, message, location: .init(byteOffset: offset))
    }
}
