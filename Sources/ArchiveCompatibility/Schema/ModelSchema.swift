import Foundation
import ModelVersioning

/// The archived shape of one model type at one version: the snapshot a CI gate compares so that
/// a model change without a version bump is caught before it ships.
///
/// ```swift
/// let schema = try ModelSchema(of: Circle.self)
/// print(schema)   // Circle v2: center: Point, radius: Double, label: String? (excluded)
/// ```
///
/// The properties come from the model's own `init(from:)`, run against a probing decoder that
/// records every key it asks for, with the type and whether it is optional
/// (`decodeIfPresent`). Nothing is instantiated from real data and no runtime reflection is used.
/// Types the probe cannot fabricate (an enum that is not `CaseIterable`, a type whose initializer
/// rejects zero values) can supply a sample through `SchemaSampleProviding` (ModelVersioning).
///
/// The snapshot is complete: every nested non-model type the properties reach — structs and
/// classes with their keys, enums with the archived value of each case, through optionals,
/// arrays, sets and dictionaries, recursive types once — is in ``nestedTypes``, so that a change
/// deep inside one (a key added to a struct, a case added to an enum) is a change of the model.
/// Models the properties reach are written by their archive type name only: each has its own
/// snapshot and version.
///
/// Snapshots are committed as JSON (``jsonData()``), one file per type and version.
public struct ModelSchema: Codable, Sendable, Hashable, CustomStringConvertible {
    /// One archived property.
    public struct Property: Codable, Sendable, Hashable, CustomStringConvertible {
        /// The coding key (`center`; `super.origin` for keys of a superclass coder, `center.x` for
        /// keys of a nested container).
        public var name: String
        /// The type as archived: `String`, `Int`, `Double`, `[Point]`, `[String: Int]`, an archive
        /// type name for models, a nested type's name (defined in ``ModelSchema/nestedTypes``), the
        /// protocol for polymorphic keys (`[Shape]`, with the allow list in ``allowedTypes``).
        public var type: String
        /// Whether the key may be absent (`decodeIfPresent`).
        public var optional: Bool
        /// How it is written.
        public var behavior: EncodingBehavior
        /// The allow list of the key, if declared.
        public var allowedTypes: [String]?
        /// The only values archives of this version hold under the key, when they are fewer than
        /// its type admits: written by hand into snapshots of versions whose types are gone (an
        /// `NSInteger` that only ever held `0`, `1` and `2`). The probe never writes it; the law
        /// check generates only these values, and comparisons of schemas ignore it.
        public var values: [ArchiveValue]?

        /// A property as a snapshot records it.
        public init(
            name: String, type: String, optional: Bool, behavior: EncodingBehavior, allowedTypes: [String]? = nil,
            values: [ArchiveValue]? = nil
        ) {
            self.name = name
            self.type = type
            self.optional = optional
            self.behavior = behavior
            self.allowedTypes = allowedTypes
            self.values = values
        }

        /// The key and its ``typeDescription``: `label: String? (excluded)`.
        public var description: String {
            "\(name): \(typeDescription)"
        }

        /// The type, `?` when optional, and the behaviour when not unconditional: `String? (excluded)`.
        public var typeDescription: String {
            var text = "\(type)\(optional ? "?" : "")"
            if behavior != .unconditional { text += " (\(behavior.rawValue))" }
            return text
        }

        /// The property as comparisons see it: without ``values``.
        var comparable: Property {
            var property = self
            property.values = nil
            return property
        }
    }

    /// The snapshot format this version of the library writes: `2` records ``nestedTypes``;
    /// format `1` (files without a `"format"` key) named nested types only.
    public static let currentFormat = 2

    /// The archive type name.
    public var typeName: String
    /// The model version this shape belongs to.
    public var version: Int
    /// The properties in the order the initializer reads them.
    public var properties: [Property]
    /// Every nested non-model type the properties reach, sorted by name.
    public var nestedTypes: [NestedType]
    /// The snapshot format the file was written in (see ``currentFormat``).
    public var format: Int

