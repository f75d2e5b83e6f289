/// A property whose declared type is a protocol (or holds protocol-typed elements), archived
/// with the concrete type of each value and decoded back to it through the ``ModelRegistry``.
///
/// Codable cannot decode `[any Shape]` on its own: the concrete type is lost. Wrap the property
/// and register the concrete types; no `switch` over type names, no runtime class enumeration:
///
/// ```swift
/// protocol Shape: VersionedModel { var area: Double { get } }
///
/// final class Contents: VersionedModel {
///     @Polymorphic var shapes: [any Shape]
///     @Polymorphic var selection: (any Shape)?
///
///     static let allowedTypes: [String: [any VersionedModel.Type]] = [
///         "shapes": [Circle.self, Rectangle.self, RoundedRectangle.self],
///         "selection": [Circle.self, Rectangle.self, RoundedRectangle.self],
///     ]
/// }
/// let registry = try ModelRegistry([Contents.self, Circle.self, Rectangle.self, RoundedRectangle.self])
/// ```
///
/// `Value` may be a protocol existential (`any Shape`), an optional of one, or an array or
/// string-keyed dictionary of those (nested as deep as you like). Each element is archived as
/// an object with its own type name and version, so each migrates by its own chain.
///
/// Decoding checks the key's allow list (``VersionedModel/allowedTypes``) before any
/// initializer runs; an archived type name that is not registered fails with
/// `ArchiveError.Code.unknownType` unless the decoder keeps it as an ``UnknownModel``.
/// Polymorphic values decode only with ``ArchiveDecoder``; other encoders see the concrete
/// values without their type names.
@propertyWrapper
public struct Polymorphic<Value>: Codable {
    /// The wrapped value.
    public var wrappedValue: Value

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes each value as its archived type, after checking the key's allow list. Only
    /// ``ArchiveDecoder`` can: other decoders fail with `ArchiveError.Code.typeMismatch`.
    public init(from decoder: any Decoder) throws {
        if let direct = decoder as? DirectJSONDecoder { throw direct.unsupported() }
        guard let treeDecoder = decoder as? TreeDecoder else {
            throw ArchiveError(
                .typeMismatch, "@Polymorphic values decode only with ArchiveDecoder",
                path: ArchivePath(codingPath: decoder.codingPath))
        }
        wrappedValue = try treeDecoder.decodePolymorphic(Value.self)
    }

    /// Encodes each value as its concrete type; this library's encoders add its type name and version.
    public func encode(to encoder: any Encoder) throws {
        try PolymorphicCoding.encode(wrappedValue, to: encoder)
    }
}

extension Polymorphic: AbsentKeyDecodable {
    /// An absent key decodes as `nil` when `Value` is optional.
    static func valueForAbsentKey() -> Polymorphic<Value>? {
        guard let optional = Value.self as? any PolymorphicContainer.Type, let empty = optional.absentValue as? Value
        else { return nil }
        return Polymorphic(wrappedValue: empty)
    }
}

extension Polymorphic {
    /// The empty value of a polymorphic container type (`nil` for an optional, an empty array or
    /// dictionary), or `nil` when `Value` is a single polymorphic value. The schema probe uses it
    /// to stand in for the container without knowing its element types.
    package static var emptyContainerValue: Value? {
        guard let container = Value.self as? any PolymorphicContainer.Type else { return nil }
        if let absent = container.absentValue as? Value { return absent }
        if let empty = [Any]() as? Value { return empty }
        return [String: Any]() as? Value
    }
}

extension Polymorphic: Equatable where Value: Equatable {}

extension Polymorphic: Hashable where Value: Hashable {}

extension Polymorphic: Sendable where Value: Sendable {}

/// Containers whose elements are decoded polymorphically: arrays, optionals and string-keyed
/// dictionaries of protocol-typed values.
protocol PolymorphicContainer {
    static func decodePolymorphicContainer(from decoder: TreeDecoder) throws -> Self
    func encodePolymorphicContainer(to encoder: any Encoder) throws
    /// The value for an absent key (`nil` for optionals), if any.
    static var absentValue: Self? { get }
}

extension PolymorphicContainer {
    static var absentValue: Self? { nil }
}

enum PolymorphicCoding {
    /// Encodes a value whose static type may be an existential: opens it and encodes the
    /// concrete value (which stamps models with their type names).
    static func encode<Value>(_ value: Value, to encoder: any Encoder) throws {
        if let container = value as? any PolymorphicContainer {
            try container.encodePolymorphicContainer(to: encoder)
            return
        }
        guard let encodable = value as? any Encodable else {
            throw ArchiveError(
                .invalidValue, "\(type(of: value)) is not Encodable", path: ArchivePath(codingPath: encoder.codingPath))
        }
        var single = encoder.singleValueContainer()
        try single.encode(encodable)
    }
}

