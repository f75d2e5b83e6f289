import Foundation
import ModelVersioning

/// Generates archived objects of a model version from its schema: seeded, bounded in size, and
/// biased towards edge values — empty strings and collections, non-ASCII text, the limits of
/// every integer type, doubles at the ends of their range, nested collections — so that the law
/// check meets what fixtures rarely hold.
///
/// Every key is generated as the schema says: required keys always, optional ones sometimes,
/// excluded and conditional keys and weak references never (they are not archived, or archived
/// only when another object is); a key whose snapshot lists its ``ModelSchema/Property/values``
/// holds one of them. Models the object holds are generated at today's version from today's
/// schema (their own laws cover their older versions).
struct ArchiveGenerator {
    var random: SplitMix64
    let schemas: SchemaSet
    /// Collections and optional values stop growing below this depth.
    static let maxDepth = 3
    /// Deeper than this, generation gives up (a type that requires itself).
    static let hardDepth = 12

    /// Why an object could not be generated.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(seed: UInt64, schemas: SchemaSet) {
        self.random = SplitMix64(seed: seed)
        self.schemas = schemas
    }

    /// An object of `schema`'s type and version, archived under `name`.
    mutating func object(_ schema: ModelSchema, archivedAs name: String, depth: Int = 0) throws -> ArchiveValue {
        guard depth <= Self.hardDepth else {
            throw Failure(description: "\(schema.typeName) requires itself more than \(Self.hardDepth) levels deep")
        }
        var fields = ArchiveDictionary()
        try fill(&fields, with: schema.properties, in: schema, depth: depth)
        return .object(ArchiveObject(typeName: name, version: schema.version, fields: fields))
    }

    /// Generates the keys of `properties` into `fields` (dotted names into nested dictionaries).
    private mutating func fill(
        _ fields: inout ArchiveDictionary, with properties: [ModelSchema.Property], in schema: ModelSchema,
        depth: Int
    ) throws {
        for property in properties {
            guard property.behavior == .unconditional else { continue }
            let type = TypeExpression(parsing: property.type)
            if case .weak = type { continue }
            if property.optional, depth >= Self.maxDepth || random.chance(30) { continue }
            let value: ArchiveValue
            if let values = property.values, !values.isEmpty {
                value = random.pick(values)
            } else {
                guard let generated = try self.value(type, property: property, in: schema, depth: depth) else {
                    continue
                }
                value = generated
            }
            Self.set(value, at: property.name.split(separator: ".").map(String.init), in: &fields)
        }
    }

    static func set(_ value: ArchiveValue, at keys: [String], in fields: inout ArchiveDictionary) {
        guard let first = keys.first else { return }
        guard keys.count > 1 else {
            fields[first] = value
            return
        }
        var inner = fields[first]?.dictionaryValue ?? ArchiveDictionary()
        set(value, at: Array(keys.dropFirst()), in: &inner)
        fields[first] = .dictionary(inner)
    }

    /// A value of `type`; `nil` for a value that is not archived.
    mutating func value(
        _ type: TypeExpression, property: ModelSchema.Property?, in schema: ModelSchema, depth: Int
    ) throws -> ArchiveValue? {
        switch type {
        case .weak:
            return nil
        case .optional(let wrapped):
            if depth >= Self.maxDepth || random.chance(25) { return .null }
            return try value(wrapped, property: property, in: schema, depth: depth)
        case .array(let element), .set(let element):
            var items: [ArchiveValue] = []
            for _ in 0..<count(depth) {
                guard let item = try value(element, property: property, in: schema, depth: depth + 1) else { continue }
                if case .set = type, items.contains(item) { continue }
                items.append(item)
            }
            return .array(items)
        case .dictionary(let key, let valueType):
            return try dictionary(key: key, value: valueType, property: property, in: schema, depth: depth)
        case .named(let name):
            return try named(name, property: property, in: schema, depth: depth)
        }
    }

    private mutating func count(_ depth: Int) -> Int {
        guard depth < Self.maxDepth else { return 0 }
        let most = [4, 3, 2][min(depth, 2)]
        if random.chance(20) { return 0 }
        return Int.random(in: 1...most, using: &random)
    }

    private mutating func dictionary(
        key: TypeExpression, value valueType: TypeExpression, property: ModelSchema.Property?, in schema: ModelSchema,
        depth: Int
    ) throws -> ArchiveValue {
        let entries = count(depth)
        if case .named(let keyName) = key, keyName == "String" || Self.integers[keyName] != nil {
            var dictionary = ArchiveDictionary()
            for _ in 0..<entries {
                let text = keyName == "String" ? string() : SchemaText.literal(integer(keyName))
                guard dictionary[text] == nil,
                    let item = try value(valueType, property: property, in: schema, depth: depth + 1)
                else { continue }
                dictionary[text] = item
            }
            return .dictionary(dictionary)
        }
        // Other keys: Swift archives the pairs as an array, key then value.
        var pairs: [ArchiveValue] = []
        for _ in 0..<entries {
            guard let k = try value(key, property: property, in: schema, depth: depth + 1),
                let v = try value(valueType, property: property, in: schema, depth: depth + 1)
            else { continue }
            pairs += [k, v]
        }
        return .array(pairs)
    }

    private mutating func named(
        _ name: String, property: ModelSchema.Property?, in schema: ModelSchema, depth: Int
    ) throws -> ArchiveValue? {
        if let primitive = primitive(name) { return primitive }
        if let nested = schema.nestedType(named: name) {
            switch nested.kind {
            case .struct, .class:
                guard depth <= Self.hardDepth else {
                    throw Failure(description: "\(name) requires itself more than \(Self.hardDepth) levels deep")
                }
                var fields = ArchiveDictionary()
                try fill(&fields, with: nested.properties, in: schema, depth: depth + 1)
                return .dictionary(fields)
            case .enum:
                guard !nested.cases.isEmpty else {
                    throw Failure(
                        description: nested.listsEveryCase
                            ? "the enum \(name) has no cases" : Self.unlistedCases(name, holder: schema.typeName))
                }
                // Only values the type holds: every case, or the samples of an enum that lists none.
                return random.pick(nested.cases).value
            case .value:
                return try value(
                    TypeExpression(parsing: nested.valueType ?? "ArchiveValue"), property: nil, in: schema,
                    depth: depth)
            }
        }
        // A model, or the protocol of a polymorphic key: an object of an allowed type.
        let candidates = property?.allowedTypes.flatMap { $0.isEmpty ? nil : $0 } ?? [name]
        let chosen = random.pick(candidates)
        guard let (chain, today) = schemas.today(named: chosen) else {
            if schemas.isModel(chosen) {
                throw Failure(description: "no schema of today's \(chosen) to generate it from: record its snapshot")
            }
            throw Failure(
                description: "\(schema.typeName) v\(schema.version) names \(chosen), which its snapshot does not define"
            )
        }
        return try object(today, archivedAs: chain.typeName, depth: depth + 1)
    }

    /// Why objects holding the enum `name` cannot be generated: it lists no case to pick.
    static func unlistedCases(_ name: String, holder: String) -> String {
        "\(name) (in \(holder)) is an enum whose cases the law check cannot know, so it cannot generate a value "
            + "of it: make \(name) CaseIterable, or conform it to SchemaSampleProviding"
    }

    // MARK: Primitives

    static let integers: [String: (min: Int64, max: UInt64)] = [
        "Int": (Int64.min, UInt64(Int64.max)), "Int64": (Int64.min, UInt64(Int64.max)),
        "Int32": (Int64(Int32.min), UInt64(Int32.max)), "Int16": (Int64(Int16.min), UInt64(Int16.max)),
        "Int8": (Int64(Int8.min), UInt64(Int8.max)), "UInt": (0, UInt64(UInt.max)), "UInt64": (0, UInt64.max),
        "UInt32": (0, UInt64(UInt32.max)), "UInt16": (0, UInt64(UInt16.max)), "UInt8": (0, UInt64(UInt8.max)),
    ]

    static let edgeStrings = [
        "", " ", "é", "Zürich", "東京", "🎨", "e\u{301}", "Ünïcödé — “quotes”", "line\nbreak", "tab\there", "\"",
        "\\", "$type", "a",
    ]

    static let edgeDoubles: [Double] = [
        0, -0.0, 1, -1, 0.1, 0.30000000000000004, 33.333333333333336, -1.5, 1e-300, Double.leastNonzeroMagnitude, 1e300,
        Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 9_007_199_254_740_992,
    ]

    static let edgeFloats: [Float] = [
        0, 1, -1, 0.1, 1.5, Float.greatestFiniteMagnitude, -Float.greatestFiniteMagnitude,
        Float.leastNonzeroMagnitude, 16_777_216,
    ]

    /// A value of a primitive type, or `nil` when `name` is no primitive.
    mutating func primitive(_ name: String) -> ArchiveValue? {
        switch name {
        case "String": return .string(string())
        case "Bool": return .bool(random.chance(50))
        case "Double", "Decimal":
            let number =
                random.chance(35)
                ? random.pick(Self.edgeDoubles)
                : Double(Int.random(in: -1_000_000...1_000_000, using: &random))
                    / Double(random.pick([1, 4, 10, 1000]))
            return name == "Decimal" ? .string("\(number == 0 ? 0 : number)") : .double(number)
        case "Float":
            let number =
                random.chance(35)
                ? random.pick(Self.edgeFloats) : Float(Int.random(in: -100_000...100_000, using: &random)) / 8
            return .double(Double(number))
        case "Date":
            let edges: [Double] = [0, -978_307_200, 751_189_323.617, 64_060_588_800, -1]
            let seconds =
                random.chance(30)
                ? random.pick(edges)
                : Double(Int.random(in: -1_600_000_000_000...3_100_000_000_000, using: &random)) / 1000
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case "Data":
            return .data(
                Data((0..<Int.random(in: 0...6, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            )
        case "URL":
            return .string("https://example.com/" + (random.chance(50) ? "" : "p/" + ascii(1...6)))
        case "UUID":
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            return .string(uuid.uuidString)
        case "ArchiveValue":
            return random.pick([.null, .int(0), .string(string()), .bool(true), .array([])])
        case "UnknownFields", "UnknownModel":
            return nil
        case "[Any]":
            return .array([])
        default:
            guard Self.integers[name] != nil else { return nil }
            return integer(name)
        }
    }

    private mutating func integer(_ name: String) -> ArchiveValue {
        guard let (low, high) = Self.integers[name] else { return .int(0) }
        if random.chance(35) {
            let edges: [ArchiveValue] = [.int(0), .uint(1), .int(low), .uint(high)] + (low < 0 ? [.int(-1)] : [])
            return random.pick(edges)
        }
        if random.chance(60) {
            let small = Int64.random(in: max(low, -1000)...Int64(min(high, 1000)), using: &random)
            return .int(small)
        }
        if low < 0 {
            return .int(Int64.random(in: low...Int64(high), using: &random))
        }
        return ArchiveValue(UInt64.random(in: 0...high, using: &random))
    }

    private mutating func string() -> String {
        if random.chance(35) { return random.pick(Self.edgeStrings) }
        if random.chance(20) {
            return random.pick(["Kyoto 1", "Léa", "Ōsaka", "Çağ", "Привет", "مرحبا"]) + ascii(0...3)
        }
        return ascii(0...8)
    }

    private mutating func ascii(_ length: ClosedRange<Int>) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_")
        return String((0..<Int.random(in: length, using: &random)).map { _ in random.pick(letters) })
    }
}
