import ModelVersioning

/// Whether an archived object has the shape a schema describes: every required key present,
/// every value of its key's type (nested types, enum cases, the snapshot's ``ModelSchema/Property/values``),
/// models where models are expected, each with the shape of its own version's snapshot. Keys the schema does not list are not problems: decoders
/// ignore them.
///
/// The law check uses it where no Swift type can decode (the rules-file-only check), to keep
/// generated objects valid while they are shrunk, and to tell an object the older version
/// cannot hold from a broken downgrade.
struct SchemaConformance {
    let schemas: SchemaSet

    /// The problems of `value` against `schema` (the object's own version): `rect.width:
    /// expected a number, found string "x"`; empty when it conforms.
    func problems(_ value: ArchiveValue, against schema: ModelSchema) -> [String] {
        var problems: [String] = []
        guard case .object(let object) = value else {
            return ["expected a \(schema.typeName) object, found \(Self.kind(value))"]
        }
        if object.version != schema.version {
            problems.append("$version: expected \(schema.version), found \(object.version.map(String.init) ?? "none")")
        }
        check(object.fields, properties: schema.properties, in: schema, at: .root, into: &problems)
        return problems
    }

    private func check(
        _ fields: ArchiveDictionary, properties: [ModelSchema.Property], in schema: ModelSchema, at path: ArchivePath,
        into problems: inout [String]
    ) {
        for property in properties where property.behavior != .excluded {
            let keys = property.name.split(separator: ".").map(String.init)
            var value: ArchiveValue? = .dictionary(fields)
            for key in keys { value = value?.keyedEntries?[key] }
            let place = keys.reduce(path) { $0.appending($1) }
            let type = TypeExpression(parsing: property.type)
            guard let value, !value.isNull else {
                if !property.optional, property.behavior == .unconditional, !Self.mayBeNull(type) {
                    problems.append("\(place): the key is missing")
                }
                continue
            }
            if let values = property.values,
                !values.contains(where: { ArchiveDiff.differences(from: $0, to: value).isEmpty })
            {
                problems.append(
                    "\(place): expected one of " + values.map(SchemaText.literal).joined(separator: ", ") + ", found "
                        + SchemaText.literal(value))
                continue
            }
            check(value, type: type, property: property, in: schema, at: place, into: &problems)
        }
    }

    private static func mayBeNull(_ type: TypeExpression) -> Bool {
        switch type {
        case .optional, .weak: return true
        case .named(let name): return name == "ArchiveValue" || name == "UnknownFields" || name == "UnknownModel"
        default: return false
        }
    }

    private func check(
        _ value: ArchiveValue, type: TypeExpression, property: ModelSchema.Property, in schema: ModelSchema,
        at path: ArchivePath, into problems: inout [String]
    ) {
        guard problems.count < 20 else { return }
        switch type {
        case .weak:
            return
        case .optional(let wrapped):
            if value.isNull { return }
            check(value, type: wrapped, property: property, in: schema, at: path, into: &problems)
        case .array(let element), .set(let element):
            guard case .array(let items) = value else {
                problems.append("\(path): expected an array, found \(Self.kind(value))")
                return
            }
            for (index, item) in items.enumerated() {
                check(item, type: element, property: property, in: schema, at: path.appending(index), into: &problems)
            }
        case .dictionary(let key, let valueType):
            if case .array(let pairs) = value {
                for (index, item) in pairs.enumerated() {
                    check(
                        item, type: index % 2 == 0 ? key : valueType, property: property, in: schema,
                        at: path.appending(index), into: &problems)
                }
                return
            }
            guard let entries = value.dictionaryValue else {
                problems.append("\(path): expected a dictionary, found \(Self.kind(value))")
                return
            }
            for (entryKey, item) in entries {
                check(
                    item, type: valueType, property: property, in: schema, at: path.appending(entryKey), into: &problems
                )
            }
        case .named(let name):
            checkNamed(value, name: name, property: property, in: schema, at: path, into: &problems)
        }
    }

