import Foundation

/// The `Decoder` that builds models from an `ArchiveValue` tree.
///
/// One instance serves a whole run: decoding a nested value pushes it (with its key) and pops it
/// afterwards, so no decoder is allocated per value. Containers capture what they read (a
/// dictionary, an array) when created. The coding path is a stack of keys turned into
/// `[CodingKey]` only when asked for, and its height is the nesting depth checked against
/// `ArchiveLimits.maxDepth`.
final class TreeDecoder: Decoder {
    /// One step of the coding path.
    enum PathKey {
        case key(String)
        case index(Int)

        var codingKey: any CodingKey {
            switch self {
            case .key(let key): return ArchiveCodingKey(key)
            case .index(let index): return ArchiveCodingKey(index: index)
            }
        }

        var component: ArchivePath.Component {
            switch self {
            case .key(let key): return .key(key)
            case .index(let index): return .index(index)
            }
        }
    }

    // The mutable state below is touched on every decoded value. Its accesses are never
    // overlapping (one decoder serves one run on one thread, and no access spans a call that
    // could re-enter the decoder), so the runtime exclusivity checks are switched off for it.

    /// One level of the decode: the key it is under and what is current there.
    struct Frame {
        var key: PathKey?
        var value: ArchiveValue
        var model: ModelInfo?
        var object: ArchiveObject?
        var allowed: Set<String>?
        var conditional: Bool
    }

    let session: TreeDecodingSession
    /// The levels from the root (whose key is `nil`) to the value being decoded. Pushing a level
    /// moves the new values in and popping it releases them: the cheapest way to keep the
    /// current state (see `decode(_:from:key:allowed:conditional:)`).
    @exclusivity(unchecked) private(set) var frames: [Frame]

    init(session: TreeDecodingSession, value: ArchiveValue, keys: [PathKey] = []) {
        self.session = session
        var frames = [Frame(key: nil, value: .null, model: nil, object: nil, allowed: nil, conditional: false)]
        frames.reserveCapacity(16)
        for key in keys {
            frames.append(Frame(key: key, value: .null, model: nil, object: nil, allowed: nil, conditional: false))
        }
        frames[frames.count - 1].value = value
        self.frames = frames
    }

    /// The value `init(from:)` is decoding now.
    var currentValue: ArchiveValue {
        get { frames[frames.count - 1].value }
        set { frames[frames.count - 1].value = newValue }
    }

    /// The model whose own fields are current.
    var currentModel: ModelInfo? {
        get { frames[frames.count - 1].model }
        set { frames[frames.count - 1].model = newValue }
    }

    /// The archived object whose fields are current.
    var currentObject: ArchiveObject? {
        get { frames[frames.count - 1].object }
        set { frames[frames.count - 1].object = newValue }
    }

    /// The archive type names allowed for objects at the current key, if restricted.
    var currentAllowed: Set<String>? {
        get { frames[frames.count - 1].allowed }
        set { frames[frames.count - 1].allowed = newValue }
    }

    /// Whether the current key is declared conditional by its model.
    var currentIsConditional: Bool {
        get { frames[frames.count - 1].conditional }
        set { frames[frames.count - 1].conditional = newValue }
    }

    /// The keys from the root to the current value.
    var keys: [PathKey] { frames.compactMap(\.key) }

    /// Enters a level below the current one.
    @inline(__always)
    func push(_ key: PathKey, value: ArchiveValue, allowed: Set<String>?, conditional: Bool = false) throws {
        frames.append(
            Frame(key: key, value: value, model: nil, object: nil, allowed: allowed, conditional: conditional))
        guard frames.count <= session.options.limits.maxDepth + 1 else {
            frames.removeLast()
            throw ArchiveError.limitExceeded(
                .depth, "the archive nests deeper than \(session.options.limits.maxDepth) levels",
                path: path(appending: key))
        }
    }

    /// Leaves the current level.
    @inline(__always)
    func pop() {
        frames.removeLast()
    }

    var codingPath: [any CodingKey] { keys.map(\.codingKey) }

    var userInfo: [CodingUserInfoKey: Any] { session.options.userInfo }

    var depth: Int { frames.count - 1 }

    func codingPath(depth: Int) -> [any CodingKey] {
        keys.prefix(depth).map(\.codingKey)
    }

    /// The archive path at `depth`, followed by `key`.
    func path(depth: Int? = nil, appending key: PathKey? = nil) -> ArchivePath {
        var components = keys.prefix(depth ?? self.depth).map(\.component)
        if let key { components.append(key.component) }
        return ArchivePath(components)
    }

