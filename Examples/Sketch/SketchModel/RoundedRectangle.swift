import ModelVersioning

/// A rectangle with rounded corners: a subclass among polymorphic shapes (`class RoundedRectangle: Rectangle`).
///
/// | App | Version | Archived shape |
/// |---|---|---|
/// | 1.2 – 2.0 | v1 | `{cornerRadius, super: {origin, size, style}}` |
///
/// New in app 1.2, so it has no migrations yet. The superclass's keys go through
/// `superEncoder()`/`superDecoder()` into a nested `super` dictionary, as
/// `[super encodeWithCoder:]` did; that dictionary is part of this object, not a `Rectangle`
/// object, so ``Rectangle``'s steps never apply to it.
///
/// It overrides every versioning requirement ``Rectangle`` declares: without the overrides it
/// would inherit the rectangle's version, steps and `"SketchApp.Rect"` alias.
///
/// ```swift
/// let card = RoundedRectangle(origin: Point(x: 8, y: 8), size: Size(width: 200, height: 120),
///                             style: Style(stroke: "#FF8800", width: 2), cornerRadius: 12)
/// ```
public final class RoundedRectangle: Rectangle {
    /// The corner radius, in points.
    public var cornerRadius: Double

    /// Creates a rounded rectangle.
    public init(origin: Point, size: Size, style: Style, cornerRadius: Double) {
        self.cornerRadius = cornerRadius
        super.init(origin: origin, size: size, style: style)
    }

    /// The enclosed area: the rectangle's, less what the rounded corners cut off.
    public override var area: Double {
        let radius = min(cornerRadius, size.width / 2, size.height / 2)
        return super.area - (4 - Double.pi) * radius * radius
    }

    /// v1 since app 1.2.
    public override class var modelVersion: Int { 1 }

    /// None: the type never had another name.
    public override class var archiveTypeAliases: [String] { [] }

    /// None yet.
    public override class var migrationSteps: [MigrationStep] { [] }

    /// Apps 1.0 and 1.1 had no rounded rectangles: written for them, one is the plain rectangle
    /// it is drawn in (`Rectangle` v2, which goes on down to their `Rect` v1), its corner radius
    /// dropped.
    public override class var downgradeFallback: DowngradeFallback? {
        DowngradeFallback(
            becoming: "Rectangle", version: 2,
            rules: [.hoist(["origin", "size", "style"], from: "super"), .remove("cornerRadius")])
    }

    private enum CodingKeys: String, CodingKey {
        case cornerRadius
    }

    /// Decodes the corner radius, then the superclass's keys from `super`.
    public required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cornerRadius = try container.decode(Double.self, forKey: .cornerRadius)
        try super.init(from: container.superDecoder())
    }

    /// Encodes the corner radius, then the superclass's keys into `super`.
    public override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cornerRadius, forKey: .cornerRadius)
        try super.encode(to: container.superEncoder())
    }
}
