import ModelVersioning

/// A shape on a ``Drawing``'s canvas in app 1.1: a ``Circle`` or a ``Rect``.
///
/// Every shape is a class, as the Objective-C app's were: app 1.1 can place one shape several
/// times ("duplicate as link"), and the archive then holds it once, with an `$id`, and
/// `{"$ref": n}` at the other places.
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
    case (let lhs as Rect, let rhs as Rect): return lhs == rhs
    default: return false
    }
}
