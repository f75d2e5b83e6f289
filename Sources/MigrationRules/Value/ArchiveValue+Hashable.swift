import Foundation

/// Equality is semantic, not structural: `.int(5) == .uint(5)`, NaN equals NaN, and two
/// dictionaries with the same entries in a different order are equal (key order is kept for
/// output, not meaning). An integer never equals a double: `1` and `1.0` are different archives.
/// Strings and keys are equal when they have the same Unicode scalars, as in every archive
/// format: `"\u{E9}"` and `"e\u{301}"` are different strings, although Swift's `String`
/// equality (canonical equivalence) finds them equal.
extension ArchiveValue: Equatable {
    /// Whether the two values mean the same archived value, by the rules above (not by structure).
    public static func == (lhs: ArchiveValue, rhs: ArchiveValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.bool(let a), .bool(let b)):
            return a == b
        case (.int(let a), .int(let b)):
            return a == b
        case (.uint(let a), .uint(let b)):
            return a == b
        case (.int(let a), .uint(let b)), (.uint(let b), .int(let a)):
            return a >= 0 && UInt64(a) == b
        case (.double(let a), .double(let b)):
            return a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)):
            return a.hasSameScalars(as: b)
        case (.data(let a), .data(let b)):
            return a == b
        case (.date(let a), .date(let b)):
            return a == b
        case (.array(let a), .array(let b)):
            return a == b
        case (.dictionary(let a), .dictionary(let b)):
            return a == b
        case (.object(let a), .object(let b)):
            return a == b
        case (.reference(let a), .reference(let b)):
            return a == b
        default:
            return false
        }
    }
}

extension ArchiveValue: Hashable {
    /// Hashes as `==` compares: `.int(5)` and `.uint(5)` hash alike, every NaN alike, dictionaries in any order.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .int(let value):
            // Non-negative values hash as unsigned so that `.int(5)` and `.uint(5)` agree.
            if value >= 0 {
                hasher.combine(2 as UInt8)
                hasher.combine(UInt64(value))
            } else {
                hasher.combine(3 as UInt8)
                hasher.combine(value)
            }
        case .uint(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(4 as UInt8)
            if value.isNaN {
                hasher.combine(Double.nan.bitPattern)
            } else {
                hasher.combine(value)
            }
        case .string(let value):
            hasher.combine(5 as UInt8)
            value.hashScalars(into: &hasher)
        case .data(let value):
            hasher.combine(6 as UInt8)
            hasher.combine(value)
        case .date(let value):
            hasher.combine(7 as UInt8)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(8 as UInt8)
            hasher.combine(value)
        case .dictionary(let value):
            hasher.combine(9 as UInt8)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(10 as UInt8)
            hasher.combine(value)
        case .reference(let value):
            hasher.combine(11 as UInt8)
            hasher.combine(value)
        }
    }
}
