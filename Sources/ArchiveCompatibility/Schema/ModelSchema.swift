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
/// Snapshots are committed as JSON (``jsonData()``), one file per type and version.
public struct ModelSchema: Codable, Sendable, Hashable, CustomStringConvertible {
    /// One archived property.
    public struct Property: Codable, Sendable, Hashable, CustomStringConvertible {
        /// The coding key (`center`; `super.origin` for keys of a superclass coder, `center.x` for
        /// keys of a nested container).
        public var name: String
        /// The type as archived: `String`, `Int`, `Double`, `[Point]`, `[String: Int]`, an archive
        /// type name for models, the protocol for polymorphic keys (`[Shape]`, with the allow list in ``allowedTypes``).
        public var type: String
        /// Whether the key may be absent (`decodeIfPresent`).
        public var optional: Bool
        /// How it is written.
        public var behavior: EncodingBehavior
        /// The allow list of the key, if declared.
        public var allowedTypes: [String]?

        public init(
            name: String, type: String, optional: Bool, behavior: EncodingBehavior, allowedTypes: [String]? = nil
        ) {
            self.name = name
            self.type = type
            self.optional = optional
            self.behavior = behavior
            self.allowedTypes = allowedTypes
        }

        public var description: String {
            var text = "\(name): \(type)\(optional ? "?" : "")"
            if behavior != .unconditional { text += " (\(behavior.rawValue))" }
            return text
        }
    }

    /// The archive type name.
    public var typeName: String
    /// The model version this shape belongs to.
    public var version: Int
    /// The properties in the order the initializer reads them.
    public var properties: [Property]

    public init(typeName: String, version: Int, properties: [Property]) {
        self.typeName = typeName
        self.version = version
        self.properties = properties
    }

    /// Probes `type`'s current shape.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidValue` naming the property
    ///   whose type the probe could not fabricate, with the fix.
    public init(of type: any VersionedModel.Type) throws {
        let info = ModelInfo(type)
        var probe = SchemaProbe(root: info)
        let properties = try probe.run(type)
        self.init(typeName: info.typeName, version: info.version, properties: properties)
    }

    public var description: String {
        "\(typeName) v\(version): " + properties.map(\.description).joined(separator: ", ")
    }

    /// The properties that differ from `other`'s, as readable lines (`+ color: String`,
    /// `- para: Int`, `~ radius: Int → Double`).
    public func differences(from other: ModelSchema) -> [String] {
        var lines: [String] = []
        let old = Dictionary(other.properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for property in other.properties where new[property.name] == nil {
            lines.append("- \(property)")
        }
        for property in properties {
            if let before = old[property.name] {
                if before != property { lines.append("~ \(before) → \(property)") }
            } else {
                lines.append("+ \(property)")
            }
        }
        return lines
    }

    /// The snapshot file's contents: pretty JSON with keys in a fixed order.
    public func jsonData() throws -> Data {
        var properties: [ArchiveValue] = []
        for property in self.properties {
            var entry: ArchiveDictionary = [
                "name": .string(property.name), "type": .string(property.type), "optional": .bool(property.optional),
                "behavior": .string(property.behavior.rawValue),
            ]
            if let allowed = property.allowedTypes { entry["allowedTypes"] = .array(allowed.map { .string($0) }) }
            properties.append(.dictionary(entry))
        }
        let tree: ArchiveValue = [
            "type": .string(typeName), "version": .int(Int64(version)), "properties": .array(properties),
        ]
        return try ArchiveFormat.json.write(tree, options: ArchiveWritingOptions(prettyPrinted: true, markup: .plain))
    }

    /// Reads a snapshot file.
    ///
    /// - Throws: `ArchiveError` naming the malformed entry.
    public init(jsonData data: Data) throws {
        let tree = try ArchiveFormat.json.read(data, options: ArchiveReadingOptions(markup: .plain))
        guard let typeName = tree["type"]?.stringValue, let version = tree["version"]?.intValue,
            let entries = tree["properties"]?.arrayValue
        else {
            throw ArchiveError(.malformedInput, "a schema snapshot needs 'type', 'version' and 'properties'")
        }
        var properties: [Property] = []
        for (index, entry) in entries.enumerated() {
            guard let name = entry["name"]?.stringValue, let type = entry["type"]?.stringValue,
                let optional = entry["optional"]?.boolValue,
                let behavior = entry["behavior"]?.stringValue.flatMap(EncodingBehavior.init(rawValue:))
            else {
                throw ArchiveError(
                    .malformedInput, "a schema property needs 'name', 'type', 'optional' and 'behavior'",
                    path: ArchivePath([.key("properties"), .index(index)]))
            }
            let allowed = entry["allowedTypes"]?.arrayValue?.compactMap(\.stringValue)
            properties.append(
                Property(name: name, type: type, optional: optional, behavior: behavior, allowedTypes: allowed))
        }
        self.init(typeName: typeName, version: version, properties: properties)
    }
}
