/// In-place edits of keyed containers used by the rules and the migration pass.
///
/// Every edit moves a container's payload out of its slot (leaving `.null` there), changes it
/// and moves it back, so a uniquely held tree is never copied.
extension ArchiveValue {
    /// Whether this is an array, dictionary or object (a value the pass must look inside).
    @inline(__always)
    var isContainer: Bool {
        switch self {
        case .array, .dictionary, .object: return true
        default: return false
        }
    }

    // The take functions move a payload out and leave `.null`, so that the caller holds the only
    // reference and edits it without copying. They bind with `guard case`: binding in a `switch`
    // keeps a copy of the subject alive for the whole case body, which makes every payload look
    // shared and turns each edit into a copy.

    /// Moves out the payload of an object, leaving `.null`; `nil` (and no change) for other kinds.
    @inline(__always)
    mutating func takeObject() -> ArchiveObject? {
        guard case .object(let object) = self else { return nil }
        self = .null
        return object
    }

    /// Moves out the elements of an array, leaving `.null`; `nil` (and no change) for other kinds.
    @inline(__always)
    mutating func takeArray() -> [ArchiveValue]? {
        guard case .array(let elements) = self else { return nil }
        self = .null
        return elements
    }

    /// Moves out the entries of a dictionary, leaving `.null`; `nil` (and no change) for other
    /// kinds.
    @inline(__always)
    mutating func takeDictionary() -> ArchiveDictionary? {
        guard case .dictionary(let entries) = self else { return nil }
        self = .null
        return entries
    }

    /// Runs `body` on the entries of a dictionary or the fields of an object, in place; returns
    /// `nil` without calling `body` for every other kind.
    @inline(__always)
    mutating func modifyKeyedEntries<R>(_ body: (inout ArchiveDictionary) throws -> R) rethrows -> R? {
        if var entries = takeDictionary() {
            defer { self = .dictionary(entries) }
            return try body(&entries)
        }
        if var object = takeObject() {
            defer { self = .object(object) }
            return try body(&object.fields)
        }
        return nil
    }

    /// A short rendering of a value for error messages: `"Fred"`, `42`, `[3 elements]`.
    var briefDescription: String {
        switch self {
        case .string(let text):
            let clipped = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return ArchiveValue.string(clipped).literalDescription
        case .array(let elements):
            return elements.count == 1 ? "[1 element]" : "[\(elements.count) elements]"
        case .dictionary(let entries):
            return entries.count == 1 ? "{1 entry}" : "{\(entries.count) entries}"
        case .object(let object):
            return "object \(object)"
        default:
            return literalDescription
        }
    }

    /// `kind value`, as error messages name what they found: `int 42`, `string "x"`, `null`.
    var kindAndValue: String {
        switch self {
        case .null: return "null"
        case .object(let object): return "object \(object)"
        default: return "\(kind) \(briefDescription)"
        }
    }