extension TreeDecoder {
    /// Decodes the current value as `Value`, resolving each archived object's concrete type.
    func decodePolymorphic<Value>(_ type: Value.Type) throws -> Value {
        if let container = Value.self as? any PolymorphicContainer.Type {
            guard let decoded = try container.decodePolymorphicContainer(from: self) as? Value else {
                throw error(.typeMismatch, "the decoded collection is not a \(Value.self)")
            }
            return decoded
        }
        let element = try decodePolymorphicElement(currentValue)
        guard let typed = element as? Value else {
            throw error(
                .typeMismatch,
                "\(Self.describe(currentValue)) decodes to \(Swift.type(of: element)), which is not a \(Value.self)")
        }
        return typed
    }

    /// Decodes one element of a polymorphic container at `key` below the current value.
    func decodePolymorphicElement<Element>(_ value: ArchiveValue, as type: Element.Type, key: PathKey) throws -> Element
    {
        try push(key, value: value, allowed: currentAllowed)
        defer { pop() }
        return try decodePolymorphic(Element.self)
    }

    /// The model an archived object (or a reference to one) stands for, found by its type name.
    func decodePolymorphicElement(_ value: ArchiveValue) throws -> Any {
        switch value {
        case .object(let object):
            if let id = object.id, let instance = session.graph.instance(for: id) {
                return instance
            }
            guard let concrete = session.registry.info(named: object.typeName) else {
                if session.options.unknownTypeStrategy == .keepArchivedObject {
                    return UnknownModel(archivedObject: object)
                }
                throw ArchiveError(
                    .unknownType,
                    "no registered type is archived as '\(object.typeName)'; register it in the ModelRegistry, or "
                        + "decode with unknownTypeStrategy = .keepArchivedObject to keep it as an UnknownModel",
                    path: path(), typeName: object.typeName, archivedVersion: object.version)
            }
            if currentAllowed == nil && session.options.requiresAllowedTypes {
                throw error(
                    .disallowedType,
                    "this polymorphic key declares no allowed types and the decoder requires them; add the key to "
                        + "allowedTypes of its model")
            }
            let saved = (currentModel, currentObject, currentAllowed)
            defer { (currentModel, currentObject, currentAllowed) = saved }
            return try decodeModel(object, concrete: concrete)
        case .reference(let id):
            if let instance = session.graph.instance(for: id) { return instance }
            guard
                let definition = try session.graph.definition(of: id, in: session.root, limits: session.options.limits)
            else {
                throw error(.unresolvedReference, "the reference \(id) points to no object of the archive")
            }
            if session.graph.isInProgress(id) {
                throw error(.referenceCycle, "the object \(id) refers back to an object still being decoded")
            }
            currentValue = .object(definition.object)
            return try decodePolymorphicElement(.object(definition.object))
        default:
            throw mismatch(expected: "an archived object with a type name", found: value)
        }
    }
}

extension Array: PolymorphicContainer {
    static func decodePolymorphicContainer(from decoder: TreeDecoder) throws -> [Element] {
        guard case .array(let elements) = decoder.currentValue else {
            throw decoder.mismatch(expected: "an array", found: decoder.currentValue)
        }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            result.append(try decoder.decodePolymorphicElement(element, as: Element.self, key: .index(index)))
        }
        return result
    }

    func encodePolymorphicContainer(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self {
            try PolymorphicCoding.encode(element, to: container.superEncoder())
        }
    }
}

extension Optional: PolymorphicContainer {
    static func decodePolymorphicContainer(from decoder: TreeDecoder) throws -> Wrapped? {
        if decoder.currentValue.isNull { return nil }
        return try decoder.decodePolymorphic(Wrapped.self)
    }

    func encodePolymorphicContainer(to encoder: any Encoder) throws {
        switch self {
        case .none:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .some(let wrapped):
            try PolymorphicCoding.encode(wrapped, to: encoder)
        }
    }

    static var absentValue: Wrapped?? { .some(.none) }
}

extension Dictionary: PolymorphicContainer where Key == String {
    static func decodePolymorphicContainer(from decoder: TreeDecoder) throws -> [String: Value] {
        guard case .dictionary(let entries) = decoder.currentValue else {
            throw decoder.mismatch(expected: "a dictionary", found: decoder.currentValue)
        }
        var result: [String: Value] = [:]
        result.reserveCapacity(entries.count)
        for (key, element) in entries {
            result[key] = try decoder.decodePolymorphicElement(element, as: Value.self, key: .key(key))
        }
        return result
    }

    func encodePolymorphicContainer(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ArchiveCodingKey.self)
        for key in keys.sorted() {
            if let element = self[key] {
                try PolymorphicCoding.encode(element, to: container.superEncoder(forKey: ArchiveCodingKey(key)))
            }
        }
    }
}

extension Polymorphic: DecodesArchivedObjectsItself {}
