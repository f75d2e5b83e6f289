import Foundation

/// Typed views of a value. Each returns `nil` when the value is of another kind; numeric views
/// convert only when the conversion is exact.
extension ArchiveValue {
    /// Whether this is ``null``.
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Boolean payload.
    @inlinable
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value as a signed 64-bit integer, when it is an integer (or a double holding an
    /// integer) that fits exactly.
    @inlinable
    public var int64Value: Int64? {
        switch self {
        case .int(let value):
            return value
        case .uint(let value):
            return value <= UInt64(Int64.max) ? Int64(value) : nil
        case .double(let value):
            return Int64(exactly: value)
        default:
            return nil
        }
    }

    /// The value as an unsigned 64-bit integer, when it is a non-negative integer (or a double
    /// holding one) that fits exactly.
    @inlinable
    public var uint64Value: UInt64? {
        switch self {
        case .int(let value):
            return value >= 0 ? UInt64(value) : nil
        case .uint(let value):
            return value
        case .double(let value):
            return UInt64(exactly: value)
        default:
            return nil
        }
    }

    /// The value as an `Int`, when it is an integer that fits exactly.
    @inlinable
    public var intValue: Int? {
        int64Value.flatMap { Int(exactly: $0) }
    }

    /// The value as a double: doubles as they are, integers when the conversion is exact.
    @inlinable
    public var doubleValue: Double? {
        switch self {
        case .double(let value):
            return value
        case .int(let value):
            return Double(exactly: value)
        case .uint(let value):
            return Double(exactly: value)
        default:
            return nil
        }
    }

    /// The string payload.
    @inlinable
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The data payload.
    @inlinable
    public var dataValue: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    /// The date payload.
    @inlinable
    public var dateValue: Date? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The elements of an array.
    @inlinable
    public var arrayValue: [ArchiveValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The entries of a dictionary.
    @inlinable
    public var dictionaryValue: ArchiveDictionary? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The typed object.
    @inlinable
    public var objectValue: ArchiveObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The identity a reference points to.
    @inlinable
    public var referenceValue: ArchiveObjectID? {
        if case .reference(let value) = self { return value }
        return nil
    }

    /// The keyed entries of a dictionary or the fields of an object.
    @inlinable
    public var keyedEntries: ArchiveDictionary? {
        switch self {
        case .dictionary(let value): return value
        case .object(let value): return value.fields
        default: return nil
        }
    }

    /// The value under `key` in a dictionary or an object's fields; `nil` for other kinds.
    @inlinable
    public subscript(key: String) -> ArchiveValue? {
        keyedEntries?[key]
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    @inlinable
    public subscript(index: Int) -> ArchiveValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}
