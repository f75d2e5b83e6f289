import ModelVersioning

/// An axis-aligned rectangle, as app 1.0 archived it: `Rect` v1 `{x, y, w, h, style}`.
///
/// Archived under its class name, `"Rect"` (app 1.2 renamed the type `Rectangle`).
///
/// ```swift
/// let frame = Rect(x: 0, y: 0, w: 320, h: 240, style: Style(color: "#333333"))
/// ```
public final class Rect: SketchShape {
    /// The left edge.
    public var x: Double
    /// The top edge.
    public var y: Double
    /// The width.
    public var w: Double
    /// The height.
    public var h: Double
    /// How the outline is drawn.
    public var style: Style
    /// What the archive held that this release does not know (values a later release kept
    /// for its way back), written back unchanged.
    public var unknownFields = UnknownFields()

    /// Creates a rectangle.
    public init(x: Double, y: Double, w: Double, h: Double, style: Style) {
        self.x = x
        self.y = y
        self.w = w
        self.h = h
        self.style = style
    }

    /// The enclosed area.
    public var area: Double { w * h }

    /// The first version.
    public static let modelVersion = 1
}

extension Rect: Equatable {
    /// Equal values (not necessarily the same instance).
    public static func == (lhs: Rect, rhs: Rect) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y && lhs.w == rhs.w && lhs.h == rhs.h && lhs.style == rhs.style
    }
}
