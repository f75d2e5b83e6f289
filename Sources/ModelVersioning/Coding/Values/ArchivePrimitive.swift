import Foundation

/// Types the coders map to a tree node of their own instead of calling their `encode(to:)`.
protocol ArchivePrimitive {
    /// The node the value is written as.
    var primitiveValue: ArchiveValue { get }
}

extension Data: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .data(self) }
}

extension URL: ArchivePrimitive {
    var primitiveValue: ArchiveValue {
        .string(absoluteString)
    }
}

extension Decimal: ArchivePrimitive {
    var primitiveValue: ArchiveValue {
        .string(description)
    }
}

extension ArchiveValue: ArchivePrimitive {
    var primitiveValue: ArchiveValue { self }
}

extension UnknownModel: ArchivePrimitive {
    var primitiveValue: ArchiveValue {
        .object(archivedObject)
    }
}

extension Int8: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension Int16: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension Int32: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension UInt: ArchivePrimitive {
    var primitiveValue: ArchiveValue {
        ArchiveValue(UInt64(self))
    }
}

extension UInt8: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension UInt16: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension UInt32: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .int(Int64(self)) }
}

extension Float: ArchivePrimitive {
    var primitiveValue: ArchiveValue { .double(Double(self)) }
}
