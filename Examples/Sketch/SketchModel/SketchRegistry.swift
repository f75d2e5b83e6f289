import ModelVersioning

/// The sample app's registry: every model type it archives and the history of its document.
///
/// ```swift
/// let registry = try SketchRegistry.registry()
/// let drawing = try ArchiveDecoder(registry: registry).decode(Drawing.self, from: data)   // any shipped version
/// let data = try SketchRegistry.encoder().encode(drawing)                                // today's version
/// ```
///
/// Every release bumped the document version, so a document tells which app wrote it; what each
/// release wrote is declared once, in ``releases``.
///
/// `Examples/Sketch/History.md` tells the story; `Fixtures/archives/Sketch/v1` … `v4` hold archives
/// each version wrote, and `Fixtures/archives/rules.json` is the same history as a rules file.
public enum SketchRegistry {
    /// The document name every archive's envelope carries.
    public static let documentName = "Sketch"

    /// The document version app 2.0 writes.
    public static let documentVersion = 4

    /// The types the app archives.
    public static let types: [any VersionedModel.Type] = [
        Drawing.self, Circle.self, Rectangle.self, RoundedRectangle.self, Style.self, Model.self,
    ]

    /// The document's own chain.
    ///
    /// Each release bumped the document version; no release changed anything that spans objects,
    /// so the steps have no rules (the types' own chains do the work). The steps exist so that
    /// an archive from every release has a path to today and a downgrade can write any earlier
    /// document version.
    public static let document = DocumentMigrations(
        name: documentName, currentVersion: documentVersion,
        steps: [
            MigrationStep(from: 1, to: 2, name: "app 1.1", rules: []),
            MigrationStep(from: 2, to: 3, name: "app 1.2", rules: []),
            MigrationStep(from: 3, to: 4, name: "app 2.0", rules: []),
        ])

    /// What every shipped release wrote, oldest first: the declaration `History.md`'s table is
    /// checked against, and what `downgrade --to 1.1` writes — each object's keys in the order
    /// the release wrote them (the schema snapshots in `Fixtures/schemas` list the same keys).
    public static let releases = ReleaseManifest(
        document: documentName,
        releases: [
            AppRelease(
                "1.0", documentVersion: 1,
                types: [
                    "Drawing": 1, "Circle": 1, "Rectangle": .version(1, archivedAs: "Rect"),
                    "RoundedRectangle": .absent,
                    "Style": 1, "Model": 1,
                ],
                keyOrders: [
                    "Drawing": ["title", "meta.author", "meta.created", "shapes", "models"],
                    "Circle": ["x", "y", "r", "style"], "Rectangle": KeyOrders.rect, "Style": ["color"],
                    "Model": ["name", "type", "rect", "flag", "kind", "para"],
                ]),
            AppRelease(
                "1.1", documentVersion: 2,
                types: [
                    "Drawing": 2, "Circle": 2, "Rectangle": .version(1, archivedAs: "Rect"),
                    "RoundedRectangle": .absent,
                    "Style": 2, "Model": 2,
                ],
                keyOrders: [
                    "Drawing": ["title", "meta.author", "meta.created", "canvasColor", "shapes", "models"],
                    "Circle": ["center", "r", "style"], "Rectangle": KeyOrders.rect, "Style": KeyOrders.style,
                    "Model": KeyOrders.modelV2,
                ],
                // Pasted rectangles went to the pasteboard, and into documents, under their
                // Objective-C class name.
                aliases: ["Rectangle": ["SketchApp.Rect"]]),
            AppRelease(
                "1.2", documentVersion: 3,
                types: ["Drawing": 3, "Circle": 3, "Rectangle": 2, "RoundedRectangle": 1, "Style": 2, "Model": 2],
                keyOrders: [
                    "Drawing": ["title", "author", "created", "canvasColor", "shapes", "models"],
                    "Circle": KeyOrders.circle, "Rectangle": KeyOrders.rectangle,
                    "RoundedRectangle": KeyOrders.roundedRectangle, "Style": KeyOrders.style,
                    "Model": KeyOrders.modelV2,
                ]),
            AppRelease(
                "2.0", documentVersion: 4,
                types: ["Drawing": 4, "Circle": 3, "Rectangle": 2, "RoundedRectangle": 1, "Style": 2, "Model": 3],
                keyOrders: [
                    "Drawing": ["title", "author", "canvasColor", "created", "shapes", "models", "focus"],
                    "Circle": KeyOrders.circle, "Rectangle": KeyOrders.rectangle,
                    "RoundedRectangle": KeyOrders.roundedRectangle, "Style": KeyOrders.style,
                    "Model": ["name", "category", "rect", "flag", "kind", "tags"],
                ]),
        ])

    /// Key orders several releases share.
    private enum KeyOrders {
        static let rect = ["x", "y", "w", "h", "style"]
        static let rectangle = ["origin", "size", "style"]
        static let roundedRectangle = ["cornerRadius", "super.origin", "super.size", "super.style"]
        static let circle = ["center", "radius", "style"]
        static let style = ["stroke", "width"]
        static let modelV2 = ["name", "category", "rect", "flag", "kind", "para"]
    }

    /// Builds the registry of ``types``, ``document`` and ``releases``.
    ///
    /// - Throws: `ArchiveError` with code `ArchiveError.Code.invalidChain` if the declared chains
    ///   do not fit together (a programmer error the tests catch, never a data error).
    public static func registry() throws -> ModelRegistry {
        try ModelRegistry(types, documents: [document], releases: releases)
    }

    /// An encoder that writes today's document: named ``documentName``, at ``documentVersion``.
    ///
    /// ```swift
    /// let plist = try SketchRegistry.encoder(format: .binaryPropertyList).encode(drawing)
    /// ```
    public static func encoder(format: ArchiveFormat = .json) -> ArchiveEncoder {
        var encoder = ArchiveEncoder(format: format)
        encoder.document = documentName
        encoder.documentVersion = documentVersion
        return encoder
    }
}