    /// A JSON-like rendering of a value for rule descriptions: `false`, `"text"`, `[1, 2]`,
    /// `{"type": "arrow"}`.
    var literalDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .uint(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let text):
            var escaped = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                case "\t": escaped += "\\t"
                case "\r": escaped += "\\r"
                default:
                    if scalar.value < 0x20 {
                        escaped += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
                    } else {
                        escaped.unicodeScalars.append(scalar)
                    }
                }
            }
            return escaped + "\""
        case .data(let data): return data.count == 1 ? "<1 byte>" : "<\(data.count) bytes>"
        case .date(let date): return ISO8601Date.exactString(from: date).map { "date \($0)" } ?? "date \(date)"
        case .array(let elements): return "[" + elements.map(\.literalDescription).joined(separator: ", ") + "]"
        case .dictionary(let entries): return Self.describeEntries(entries, prefix: "")
        case .object(let object): return Self.describeEntries(object.fields, prefix: object.description + " ")
        case .reference(let id): return "reference \(id)"
        }
    }

    private static func describeEntries(_ entries: ArchiveDictionary, prefix: String) -> String {
        let items = entries.map { ArchiveValue.string($0.key).literalDescription + ": " + $0.value.literalDescription }
        return prefix + "{" + items.joined(separator: ", ") + "}"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Edits along key paths (`center.x`) inside keyed containers, for ``MigrationRule/move(_:to:)``
/// and for document versions stored at a path.
extension ArchiveDictionary {
    /// The keys of a path made of keys only, or `nil` when it has indices or wildcards.
    static func keys(of path: ArchivePath) -> [String]? {
        var keys: [String] = []
        keys.reserveCapacity(path.count)
        for component in path.components {
            guard case .key(let key) = component else { return nil }
            keys.append(key)
        }
        return keys
    }

    /// The value at a key path, looking through dictionaries and objects; `nil` when a key is
    /// absent or an intermediate value is not keyed.
    func value(atKeys keys: [String]) -> ArchiveValue? {
        guard let first = keys.first, var current = self[first] else { return nil }
        for key in keys.dropFirst() {
            guard let next = current.keyedEntries?[key] else { return nil }
            current = next
        }
        return current
    }

    /// Removes and returns the value at `keys[offset...]`, with the position of the top-level
    /// entry it was found under. Dictionaries (not objects) emptied on the way are removed too.
    ///
    /// Absent keys and `null` intermediates find nothing; any other non-keyed intermediate is an
    /// error at `base` + the keys walked so far.
    mutating func takeValue(
        atKeys keys: [String], from offset: Int = 0, base: ArchivePath
    ) throws -> (value: ArchiveValue, position: Int)? {
        guard offset < keys.count, let index = index(forKey: keys[offset]) else { return nil }
        if offset == keys.count - 1 {
            return (removeEntry(at: index).value, index)
        }
        if entries[index].value.isNull { return nil }
        var taken: (value: ArchiveValue, position: Int)?
        var emptied = false
        let edited: Void? = try entries[index].value.modifyKeyedEntries { inner in
            taken = try inner.takeValue(atKeys: keys, from: offset + 1, base: base)
            emptied = inner.isEmpty
        }
        guard edited != nil else {
            throw Self.notKeyed(entries[index].value, keys: keys[...offset], base: base)
        }
        guard let taken else { return nil }
        if emptied, case .dictionary = entries[index].value {
            removeEntry(at: index)
        }
        return (taken.value, index)
    }

    /// Stores `value` at `keys[offset...]`, creating missing intermediate dictionaries (and
    /// replacing `null` ones). The top-level entry, when new, goes at `position` (else at the
    /// end).
    ///
    /// - Parameter replacing: Whether an existing value at the final key is replaced; when
    ///   `false` it is an error.
    mutating func storeValue(
        _ value: ArchiveValue, atKeys keys: [String], from offset: Int = 0, position: Int? = nil,
        replacing: Bool, base: ArchivePath
    ) throws {
        guard offset < keys.count else { return }
        let key = keys[offset]
        let existing = index(forKey: key)
        if offset == keys.count - 1 {
            if let existing {
                guard replacing else {
                    throw ArchiveError(
                        .migrationFailed, "the key '\(key)' already exists",
                        path: base.appending(Self.path(of: keys[...offset])))
                }
                entries[existing].value = value
            } else {
                insertEntry(value, forKey: key, at: position)
            }
            return
        }
        guard let existing else {
            var inner = ArchiveDictionary()
            try inner.storeValue(value, atKeys: keys, from: offset + 1, replacing: replacing, base: base)
            insertEntry(.dictionary(inner), forKey: key, at: position)
            return
        }
        if entries[existing].value.isNull {
            entries[existing].value = .dictionary(ArchiveDictionary())
        }
        let edited: Void? = try entries[existing].value.modifyKeyedEntries { inner in
            try inner.storeValue(value, atKeys: keys, from: offset + 1, replacing: replacing, base: base)
        }
        guard edited != nil else {
            throw Self.notKeyed(entries[existing].value, keys: keys[...offset], base: base)
        }
    }

    /// Appends, or inserts at `position` when it is a valid position.
    @inline(__always)
    mutating func insertEntry(_ value: ArchiveValue, forKey key: String, at position: Int?) {
        if let position, position >= 0, position < entries.count {
            insertEntry(Entry(key: key, value: value), at: position)
        } else {
            appendUnchecked(value, forKey: key)
        }
    }

    static func path(of keys: ArraySlice<String>) -> ArchivePath {
        ArchivePath(keys.map { .key($0) })
    }

    private static func notKeyed(_ value: ArchiveValue, keys: ArraySlice<String>, base: ArchivePath) -> ArchiveError {
        ArchiveError(
            .migrationFailed, "expected a dictionary or object, found \(value.kindAndValue)",
            path: base.appending(path(of: keys)))
    }
}