    func error(_ code: ArchiveError.Code, _ message: String, depth: Int? = nil, key: PathKey? = nil) -> ArchiveError {
        var error = ArchiveError(code, message, path: path(depth: depth, appending: key))
        if let currentObject {
            error.typeName = currentObject.typeName
            error.archivedVersion = currentObject.version
        }
        return error
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let state: KeyedDecodingState
        switch currentValue {
        case .dictionary(let fields):
            state = KeyedDecodingState(
                decoder: self, fields: fields, model: nil, object: nil, allowed: currentAllowed, depth: depth)
        case .object(let object):
            state = KeyedDecodingState(
                decoder: self, fields: object.fields, model: currentModel, object: currentObject ?? object,
                allowed: currentAllowed, depth: depth)
        default:
            throw mismatch(expected: "a keyed container (a dictionary or an object)", found: currentValue)
        }
        return session.keyedContainerMakers.maker(keyedBy: Key.self) {
            KeyedDecodingContainerMaker(TreeKeyedDecodingContainer<Key>.self)
        }.container(consume state)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = currentValue else {
            throw mismatch(expected: "an array", found: currentValue)
        }
        return TreeUnkeyedDecodingContainer(decoder: self, elements: elements, allowed: currentAllowed, depth: depth)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TreeSingleValueDecodingContainer(decoder: self, value: currentValue, allowed: currentAllowed, depth: depth)
    }

    // MARK: Nesting

    /// Decodes `value` as a `T` one level below the current one, under `key`.
    func decode<T: Decodable>(
        _ type: T.Type, from value: ArchiveValue, key: PathKey, allowed: Set<String>?, conditional: Bool = false
    ) throws -> T {
        try push(key, value: value, allowed: allowed, conditional: conditional)
        defer { pop() }
        return try unbox(value, as: T.self)
    }

    /// Decodes `value`, the current value, as a `T`. Callers make `value` the current value
    /// first (``decode(_:from:key:allowed:conditional:)`` pushes it).
    ///
    /// The hot path: generic `T?` values are avoided here (each one makes the runtime look up
    /// `Optional<T>`'s metadata), and the common primitives and arrays of them are built
    /// directly.
    func unbox<T: Decodable>(_ value: ArchiveValue, as type: T.Type) throws -> T {
        switch value {
        case .object(let object):
            if T.self == ArchiveValue.self { return unsafeBitCast(value, to: T.self) }
            if T.self == UnknownModel.self {
                return unsafeBitCast(UnknownModel(archivedObject: object), to: T.self)
            }
            return try decodeObject(object, as: T.self)
        case .reference(let id):
            if T.self == ArchiveValue.self { return unsafeBitCast(value, to: T.self) }
            return try decodeReference(id, as: T.self)
        case .array(let elements):
            let requested = ObjectIdentifier(T.self)
            if requested == KnownTypes.stringArray {
                return unsafeBitCast(try unboxStrings(elements), to: T.self)
            }
            if requested == KnownTypes.doubleArray {
                return unsafeBitCast(try unboxDoubles(elements), to: T.self)
            }
            if requested == KnownTypes.intArray {
                return unsafeBitCast(try unboxInts(elements), to: T.self)
            }
            if T.self == ArchiveValue.self { return unsafeBitCast(value, to: T.self) }
            if let array = T.self as? any ArchiveDecodableArray.Type {
                return try decodeArray(array, elements, as: T.self)
            }
        case .dictionary:
            if T.self == ArchiveValue.self { return unsafeBitCast(value, to: T.self) }
        case .string(let string):
            if T.self == String.self { return unsafeBitCast(string, to: T.self) }
            return try unboxScalar(value, as: T.self)
        case .int, .uint, .double, .bool, .null, .data, .date:
            return try unboxScalar(value, as: T.self)
        }
        return try decodeComposite(value, as: T.self)
    }

    /// A scalar node: the common primitives, then the other primitive types (dates, data,
    /// small integers…), then the type's own `init(from:)` (enums with raw values).
    private func unboxScalar<T: Decodable>(_ value: ArchiveValue, as type: T.Type) throws -> T {
        if T.self == Int.self { return unsafeBitCast(try unboxInteger(value, as: Int.self), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try unboxDouble(value), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try unboxBool(value), to: T.self) }
        if T.self == String.self { return unsafeBitCast(try unboxString(value), to: T.self) }
        if let primitive = T.self as? any ArchiveDecodablePrimitive.Type {
            return try makePrimitive(primitive, from: value, as: T.self)
        }
        return try decodeComposite(value, as: T.self)
    }

