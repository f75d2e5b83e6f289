import Foundation

/// Dictionaries that ``DirectJSONEncoder`` writes in key order (see `encodeSorted(_:key:)`).
protocol StringKeyedDictionary {
    func encodeSorted(to encoder: DirectJSONEncoder, key: DirectJSONEncoder.PathKey) throws
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
    func encodeSorted(to encoder: DirectJSONEncoder, key: DirectJSONEncoder.PathKey) throws {
        try encoder.encodeSorted(self, key: key)
    }
}

/// The coding key of a dictionary entry, as `Dictionary.encode(to:)` makes it: the key, and
/// its integer value when it spells one.
struct DictionaryCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ key: String) {
        stringValue = key
        intValue = Int(key)
    }

    init(stringValue: String) {
        self.init(stringValue)
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// Sets that ``DirectJSONEncoder`` writes in the tree's order: those whose elements are
/// scalars, as the tree encoder boxes them.
protocol ScalarSet {
    /// The elements as the tree encoder's nodes, or `nil` when one is not a scalar.
    func archivedScalars() -> [ArchiveValue]?
}

extension Set: ScalarSet where Element: Encodable {
    func archivedScalars() -> [ArchiveValue]? {
        // The element types `DirectJSONEncoder.box(_:key:)` and the tree encoder write
        // directly, in their order, then the other primitives.
        if Element.self == String.self { return map { .string(unsafeBitCast($0, to: String.self)) } }
        if Element.self == Int.self { return map { .int(Int64(unsafeBitCast($0, to: Int.self))) } }
        if Element.self == Double.self { return map { .double(unsafeBitCast($0, to: Double.self)) } }
        if Element.self == Bool.self { return map { .bool(unsafeBitCast($0, to: Bool.self)) } }
        if Element.self == Date.self { return map { .date(unsafeBitCast($0, to: Date.self)) } }
        guard Element.self is any ArchivePrimitive.Type else { return nil }
        var values: [ArchiveValue] = []
        values.reserveCapacity(count)
        for element in self {
            guard let primitive = element as? any ArchivePrimitive else { return nil }
            let value = primitive.primitiveValue
            switch value {
            case .array, .dictionary, .object, .reference: return nil
            default: values.append(value)
            }
        }
        return values
    }
}
