/// The top level of an archive written by this library: a marker with the envelope format
/// version, the optional document name and version, and the root value.
///
/// In the tree it is a dictionary whose first key is `"$archive"`:
///
/// ```json
/// { "$archive": 1, "document": "Sketch", "documentVersion": 3, "root": { "$type": "Drawing", … } }
/// ```
///
/// Trees that are not envelopes (foreign JSON, property lists, keyed archives) are documents
/// too: their top-level value is the root and their version, if any, lives where the
/// document's migrations say (`schema_version`, `metadata.documentVersion`, …).
///
/// One envelope holds such a plain document rather than an archive: a *plain envelope*,
/// `{"$archive": 1, "plain": true, "root": …}`, which is how JSON spells a plain document that
/// holds dates, data or other values plain JSON has no type for (a property list converted to
/// JSON). Its markup keeps their types; readers give back its root, the plain document, and
/// never show this envelope in a tree. It has no document name, version or way down.
///
/// The ModelVersioning module's article "The archive format" describes the whole archive as it
/// is written to disk: the envelope, the `$` keys of objects and references, and their
/// spelling in property lists and keyed archives.
public struct ArchiveEnvelope: Sendable, Hashable {
    /// The key that marks an envelope; its value is the envelope format version.
    package static let markerKey = "$archive"
    /// The key of the document name.
    package static let documentKey = "document"
    /// The key of the document version.
    package static let documentVersionKey = "documentVersion"
    /// The key of the root value.
    package static let rootKey = "root"
    /// The key of the way down to an older release (``WayDown``).
    package static let wayDownKey = "wayDown"
    /// The key, `true`, that makes an envelope a plain envelope: its root is a plain document
    /// (see the discussion above).
    package static let plainKey = "plain"
    /// The envelope format this library writes.
    public static let currentFormatVersion = 1

    /// The envelope format version the archive was written with.
    public var formatVersion: Int
    /// The document name, when the app declared one.
    public var document: String?
    /// The document version, when the app declared one.
    public var documentVersion: Int?
    /// The archived value.
    public var root: ArchiveValue
    /// The steps down to an older release that the archive carries, as written (read them with
    /// ``WayDown/init(tree:limits:)``); `nil` for most archives.
    public var wayDown: ArchiveValue?

    /// Creates an envelope around `root`.
    public init(
        root: ArchiveValue, document: String? = nil, documentVersion: Int? = nil,
        formatVersion: Int = ArchiveEnvelope.currentFormatVersion, wayDown: ArchiveValue? = nil
    ) {
        self.root = root
        self.document = document
        self.documentVersion = documentVersion
        self.formatVersion = formatVersion
        self.wayDown = wayDown
    }

    /// Reads the envelope of a tree; `nil` when the tree is not an envelope.
    ///
    /// - Throws: ``ArchiveError`` (``ArchiveError/Code/malformedInput``) for an envelope with a
    ///   bad marker, document name or version, or no root.
    public init?(tree: ArchiveValue) throws {
        guard case .dictionary(let entries) = tree, let marker = entries[Self.markerKey] else { return nil }
        let format = try Self.format(of: marker)
        guard let root = entries[Self.rootKey] else {
            throw ArchiveError(.malformedInput, "the archive has no 'root'")
        }
        var document: String?
        if let value = entries[Self.documentKey], !value.isNull {
            guard let name = value.stringValue else {
                throw ArchiveError(
                    .malformedInput, "'document' must be a string", path: [.key(Self.documentKey)])
            }
            document = name
        }
        var documentVersion: Int?
        if let value = entries[Self.documentVersionKey], !value.isNull {
            guard let version = value.intValue, version >= 0 else {
                throw ArchiveError(
                    .malformedInput, "'documentVersion' must be a non-negative integer",
                    path: [.key(Self.documentVersionKey)])
            }
            documentVersion = version
        }
        self.init(
            root: root, document: document, documentVersion: documentVersion, formatVersion: format,
            wayDown: entries[Self.wayDownKey])
    }

    /// Whether `tree` is an envelope (a dictionary with the `"$archive"` key).
    package static func isEnvelope(_ tree: ArchiveValue) -> Bool {
        if case .dictionary(let entries) = tree { return entries.index(forKey: markerKey) != nil }
        return false
    }

    /// Whether `tree` is an envelope of a format this library reads: the check every road that
    /// migrates or rewrites an archive makes first, so that nothing written by a newer format is
    /// changed and written back still labelled with that format.
    ///
    /// - Throws: ``ArchiveError`` (``ArchiveError/Code/newerVersion``) for a newer envelope
    ///   format, (``ArchiveError/Code/malformedInput``) for a marker that is not a positive integer.
    package static func isReadableEnvelope(_ tree: ArchiveValue) throws -> Bool {
        guard case .dictionary(let entries) = tree, let marker = entries[markerKey] else { return false }
        _ = try format(of: marker)
        return true
    }

    /// The format a `"$archive"` marker states, when this library reads it.
    private static func format(of marker: ArchiveValue) throws -> Int {
        guard let format = marker.intValue, format >= 1 else {
            throw ArchiveError(.malformedInput, "'$archive' must be a positive integer", path: [.key(markerKey)])
        }
        guard format <= currentFormatVersion else {
            throw ArchiveError(
                .newerVersion,
                "the archive envelope has format \(format); this library reads format \(currentFormatVersion)",
                path: [.key(markerKey)])
        }
        return format
    }

    /// The envelope as a tree: marker, document, document version, way down (when there is one),
    /// root, in that order.
    public var tree: ArchiveValue {
        var entries = ArchiveDictionary(minimumCapacity: 5)
        entries.appendUnchecked(.int(Int64(formatVersion)), forKey: Self.markerKey)
        if let document { entries.appendUnchecked(.string(document), forKey: Self.documentKey) }
        if let documentVersion {
            entries.appendUnchecked(.int(Int64(documentVersion)), forKey: Self.documentVersionKey)
        }
        if let wayDown { entries.appendUnchecked(wayDown, forKey: Self.wayDownKey) }
        entries.appendUnchecked(root, forKey: Self.rootKey)
        return .dictionary(entries)
    }
}
