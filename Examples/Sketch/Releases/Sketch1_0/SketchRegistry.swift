import ModelVersioning

/// App 1.0's registry: the types it archived and its document, version 1.
///
/// ```swift
/// let drawing = try ArchiveDecoder(registry: try SketchRegistry.registry()).decode(Drawing.self, from: data)
/// let data = try SketchRegistry.encoder().encode(drawing)     // document "Sketch" v1
/// ```
///
/// The first release: no migrations, and no knowledge of any later one. An archive a later
/// release wrote is refused as newer, unless it was written for 1.0 (a downgrade to release
/// `1.0`).
public enum SketchRegistry {
    /// The document name every archive's envelope carries.
    public static let documentName = "Sketch"

    /// The document version app 1.0 writes.
    public static let documentVersion = 1

    /// The types the app archives.
    public static let types: [any VersionedModel.Type] = [
        Drawing.self, Circle.self, Rect.self, Style.self, Model.self,
    ]

    /// The document's chain: the first version, no steps.
    public static let document = DocumentMigrations(name: documentName, currentVersion: documentVersion)

    /// Builds the registry of ``types`` and ``document``.
    public static func registry() throws -> ModelRegistry {
        try ModelRegistry(types, documents: [document])
    }

    /// An encoder that writes app 1.0's document: named ``documentName``, at ``documentVersion``.
    public static func encoder(format: ArchiveFormat = .json) -> ArchiveEncoder {
        var encoder = ArchiveEncoder(format: format)
        encoder.document = documentName
        encoder.documentVersion = documentVersion
        return encoder
    }
}
