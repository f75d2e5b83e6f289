import ModelVersioning

/// App 1.2's registry: the types it archived and its document, version 3.
///
/// ```swift
/// let drawing = try ArchiveDecoder(registry: try SketchRegistry.registry()).decode(Drawing.self, from: data)
/// let data = try SketchRegistry.encoder().encode(drawing)     // document "Sketch" v3
/// ```
///
/// It opens the archives of apps 1.0 and 1.1 through its types' own steps from their versions,
/// and knows nothing of any later release: an archive app 2.0 wrote is refused as newer, unless
/// it was written for 1.2 (a downgrade to release `1.2`).
public enum SketchRegistry {
    /// The document name every archive's envelope carries.
    public static let documentName = "Sketch"

    /// The document version app 1.2 writes.
    public static let documentVersion = 3

    /// The types the app archives.
    public static let types: [any VersionedModel.Type] = [
        Drawing.self, Circle.self, Rectangle.self, RoundedRectangle.self, Style.self, Model.self,
    ]

    /// The document's chain: nothing changed across objects.
    public static let document = DocumentMigrations(
        name: documentName, currentVersion: documentVersion,
        steps: [
            MigrationStep(from: 1, to: 2, name: "app 1.1", rules: []),
            MigrationStep(from: 2, to: 3, name: "app 1.2", rules: []),
        ])

    /// Builds the registry of ``types`` and ``document``.
    public static func registry() throws -> ModelRegistry {
        try ModelRegistry(types, documents: [document])
    }

    /// An encoder that writes app 1.2's document: named ``documentName``, at ``documentVersion``.
    public static func encoder(format: ArchiveFormat = .json) -> ArchiveEncoder {
        var encoder = ArchiveEncoder(format: format)
        encoder.document = documentName
        encoder.documentVersion = documentVersion
        return encoder
    }
}
