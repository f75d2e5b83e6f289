import Foundation

// What a type adopts to tell the coders it needs handling of its own. The property wrappers of
// `Model/` (`WeakReference`, `Polymorphic`) adopt them; the tree path and the direct path ask.

/// Types that decode to a value of their own when their key is absent (optional property
/// wrappers, ``WeakReference``), so that synthesized `init(from:)` accepts archives without it.
protocol AbsentKeyDecodable {
    static func valueForAbsentKey() -> Self?
}

/// Types whose `init(from:)` reads archived objects and references themselves (property
/// wrappers that resolve types or identities), so the decoder hands them the node as it is.
protocol DecodesArchivedObjectsItself {}

/// Types whose `encode(to:)` works with the tree encoder's own state (a `WeakReference` writes a
/// conditional reference), so ``DirectJSONEncoder`` cannot write them.
protocol EncodesThroughTree {}

/// Marks values that a keyed container leaves out when they encode to nothing: a decision the
/// tree encoder makes after encoding them, so they encode through the tree.
protocol OmittedWhenNull: EncodesThroughTree {}
