import Foundation

/// Writes binary property lists object by object, so that tests can build files this library's
/// writer never makes: containers shared by many references, counts and lengths of any size.
///
/// The layout follows Apple's `bplist00`: header, objects, offset table (4-byte offsets), trailer
/// (2-byte object references).
package struct BinaryPlistBuilder {
    package enum Object {
        case int(UInt8)
        case string(String)
        case data(Int)
        /// A data value holding exactly these bytes.
        case bytes(Data)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    package private(set) var objects: [Object] = []

    /// A property list with no objects yet.
    package init() {}

    /// Adds an object and returns its number.
    @discardableResult
    package mutating func add(_ object: Object) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    /// The file, with object `top` at the top.
    package func data(top: Int = 0) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        func appendBigEndian(_ value: Int, size: Int) {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
        func appendMarker(_ kind: UInt8, count: Int) {
            if count < 15 {
                bytes.append(kind << 4 | UInt8(count))
                return
            }
            bytes.append(kind << 4 | 0x0F)
            if count < 1 << 8 {
                bytes.append(0x10)
                appendBigEndian(count, size: 1)
            } else if count < 1 << 16 {
                bytes.append(0x11)
                appendBigEndian(count, size: 2)
            } else {
                bytes.append(0x12)
                appendBigEndian(count, size: 4)
            }
        }
        for object in objects {
            offsets.append(bytes.count)
            switch object {
            case .int(let value):
                bytes += [0x10, value]
            case .string(let text):
                appendMarker(0x5, count: text.utf8.count)
                bytes += Array(text.utf8)
            case .data(let count):
                appendMarker(0x4, count: count)
                bytes += [UInt8](repeating: 0xAB, count: count)
            case .bytes(let content):
                appendMarker(0x4, count: content.count)
                bytes += Array(content)
            case .array(let references):
                appendMarker(0xA, count: references.count)
                for reference in references { appendBigEndian(reference, size: 2) }
            case .dictionary(let keys, let values):
                appendMarker(0xD, count: keys.count)
                for reference in keys + values { appendBigEndian(reference, size: 2) }
            }
        }
        let tableOffset = bytes.count
        for offset in offsets { appendBigEndian(offset, size: 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 2]
        appendBigEndian(objects.count, size: 8)
        appendBigEndian(top, size: 8)
        appendBigEndian(tableOffset, size: 8)
        return Data(bytes)
    }
}
