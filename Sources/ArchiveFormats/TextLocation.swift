/// Where an offset in a text document is, as its readers (JSON, XML and OpenStep property lists)
/// report it in ``ArchiveError/location``.
enum TextLocation {
    /// The 1-based line and column of `offset` in the UTF-8 text `bytes[start..<end]`: lines end
    /// at LF, CR or CRLF, and the column counts Unicode scalars, not bytes. `start` skips a
    /// byte-order mark. The byte offset is reported unless the reader transcoded the text (its
    /// offsets are then not the file's).
    static func location(
        of offset: Int, in bytes: UnsafePointer<UInt8>, start: Int = 0, end: Int, isTranscoded: Bool = false
    ) -> ArchiveError.InputLocation {
        let limit = min(max(offset, start), end)
        var line = 1
        var lineStart = start
        var index = start
        while index < limit {
            let byte = bytes[index]
            if byte == 0x0A {
                line &+= 1
                lineStart = index &+ 1
            } else if byte == 0x0D {
                if index &+ 1 < limit, bytes[index &+ 1] == 0x0A { index &+= 1 }
                line &+= 1
                lineStart = index &+ 1
            }
            index &+= 1
        }
        var column = 1
        index = lineStart
        while index < limit {
            if bytes[index] & 0xC0 != 0x80 { column &+= 1 }
            index &+= 1
        }
        return ArchiveError.InputLocation(line: line, column: column, byteOffset: isTranscoded ? nil : limit)
    }

    /// The same for text held in an array.
    static func location(of offset: Int, in bytes: [UInt8], isTranscoded: Bool) -> ArchiveError.InputLocation {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else {
                return ArchiveError.InputLocation(line: 1, column: 1, byteOffset: isTranscoded ? nil : 0)
            }
            return location(of: offset, in: base, end: buffer.count, isTranscoded: isTranscoded)
        }
    }
}
