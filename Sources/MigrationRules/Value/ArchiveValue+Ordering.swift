import Foundation

extension ArchiveValue {
    /// A total order on values, for writing the contents of unordered collections (sets,
    /// dictionaries keyed by other values) in the same order every time: first by kind
    /// (null, Booleans, numbers, strings, data, dates, arrays, dictionaries, objects, references),
    /// then by value. Numbers of different kinds compare by magnitude; strings and keys by
    /// `String.precedesExactly(_:)` (`<`, and for canonically equivalent spellings their bytes),
    /// so that two different strings are never left in the order they came in.
    package func canonicallyPrecedes(_ other: ArchiveValue) -> Bool {
        let (lhsRank, rhsRank) = (canonicalRank, other.canonicalRank)
        if lhsRank != rhsRank { return lhsRank < rhsRank }
        switch (self, other) {
        case (.bool(let a), .bool(let b)):
            return !a && b
        case (.int(let a), .int(let b)):
            return a < b
        case (.uint(let a), .uint(let b)):
            return a < b
        case (.int, .uint):
            return true
        case (.uint, .int):
            return false
        case (.string(let a), .string(let b)):
            return a.precedesExactly(b)
        case (.data(let a), .data(let b)):
            return a.lexicographicallyPrecedes(b)
        case (.date(let a), .date(let b)):
            return a < b
        case (.array(let a), .array(let b)):
            return a.lexicographicallyPrecedes(b) { $0.canonicallyPrecedes($1) }
        case (.dictionary(let a), .dictionary(let b)):
            return Self.entriesPrecede(a, b)
        case (.object(let a), .object(let b)):
            if !a.typeName.hasSameScalars(as: b.typeName) { return a.typeName.precedesExactly(b.typeName) }
            return Self.entriesPrecede(a.fields, b.fields)
        case (.reference(let a), .reference(let b)):
            return a < b
        default:
            // Numbers of different kinds (int/uint vs double).
            guard let a = doubleValue, let b = other.doubleValue else { return false }
            return a < b
        }
    }

    private var canonicalRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .uint, .double: return 2
        case .string: return 3
        case .data: return 4
        case .date: return 5
        case .array: return 6
        case .dictionary: return 7
        case .object: return 8
        case .reference: return 9
        }
    }

    private static func entriesPrecede(_ a: ArchiveDictionary, _ b: ArchiveDictionary) -> Bool {
        let lhs = a.sorted { $0.key.precedesExactly($1.key) }
        let rhs = b.sorted { $0.key.precedesExactly($1.key) }
        return lhs.lexicographicallyPrecedes(rhs) { x, y in
            !x.key.hasSameScalars(as: y.key) ? x.key.precedesExactly(y.key) : x.value.canonicallyPrecedes(y.value)
        }
    }
}
