/// Keeps the archived keys a model does not know, so that re-encoding writes them back.
///
/// Add a property of this type to a model and the archive decoder fills it with the object's
/// archived fields and version; the encoder writes every archived key the model itself did not
/// write. This is how an archive written by a newer app survives a round trip through an older
/// one (decode with ``DecodingOptions/allowsNewerVersions``):
///
/// ```swift
/// struct Circle: VersionedModel {
///     var radius: Double
///     var unknownFields = UnknownFields()
///     static let modelVersion = 5
/// }
/// // A v7 archive with a "gradient" key this app never heard of:
/// var circle = try decoder.decode(Circle.self, from: v7Data)   // allowsNewerVersions = true
/// circle.radius *= 2
/// let saved = try ArchiveEncoder().encode(circle)   // still v7, "gradient" kept
/// ```
///
/// The stored fields are bookkeeping, not model state: `UnknownFields` values are always equal
/// and hash alike, so they never change the model's `==`. When the archived version is newer
/// than the model's, the object is re-encoded with that newer version.
///
/// Only this library's coders know about it; with other coders it encodes as an empty keyed
/// container and needs to be optional to decode.
public struct UnknownFields: Codable, Sendable, Hashable {
    /// The object's fields as they were archived (after migration).
    public internal(set) var archivedFields: ArchiveDictionary
    /// The version the object was archived at, when newer than the model's.
    public internal(set) var archivedVersion: Int?

    /// No fields.
    public init() {
        archivedFields = [:]
        archivedVersion = nil
    }

    init(fields: ArchiveDictionary, version: Int?) {
        archivedFields = fields
        archivedVersion = version
    }

    /// Whether nothing was kept.
    public var isEmpty: Bool { archivedFields.isEmpty }

    /// Decodes as empty: this library's decoders fill the fields in themselves; other decoders keep none.
    public init(from decoder: any Decoder) throws {
        self.init()
    }

    /// Encodes an empty keyed container: this library's encoders write the kept fields themselves.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: ArchiveCodingKey.self)
    }

    /// Always `true`: kept fields never change a model's equality.
    public static func == (lhs: UnknownFields, rhs: UnknownFields) -> Bool { true }

    /// Hashes nothing, so that a model hashes alike whatever fields it kept.
    public func hash(into hasher: inout Hasher) {}
}
