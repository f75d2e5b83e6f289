import Foundation

// Placeholder until the property-list formats land (replaced on the plist branch).
enum BinaryPropertyListWriter {
    static func write(_ value: ArchiveValue, options: ArchiveWritingOptions) throws -> Data {
        throw ArchiveError(.unsupportedFormat, "property lists are not available yet")
    }
}
