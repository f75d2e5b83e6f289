/// The versions a downgrade writes: what an older app reads.
///
/// ```swift
/// let target = DowngradeTarget(documentVersion: 2, typeVersions: ["Circle": 1, "Drawing": 2])
/// let report = try pass.downgrade(&tree, to: target, document: "Sketch")
/// ```
///
/// Types not listed stay at their current version. Type names may be any name of a chain
/// (current name or alias).
public struct DowngradeTarget: Sendable, Hashable {
    /// The document version to write, or `nil` to leave the document version alone.
    public var documentVersion: Int?
    /// The version to write per type name.
    public var typeVersions: [String: Int]

    /// Creates a target.
    public init(documentVersion: Int? = nil, typeVersions: [String: Int] = [:]) {
        self.documentVersion = documentVersion
        self.typeVersions = typeVersions
    }
}
