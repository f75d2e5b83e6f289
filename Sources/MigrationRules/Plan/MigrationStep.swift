/// The rules that take archived data from one version to the next.
///
/// A step is frozen in time: once shipped it is never edited. It names literal keys, never the
/// app's current types, and it edits one container (one object's fields, or the document root).
///
/// ```swift
/// let v1ToV2 = MigrationStep(from: 1, to: 2, name: "split names", rules: [
///     .scoped("people[*]", [.split("name", into: ["first_name", "last_name"], separator: " ")]),
/// ])
/// ```
///
/// ``inverse`` gives the step that undoes it for downgrades, when every rule is reversible, or
/// the rules the step declares as its inverse (``inverseRules``).
public struct MigrationStep: Sendable {
    /// The version the step migrates from.
    public var from: Int
    /// The version the step migrates to; always `from + 1` in a valid chain.
    public var to: Int
    /// An optional name shown in reports instead of `v1 → v2`.
    public var name: String?
    /// The rules, applied in order.
    public var rules: [MigrationRule]
    /// The rules that undo the step, when it declares them: the step's downgrade instead of its
    /// rules' inverses. `nil` (the default) computes the inverse from ``rules``.
    ///
    /// Declare them for a step whose rules are closures (``MigrationRule/transform(_:_:inverse:)``,
    /// ``MigrationRule/split(_:into:using:inverse:)``, a custom converter, the typed escape hatch):
    /// written as declarative rules, the way down can be carried inside archives for older apps,
    /// which have no closures (see ``MigrationCatalog/wayDown(toRelease:for:)``).
    ///
    /// ```swift
    /// MigrationStep(
    ///     from: 2, to: 3, name: "kelvin",
    ///     rules: [.transform("celsiusToKelvin", toKelvin, inverse: toCelsius)],
    ///     inverseRules: [.rename("kelvin", to: "celsius")])
    /// ```
    ///
    /// Both directions of the app then use them: a downgrade runs ``inverseRules``, as an older
    /// app reading the archive does.
    public var inverseRules: [MigrationRule]?

    /// Creates a step.
    ///
    /// - Parameters:
    ///   - from: The version the step migrates from.
    ///   - to: The version it migrates to: `from + 1` (``MigrationCatalog/init(types:documents:releases:)``
    ///     rejects anything else).
    ///   - name: A name for reports.
    ///   - rules: The rules, applied in order.
    ///   - inverseRules: The rules that undo the step, applied in order on the way down; `nil`
    ///     inverts `rules`.
    public init(from: Int, to: Int, name: String? = nil, rules: [MigrationRule], inverseRules: [MigrationRule]? = nil) {
        self.from = from
        self.to = to
        self.name = name
        self.rules = rules
        self.inverseRules = inverseRules
    }

    /// The step that undoes this one: from ``to`` back to ``from``, with the ``inverseRules`` the
    /// step declares or else the inverted rules in reverse order; `nil` when a rule is
    /// irreversible and the step declares no inverse (``irreversibleRule`` names the rule).
    ///
    /// ```swift
    /// let down = MigrationStep(from: 1, to: 2, rules: [.rename("r", to: "radius")]).inverse
    /// // from 2 to 1: rename(radius → r)
    /// ```
    public var inverse: MigrationStep? {
        if let inverseRules {
            return MigrationStep(from: to, to: from, name: name, rules: inverseRules, inverseRules: rules)
        }
        var inverted: [MigrationRule] = []
        inverted.reserveCapacity(rules.count)
        for rule in rules.reversed() {
            guard let inverse = rule.inverse else { return nil }
            inverted.append(inverse)
        }
        return MigrationStep(from: to, to: from, name: name, rules: inverted)
    }

    /// The first rule (or rule nested in a scoped rule) that has no inverse, or `nil` when the
    /// step is reversible (or declares its ``inverseRules``).
    public var irreversibleRule: MigrationRule? {
        guard inverseRules == nil else { return nil }
        return rules.lazy.compactMap(\.firstIrreversibleRule).first
    }

    /// What reports call the step: its ``name``, or `v1 → v2`.
    public var displayName: String {
        name ?? "v\(from) → v\(to)"
    }

    /// `Circle v1 → v2`: the step as errors name it.
    /// How errors name the step: `Circle v1 → v2`, with its ``name`` when it has one
    /// (`Circle v1 → v2 (split points)`).
    func label(subject: String) -> String {
        let versions = "\(subject) v\(from) → v\(to)"
        guard let name else { return versions }
        return "\(versions) (\(name))"
    }
}
