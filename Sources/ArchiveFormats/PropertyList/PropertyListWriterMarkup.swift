import Foundation

/// How the property-list writers spell what property lists cannot hold natively: objects,
/// null, and model keys that start with `$`.
///
/// * ``MarkupMode/archive`` and ``MarkupMode/automatic``: objects as dictionaries of their
///   metadata and escaped fields (``ArchiveMarkup/entries(of:)``), `ArchiveValue.null` as
///   `{"$null": true}`, dictionary keys that start with `$` escaped (``ArchiveMarkup/escape(_:)``)
///   except `$archive` in the top-level dictionary (the envelope marker).
/// * ``MarkupMode/plain``: objects as dictionaries of their metadata keys and their fields as
///   they are, keys unescaped, null as the binary format's null (XML has none).
/// * A tree whose top level is a dictionary with an `$archiver` key is an NSKeyedArchiver archive:
///   its `$` keys are that format's own, so it is always written plainly, whatever the mode.
///
/// References are written as UIDs in every mode (binary marker `0x8N`, XML
/// `<dict><key>CF$UID</key><integer>n</integer></dict>`).
struct PropertyListWriterMarkup {
    /// Whether the archive markup is written (escaped keys, `$null`).
    let isArchive: Bool

    init(mode: MarkupMode, root: ArchiveValue) {
        if case .dictionary(let entries) = root, entries.index(forKey: "$archiver") != nil {
            isArchive = false
        } else {
            isArchive = mode != .plain
        }
    }

    /// The spelling of a dictionary key; `isTopLevel` for the keys of the top-level dictionary.
    @inline(__always)
    func key(_ key: String, isTopLevel: Bool) -> String {
        guard isArchive, ArchiveMarkup.isReservedSpelling(key) else { return key }
        if isTopLevel && key == ArchiveMarkup.archiveKey { return key }
        return ArchiveMarkup.escape(key)
    }

    /// The entries written for an object, keys final.
    ///
    /// - Throws: `ArchiveError.Code.invalidValue` in plain mode when a field's key equals one of
    ///   the object's metadata keys (the dictionary would hold it twice).
    func entries(of object: ArchiveObject) throws -> [ArchiveDictionary.Element] {
        if isArchive { return ArchiveMarkup.entries(of: object) }
        var entries = ArchiveMarkup.entries(
            of: ArchiveObject(
                typeName: object.typeName, version: object.version, id: object.id,
                superclassNames: object.superclassNames))
        let metadataKeys = entries.map(\.key)
        entries.reserveCapacity(entries.count + object.fields.count)
        for (key, value) in object.fields {
            if metadataKeys.contains(key) {
                throw ArchiveError(
                    .invalidValue,
                    "the field '\(key)' of a \(object.typeName) cannot be written plainly next to its metadata key",
                    path: [.key(key)], typeName: object.typeName, archivedVersion: object.version)
            }
            entries.append((key, value))
        }
        return entries
    }

    /// The entries that stand for `ArchiveValue.null` in archive mode.
    static let nullEntries: [ArchiveDictionary.Element] = [(ArchiveMarkup.nullKey, .bool(true))]

    /// The error for nesting deeper than `maxDepth`.
    static func depthError(_ maxDepth: Int) -> ArchiveError {
        ArchiveError.limitExceeded(.depth, "the values are nested deeper than the limit of \(maxDepth)")
    }

    /// The error for a reference whose identity a UID cannot hold.
    static func referenceError(_ id: ArchiveObjectID) -> ArchiveError {
        ArchiveError(
            .invalidValue, "the reference \(id) cannot be written: property-list UIDs are 0 to 4294967295")
    }

    /// The error for a date that property lists cannot hold.
    static func dateError(_ date: Date) -> ArchiveError {
        ArchiveError(
            .invalidValue,
            "the date \(date.timeIntervalSinceReferenceDate) (seconds since 2001-01-01) is not in the years 0 to 9999")
    }
}
