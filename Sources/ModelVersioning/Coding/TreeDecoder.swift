import Foundation

/// State shared by every decoder of one decoding run.
final class DecodingSession {
    let registry: ModelRegistry
    let options: DecodingOptions
    let root: ArchiveValue
    var infos: ModelInfoCache
    var graph = DecodingGraph()
    var expandedReferences = 0

    init(registry: ModelRegistry, options: DecodingOptions, root: ArchiveValue) {
        self.registry = registry
        self.options = options
        self.root = root
        self.infos = ModelInfoCache(registry: registry)
    }
}

/// Types whose `init(from:)` reads archived objects and references themselves (property
/// wrappers that resolve types or identities), so the decoder hands them the node as it is.
protocol DecodesArchivedObjectsItself {}

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

    let session: DecodingSession
    /// The value `init(from:)` is decoding now.
    var currentValue: ArchiveValue
    /// The model whose own fields are current, with its archived object.
    var currentModel: ModelInfo?
    var currentObject: ArchiveObject?
    /// The archive type names allowed for objects at the current key, if restricted.
    var currentAllowed: Set<String>?
    /// Whether the current key is declared conditional by its model.
    var currentIsConditional = false
    var keys: [PathKey]
    /// Per depth, where the last keyed look-up hit, so that the next starts there.
    var hints: [Int]

    init(session: DecodingSession, value: ArchiveValue, keys: [PathKey] = []) {
        self.session = session
        self.currentValue = value
        self.keys = keys
        self.hints = Array(repeating: 0, count: keys.count + 1)
    }

    var codingPath: [any CodingKey] { keys.map(\.codingKey) }

    var userInfo: [CodingUserInfoKey: Any] { session.options.userInfo }

    var depth: Int { keys.count }

    func codingPath(depth: Int) -> [any CodingKey] {
        keys.prefix(depth).map(\.codingKey)
    }

    /// The archive path at `depth`, followed by `key`.
    func path(depth: Int? = nil, appending key: PathKey? = nil) -> ArchivePath {
        var components = keys.prefix(depth ?? keys.count).map(\.component)
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
        switch currentValue {
        case .dictionary(let fields):
            return KeyedDecodingContainer(
                TreeKeyedDecodingContainer<Key>(
                    decoder: self, fields: fields, model: nil, object: nil, allowed: currentAllowed, depth: depth))
        case .object(let object):
            return KeyedDecodingContainer(
                TreeKeyedDecodingContainer<Key>(
                    decoder: self, fields: object.fields, model: currentModel, object: currentObject ?? object,
                    allowed: currentAllowed, depth: depth))
        default:
            throw mismatch(expected: "a keyed container (a dictionary or an object)", found: currentValue)
        }
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

    /// What a nested decode replaces and restores.
    private struct Frame {
        var value: ArchiveValue
        var model: ModelInfo?
        var object: ArchiveObject?
        var allowed: Set<String>?
        var conditional: Bool
    }

    /// Decodes `value` as a `T` one level below the current one, under `key`.
    func decode<T: Decodable>(
        _ type: T.Type, from value: ArchiveValue, key: PathKey, allowed: Set<String>?, conditional: Bool = false
    ) throws -> T {
        let saved = Frame(
            value: currentValue, model: currentModel, object: currentObject, allowed: currentAllowed,
            conditional: currentIsConditional)
        keys.append(key)
        let depth = keys.count
        if hints.count <= depth { hints.append(0) } else { hints[depth] = 0 }
        defer {
            keys.removeLast()
            currentValue = saved.value
            currentModel = saved.model
            currentObject = saved.object
            currentAllowed = saved.allowed
            currentIsConditional = saved.conditional
        }
        guard depth <= session.options.limits.maxDepth else {
            throw ArchiveError.limitExceeded(
                .depth, "the archive nests deeper than \(session.options.limits.maxDepth) levels", path: path())
        }
        currentAllowed = allowed
        currentIsConditional = conditional
        return try unbox(value, as: T.self)
    }

    /// Decodes `value`, the current value, as a `T`.
    func unbox<T: Decodable>(_ value: ArchiveValue, as type: T.Type) throws -> T {
        switch value {
        case .object(let object):
            if T.self == ArchiveValue.self || T.self == UnknownModel.self,
                let special = try unboxSpecial(value, as: T.self)
            {
                return special
            }
            return try decodeObject(object, as: T.self)
        case .reference(let id):
            if T.self == ArchiveValue.self, let special = value as? T {
                return special
            }
            if T.self is any DecodesArchivedObjectsItself.Type {
                currentValue = value
                return try T(from: self)
            }
            guard let resolved: T = try resolveReference(id, as: T.self) else {
                throw error(
                    .valueNotFound,
                    "the conditional reference to \(id) points to an object that was never archived unconditionally")
            }
            return resolved
        case .array(let elements):
            if let fast = try unboxArray(elements, as: T.self) {
                return fast
            }
        case .dictionary:
            if T.self == ArchiveValue.self, let special = value as? T {
                return special
            }
        default:
            if let special = try unboxSpecial(value, as: T.self) {
                return special
            }
        }
        currentValue = value
        currentModel = nil
        currentObject = nil
        return try T(from: self)
    }

    /// Arrays of strings and numbers, built directly; `nil` for other element types.
    @inline(__always)
    private func unboxArray<T: Decodable>(_ elements: [ArchiveValue], as type: T.Type) throws -> T? {
        if T.self == [String].self {
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                strings.append(try unboxString(element, key: .index(index)))
            }
            return strings as? T
        }
        if T.self == [Double].self {
            var numbers: [Double] = []
            numbers.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                numbers.append(try unboxDouble(element, key: .index(index)))
            }
            return numbers as? T
        }
        if T.self == [Int].self {
            var numbers: [Int] = []
            numbers.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                numbers.append(try unboxInteger(element, as: Int.self, key: .index(index)))
            }
            return numbers as? T
        }
        if T.self == ArchiveValue.self {
            return ArchiveValue.array(elements) as? T
        }
        return nil
    }

    // MARK: Objects

    /// Builds a `T` from an archived object: type check against the registry and the allow
    /// list, version check, identity, then the type's own initializer.
    func decodeObject<T: Decodable>(_ object: ArchiveObject, as type: T.Type) throws -> T {
        if let id = object.id, let instance = session.graph.instance(for: id) {
            guard let typed = instance as? T else {
                throw mismatch(expected: "\(T.self)", found: .object(object))
            }
            return typed
        }
        let expected = session.infos.info(for: T.self)
        if let expected, expected.answers(to: object.typeName) {
            return try decodeExactModel(object, as: T.self, info: expected)
        }
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
        currentValue = .object(object)
        currentModel = concrete
        currentObject = object
        currentAllowed = nil
    }

    /// The object's fields decoded by a type that is not a model (a mirror struct, a dictionary).
    private func decodeFields<T: Decodable>(of object: ArchiveObject, as type: T.Type) throws -> T {
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