    private func checkNamed(
        _ value: ArchiveValue, name: String, property: ModelSchema.Property, in schema: ModelSchema,
        at path: ArchivePath, into problems: inout [String]
    ) {
        if let expected = Self.primitive(name) {
            if !Self.fits(value, primitive: name) {
                problems.append("\(path): expected \(expected), found \(Self.kind(value))")
            }
            return
        }
        if let nested = schema.nestedType(named: name) {
            switch nested.kind {
            case .struct, .class:
                guard let entries = value.keyedEntries else {
                    problems.append("\(path): expected a \(name) dictionary, found \(Self.kind(value))")
                    return
                }
                check(entries, properties: nested.properties, in: schema, at: path, into: &problems)
            case .enum where !nested.listsEveryCase:
                // Its cases are unknown: any value of its raw type.
                if let valueType = nested.valueType {
                    check(
                        value, type: TypeExpression(parsing: valueType), property: property, in: schema, at: path,
                        into: &problems)
                }
            case .enum:
                if !nested.cases.contains(where: { $0.value == value }) {
                    problems.append(
                        "\(path): \(SchemaText.literal(value)) is no case of \(name) ("
                            + nested.cases.map { SchemaText.literal($0.value) }.joined(separator: ", ") + ")")
                }
            case .value:
                check(
                    value, type: TypeExpression(parsing: nested.valueType ?? "ArchiveValue"), property: property,
                    in: schema, at: path, into: &problems)
            }
            return
        }
        // A model (or a polymorphic key's protocol): an object of the type or an allowed one.
        switch value {
        case .reference:
            return
        case .object(let object):
            let allowed = property.allowedTypes.flatMap { $0.isEmpty ? nil : $0 } ?? [name]
            let chain = schemas.catalog.migrations(forTypeName: object.typeName)?.typeName
            let accepted = allowed.contains {
                $0 == object.typeName
                    || (chain != nil && schemas.catalog.migrations(forTypeName: $0)?.typeName == chain)
            }
            if !accepted {
                problems.append(
                    "\(path): \(object.typeName) is not allowed here (" + allowed.joined(separator: ", ") + ")")
                return
            }
            // A model inside has the shape of its own version's snapshot, when there is one.
            if let chain = schemas.catalog.migrations(forTypeName: object.typeName),
                let version = object.version ?? chain.unversionedVersion,
                let own = schemas.schema(chain, version: version)
            {
                check(object.fields, properties: own.properties, in: own, at: path, into: &problems)
            }
        default:
            problems.append("\(path): expected a \(name) object, found \(Self.kind(value))")
        }
    }

    private static func primitive(_ name: String) -> String? {
        switch name {
        case "String", "URL", "UUID": return "a string"
        case "Bool": return "a Boolean"
        case "Double", "Float", "Decimal": return "a number"
        case "Date": return "a date"
        case "Data": return "data"
        case "ArchiveValue", "UnknownFields", "UnknownModel": return "anything"
        case "[Any]": return "an array"
        default: return ArchiveGenerator.integers[name] != nil ? "an integer in \(name)'s range" : nil
        }
    }

    private static func fits(_ value: ArchiveValue, primitive name: String) -> Bool {
        switch name {
        case "String", "URL", "UUID": return value.stringValue != nil
        case "Bool": return value.boolValue != nil
        case "Double": return value.doubleValue != nil
        case "Float":
            guard let number = value.doubleValue else { return false }
            return !number.isFinite || abs(number) <= Double(Float.greatestFiniteMagnitude)
        case "Decimal": return value.doubleValue != nil || value.stringValue != nil
        case "Date": return value.dateValue != nil
        case "Data": return value.dataValue != nil
        case "ArchiveValue", "UnknownFields", "UnknownModel": return true
        case "[Any]": return value.arrayValue != nil
        default:
            guard let (low, high) = ArchiveGenerator.integers[name] else { return false }
            switch value {
            case .int(let number): return number >= low && (number < 0 || UInt64(number) <= high)
            case .uint(let number): return number <= high
            case .double(let number):
                guard number.rounded(.towardZero) == number, let exact = Int64(exactly: number) else { return false }
                return exact >= low && (exact < 0 || UInt64(exact) <= high)
            default: return false
            }
        }
    }

    static func kind(_ value: ArchiveValue) -> String {
        switch value {
        case .object(let object): return "a \(object.typeName) object"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        default: return "\(value.kind) \(SchemaText.literal(value))"
        }
    }
}
