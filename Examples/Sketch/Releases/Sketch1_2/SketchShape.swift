import ModelVersioning

/// A shape on a ``Drawing``'s canvas in app 1.2: a ``Circle``, a ``Rectangle`` or a
/// ``RoundedRectangle``.
///
/// Every shape is a class, as the Objective-C app's were: one shape may be placed several times
/// ("duplicate as link"), and the archive then holds it once, with an `$id`, and `{"$ref": n}` at
/// the other places.
public protocol SketchShape: VersionedModel, AnyObject {
    /// How the outline is drawn.
    var style: Style { get set }

    /// The enclosed area, in square points.
    var area: Double { get }
}

/// Whether two shapes are of the same type and hold the same values.
func isSameShape(_ lhs: any SketchShape, _ rhs: any SketchShape) -> Bool {
    switch (lhs, rhs) {
    case (let lhs as Circle, let rhs as Circle): return lhs == rhs
    case (let lhs as Rectangle, let rhs as Rectangle): return lhs == rhs
    default: return false
    }
}
