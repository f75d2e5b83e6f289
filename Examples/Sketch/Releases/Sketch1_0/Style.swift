import ModelVersioning

/// How a shape's outline is drawn, as app 1.0 archived it: `Style` v1 `{color}`.
///
/// Strokes were always one point wide; app 1.1 added the width.
public struct Style: VersionedModel, Hashable, Sendable {
    /// The stroke colour, as `#RRGGBB`.
    public var color: String
    /// What the archive held that this release does not know (values a later release kept
    /// for its way back), written back unchanged.
    public var unknownFields = UnknownFields()

    /// Creates a style.
    public init(color: String) {
        self.color = color
    }

    /// The first version.
    public static let modelVersion = 1
}

extension Style {
    /// Equal values (what the archive kept for a later release aside).
    public static func == (lhs: Style, rhs: Style) -> Bool {
        lhs.color == rhs.color
    }

    /// Hashes the colour, as `==` compares it.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(color)
    }
}
