import ModelVersioning

/// A rectangle with rounded corners, new in app 1.2: `RoundedRectangle` v1
/// `{cornerRadius, super: {origin, size, style}}`.
///
/// A subclass of ``Rectangle``: the superclass's keys go through `superEncoder()` and
/// `superDecoder()` into a nested `super` dictionary, as `[super encodeWithCoder:]` did. It
/// overrides every versioning requirement ``Rectangle`` declares, so that it does not inherit
/// the rectangle's version, steps and alias.
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

    /// The first version.
    public override class var modelVersion: Int { 1 }

    /// None: the type never had another name.
    public override class var archiveTypeAliases: [String] { [] }

    /// None: the type is new.
    public override class var migrationSteps: [MigrationStep] { [] }

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

    /// The rectangle's comparison, and the corner radius.
    public override func isEqual(to other: Rectangle) -> Bool {
        super.isEqual(to: other) && cornerRadius == (other as? RoundedRectangle)?.cornerRadius
    }
}
