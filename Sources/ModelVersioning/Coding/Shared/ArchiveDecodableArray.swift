import Foundation

/// Arrays the decoder fills itself, element by element, with the capacity known up front.
protocol ArchiveDecodableArray {
    static func decodeElements(_ elements: [ArchiveValue], with decoder: TreeDecoder, allowed: Set<String>?) throws
        -> Self
    /// The same from JSON text (``StreamingJSONDecoder``).
    static func decodeElements(
        of array: StreamingJSONDecoder.ValueRef, with decoder: StreamingJSONDecoder, allowed: Set<String>?
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
