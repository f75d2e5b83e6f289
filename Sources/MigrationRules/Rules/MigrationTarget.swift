/// The keyed container a ``MigrationRule`` edits: an object's fields or a plain dictionary, with
/// the object's type name and version and the container's place in the tree.
///
/// The migration pass moves the container's entries into a target, applies a step's rules to it
/// and moves them back, so rules edit the tree in place without copying it. Closure rules
/// (``MigrationRule/transform(_:_:inverse:)``) receive the target directly:
///
/// ```swift
/// let swapAxes = MigrationRule.transform("swapAxes") { target in
///     let x = target.fields["x"]
///     target.fields["x"] = target.fields["y"]
///     target.fields["y"] = x
/// }
/// var target = MigrationTarget(fields: ["x": 1, "y": 2])
/// try swapAxes.apply(to: &target)        // target.fields == ["x": 2, "y": 1]
/// ```
public struct MigrationTarget: Sendable {
    /// The container's entries: an object's fields or a dictionary's entries, in archived order.
    public var fields: ArchiveDictionary
    /// The object's type name, or `nil` when the container is a plain dictionary.
    ///
    /// Change it with ``renameType(to:)`` (or a ``MigrationRule/renameType(from:to:)`` rule).
    public private(set) var typeName: String?
    /// The version the object is at while the current step runs (the step's `from` version on
    /// upgrade, its `to` version on downgrade), or its archived version outside a chain; `nil`
    /// for plain dictionaries and unversioned objects.
    public internal(set) var version: Int?
    /// Where the container is in the tree, from the document root (`shapes[3]`).
    ///
    /// Errors thrown by built-in rules carry this path followed by the rule's inner path.
    public let path: ArchivePath
    /// What the rules of the migration pass that made this target have done, against what they
    /// may do (``ArchiveLimits/maxRuleWork``); without a limit for a target made elsewhere.
    var work = RuleWork.unlimited

    /// Creates a target for a plain dictionary's entries or, with a `typeName`, an object's fields.
    ///
    /// - Parameters:
    ///   - fields: The entries to edit.
    ///   - typeName: The object's type name; `nil` for a plain dictionary.
    ///   - version: The object's version, if any.
    ///   - path: Where the container is in the tree; used in errors.
    public init(fields: ArchiveDictionary, typeName: String? = nil, version: Int? = nil, path: ArchivePath = .root) {
        self.fields = fields
        self.typeName = typeName
        self.version = version
        self.path = path
    }

    /// Creates a target for an object's fields, type name and version.
    ///
    /// ```swift
    /// var target = MigrationTarget(object: ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 3]))
    /// try MigrationRule.rename("r", to: "radius").apply(to: &target)
    /// ```
    public init(object: ArchiveObject, path: ArchivePath = .root) {
        self.init(fields: object.fields, typeName: object.typeName, version: object.version, path: path)
    }

    /// Whether the container is a typed object (rather than a plain dictionary).
    public var isObject: Bool { typeName != nil }

    /// Changes the type name of the object this target stands for.
    ///
    /// ```swift
    /// try target.renameType(to: "Circle")
    /// ```
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/migrationFailed`` when the target is
    ///   a plain dictionary, which has no type name. Like every error thrown inside a
    ///   ``MigrationRule/transform(_:_:inverse:)`` closure, its path is relative to the container.
    public mutating func renameType(to newName: String) throws {
        guard typeName != nil else {
            throw ArchiveError(
                .migrationFailed,
                "cannot rename the type of a plain dictionary to '\(newName)': only objects have types")
        }
        typeName = newName
    }
}

extension MigrationTarget {
    /// Moves the entries of a dictionary or object `value` into a target, runs `body`, and moves
    /// them back (with the object's new type name), so that nothing is copied. Returns `nil`
    /// without calling `body` when `value` is not keyed.
    ///
    /// While `body` runs `value` is `.null`; on a throw the entries are put back all the same.
    static func withTarget<R>(
        for value: inout ArchiveValue, path: ArchivePath, _ body: (inout MigrationTarget) throws -> R
    ) rethrows -> R? {
        var work = RuleWork.unlimited
        return try withTarget(for: &value, path: path, work: &work, body)
    }

    /// ``withTarget(for:path:_:)`` for a target that counts its rules' work in `work`, which
    /// holds the count again when `body` returns or throws.
    static func withTarget<R>(
        for value: inout ArchiveValue, path: ArchivePath, work: inout RuleWork,
        _ body: (inout MigrationTarget) throws -> R
    ) rethrows -> R? {
        if let entries = value.takeDictionary() {
            var target = MigrationTarget(fields: entries, path: path)
            target.work = work
            defer {
                work = target.work
                value = .dictionary(target.fields)
            }
            return try body(&target)
        }
        if var object = value.takeObject() {
            var target = MigrationTarget(
                fields: object.takeFields(), typeName: object.typeName, version: object.version, path: path)
            target.work = work
            defer {
                work = target.work
                object.restore(from: &target)
                value = .object(object)
            }
            return try body(&target)
        }
        return nil
    }
}

extension ArchiveObject {
    /// Moves the fields out of the object (leaving it empty) so that they can be edited without
    /// a copy; pair with ``restore(from:)``.
    @inline(__always)
    mutating func takeFields() -> ArchiveDictionary {
        makeUnique()
        let fields = storage.fields
        storage.fields = ArchiveDictionary()
        return fields
    }

    /// Moves a target's fields and type name back into the object.
    @inline(__always)
    mutating func restore(from target: inout MigrationTarget) {
        makeUnique()
        storage.fields = target.fields
        target.fields = ArchiveDictionary()
        if let name = target.typeName, name != storage.typeName {
            storage.typeName = name
        }
    }
}