    private func makePrimitive<T>(
        _ primitive: any ArchiveDecodablePrimitive.Type, from value: ArchiveValue, as type: T.Type
    )
        throws -> T
    {
        func make<P: ArchiveDecodablePrimitive>(_ type: P.Type) throws -> T {
            // `P` is `T`: the metatype was cast from `T.self`.
            unsafeBitCast(try P(archiveValue: value, decoder: self), to: T.self)
        }
        return try make(primitive)
    }

    /// Any other value: the type's own `init(from:)` reads it through the containers. The
    /// current value is already `value` (every caller of ``unbox(_:as:)`` guarantees it).
    private func decodeComposite<T: Decodable>(_ value: ArchiveValue, as type: T.Type) throws -> T {
        if currentModel != nil { currentModel = nil }
        if currentObject != nil { currentObject = nil }
        return try T(from: self)
    }

    private func decodeReference<T: Decodable>(_ id: ArchiveObjectID, as type: T.Type) throws -> T {
        if T.self is any DecodesArchivedObjectsItself.Type {
            currentValue = .reference(id)
            return try T(from: self)
        }
        guard let resolved: T = try resolveReference(id, as: T.self) else {
            throw error(
                .valueNotFound,
                "the conditional reference to \(id) points to an object that was never archived unconditionally")
        }
        return resolved
    }

    /// An array of any other decodable element type, decoded element by element into an array
    /// of exactly the right capacity (the standard library's `Array.init(from:)` grows it).
    private func decodeArray<T>(_ array: any ArchiveDecodableArray.Type, _ elements: [ArchiveValue], as type: T.Type)
        throws -> T
    {
        func make<A: ArchiveDecodableArray>(_ type: A.Type) throws -> T {
            // `A` is `T`: the metatype was cast from `T.self`.
            unsafeBitCast(try A.decodeElements(elements, with: self, allowed: currentAllowed), to: T.self)
        }
        return try make(array)
    }

