/// How releases that did not have a type saw its objects: as an object of another type, after
/// rules that give it that type's fields.
///
/// A rounded rectangle, new in app 1.2, written for app 1.1 as the plain rectangle it draws as:
///
/// ```swift
/// let rounded = TypeMigrations(
///     typeName: "RoundedRectangle", currentVersion: 1,
///     downgradeFallback: DowngradeFallback(
///         becoming: "Rectangle", version: 2,
///         rules: [.hoist(["origin", "size", "style"], from: "super"), .remove("cornerRadius")]))
/// ```
///
/// A downgrade to a release without the type first takes the object to its chain's oldest
/// version, then applies ``rules`` to its fields, then continues with the object as
/// ``typeName`` at ``version`` (down that type's chain to the release's version of it). The
/// report lists every object written this way (``MigrationReport/absentObjects``). It is a
/// projection, not a step: nothing takes the object back up.
public struct DowngradeFallback: Sendable {
    /// The type the object becomes: today's name of another chain.
    public var typeName: String
    /// The version of that type the fields have after ``rules``.
    public var version: Int
    /// Rules applied to the object's fields at its chain's oldest version.
    public var rules: [MigrationRule]

    /// Creates a fallback.
    public init(becoming typeName: String, version: Int, rules: [MigrationRule] = []) {
        self.typeName = typeName
        self.version = version
        self.rules = rules
    }
}
