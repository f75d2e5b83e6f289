import Foundation

// Placeholder until the property-list formats land (replaced on the plist branch).
enum PropertyListReader {
    static func read(_ data: Data, options: ArchiveReadingOptions) throws -> ArchiveValue {
        throw ArchiveError(.unsupportedFormat, "property lists are not available yet")
    }
}
