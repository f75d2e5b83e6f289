import Foundation

/// The array types the coders read and write without a call per element, compared on the hot
/// paths by metatype, fetched once (a generic type's metadata is looked up in the runtime's
/// cache every time it is named).
enum KnownTypes {
    static let stringArray = ObjectIdentifier([String].self)
    static let doubleArray = ObjectIdentifier([Double].self)
    static let intArray = ObjectIdentifier([Int].self)
}

/// Arrays the decoder fills itself, element by element, with the capacity known up front.
protocol ArchiveDecodableArray {
    static func decodeElements(_ elements: [ArchiveValue], with decoder: TreeDecoder, allowed: Set<String>?) throws
        -> Self
    /// The same from JSON text (``DirectJSONDecoder``).
    static func decodeElements(
        of array: DirectJSONDecoder.ValueRef, with decoder: DirectJSONDecoder, allowed: Set<String>?
    ) throws -> Self
}

extension Array: ArchiveDecodableArray where Element: Decodable {
    static func decodeElements(_ elements: [ArchiveValue], with decoder: TreeDecoder, allowed: Set<String>?) throws
        -> [Element]
    {
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for index in elements.indices {
            result.append(try decoder.decode(Element.self, from: elements[index], key: .index(index), allowed: allowed))
        }
        return result
    }
}
