import Foundation

extension ArchiveValue: ExpressibleByNilLiteral {
    /// `nil` is `.null`.
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension ArchiveValue: ExpressibleByBooleanLiteral {
    /// `true` and `false` are `.bool`.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension ArchiveValue: ExpressibleByIntegerLiteral {
    /// An integer literal is `.int`.
    public init(integerLiteral value: Int64) {
        self = .int(value)
    }
}

extension ArchiveValue: ExpressibleByFloatLiteral {
    /// A floating-point literal is `.double`.
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension ArchiveValue: ExpressibleByStringLiteral {
    /// A string literal is `.string`.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension ArchiveValue: ExpressibleByArrayLiteral {
    /// An array literal is `.array` of its elements.
    public init(arrayLiteral elements: ArchiveValue...) {
        self = .array(elements)
    }
}

extension ArchiveValue: ExpressibleByDictionaryLiteral {
    /// A dictionary literal is `.dictionary` of its entries, in their order.
    public init(dictionaryLiteral elements: (String, ArchiveValue)...) {
        var dictionary = ArchiveDictionary(minimumCapacity: elements.count)
        for (key, value) in elements {
            dictionary.updateValue(value, forKey: key)
        }
        self = .dictionary(dictionary)
    }
}
