/// The identity of a shared object inside one archive; ``ArchiveValue/reference(_:)`` nodes
/// point to it.
///
/// Identities are local to an archive (they map one-to-one onto NSKeyedArchiver's UIDs) and carry
/// no meaning across archives.
public struct ArchiveObjectID: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The number written to the archive (`"$id"` in JSON, the UID in a keyed archive).
    public var rawValue: Int

    /// The identity numbered `rawValue`.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The identity numbered `rawValue`: `ArchiveObjectID(3)`.
    public init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The identity an integer literal numbers: `let id: ArchiveObjectID = 3`.
    public init(integerLiteral value: Int) {
        self.rawValue = value
    }

    /// Orders identities by their number.
    public static func < (lhs: ArchiveObjectID, rhs: ArchiveObjectID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The number after a `#`, as `#3`.
    public var description: String { "#\(rawValue)" }
}

/// A typed model object in the archive tree: its stable type name, the version of that type it
/// was written at, an optional identity, and its own fields.
///
/// A migration step sees exactly one object's ``fields``: nested objects are values inside them
/// and are migrated by their own type's chain.
///
/// ```swift
/// var circle = ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 3])
/// circle.fields.renameKey("r", to: "radius")
/// circle.version = 2
/// ```
///
/// `ArchiveObject` is a value with copy-on-write storage: editing one that is uniquely held (as
/// the migration pass does) changes it in place without copying its fields.
public struct ArchiveObject: Sendable {
    /// Copy-on-write storage. `@unchecked Sendable` is sound because the storage is only mutated
    /// through `ArchiveObject`'s setters after `isKnownUniquelyReferenced` proved that no other
    /// value (and so no other thread) can see it. For the same reason no two accesses to one
    /// storage can overlap, so the runtime exclusivity checks (paid on every read of a class
    /// property otherwise) are switched off.
    @usableFromInline
    final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) @usableFromInline var typeName: String
        @exclusivity(unchecked) @usableFromInline var version: Int?
        @exclusivity(unchecked) @usableFromInline var id: ArchiveObjectID?
        @exclusivity(unchecked) @usableFromInline var superclassNames: [String]
        @exclusivity(unchecked) @usableFromInline var fields: ArchiveDictionary

        @usableFromInline
        init(
            typeName: String, version: Int?, id: ArchiveObjectID?, superclassNames: [String], fields: ArchiveDictionary
        ) {
            self.typeName = typeName
            self.version = version
            self.id = id
            self.superclassNames = superclassNames
            self.fields = fields
        }

        @usableFromInline
        func copy() -> Storage {
            Storage(typeName: typeName, version: version, id: id, superclassNames: superclassNames, fields: fields)
        }
    }

    @usableFromInline
    var storage: Storage

    /// Creates an object.
    ///
    /// - Parameters:
    ///   - typeName: The stable archive type name (a model's `archiveTypeName`, the class name in
    ///     keyed archives).
    ///   - version: The version of the type the object was written at; `nil` for archives that
    ///     record none (plain NSCoding), which migrations map to the type's pre-versioning version.
    ///   - id: The identity references point to, when the object is shared or conditionally
    ///     referenced.
    ///   - superclassNames: For keyed archives, the class chain after the class itself
    ///     (`$classes` without its first entry).
    ///   - fields: The object's own keys and values.
    @inlinable
    public init(
        typeName: String, version: Int?, id: ArchiveObjectID? = nil, superclassNames: [String] = [],
        fields: ArchiveDictionary = [:]
    ) {
        storage = Storage(
            typeName: typeName, version: version, id: id, superclassNames: superclassNames, fields: fields)
    }

    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
        }
    }

    /// The stable archive type name.
    @inlinable
    public var typeName: String {
        get { storage.typeName }
        set {
            makeUnique()
            storage.typeName = newValue
        }
    }

    /// The version of the type this object was written at, or `nil` when the archive records none.
    @inlinable
    public var version: Int? {
        get { storage.version }
        set {
            makeUnique()
            storage.version = newValue
        }
    }

    /// The identity that ``ArchiveValue/reference(_:)`` nodes use to point at this object.
    @inlinable
    public var id: ArchiveObjectID? {
        get { storage.id }
        set {
            makeUnique()
            storage.id = newValue
        }
    }

    /// For keyed archives: the superclass chain after the class itself, nearest first.
    @inlinable
    public var superclassNames: [String] {
        get { storage.superclassNames }
        set {
            makeUnique()
            storage.superclassNames = newValue
        }
    }

    /// The object's own keys and values, in archived order.
    @inlinable
    public var fields: ArchiveDictionary {
        get { storage.fields }
        _modify {
            makeUnique()
            yield &storage.fields
        }
        set {
            makeUnique()
            storage.fields = newValue
        }
    }

    /// The value of one field.
    @inlinable
    public subscript(key: String) -> ArchiveValue? {
        get { storage.fields[key] }
        set { fields[key] = newValue }
    }
}

/// Two objects are equal when their type names and superclass names have the same Unicode
/// scalars (as keys do, see ``ArchiveDictionary``) and their versions, identities and fields are
/// equal.
extension ArchiveObject: Hashable {
    /// Whether the two objects have the same type and superclass names, version, identity and fields.
    public static func == (lhs: ArchiveObject, rhs: ArchiveObject) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.typeName.hasSameScalars(as: rhs.typeName) && lhs.version == rhs.version && lhs.id == rhs.id
            && lhs.superclassNames.elementsEqual(rhs.superclassNames, by: { $0.hasSameScalars(as: $1) })
            && lhs.fields == rhs.fields
    }

    /// Hashes the type name's Unicode scalars, the version, the identity and the fields.
    public func hash(into hasher: inout Hasher) {
        typeName.hashScalars(into: &hasher)
        hasher.combine(version)
        hasher.combine(id)
        hasher.combine(fields)
    }
}

extension ArchiveObject: CustomStringConvertible {
    /// `Circle v2 #3`: type name, version and identity.
    public var description: String {
        var text = typeName
        if let version { text += " v\(version)" }
        if let id { text += " \(id)" }
        return text
    }
}
