/// What an ``ArchiveDecoder`` does with archives that do not match the app exactly.
///
/// ```swift
/// var options = DecodingOptions()
/// options.allowsNewerVersions = true                   // keep what a newer app wrote
/// options.unknownTypeStrategy = .keepArchivedObject    // keep shapes this app cannot draw
/// options.limits = .untrusted                          // a file from another app
/// let decoder = ArchiveDecoder(registry: registry, options: options)
/// ```
public struct DecodingOptions: Sendable {
    /// Resource bounds for reading, migrating and decoding.
    public var limits: ArchiveLimits = .default

    /// Whether objects archived by a newer version of a type than this app knows are decoded
    /// anyway ("lenient mode"): keys the model knows are read, unknown keys are kept in an
    /// ``UnknownFields`` property if the model has one, and the object is re-encoded at the newer
    /// version. When `false` (the default), such an archive fails with
    /// `ArchiveError.Code.newerVersion`, never confused with a too-old archive.
    public var allowsNewerVersions = false

    /// What to do with an archived object whose type name is not registered.
    public var unknownTypeStrategy: UnknownTypeStrategy = .fail

    /// Whether every ``Polymorphic`` key must declare its allowed types
    /// (``VersionedModel/allowedTypes``), as `NSSecureCoding` requires. When `true`, a polymorphic
    /// key without an allow list fails with `ArchiveError.Code.disallowedType` before any
    /// initializer runs; when `false` (the default) such a key accepts any registered type whose
    /// instances fit the property, checked after the initializer.
    public var requiresAllowedTypes = false

    /// The document chain to apply to archives that do not name one: foreign documents such as
    /// a `{"schema_version": 1, …}` file, whose chain is registered in the
    /// ``ModelRegistry`` under this name. Archives written by ``ArchiveEncoder`` name their
    /// document in the envelope. When `nil`, a plain document takes the registry's only document
    /// chain, if it has exactly one (`DocumentChoice`).
    public var document: String?

    /// Values the models' `init(from:)` can read from `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// The defaults: fail on newer versions and unknown types, default limits.
    public init() {}
}

/// What happens to an archived object whose type name no registered type answers to.
public enum UnknownTypeStrategy: Sendable, Hashable {
    /// Fail with `ArchiveError.Code.unknownType`.
    case fail
    /// Decode it as an ``UnknownModel`` holding the archived object, where the property's type
    /// admits one; encoding writes it back unchanged, so nothing is lost.
    case keepArchivedObject
}
