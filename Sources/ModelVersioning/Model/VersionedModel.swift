/// A Codable type that takes part in versioned archives: it has a stable archive type name, a
/// version, per-property encoding behaviours and per-key allow lists.
///
/// A plain Codable type needs one line:
///
/// ```swift
/// struct Point: Codable { var x, y: Double }
/// extension Point: VersionedModel {}          // archived as "Point" v1
/// ```
///
/// Declare more as the model evolves:
///
/// ```swift
/// final class Contents: VersionedModel {
///     @Polymorphic var shapes: [any Shape]
///     var title: String
///
///     static let archiveTypeName = "Contents"           // stable across renames and modules
///     static let modelVersion = 3
///     static let allowedTypes: [String: [any VersionedModel.Type]] = [
///         "shapes": [Circle.self, Rectangle.self, RoundedRectangle.self]
///     ]
/// }
/// ```
///
/// Every object of a `VersionedModel` type is archived with its ``archiveTypeName`` and
/// ``modelVersion``; nested models carry their own. Archived objects at older versions are
/// upgraded by the type's migration chain before `init(from:)` runs, so `init(from:)` only ever
/// sees the current shape.
///
/// In a class hierarchy, the class that conforms declares every static requirement as a
/// `class var`, and subclasses override what differs (`override class var`): Swift reads a
/// subclass's requirements through its base class's conformance, so a subclass's `static let`
/// would never be read. ``ModelRegistry`` refuses to register a subclass whose base class leaves
/// a requirement to the defaults, naming the requirements and the declarations to add:
///
/// ```swift
/// class Shape: VersionedModel {
///     class var archiveTypeName: String { String(describing: self) }
///     class var archiveTypeAliases: [String] { [] }
///     class var modelVersion: Int { 1 }
///     class var migrationSteps: [MigrationStep] { [] }
///     class var unversionedVersion: Int? { nil }
///     class var encodingBehaviors: [String: EncodingBehavior] { [:] }
///     class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }
///     class var downgradeFallback: DowngradeFallback? { nil }
/// }
///
/// final class Rectangle: Shape {
///     override class var archiveTypeAliases: [String] { ["Rect"] }
/// }
/// ```
///
/// Register every concrete type in a ``ModelRegistry``.
public protocol VersionedModel: Codable, SendableMetatype {
    /// The name objects of this type are archived under.
    ///
    /// Defaults to the unqualified type name (`"Circle"`, never `"MyApp.Circle"`), so renaming
    /// the module does not break archives. Set it explicitly before renaming the type, or keep
    /// the old name in ``archiveTypeAliases``.
    static var archiveTypeName: String { get }

    /// Earlier names this type was archived under (including module-qualified Swift class
    /// names such as `"MyApp.Model"` found in NSKeyedArchiver archives). Defaults to none.
    static var archiveTypeAliases: [String] { get }

    /// The current version of the type's archived shape. Defaults to 1.
    ///
    /// Bump it whenever the archived shape changes, and register a migration step from the
    /// previous version.
    static var modelVersion: Int { get }

    /// How each property (by its coding key) is written; unlisted properties are
    /// ``EncodingBehavior/unconditional``. Defaults to none.
    static var encodingBehaviors: [String: EncodingBehavior] { get }

    /// The model types allowed at each key (NSSecureCoding's allow list): an archived object of
    /// any other type at that key is rejected with `ArchiveError.Code.disallowedType` before
    /// any initializer runs. Subclasses of a listed class must be listed too. Defaults to none:
    /// then a statically typed key accepts its declared type and its registered subclasses, and
    /// a ``Polymorphic`` key any registered type that fits.
    static var allowedTypes: [String: [any VersionedModel.Type]] { get }

    /// The migration steps from every older archived version of this type to
    /// ``modelVersion``, one per version (`v1 → v2`, `v2 → v3`, …). Defaults to none.
    ///
    /// Steps are frozen once shipped: they name literal keys, never this type's current
    /// properties, which will change again.
    ///
    /// ```swift
    /// static let migrationSteps = [
    ///     MigrationStep(from: 1, to: 2, rules: [.nest(["x", "y"], into: "center")]),
    ///     MigrationStep(from: 2, to: 3, rules: [.rename("r", to: "radius")]),
    /// ]
    /// ```
    static var migrationSteps: [MigrationStep] { get }

    /// The version an archived object of this type without a version is taken to be at
    /// (archives written before the type was versioned, plain NSCoding archives). Defaults to
    /// `nil`: such an object is a `ArchiveError.Code.missingMigration` error.
    static var unversionedVersion: Int? { get }

    /// How releases that did not have this type saw its objects: as another type (see
    /// `DowngradeFallback`). Defaults to `nil`: a downgrade to such a release fails on these
    /// objects unless it is asked to leave them out.
    ///
    /// ```swift
    /// // A rounded rectangle, new in 1.2, written for 1.1 as the plain rectangle it draws as.
    /// override class var downgradeFallback: DowngradeFallback? {
    ///     DowngradeFallback(becoming: "Rectangle", version: 2, rules: [.hoist(["origin", "size"], from: "super")])
    /// }
    /// ```
    static var downgradeFallback: DowngradeFallback? { get }

    /// Called after `init(from:)` when the object was decoded from an archive: rebuild what is
    /// never archived (a thumbnail from its image file, caches). Defaults to nothing.
    mutating func awakeFromArchive() throws
}

extension VersionedModel {
    // Each default notes that it answered, so that the registry can tell a class hierarchy whose
    // subclasses could declare a requirement that is never read (`DefaultedRequirements`).

    /// The default: the unqualified type name, `String(describing: self)`.
    public static var archiveTypeName: String {
        DefaultedRequirements.note("archiveTypeName")
        return String(describing: self)
    }

    /// The default: no earlier names.
    public static var archiveTypeAliases: [String] {
        DefaultedRequirements.note("archiveTypeAliases")
        return []
    }

    /// The default: version 1.
    public static var modelVersion: Int {
        DefaultedRequirements.note("modelVersion")
        return 1
    }

    /// The default: every property ``EncodingBehavior/unconditional``.
    public static var encodingBehaviors: [String: EncodingBehavior] {
        DefaultedRequirements.note("encodingBehaviors")
        return [:]
    }

    /// The default: no allow lists.
    public static var allowedTypes: [String: [any VersionedModel.Type]] {
        DefaultedRequirements.note("allowedTypes")
        return [:]
    }

    /// The default: no steps.
    public static var migrationSteps: [MigrationStep] {
        DefaultedRequirements.note("migrationSteps")
        return []
    }

    /// The default: `nil`, so that an archived object without a version is an error.
    public static var unversionedVersion: Int? {
        DefaultedRequirements.note("unversionedVersion")
        return nil
    }

    /// The default: `nil`, no fallback for releases that did not have the type.
    public static var downgradeFallback: DowngradeFallback? {
        DefaultedRequirements.note("downgradeFallback")
        return nil
    }

    /// The default does nothing.
    public mutating func awakeFromArchive() throws {}
}
