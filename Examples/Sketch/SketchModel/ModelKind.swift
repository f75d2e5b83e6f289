/// What a ``Model`` holds: archived by its raw value since app 2.0.
///
/// Apps 1.0 – 1.2 archived it as the NSCoding-era `NSInteger md_kind` (`0`, `1`, `2`); app 2.0's step maps
/// those numbers to these raw values (``Model``'s v2 → v3 step), and a downgrade maps them back.
public enum ModelKind: String, Codable, CaseIterable, Sendable {
    /// A photo (archived as `0` before app 2.0).
    case photo
    /// A drawing (archived as `1` before app 2.0).
    case drawing
    /// A text block (archived as `2` before app 2.0).
    case text
}
