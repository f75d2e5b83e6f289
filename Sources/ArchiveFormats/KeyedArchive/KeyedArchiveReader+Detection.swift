import Foundation

/// Telling a keyed archive from other property lists by its first bytes, without parsing it.
extension KeyedArchiveReader {
    /// Whether `data` looks like an NSKeyedArchiver archive: a binary property list whose top
    /// object is a dictionary with the key `$archiver`, or an XML property list whose first key
    /// is `$archiver` (Apple's and Python's writers sort the keys, so it comes first).
    ///
    /// A guess for ``ArchiveFormat/detect(_:)``: reading confirms it.
    static func looksLikeKeyedArchive(_ data: Data) -> Bool {
        if data.starts(with: "bplist00".utf8) {
            return binaryTopHasArchiver(data)
        }
        let prefix = [UInt8](data.prefix(4096))
        guard let dict = firstRange(of: Array("<dict>".utf8), in: prefix[...]),
            let key = firstRange(of: Array("<key>".utf8), in: prefix[dict.upperBound...])
        else { return false }
        return prefix[key.upperBound...].starts(with: "$archiver</key>".utf8)
    }

    private static func firstRange(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Range<Int>? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) {
                return index..<index + needle.count
            }
            index += 1
        }
        return nil
    }

    /// Follows the trailer of a binary property list to its top object's keys, checking every
    /// offset; `false` for anything unexpected. Reads only the bytes it needs (no copy of the
    /// whole input).
    private static func binaryTopHasArchiver(_ data: Data) -> Bool {
        let base = data.startIndex
        let size = data.count
        func byte(_ position: Int) -> UInt8 { data[base + position] }
        func unsigned(at position: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in position..<position + size {
                value = value << 8 | UInt64(byte(index))
            }
            return value
        }
        guard size >= 8 + 1 + 32 else { return false }
        let trailer = size - 32
        let offsetSize = Int(byte(trailer + 6))
        let referenceSize = Int(byte(trailer + 7))
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else { return false }
        let count = unsigned(at: trailer + 8, size: 8)
        let top = unsigned(at: trailer + 16, size: 8)
        let tableOffset = unsigned(at: trailer + 24, size: 8)
        guard top < count, tableOffset >= 9, tableOffset < UInt64(trailer),
            count <= (UInt64(trailer) - tableOffset) / UInt64(offsetSize)
        else { return false }
        let tableStart = Int(tableOffset)
        // The offset table lies inside the file, so these conversions and products are exact.
        func offset(of object: UInt64) -> Int? {
            guard object < count else { return nil }
            let value = unsigned(at: tableStart + Int(object) * offsetSize, size: offsetSize)
            return value >= 8 && value < tableOffset ? Int(value) : nil
        }
        guard let start = offset(of: top), byte(start) >> 4 == 0xD else { return false }
        var keyCount = Int(byte(start) & 0x0F)
        var references = start + 1
        if keyCount == 0x0F {
            guard references < tableStart, byte(references) >> 4 == 0x1 else { return false }
            let lengthSize = 1 << Int(byte(references) & 0x0F)
            guard lengthSize <= 8, references + 1 + lengthSize <= tableStart else { return false }
            keyCount = Int(clamping: unsigned(at: references + 1, size: lengthSize))
            references += 1 + lengthSize
        }
        let archiver = Array("$archiver".utf8)
        for index in 0..<min(keyCount, 16) {
            let position = references + index * referenceSize
            guard position + referenceSize <= tableStart,
                let key = offset(of: unsigned(at: position, size: referenceSize))
            else { return false }
            if byte(key) == 0x59, key + 10 <= tableStart,
                (0..<9).allSatisfy({ byte(key + 1 + $0) == archiver[$0] })
            {
                return true
            }
        }
        return false
    }
}
