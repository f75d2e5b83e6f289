import Foundation

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
    /// A date node; in a plain document, a date spelled as its chain's conventions say; in other
    /// foreign documents, an ISO 8601 string or a number of seconds since 2001-01-01
    /// (Foundation's default).
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        switch archiveValue {
        case .date(let date):
            self = date
        case _ where decoder.session.conventions != nil && !archiveValue.isNull:
            self = try decoder.spelled(archiveValue) { try $0.date(from: archiveValue) }
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
    /// A data node, or in foreign documents a base64 string (a plain document's chain may
    /// spell it otherwise).
    init(archiveValue: ArchiveValue, decoder: TreeDecoder) throws {
        switch archiveValue {
        case .data(let data):
            self = data
        case _ where decoder.session.conventions != nil && !archiveValue.isNull:
            self = try decoder.spelled(archiveValue) { try $0.data(from: archiveValue) }
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
            // Decimal(Double) traps on an infinity; a Decimal holds no NaN an archive could mean.
            guard number.isFinite else {
                throw decoder.error(.dataCorrupted, "\(number) is not a decimal number (a Decimal is finite)")
            }
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
