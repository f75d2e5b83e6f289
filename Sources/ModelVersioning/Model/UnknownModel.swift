/// An archived object whose type this app does not know, kept whole so nothing is lost.
///
/// When ``DecodingOptions/unknownTypeStrategy`` is ``UnknownTypeStrategy/keepArchivedObject``, a
/// polymorphic value whose archived type name is not registered decodes as an `UnknownModel`
/// (if the property's type admits it) instead of failing, and encoding it writes the object
/// back exactly as it was archived, type name and version included. Make it conform to your
/// polymorphic protocol so it fits in the collection:
///
/// ```swift
/// extension UnknownModel: Shape {
///     var area: Double { 0 }      // unknown shapes draw nothing
/// }
/// ```
public struct UnknownModel: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The archived object, exactly as read (and migrated where its chain was known).
    public var archivedObject: ArchiveObject

    /// Wraps an archived object.
    public init(archivedObject: ArchiveObject) {
        self.archivedObject = archivedObject
    }

    /// The archived type name.
    public var typeName: String { archivedObject.typeName }

    /// The archived version.
    public var version: Int? { archivedObject.version }

    /// The archived object's description, wrapped: `UnknownModel(Circle v2 #3)`.
    public var description: String { "UnknownModel(\(archivedObject))" }

    /// Decodes the current value of this library's decoder (any other decoder fails: the type
    /// name would be lost).
    public init(from decoder: any Decoder) throws {
        if let direct = decoder as? DirectJSONDecoder { throw direct.unsupported() }
        guard let treeDecoder = decoder as? TreeDecoder, case .object(let object) = treeDecoder.currentValue else {
            throw ArchiveError(
                .typeMismatch, "UnknownModel decodes only archived objects, with ArchiveDecoder",
                path: ArchivePath(codingPath: decoder.codingPath))
        }
        self.init(archivedObject: object)
    }

    /// Writes the archived object back (with other encoders: its fields plus `$type` and
    /// `$version`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(ArchiveValue.object(archivedObject))
    }
}
