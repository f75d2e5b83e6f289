import Foundation

/// An `ArchiveValue` property holds any archived value verbatim: this library's coders copy it
/// as it is (objects and references included); other coders see plain JSON-like values.
extension ArchiveValue: Codable {
    /// Takes the value as it is from this library's decoders; from others, the dictionary, array
    /// or scalar they hold.
    public init(from decoder: any Decoder) throws {
        if let direct = decoder as? DirectJSONDecoder { throw direct.unsupported() }
        if let treeDecoder = decoder as? TreeDecoder {
            self = treeDecoder.currentValue
            return
        }
        if let keyed = try? decoder.container(keyedBy: ArchiveCodingKey.self) {
            var dictionary = ArchiveDictionary(minimumCapacity: keyed.allKeys.count)
            for key in keyed.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                dictionary.appendUnchecked(try keyed.decode(ArchiveValue.self, forKey: key), forKey: key.stringValue)
            }
            self = .dictionary(dictionary)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [ArchiveValue] = []
            while !unkeyed.isAtEnd {
                elements.append(try unkeyed.decode(ArchiveValue.self))
            }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? single.decode(UInt64.self) {
            self = .uint(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    /// Writes the value as it is with this library's encoders; with others, as plain values (objects and
    /// references as their markup keys, such as `$type` and `$ref`).
    public func encode(to encoder: any Encoder) throws {
        if let treeEncoder = encoder as? TreeEncoder {
            treeEncoder.storage = .value(self)
            return
        }
        switch self {
        case .dictionary(let dictionary):
            var container = encoder.container(keyedBy: ArchiveCodingKey.self)
            for (key, value) in dictionary {
                try container.encode(value, forKey: ArchiveCodingKey(key))
            }
        case .object(let object):
            var container = encoder.container(keyedBy: ArchiveCodingKey.self)
            for (key, value) in ArchiveMarkup.entries(of: object) {
                try container.encode(value, forKey: ArchiveCodingKey(key))
            }
        case .reference(let id):
            var container = encoder.container(keyedBy: ArchiveCodingKey.self)
            try container.encode(id.rawValue, forKey: ArchiveCodingKey(ArchiveMarkup.referenceKey))
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .uint(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .data(let value): try container.encode(value)
            case .date(let value): try container.encode(value)
            case .array, .dictionary, .object, .reference: break
            }
        }
    }
}
