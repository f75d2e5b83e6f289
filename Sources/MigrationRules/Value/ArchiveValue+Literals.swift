import Foundation

extension ArchiveValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension ArchiveValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension ArchiveValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) {
        self = .int(value)
    }
}

extension ArchiveValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension ArchiveValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension ArchiveValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: ArchiveValue...) {
        self = .array(elements)
    }
}

extension ArchiveValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, ArchiveValue)...) {
        var dictionary = ArchiveDictionary(minimumCapacity: elements.count)
        for (key, value) in elements {
            dictionary.updateValue(value, forKey: key)
        }
        self = .dictionary(dictionary)
    }
}
