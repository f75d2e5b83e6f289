/// How one property of a model is written to an archive, as in Mantle's
/// `MTLModelEncodingBehavior`.
///
/// Declare behaviours in ``VersionedModel/encodingBehaviors``; a property that is not listed is
/// ``unconditional``.
///
/// ```swift
/// final class Drawing: VersionedModel {
///     var models: [Model]
///     var thumbnail: Thumbnail?          // rebuilt after loading, never archived
///     weak var focus: Model?             // archived only if that model is archived too
///
///     static let encodingBehaviors: [String: EncodingBehavior] = [
///         "thumbnail": .excluded,
///         "focus": .conditional,
///     ]
/// }
/// ```
///
/// A conditional back-reference to an object that contains this one (a model's drawing) closes
/// a cycle: declare it with ``WeakReference``, which is conditional without an entry here.
public enum EncodingBehavior: String, Sendable, Hashable, CaseIterable, Codable {
    /// Never written. On decoding the property reads as absent, so an optional property comes
    /// back `nil` (rebuild it in ``VersionedModel/awakeFromArchive()``); a property left out of
    /// `CodingKeys` keeps its declared default.
    case excluded
    /// Always written (the default).
    case unconditional
    /// Written as a reference that resolves only if the same object instance is written
    /// unconditionally somewhere else in the archive; otherwise it decodes as `nil`. For class
    /// instances only (weak back-references such as a child's `parent`); this is
    /// `NSKeyedArchiver.encodeConditionalObject` and Mantle's conditional behaviour.
    ///
    /// A synthesized `init(from:)` cannot assign a back-reference to an object whose own
    /// initializer is still running (a child's `weak var parent` inside the parent's
    /// `children`): such a property reads as `nil`. For back-references that close a cycle use
    /// ``WeakReference``, or `decodeConditional(_:forKey:assign:)` in a hand-written initializer.
    case conditional
}
