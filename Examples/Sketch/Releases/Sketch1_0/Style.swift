import ModelVersioning

/// How a shape's outline is drawn, as app 1.0 archived it: `Style` v1 `{color}`.
///
/// Strokes were always one point wide; app 1.1 added the width.
public struct Style: VersionedModel, Hashable, Sendable {
    /// The stroke colour, as `#RRGGBB`.
    public var color: String

    /// Creates a style.
    public init(color: String) {
        self.color = color
    }

    /// The first version.
    public static let modelVersion = 1
}