    /// A snapshot of the given shape, its nested types sorted by name.
    public init(
        typeName: String, version: Int, properties: [Property], nestedTypes: [NestedType] = [],
        format: Int = ModelSchema.currentFormat
    ) {
        self.typeName = typeName
        self.version = version
        self.properties = properties
        self.nestedTypes = nestedTypes.sorted { $0.name < $1.name }
        self.format = format
    }

    /// Probes `type`'s current shape.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidValue` naming the property
    ///   whose type the probe could not fabricate, with the fix.
    public init(of type: any VersionedModel.Type) throws {
        let info = ModelInfo(type)
        var probe = SchemaProbe(root: info)
        let (properties, nestedTypes) = try probe.run(type)
        self.init(typeName: info.typeName, version: info.version, properties: properties, nestedTypes: nestedTypes)
    }

    /// Whether the snapshot was written before nested types were recorded (format 1): it names
    /// them without their shapes, and ``SchemaStore/upgradeSnapshots(from:isModel:)`` adds them.
    public var isLegacy: Bool { format < 2 }

    /// The type, version and properties: `Circle v2: center: Point, radius: Double, label: String? (excluded)`.
    public var description: String {
        "\(typeName) v\(version): " + properties.map(\.description).joined(separator: ", ")
    }

    /// The properties that differ from `other`'s, as readable lines (`+ color: String`,
    /// `- para: Int`, `~ radius: Int → Double`, `+ rect: Frame.depth: Double`).
    public func differences(from other: ModelSchema) -> [String] {
        changes(from: other).map(\.description)
    }

    /// What changed from `other` to this schema, deep inside nested types too, with the path of
    /// each change (see ``SchemaChange``).
    ///
    /// Nested types compare by their archived shape, not their Swift name: renaming `Frame` to
    /// `Rect` is no change; adding a key to it is.
    public func changes(from other: ModelSchema) -> [SchemaChange] {
        var comparison = SchemaComparison(old: other, new: self)
        comparison.compareProperties(other.properties, properties, at: .root, location: "", nestedType: nil)
        return comparison.changes
    }

    /// The snapshot file's contents: pretty JSON with keys in a fixed order.
    public func jsonData() throws -> Data {
        let tree: ArchiveValue = [
            "type": .string(typeName), "version": .int(Int64(version)), "format": .int(Int64(format)),
            "properties": .array(properties.map { Self.entry($0, nested: false) }),
            "nestedTypes": .array(nestedTypes.map(Self.entry)),
        ]
        return try ArchiveFormat.json.write(tree, options: ArchiveWritingOptions(prettyPrinted: true, markup: .plain))
    }

    private static func entry(_ property: Property, nested: Bool) -> ArchiveValue {
        var entry: ArchiveDictionary = [
            "name": .string(property.name), "type": .string(property.type), "optional": .bool(property.optional),
        ]
        if !nested || property.behavior != .unconditional { entry["behavior"] = .string(property.behavior.rawValue) }
        if let allowed = property.allowedTypes { entry["allowedTypes"] = .array(allowed.map { .string($0) }) }
        if let values = property.values { entry["values"] = .array(values) }
        return .dictionary(entry)
    }

    private static func entry(_ type: NestedType) -> ArchiveValue {
        var entry: ArchiveDictionary = ["name": .string(type.name), "kind": .string(type.kind.rawValue)]
        switch type.kind {
        case .struct, .class:
            entry["properties"] = .array(type.properties.map { Self.entry($0, nested: true) })
        case .enum:
            entry["cases"] = .array(type.cases.map { ["name": .string($0.name), "value": $0.value] })
            if !type.listsEveryCase {
                entry["everyCase"] = false
                if let valueType = type.valueType { entry["valueType"] = .string(valueType) }
            }
        case .value:
            entry["valueType"] = .string(type.valueType ?? "")
        }
        return .dictionary(entry)
    }

