import ModelVersioning

/// How a shape's outline is drawn, as app 1.1 archived it: `Style` v2 `{stroke, width}`.
///
/// App 1.1 renamed `color` to `stroke` and added the width; strokes drawn before were one point
/// wide.
public struct Style: VersionedModel, Hashable, Sendable {
    /// The stroke colour, as `#RRGGBB`.
    public var stroke: String
    /// The stroke width, in points.
    public var width: Double
    /// What the archive held that this release does not know (values a later release kept
    /// for its way back), written back unchanged.
    public var unknownFields = UnknownFields()

    /// Creates a style.
    public init(stroke: String, width: Double = 1.0) {
        self.stroke = stroke
        self.width = width
    }

    /// v2 since app 1.1.
    public static let modelVersion = 2

    /// App 1.1 opens app 1.0's archives.
    public static let migrationSteps = [
        MigrationStep(
            from: 1, to: 2, name: "app 1.1: stroke and width",
            rules: [.rename("color", to: "stroke"), .add("width", default: 1.0)])
    ]
}

extension Style {
    /// Equal values (what the archive kept for a later release aside).
    public static func == (lhs: Style, rhs: Style) -> Bool {
        lhs.stroke == rhs.stroke && lhs.width == rhs.width
    }

    /// Hashes the stroke and width, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(stroke)
        hasher.combine(width)
    }
}
