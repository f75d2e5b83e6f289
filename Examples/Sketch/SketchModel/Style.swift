import ModelVersioning

/// How a shape's outline is drawn: its stroke colour and width.
///
/// A model of its own (archived as an object `"$type": "Style"`), nested in every shape, so it
/// migrates by its own chain whatever the version of the shape around it.
///
/// | App | Version | Archived shape |
/// |---|---|---|
/// | 1.0 | v1 | `{color}` |
/// | 1.1 – 2.0 | v2 | `{stroke, width}` |
///
/// App 1.1 renamed `color` to `stroke` and added the line width; strokes drawn before it were
/// always one point wide, hence the default `1.0`.
///
/// ```swift
/// let style = Style(stroke: "#1E90FF", width: 2.5)
/// ```
public struct Style: VersionedModel, Hashable, Sendable {
    /// The stroke colour, as `#RRGGBB`.
    public var stroke: String
    /// The stroke width, in points.
    public var width: Double

    /// Creates a style.
    public init(stroke: String, width: Double = 1.0) {
        self.stroke = stroke
        self.width = width
    }

    /// v2 since app 1.1.
    public static let modelVersion = 2

    /// Frozen steps: literal keys only.
    public static let migrationSteps = [
        MigrationStep(
            from: 1, to: 2, name: "app 1.1: stroke and width",
            rules: [.rename("color", to: "stroke"), .add("width", default: 1.0)])
    ]
}
