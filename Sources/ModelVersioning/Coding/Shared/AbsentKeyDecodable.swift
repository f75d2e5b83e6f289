import Foundation

/// Types that decode to a value of their own when their key is absent (optional property
/// wrappers, ``WeakReference``), so that synthesized `init(from:)` accepts archives without it.
protocol AbsentKeyDecodable {
    static func valueForAbsentKey() -> Self?
}
