import ModelVersioning

/// A shape on a ``Drawing``'s canvas: the `protocol Shape` of a polymorphic `[Shape]` array.
///
/// ``Drawing/shapes`` holds `[any SketchShape]`; each shape is archived as an object with its
/// own type name and version, and decoded back to its concrete type through the registry
/// (``SketchRegistry/registry()``), never a `switch` over type names.
///
/// The shapes of each app version:
///
/// | App | Shapes |
/// |---|---|
/// | 1.0, 1.1 | ``Circle``, `Rect` |
/// | 1.2, 2.0 | ``Circle``, ``Rectangle`` (the renamed `Rect`), ``RoundedRectangle`` |
public protocol SketchShape: VersionedModel {
    /// How the outline is drawn.
    var style: Style { get set }

    /// The enclosed area, in square points.
    var area: Double { get }
}
