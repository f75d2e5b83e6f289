import Foundation

// Placeholder until the JSON writer lands (replaced on the json branch).
enum JSONWriter {
    static func write(_ value: ArchiveValue, options: ArchiveWritingOptions) throws -> Data {
        throw ArchiveError(.unsupportedFormat, "JSON writing is not available yet")
    }
}
