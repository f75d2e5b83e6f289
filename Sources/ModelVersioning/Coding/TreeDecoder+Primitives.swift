import Foundation

/// Primitive values out of tree nodes, with exact numeric conversions and the lenient forms of
/// foreign documents (ISO 8601 strings for dates, base64 strings for data).
extension TreeDecoder {
    /// Values with a node of their own, decoded without calling their `init(from:)`; `nil` for
    /// every other type.
    @inline(__always)
    func unboxSpecial<T: Decodable>(_ value: ArchiveValue, as type: T.Type) throws -> T? {
        if T.self == String.self { return unsafeBitCast(try unboxString(value), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try unboxInteger(value, as: Int.self), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try unboxDouble(value), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try unboxBool(value), to: T.self) }
        if let primitive = T.self as? any ArchiveDecodablePrimitive.Type {
            return try primitive.init(archiveValue: value, decoder: self) as? T
        }
        return nil
    }

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
}

/// The numeric conversions both decoders apply (``TreeDecoder`` to tree nodes,
/// ``StreamingJSONDecoder`` to the numbers it reads): exact or not at all.
extension ArchiveValue {
    /// The integer a number node holds exactly as an `I` (an integral double included), or `nil`.
    @inline(__always)
    func exactInteger<I: FixedWidthInteger>(as type: I.Type) -> I? {
        switch self {
        case .int(let number): return I(exactly: number)
        case .uint(let number): return I(exactly: number)
        case .double(let number):
            guard number.isFinite, number.rounded(.towardZero) == number else { return nil }
            return I(exactly: number)
        default: return nil
        }
    }

    /// A number node as a `Double` (integers rounded to the nearest double), or `nil`.
    @inline(__always)
    var numberAsDouble: Double? {
        switch self {
        case .double(let number): return number
        case .int(let number): return Double(number)
        case .uint(let number): return Double(number)
        default: return nil
        }
    }

    /// `number` as a `Float`, unless a finite double overflows it.
    @inline(__always)
    static func float(fitting number: Double) -> Float? {
        let float = Float(number)
        return float.isFinite || !number.isFinite ? float : nil
    }
}

/// Types decoded straight from a tree node instead of through their `init(from:)`.
protocol ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws
}

extension Int8: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxInteger(archiveValue, as: Int8.self)
    }
}

extension Int16: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxInteger(archiveValue, as: Int16.self)
    }
}

extension Int32: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxInteger(archiveValue, as: Int32.self)
    }
}

extension Int64: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxInteger(archiveValue, as: Int64.self)
    }
}

extension UInt: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxInteger(archiveValue, as: UInt.self)
    }
}

extension UInt8: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxInteger(archiveValue, as: UInt8.self)
    }
}

extension UInt16: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxInteger(archiveValue, as: UInt16.self)
    }
}

extension UInt32: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxInteger(archiveValue, as: UInt32.self)
    }
}

extension UInt64: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxInteger(archiveValue, as: UInt64.self)
    }
}

extension Float: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = try decoder.unboxFloat(archiveValue)
    }
}

extension Date: ArchiveDecodablePrimitive {
    /// A date node; an ISO 8601 string or a number of seconds since 2001-01-01 (Foundation's
    /// default) in foreign documents.
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        switch archiveValue {
        case .date(let date):
            self = date
        case .string(let text):
            guard let date = ISO8601Date.date(from: text) else {
                throw decoder.error(.dataCorrupted, "\"\(text)\" is not an ISO 8601 date")
            }
            self = date
        case .int, .uint, .double:
            self = Date(timeIntervalSinceReferenceDate: try decoder.unboxDouble(archiveValue))
        default:
            throw decoder.mismatch(expected: "a date", found: archiveValue)
        }
    }
}

extension Data: ArchiveDecodablePrimitive {
    /// A data node, or a base64 string in foreign documents.
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        switch archiveValue {
        case .data(let data):
            self = data
        case .string(let text):
            guard let data = Data(base64Encoded: text) else {
                throw decoder.error(.dataCorrupted, "the string is not valid base64 data")
            }
            self = data
        default:
            throw decoder.mismatch(expected: "data", found: archiveValue)
        }
    }
}

extension URL: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        let text = try decoder.unboxString(archiveValue)
        guard let url = URL(string: text) else {
            throw decoder.error(.dataCorrupted, "\"\(text)\" is not a valid URL")
        }
        self = url
    }
}

extension Decimal: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        switch archiveValue {
        case .string(let text):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw decoder.error(.dataCorrupted, "\"\(text)\" is not a decimal number")
            }
            self = decimal
        case .int(let number):
            self = Decimal(number)
        case .uint(let number):
            self = Decimal(number)
        case .double(let number):
            self = Decimal(number)
        default:
            throw decoder.mismatch(expected: "a decimal number", found: archiveValue)
        }
    }
}

extension ArchiveValue: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        self = archiveValue
    }
}

extension UnknownModel: ArchiveDecodablePrimitive {
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        guard case .object(let object) = archiveValue else {
            throw decoder.mismatch(expected: "an archived object", found: archiveValue)
        }
        self.init(archivedObject: object)
    }
}
