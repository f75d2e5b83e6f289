/// A type the schema probe cannot fabricate from zero values supplies a sample instead.
///
/// ```swift
/// enum Kind: String, Codable, SchemaSampleProviding {
///     case photo, drawing
///     static var schemaSample: Kind { .photo }
/// }
/// ```
///
/// `CaseIterable` types need nothing: the probe uses their first case.
public protocol SchemaSampleProviding {
    /// Any valid value.
    static var schemaSample: Self { get }
}
