import Foundation

// Placeholder until the JSON reader lands (replaced on the json branch).
enum JSONReader {
    static func read(_ data: Data, options: ArchiveReadingOptions) throws -> ArchiveValue {
        throw ArchiveError(.unsupportedFormat, "JSON reading is not available yet")
    }
}
