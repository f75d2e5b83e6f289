import Foundation

/// Primitive values out of tree nodes, with exact numeric conversions and the lenient forms of
/// foreign documents (ISO 8601 strings for dates, base64 strings for data).
extension TreeDecoder {
    func unboxString(_ value: ArchiveValue, key: @autoclosure () -> PathKey? = nil) throws -> String {
        guard case .string(let string) = value else { throw mismatch(expected: "a string", found: value, key: key()) }
        return string
    }

    func unboxBool(_ value: ArchiveValue, key: @autoclosure () -> PathKey? = nil) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(expected: "a Boolean", found: value, key: key()) }
        return bool
    }

    func unboxInteger<I: FixedWidthInteger>(
        _ value: ArchiveValue, as type: I.Type, key: @autoclosure () -> PathKey? = nil
    ) throws -> I {
        switch value {
        case .int, .uint, .double:
            if let result = value.exactInteger(as: I.self) { return result }
        default:
            throw mismatch(expected: "an integer", found: value, key: key())
        }
        throw error(.dataCorrupted, "\(Self.describe(value)) does not fit in \(I.self)", key: key())
    }

    func unboxDouble(_ value: ArchiveValue, key: @autoclosure () -> PathKey? = nil) throws -> Double {
        guard let number = value.numberAsDouble else { throw mismatch(expected: "a number", found: value, key: key()) }
        return number
    }

    func unboxFloat(_ value: ArchiveValue, key: @autoclosure () -> PathKey? = nil) throws -> Float {
        let number = try unboxDouble(value, key: key())
        guard let float = ArchiveValue.float(fitting: number) else {
            throw error(.dataCorrupted, "\(number) does not fit in Float", key: key())
        }
        return float
    }

    /// A date or data value read as the plain document's conventions spell it, with the
    /// conventions' errors placed at the current path.
    func spelled<Value>(_ value: ArchiveValue, _ read: (DocumentConventions) throws -> Value) throws -> Value {
        guard let conventions = session.conventions else {
            throw mismatch(expected: "a value the document's conventions spell", found: value)
        }
        do {
            return try read(conventions)
        } catch let failure as ArchiveError {
            throw error(failure.code, failure.message)
        }
    }
}