    private func unboxStrings(_ elements: [ArchiveValue]) throws -> [String] {
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let string) = element else {
                throw mismatch(expected: "a string", found: element, key: .index(index))
            }
            strings.append(string)
        }
        return strings
    }

    private func unboxDoubles(_ elements: [ArchiveValue]) throws -> [Double] {
        var numbers: [Double] = []
        numbers.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            numbers.append(try unboxDouble(element, key: .index(index)))
        }
        return numbers
    }

    private func unboxInts(_ elements: [ArchiveValue]) throws -> [Int] {
        var numbers: [Int] = []
        numbers.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            numbers.append(try unboxInteger(element, as: Int.self, key: .index(index)))
        }
        return numbers
    }

    // MARK: Objects

    /// Builds a `T` from an archived object: type check against the registry and the allow
    /// list, version check, identity, then the type's own initializer.
    func decodeObject<T: Decodable>(_ object: ArchiveObject, as type: T.Type) throws -> T {
        if let id = object.id, session.graph.instance(for: id) != nil {
            return try existingInstance(id, as: T.self)
        }
        if let expected = session.infos.info(for: T.self), expected.answers(to: object.typeName) {
            return try decodeExactModel(object, as: T.self, info: expected)
        }
        return try decodeOtherObject(object, as: T.self)
    }

    private func existingInstance<T: Decodable>(_ id: ArchiveObjectID, as type: T.Type) throws -> T {
        guard let typed = session.graph.instance(for: id) as? T else {
            throw error(.typeMismatch, "the object \(id) is not a \(T.self)")
        }
        return typed
    }

    /// An object of another type than the declared one: a registered subclass, a polymorphic
    /// wrapper, a plain Codable type reading the fields, or an error.
    private func decodeOtherObject<T: Decodable>(_ object: ArchiveObject, as type: T.Type) throws -> T {
        let expected = session.infos.info(for: T.self)
        if expected == nil, T.self is any DecodesArchivedObjectsItself.Type {
            currentValue = .object(object)
            return try T(from: self)
        }
        let concrete: ModelInfo
        if let registered = session.registry.info(named: object.typeName) {
            guard expected == nil || registered.type is T.Type else {
                throw error(
                    .disallowedType,
                    "expected \(expected?.typeName ?? "\(T.self)") or a registered subclass, found "
                        + "\(registered.typeName); the archive holds another type than the model declares")
            }
            if expected == nil && !(registered.type is T.Type) {
                // A plain Codable type decoding an object's fields (not a model): no type check applies.
                return try decodeFields(of: object, as: T.self)
            }
            concrete = registered
        } else if expected == nil {
            return try decodeFields(of: object, as: T.self)
        } else {
            throw unknownType(object)
        }
        let model = try decodeModel(object, concrete: concrete)
        guard let typed = model as? T else {
            throw mismatch(expected: "\(T.self)", found: .object(object))
        }
        return typed
    }

    /// The common case: the archived object is exactly the declared model type, so its
    /// initializer is called directly, without an existential.
    private func decodeExactModel<T: Decodable>(_ object: ArchiveObject, as type: T.Type, info: ModelInfo) throws -> T {
        try prepareModel(object, concrete: info)
        let tracksIdentity = info.isClass && object.id != nil
        if tracksIdentity, let id = object.id {
            session.graph.begin(id)
        }
        do {
            var value = try T(from: self)
            try withUnsafeMutablePointer(to: &value) { try info.awaken(UnsafeMutableRawPointer($0)) }
            if tracksIdentity, let id = object.id {
                session.graph.finish(id, instance: value as AnyObject)
            }
            return value
        } catch let error as ArchiveError {
            if tracksIdentity, let id = object.id { session.graph.abandon(id) }
            throw error.adding(typeName: object.typeName, archivedVersion: object.version)
        } catch {
            if tracksIdentity, let id = object.id { session.graph.abandon(id) }
            throw error
        }
    }

    /// The checks and state every model decode starts with: allow list, version, value-type
    /// identities (expansions), then the object becomes current.
    private func prepareModel(_ object: ArchiveObject, concrete: ModelInfo) throws {
        if let allowed = currentAllowed, !allowed.contains(concrete.typeName) {
            throw error(
                .disallowedType,
                "\(concrete.typeName) is not allowed here (allowed: \(allowed.sorted().joined(separator: ", "))); "
                    + "the archive may have been tampered with")
        }
        try checkVersion(of: object, against: concrete)
        if let id = object.id {
            if concrete.isClass {
                if session.graph.isInProgress(id) {
                    throw error(
                        .referenceCycle, "\(concrete.typeName) \(id) contains itself through unconditional references")
                }
            } else if session.graph.decodedValueIdentities.contains(id) {
                try countExpansion(of: id)
            } else {
                session.graph.decodedValueIdentities.insert(id)
            }
        }
        // The current value is already `.object(object)` (callers guarantee it).
        currentModel = concrete
        currentObject = object
        if currentAllowed != nil { currentAllowed = nil }
    }

    /// The object's fields decoded by a type that is not a model (a mirror struct, a dictionary).
    private func decodeFields<T: Decodable>(of object: ArchiveObject, as type: T.Type) throws -> T {
        if let id = object.id {
            // Reached again through a reference, the object is decoded again: an expansion.
            if !session.graph.decodedValueIdentities.insert(id).inserted {
                try countExpansion(of: id)
            }
        }
        currentValue = .object(object)
        currentModel = nil
        currentObject = object
        return try T(from: self)
    }

    /// Builds the model `concrete` from `object` after the allow-list and version checks: the
    /// polymorphic path, where the static type is a protocol or a base class.
    func decodeModel(_ object: ArchiveObject, concrete: ModelInfo) throws -> any VersionedModel {
        try prepareModel(object, concrete: concrete)
        if let id = object.id, concrete.isClass {
            session.graph.begin(id)
            do {
                let model = try construct(concrete.type)
                session.graph.finish(id, instance: model as AnyObject)
                return model
            } catch {
                session.graph.abandon(id)
                throw error
            }
        }
        return try construct(concrete.type)
    }

    private func construct<M: VersionedModel>(_ type: M.Type) throws -> M {
        do {
            var model = try M(from: self)
            try model.awakeFromArchive()
            return model
        } catch let error as ArchiveError {
            throw error.adding(typeName: currentObject?.typeName, archivedVersion: currentObject?.version)
        }
    }

    private func checkVersion(of object: ArchiveObject, against model: ModelInfo) throws {
        guard let version = object.version else {
            // Objects without a version come from archives that record none; migrations map them
            // to a version when the type declares one. Untouched ones decode as they are.
            return
        }
        if version > model.version {
            guard session.options.allowsNewerVersions else {
                throw ArchiveError(
                    .newerVersion,
                    "written by a newer version: \(model.typeName) v\(version), this app knows v\(model.version)",
                    path: path(), typeName: object.typeName, archivedVersion: version)
            }
        } else if version < model.version {
            throw ArchiveError(
                .missingMigration,
                "\(model.typeName) v\(version) was not migrated to v\(model.version); register the migration steps "
                    + "from v\(version)",
                path: path(), typeName: object.typeName, archivedVersion: version)
        }
    }

    private func unknownType(_ object: ArchiveObject) -> ArchiveError {
        ArchiveError(
            .unknownType,
            "no registered type is archived as '\(object.typeName)'; register it in the ModelRegistry, or decode "
                + "with unknownTypeStrategy = .keepArchivedObject to keep it as an UnknownModel",
            path: path(), typeName: object.typeName, archivedVersion: object.version)
    }

    // MARK: References

    /// The value a reference stands for; `nil` when it is conditional and its object is not in
    /// the archive or is still being built.
    func resolveReference<T: Decodable>(_ id: ArchiveObjectID, as type: T.Type) throws -> T? {
        if let instance = session.graph.instance(for: id) {
            guard let typed = instance as? T else {
                throw error(.typeMismatch, "the object \(id) is a \(Swift.type(of: instance)), not a \(T.self)")
            }
            return typed
        }
        if session.graph.isInProgress(id) {
            if currentIsConditional { return nil }
            throw error(
                .referenceCycle,
                "the object \(id) refers back to an object still being decoded; declare the back-reference "
                    + ".conditional and read it with decodeConditional(_:forKey:assign:) or @WeakReference")
        }
        guard let definition = try session.graph.definition(of: id, in: session.root, limits: session.options.limits)
        else {
            if currentIsConditional { return nil }
            throw error(.unresolvedReference, "the reference \(id) points to no object of the archive")
        }
        currentValue = .object(definition.object)
        return try decodeObject(definition.object, as: T.self)
    }

    /// A conditional reference whose object may still be under construction: `assign` runs now,
    /// or as soon as the object exists.
    func decodeConditionalReference<T: AnyObject & Decodable>(_ type: T.Type, assign: @escaping (T?) -> Void) throws {
        switch currentValue {
        case .null:
            assign(nil)
        case .reference(let id):
            if session.graph.isInProgress(id) {
                session.graph.deferAssignment(to: id) { assign($0 as? T) }
                return
            }
            let saved = currentIsConditional
            currentIsConditional = true
            defer { currentIsConditional = saved }
            assign(try resolveReference(id, as: T.self))
        default:
            assign(try unbox(currentValue, as: T.self))
        }
    }

    private func countExpansion(of id: ArchiveObjectID) throws {
        let nodes =
            (try session.graph.definition(of: id, in: session.root, limits: session.options.limits))?.nodeCount ?? 1
        session.expandedReferences += nodes
        if session.expandedReferences > session.options.limits.maxReferencesExpanded {
            throw ArchiveError.limitExceeded(
                .referencesExpanded,
                "decoding copies shared values more than \(session.options.limits.maxReferencesExpanded) times",
                path: path())
        }
    }

    // MARK: Errors

    func mismatch(expected: String, found value: ArchiveValue, key: PathKey? = nil) -> ArchiveError {
        if value.isNull {
            return error(.valueNotFound, "expected \(expected), found null", key: key)
        }
        return error(.typeMismatch, "expected \(expected), found \(Self.describe(value))", key: key)
    }

    static func describe(_ value: ArchiveValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let value): return "a Boolean (\(value))"
        case .int(let value): return "an integer (\(value))"
        case .uint(let value): return "an integer (\(value))"
        case .double(let value): return "a number (\(value))"
        case .string(let value):
            return value.count > 40 ? "a string (\"\(value.prefix(40))…\")" : "a string (\"\(value)\")"
        case .data(let value): return "data (\(value.count) bytes)"
        case .date(let value): return "a date (\(ISO8601Date.string(from: value) ?? "\(value)"))"
        case .array(let value): return "an array of \(value.count)"
        case .dictionary(let value): return "a dictionary of \(value.count) keys"
        case .object(let object): return "an object \(object)"
        case .reference(let id): return "a reference to \(id)"
        }
    }
}
