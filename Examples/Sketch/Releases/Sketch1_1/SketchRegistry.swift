import ModelVersioning

/// App 1.1's registry: the types it archived and its document, version 2.
///
/// ```swift
/// let drawing = try ArchiveDecoder(registry: try SketchRegistry.registry()).decode(Drawing.self, from: data)
/// let data = try SketchRegistry.encoder().encode(drawing)     // document "Sketch" v2
/// ```
///
/// It opens app 1.0's archives through its types' own steps from 1.0's versions, and knows
/// nothing of any later release: an archive a later release wrote is refused as newer, unless
/// it was written for 1.1 (a downgrade to release `1.1`).
public enum SketchRegistry {
    /// The document name every archive's envelope carries.
    public static let documentName = "Sketch"

    /// The document version app 1.1 writes.
    public static let documentVersion = 2

    /// The types the app archives.
    public static let types: [any VersionedModel.Type] = [
        Drawing.self, Circle.self, Rect.self, Style.self, Model.self,
    ]

    /// The document's chain: nothing changed across objects.
    public static let document = DocumentMigrations(
        name: documentName, currentVersion: documentVersion,
        steps: [MigrationStep(from: 1, to: 2, name: "app 1.1", rules: [])])

    /// Builds the registry of ``types`` and ``document``.
    public static func registry() throws -> ModelRegistry {
        try ModelRegistry(types, documents: [document])
    }

    /// An encoder that writes app 1.1's document: named ``documentName``, at ``documentVersion``.
    public static func encoder(format: ArchiveFormat = .json) -> ArchiveEncoder {
        var encoder = ArchiveEncoder(format: format)
        encoder.document = documentName
        encoder.documentVersion = documentVersion
        return encoder
    }
}
