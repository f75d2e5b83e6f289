import Foundation

extension JSONStructure {
    /// Where a walk over one container's entries is: its next entry, and the ordinal the next
    /// container inside it takes.
    @usableFromInline package struct Cursor: Sendable {
        @usableFromInline package var entry: Int
        @usableFromInline package var ordinal: Int

        /// At `entry`, with `ordinal` for the next container met.
        @inlinable @inline(__always)
        package init(entry: Int, ordinal: Int) {
            self.entry = entry
            self.ordinal = ordinal
        }
    }

    /// A walk over the entries of container `ordinal`.
    @inlinable @inline(__always)
    package func cursor(overContainer ordinal: Int) -> Cursor {
        Cursor(entry: Int(containers[ordinal].firstEntry), ordinal: ordinal &+ 1)
    }

    /// The ordinal of the value whose first byte is at `offset` when it is a container, moving
    /// `cursor` past it and everything it holds; -1 for a scalar.
    @inlinable @inline(__always)
    package func containerOrdinal(at offset: Int, in text: JSONText, cursor: inout Cursor) -> Int {
        let first = text.bytes[offset]
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return -1 }
        let ordinal = cursor.ordinal
        let container = containers[ordinal]
        cursor.ordinal = ordinal &+ 1 &+ Int(container.descendants)
        cursor.entry &+= Int(container.nestedEntries)
        return ordinal
    }

    /// The array element at `cursor` (its first byte, and its ordinal when it is a container,
    /// else -1), moving `cursor` to the next one.
    @inlinable @inline(__always)
    package func nextElement(in text: JSONText, cursor: inout Cursor) -> (offset: Int, ordinal: Int) {
        let offset = Int(entries[cursor.entry])
        cursor.entry &+= 1
        return (offset, containerOrdinal(at: offset, in: text, cursor: &cursor))
    }

    /// One member of an object: its key's bytes (without quotes) and its value.
    @usableFromInline package struct Member: Sendable {
        @usableFromInline package var keyStart: Int
        @usableFromInline package var keyLength: Int
        /// Whether the key is ASCII (else valid UTF-8 with non-ASCII bytes).
        @usableFromInline package var keyIsASCII: Bool
        /// The value's first byte, and its ordinal when it is a container (else -1).
        @usableFromInline package var value: Int
        @usableFromInline package var ordinal: Int

        @inlinable @inline(__always)
        package init(keyStart: Int, keyLength: Int, keyIsASCII: Bool, value: Int, ordinal: Int) {
            self.keyStart = keyStart
            self.keyLength = keyLength
            self.keyIsASCII = keyIsASCII
            self.value = value
            self.ordinal = ordinal
        }
    }

    /// The object member at `cursor`, moving `cursor` to the next one; `nil` when its key has
    /// escapes (its bytes are not its scalars: the readers that walk the structure leave such
    /// objects to the tree).
    @inlinable @inline(__always)
    package func nextMember(in text: JSONText, cursor: inout Cursor) -> Member? {
        let keyStart = Int(entries[cursor.entry]) &+ 1
        let knownLength = keyLengths[cursor.entry]
        cursor.entry &+= 1
        let stop: Int
        var isASCII = true
        if knownLength != JSONStructure.unknownKeyLength {
            stop = keyStart &+ Int(knownLength)
        } else {
            let (end, highBits) = text.scanString(from: keyStart)
            guard end < text.end, text.bytes[end] == UInt8(ascii: "\"") else { return nil }
            stop = end
            isASCII = highBits & 0x8080_8080_8080_8080 == 0
        }
        let value = text.skipWhitespace(from: text.skipWhitespace(from: stop &+ 1) &+ 1)
        return Member(
            keyStart: keyStart, keyLength: stop &- keyStart, keyIsASCII: isASCII, value: value,
            ordinal: containerOrdinal(at: value, in: text, cursor: &cursor))
    }
}

/// The `$type` an archive's objects were last read with, and whether objects of it at one
/// version need upgrading: objects of one type come in runs, so a run's name is made into a
/// `String` and its chain looked up once.
package struct RecentTypeName {
    private var name = ""
    private var version: Int?
    private var needsUpgrade = false
    /// For an up-to-date type: ``MigrationCatalog/lastStepSourceKeys(typeName:)``.
    private var lastStepSourceKeys: [[UInt8]] = []
    /// The same as a set, looked up when there are more than a few.
    private var lastStepSourceKeySet: Set<[UInt8]> = []

    /// No type name read yet.
    package init() {}

    /// The last name when the `length` bytes at `bytes` spell it.
    @inline(__always)
    package mutating func name(spelledBy bytes: UnsafePointer<UInt8>, length: Int) -> String? {
        let same = name.withUTF8 { utf8 in
            utf8.count == length && JSONText.equal(bytes, utf8.baseAddress, length: length)
        }
        return same ? name : nil
    }

    /// ``MigrationCatalog/needsUpgrade(typeName:version:)``, remembered for the last name and
    /// version.
    @inline(__always)
    package mutating func needsUpgrade(_ typeName: String, _ version: Int?, catalog: MigrationCatalog) -> Bool {
        if version == self.version && typeName == name { return needsUpgrade }
        needsUpgrade = catalog.needsUpgrade(typeName: typeName, version: version)
        (lastStepSourceKeys, lastStepSourceKeySet) =
            needsUpgrade ? ([], []) : catalog.lastStepSourceKeys(typeName: typeName)
        name = typeName
        self.version = version
        return needsUpgrade
    }

    /// Whether an object of the last name and version, found up to date by
    /// ``needsUpgrade(_:_:catalog:)``, holding the key of `length` UTF-8 bytes at `key` must be
    /// left to the migration pass: the key is the source of a move of its chain's last step, so
    /// the object may have the layout of the version before, which the pass checks and refuses.
    @inline(__always)
    package func leavesToPass(key: UnsafePointer<UInt8>, length: Int) -> Bool {
        guard !lastStepSourceKeys.isEmpty else { return false }
        if lastStepSourceKeys.count > 8 {
            return lastStepSourceKeySet.contains(Array(UnsafeBufferPointer(start: key, count: length)))
        }
        for source in lastStepSourceKeys where source.count == length {
            if source.withUnsafeBufferPointer({ JSONText.equal(key, $0.baseAddress, length: length) }) { return true }
        }
        return false
    }
}