    /// Reads a snapshot file of any format up to ``currentFormat``.
    ///
    /// - Throws: `ArchiveError` naming the malformed entry; code `newerVersion` at `format` for a
    ///   snapshot a newer library wrote (read by this format's rules, it could compare as
    ///   unchanged while it records what this library does not see).
    public init(jsonData data: Data) throws {
        let tree = try ArchiveFormat.json.read(data, options: ArchiveReadingOptions(markup: .plain))
        guard let typeName = tree["type"]?.stringValue, let version = tree["version"]?.intValue,
            let entries = tree["properties"]?.arrayValue
        else {
            throw ArchiveError(.malformedInput, "a schema snapshot needs 'type', 'version' and 'properties'")
        }
        let format: Int
        switch tree["format"] {
        case nil:
            format = 1
        case .int(let number)? where number > Int64(Self.currentFormat):
            throw ArchiveError(
                .newerVersion,
                "the schema snapshot has format \(number); this library reads formats 1 to \(Self.currentFormat)",
                path: [.key("format")])
        case .int(let number)? where number >= 1:
            format = Int(number)
        default:
            throw ArchiveError(
                .malformedInput, "a schema snapshot's 'format' is a whole number from 1 to \(Self.currentFormat)",
                path: [.key("format")])
        }
        let properties = try entries.enumerated().map { index, entry in
            try Self.property(entry, nested: false, at: ArchivePath([.key("properties"), .index(index)]))
        }
        var nestedTypes: [NestedType] = []
        for (index, entry) in (tree["nestedTypes"]?.arrayValue ?? []).enumerated() {
            let path = ArchivePath([.key("nestedTypes"), .index(index)])
            guard let name = entry["name"]?.stringValue,
                let kind = entry["kind"]?.stringValue.flatMap(NestedType.Kind.init(rawValue:))
            else {
                throw ArchiveError(
                    .malformedInput, "a nested type needs 'name' and 'kind' (struct, class, enum or value)", path: path)
            }
            var type = NestedType(name: name, kind: kind)
            for (number, property) in (entry["properties"]?.arrayValue ?? []).enumerated() {
                type.properties.append(
                    try Self.property(property, nested: true, at: path.appending("properties").appending(number)))
            }
            for (number, item) in (entry["cases"]?.arrayValue ?? []).enumerated() {
                guard let caseName = item["name"]?.stringValue, let value = item["value"] else {
                    throw ArchiveError(
                        .malformedInput, "an enum case needs 'name' and 'value'",
                        path: path.appending("cases").appending(number))
                }
                type.cases.append(NestedType.Case(name: caseName, value: value))
            }
            type.valueType = entry["valueType"]?.stringValue
            type.listsEveryCase = entry["everyCase"]?.boolValue ?? true
            nestedTypes.append(type)
        }
        self.init(
            typeName: typeName, version: version, properties: properties, nestedTypes: nestedTypes, format: format)
    }

    private static func property(_ entry: ArchiveValue, nested: Bool, at path: ArchivePath) throws -> Property {
        let behavior =
            nested && entry["behavior"] == nil
            ? EncodingBehavior.unconditional
            : entry["behavior"]?.stringValue.flatMap(EncodingBehavior.init(rawValue:))
        guard let name = entry["name"]?.stringValue, let type = entry["type"]?.stringValue,
            let optional = entry["optional"]?.boolValue, let behavior
        else {
            throw ArchiveError(
                .malformedInput,
                nested
                    ? "a nested type's property needs 'name', 'type' and 'optional'"
                    : "a schema property needs 'name', 'type', 'optional' and 'behavior'", path: path)
        }
        let allowed = entry["allowedTypes"]?.arrayValue?.compactMap(\.stringValue)
        return Property(
            name: name, type: type, optional: optional, behavior: behavior, allowedTypes: allowed,
            values: entry["values"]?.arrayValue)
    }
}
