import ArchiveFormats
import Foundation
import Testing

/// Keyed archives in the repository's fixtures, and what tests check them with: the tree a file
/// reads as, the `$objects` table behind it, and where two trees differ exactly (key order,
/// object metadata, identities, the bytes of strings).
package enum KeyedArchiveFixtures {
    /// `Fixtures/nskeyedarchiver`: keyed archives written by other projects.
    package static let root = Fixture.url("nskeyedarchiver")

    package static func data(_ path: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(path))
    }

    package static func read(_ path: String, rootKey: String? = nil, limits: ArchiveLimits = .default) throws
        -> ArchiveValue
    {
        try read(data(path), rootKey: rootKey, limits: limits)
    }

    package static func read(_ data: Data, rootKey: String? = nil, limits: ArchiveLimits = .default) throws
        -> ArchiveValue
    {
        try ArchiveFormat.keyedArchive.read(
            data, options: ArchiveReadingOptions(limits: limits, keyedArchive: KeyedArchiveOptions(rootKey: rootKey)))
    }

    /// The plain property list of an archive (UIDs as references), to check what the file holds.
    package static func propertyList(_ path: String) throws -> ArchiveValue {
        try ArchiveFormat.binaryPropertyList.read(data(path), options: ArchiveReadingOptions(markup: .plain))
    }

    /// The object at the root, or a recorded failure.
    package static func object(_ value: ArchiveValue?, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> ArchiveObject
    {
        try #require(value?.objectValue, "not an object: \(String(describing: value))", sourceLocation: sourceLocation)
    }

    /// The archive's `$objects` and `$top`, read as a plain property list.
    package static func table(_ data: Data) throws -> (objects: [ArchiveValue], top: ArchiveDictionary) {
        let plain = try ArchiveFormat.binaryPropertyList.read(data, options: ArchiveReadingOptions(markup: .plain))
        #expect(plain["$archiver"] == "NSKeyedArchiver")
        #expect(plain["$version"] == 100_000)
        return (try #require(plain["$objects"]?.arrayValue), try #require(plain["$top"]?.dictionaryValue))
    }

    /// The entry a UID points to.
    package static func entry(_ reference: ArchiveValue?, in objects: [ArchiveValue]) throws -> ArchiveValue {
        let uid = try #require(reference?.referenceValue).rawValue
        return try #require(objects.indices.contains(uid) ? objects[uid] : nil)
    }

    /// Where two trees differ, comparing dictionary key order, object metadata and identities
    /// exactly; `nil` when they are identical.
    package static func difference(_ a: ArchiveValue, _ b: ArchiveValue, path: String = "root") -> String? {
        switch (a, b) {
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return "\(path): \(x.count) vs \(y.count) elements" }
            for (index, pair) in zip(x, y).enumerated() {
                if let difference = difference(pair.0, pair.1, path: "\(path)[\(index)]") { return difference }
            }
            return nil
        case (.dictionary(let x), .dictionary(let y)):
            return difference(x, y, path: path)
        case (.object(let x), .object(let y)):
            guard x.typeName == y.typeName, x.version == y.version, x.id == y.id,
                x.superclassNames == y.superclassNames
            else { return "\(path): \(x) \(x.superclassNames) vs \(y) \(y.superclassNames)" }
            return difference(x.fields, y.fields, path: path)
        case (.uint(let x), .uint(let y)):
            return x == y ? nil : "\(path): \(x) vs \(y)"
        case (.int, .uint), (.uint, .int):
            return "\(path): \(a) vs \(b) (not canonical)"
        default:
            guard a.kind == b.kind, a == b else { return "\(path): \(a) vs \(b)" }
            if case .string(let x) = a, case .string(let y) = b, !x.utf8.elementsEqual(y.utf8) {
                return "\(path): \(x.debugDescription) vs \(y.debugDescription) (other bytes)"
            }
            return nil
        }
    }

    package static func difference(_ x: ArchiveDictionary, _ y: ArchiveDictionary, path: String) -> String? {
        guard x.keys.count == y.keys.count, zip(x.keys, y.keys).allSatisfy({ $0.utf8.elementsEqual($1.utf8) }) else {
            return "\(path): keys \(x.keys) vs \(y.keys)"
        }
        for index in x.indices {
            if let difference = difference(x[index].value, y[index].value, path: "\(path).\(x[index].key)") {
                return difference
            }
        }
        return nil
    }
}
