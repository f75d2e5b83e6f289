/// One declarative, reversible edit of one keyed container: an object's fields or a dictionary.
///
/// A ``MigrationStep`` is a list of rules. Rules name literal keys, never the app's current
/// types (those will change again), so a shipped step keeps working for ever. Every key and path
/// is relative to the container the rule is applied to.
///
/// ```swift
/// let step = MigrationStep(from: 1, to: 2, rules: [
///     .rename("r", to: "radius"),
///     .nest(["x", "y"], into: "center"),
///     .add("visible", default: true),
///     .convert("kind", .map(["circ": "circle"])),
///     .scoped("tags[*]", [.rename("label", to: "title")]),
/// ])
/// ```
///
/// Most rules have an ``inverse`` that the downgrade pass runs to write archives an older app
/// can read; rules that lose information (``remove(_:restoring:)`` without a value to restore,
/// closures without an inverse) have none.
///
/// Applying a rule to data of an unexpected shape throws an ``ArchiveError`` with code
/// ``ArchiveError/Code/migrationFailed``, the rule's ``description`` and the path of the
/// offending value.
public struct MigrationRule: Sendable, CustomStringConvertible {
    /// The closure of a ``transform(_:_:inverse:)`` rule.
    public typealias Transform = @Sendable (inout MigrationTarget) throws -> Void
    /// Splits one value into several (``split(_:into:using:inverse:)``).
    public typealias Splitter = @Sendable (ArchiveValue) throws -> [ArchiveValue]
    /// Joins several values into one (``merge(_:into:using:inverse:)``).
    public typealias Joiner = @Sendable ([ArchiveValue]) throws -> ArchiveValue

    /// How a ``split`` or ``merge`` turns one value into parts and back.
    enum Division: Sendable {
        case separator(String)
        case closures(split: Splitter, join: Joiner?)
        case closuresFromJoin(join: Joiner, split: Splitter?)
    }

    /// Indirect: a rule is then one reference, so the pass copies it with one retain instead of
    /// copying every payload.
    indirect enum Operation: Sendable {
        case rename(key: String, to: String, required: Bool)
        case add(key: String, value: ArchiveValue)
        case remove(key: String, restoring: ArchiveValue?)
        case convert(key: String, converter: ValueConverter)
        /// `keys` holds both paths' keys, or `nil` when a path is empty or has indices or wildcards.
        case move(from: ArchivePath, to: ArchivePath, keys: (from: [String], to: [String])?)
        case nest(keys: [String], into: String)
        case hoist(keys: [String], from: String)
        case wrapInArray(key: String)
        case takeFirst(key: String)
        /// Splits `key` into `parts`; `division` is `.separator` or `.closures`.
        case split(key: String, parts: [String], division: Division)
        /// Merges `parts` into `key`; `division` is `.separator` or `.closuresFromJoin`.
        case merge(parts: [String], key: String, division: Division)
        case renameType(from: String, to: String)
        case scoped(path: ArchivePath, rules: [MigrationRule])
        case transform(name: String, forward: Transform, inverse: Transform?, inverseName: String)
    }

    let operation: Operation
    /// What one run of the rule counts against ``ArchiveLimits/maxRuleWork``: the bytes of what
    /// it names, computed once (see `MigrationRule+Work.swift`).
    let work: Int

    init(_ operation: Operation) {
        self.operation = operation
        self.work = Self.work(of: operation)
    }
}

// MARK: - Constructors

extension MigrationRule {
    /// Renames a key, keeping its position.
    ///
    /// ```swift
    /// .rename("name", to: "title")      // {"name": "x"} → {"title": "x"}
    /// ```
    ///
    /// An absent key is left alone unless `required` is `true`. The inverse renames back.
    ///
    /// - Throws (when applied): ``ArchiveError/Code/migrationFailed`` when `required` and the key
    ///   is missing (`key 'name' is missing`), or when `newKey` already exists.
    public static func rename(_ key: String, to newKey: String, required: Bool = false) -> MigrationRule {
        MigrationRule(.rename(key: key, to: newKey, required: required))
    }

    /// Adds a key with a default value when it is absent; a present key keeps its value.
    ///
    /// ```swift
    /// .add("mark_as_favorite", default: false)
    /// ```
    ///
    /// The inverse is ``remove(_:restoring:)`` restoring `value`.
    public static func add(_ key: String, default value: ArchiveValue) -> MigrationRule {
        MigrationRule(.add(key: key, value: value))
    }

    /// Removes a key; an absent key is left alone.
    ///
    /// ```swift
    /// .remove("thumbnail")                      // irreversible
    /// .remove("legacyFlag", restoring: false)   // the inverse adds legacyFlag = false
    /// ```
    ///
    /// The inverse is ``add(_:default:)`` with `restoring` when it is given; without it the
    /// value is lost and the rule has no inverse.
    public static func remove(_ key: String, restoring value: ArchiveValue? = nil) -> MigrationRule {
        MigrationRule(.remove(key: key, restoring: value))
    }

    /// Converts the value of a key with a ``ValueConverter``; an absent key is left alone and
    /// `null` passes through.
    ///
    /// ```swift
    /// .convert("count", .stringToInt)
    /// ```
    ///
    /// The inverse converts with the converter's ``ValueConverter/inverse``, when it has one.
    ///
    /// - Throws (when applied): ``ArchiveError/Code/migrationFailed`` at the key's path when the
    ///   converter rejects the value.
    public static func convert(_ key: String, _ converter: ValueConverter) -> MigrationRule {
        MigrationRule(.convert(key: key, converter: converter))
    }

    /// Moves a value along key paths: nests it deeper or hoists it up.
    ///
    /// ```swift
    /// .move("x", to: "center.x")     // {"x": 1} → {"center": {"x": 1}}
    /// .move("center.x", to: "x")     // and back; `center` goes when it becomes empty
    /// ```
    ///
    /// Missing intermediate dictionaries of `destination` are created (the first one where the
    /// moved value was); intermediate dictionaries of `source` that become empty are removed
    /// (objects are kept). An absent source is left alone. Both paths must consist of keys only.
    /// The inverse moves back.
    ///
    /// - Throws (when applied): ``ArchiveError/Code/migrationFailed`` when the destination exists
    ///   already, when an intermediate value is neither `null`, a dictionary nor an object, or
    ///   when a path has indices or wildcards.
    public static func move(_ source: ArchivePath, to destination: ArchivePath) -> MigrationRule {
        var keys: (from: [String], to: [String])?
        if let from = ArchiveDictionary.keys(of: source), let to = ArchiveDictionary.keys(of: destination),
            !from.isEmpty, !to.isEmpty
        {
            keys = (from, to)
        }
        return MigrationRule(.move(from: source, to: destination, keys: keys))
    }

    /// Moves keys into a (new or existing) nested dictionary, as a ``move(_:to:)`` per key would.
    ///
    /// ```swift
    /// .nest(["x", "y"], into: "center")    // {"x": 1, "y": 2} → {"center": {"x": 1, "y": 2}}
    /// ```
    ///
    /// The inverse is ``hoist(_:from:)``.
    public static func nest(_ keys: [String], into container: String) -> MigrationRule {
        MigrationRule(.nest(keys: keys, into: container))
    }

    /// Moves keys out of a nested dictionary, which is removed when it becomes empty.
    ///
    /// ```swift
    /// .hoist(["x", "y"], from: "center")   // {"center": {"x": 1, "y": 2}} → {"x": 1, "y": 2}
    /// ```
    ///
    /// The inverse is ``nest(_:into:)``.
    public static func hoist(_ keys: [String], from container: String) -> MigrationRule {
        MigrationRule(.hoist(keys: keys, from: container))
    }

    /// Wraps the value of a key in a one-element array (`"a"` → `["a"]`); an absent key and
    /// `null` are left alone.
    ///
    /// The inverse is ``takeFirst(_:)``.
    public static func wrapInArray(_ key: String) -> MigrationRule {
        MigrationRule(.wrapInArray(key: key))
    }

    /// Replaces an array by its first element (`["a", "b"]` → `"a"`), or removes the key when the
    /// array is empty; an absent key and `null` are left alone.
    ///
    /// The inverse is ``wrapInArray(_:)``: a downgrade maps the new shape back to the old one
    /// (elements after the first are lost on the way down).
    ///
    /// - Throws (when applied): ``ArchiveError/Code/migrationFailed`` when the value is not an
    ///   array.
    public static func takeFirst(_ key: String) -> MigrationRule {
        MigrationRule(.takeFirst(key: key))
    }

    /// Splits a string at `separator` into the keys `parts`, placed where `key` was.
    ///
    /// ```swift
    /// .split("name", into: ["first_name", "last_name"], separator: " ")
    /// // {"name": "Fred Weasley"} → {"first_name": "Fred", "last_name": "Weasley"}
    /// ```
    ///
    /// The string is cut at the first `parts.count - 1` separators (the last part keeps the
    /// rest, `"A B C"` → `"A"`, `"B C"`); missing parts become `""`. `null` gives `null` parts.
    /// An absent key is left alone. The inverse is ``merge(_:into:separator:)``.
    ///
    /// - Throws (when applied): ``ArchiveError/Code/migrationFailed`` for a value that is not a
    ///   string, an empty separator, or a part key that exists already.
    public static func split(_ key: String, into parts: [String], separator: String) -> MigrationRule {
        MigrationRule(.split(key: key, parts: parts, division: .separator(separator)))
    }

    /// Splits a value into the keys `parts` with a closure, placed where `key` was.
    ///
    /// ```swift
    /// // {"size": [640, 480]} → {"width": 640, "height": 480}
    /// .split("size", into: ["width", "height"], using: { value in
    ///     guard let pair = value.arrayValue, pair.count == 2 else {
    ///         throw ArchiveError(.migrationFailed, "expected an array of two numbers, found \(value)")
    ///     }
    ///     return pair
    /// }, inverse: { parts in .array(parts) })
    /// ```
    ///
    /// The closure must return one value per part. An absent key is left alone. The inverse, a
    /// ``merge(_:into:using:inverse:)`` with `inverse`, exists when `inverse` is given.
    public static func split(
        _ key: String, into parts: [String], using splitter: @escaping Splitter, inverse joiner: Joiner? = nil
    ) -> MigrationRule {
        MigrationRule(.split(key: key, parts: parts, division: .closures(split: splitter, join: joiner)))
    }

    /// Joins the string values of `parts` that are present and non-empty with `separator` into
    /// `key`, placed where the first part was.
    ///
    /// ```swift
    /// .merge(["first_name", "last_name"], into: "name", separator: " ")
    /// ```
    ///
    /// When no part is present the container is left alone; when every present part is `null`
    /// the result is `null`. The inverse is ``split(_:into:separator:)``.
    ///
    /// - Throws (when applied): ``ArchiveError/Code/migrationFailed`` for a part that is not a
    ///   string, or when `key` exists already and is not one of the parts.
    public static func merge(_ parts: [String], into key: String, separator: String) -> MigrationRule {
        MigrationRule(.merge(parts: parts, key: key, division: .separator(separator)))
    }

    /// Joins the values of `parts` with a closure into `key`, placed where the first part was.
    ///
    /// The closure receives one value per part, `null` for absent ones; when no part is present
    /// the container is left alone. The inverse, a ``split(_:into:using:inverse:)`` with
    /// `inverse`, exists when `inverse` is given.
    public static func merge(
        _ parts: [String], into key: String, using joiner: @escaping Joiner, inverse splitter: Splitter? = nil
    ) -> MigrationRule {
        MigrationRule(.merge(parts: parts, key: key, division: .closuresFromJoin(join: joiner, split: splitter)))
    }

    /// Changes the type name of the object the rule is applied to.
    ///
    /// ```swift
    /// MigrationStep(from: 2, to: 3, rules: [.renameType(from: "MyApp.Disc", to: "Circle")])
    /// ```
    ///
    /// ``TypeMigrations/allNames`` collects every `oldName` of a chain, so objects archived under
    /// an old name find their chain. The inverse renames back, so a downgrade writes the name the
    /// older app knows.
    ///
    /// - Throws (when applied): ``ArchiveError/Code/migrationFailed`` when applied to a plain
    ///   dictionary.
    public static func renameType(from oldName: String, to newName: String) -> MigrationRule {
        MigrationRule(.renameType(from: oldName, to: newName))
    }

    /// Applies `rules` to every keyed container that `path` matches, relative to the current one.
    ///
    /// ```swift
    /// .scoped("people[*]", [.split("name", into: ["first_name", "last_name"], separator: " ")])
    /// .scoped("settings.*", [.add("enabled", default: true)])
    /// ```
    ///
    /// `[*]` matches every array element and `*` every dictionary value or object field; a key or
    /// index that is absent matches nothing, and matched values that are neither dictionaries nor
    /// objects are skipped. An empty path is the container itself. The inverse applies the
    /// inverted rules in reverse order; it is `nil` when any rule is irreversible.
    public static func scoped(_ path: ArchivePath, _ rules: [MigrationRule]) -> MigrationRule {
        MigrationRule(.scoped(path: path, rules: rules))
    }

    /// A closure rule: the escape hatch for edits the declarative rules cannot express.
    ///
    /// ```swift
    /// .transform("celsiusToKelvin", { target in
    ///     if let celsius = target.fields["temperature"]?.doubleValue {
    ///         target.fields["temperature"] = .double(celsius + 273.15)
    ///     }
    /// }, inverse: { target in
    ///     if let kelvin = target.fields["temperature"]?.doubleValue {
    ///         target.fields["temperature"] = .double(kelvin - 273.15)
    ///     }
    /// })
    /// ```
    ///
    /// Like every rule it must only use literal keys, never the app's current types. An
    /// ``ArchiveError`` the closure throws has its path taken relative to the container (the
    /// container's path is put in front); other errors are wrapped in an ``ArchiveError`` with
    /// code ``ArchiveError/Code/migrationFailed``.
    ///
    /// - Parameters:
    ///   - name: The name shown in descriptions and errors (`transform(celsiusToKelvin)`).
    ///   - forward: The upgrade edit.
    ///   - inverse: The downgrade edit; `nil` makes the rule irreversible.
    public static func transform(
        _ name: String, _ forward: @escaping Transform, inverse: Transform? = nil
    ) -> MigrationRule {
        MigrationRule(.transform(name: name, forward: forward, inverse: inverse, inverseName: "inverse(\(name))"))
    }
}

// MARK: - Inverse and description

extension MigrationRule {
    /// The rule that undoes this one (for downgrades), or `nil` when this one loses information.
    ///
    /// ```swift
    /// MigrationRule.rename("r", to: "radius").inverse      // rename(radius → r)
    /// MigrationRule.remove("thumbnail").inverse            // nil
    /// ```
    public var inverse: MigrationRule? {
        switch operation {
        case .rename(let key, let newKey, let required):
            return MigrationRule(.rename(key: newKey, to: key, required: required))
        case .add(let key, let value):
            return MigrationRule(.remove(key: key, restoring: value))
        case .remove(let key, let restoring):
            return restoring.map { MigrationRule(.add(key: key, value: $0)) }
        case .convert(let key, let converter):
            return converter.inverse.map { MigrationRule(.convert(key: key, converter: $0)) }
        case .move(let source, let destination, let keys):
            return MigrationRule(.move(from: destination, to: source, keys: keys.map { ($0.to, $0.from) }))
        case .nest(let keys, let container):
            return MigrationRule(.hoist(keys: keys, from: container))
        case .hoist(let keys, let container):
            return MigrationRule(.nest(keys: keys, into: container))
        case .wrapInArray(let key):
            return MigrationRule(.takeFirst(key: key))
        case .takeFirst(let key):
            return MigrationRule(.wrapInArray(key: key))
        case .split(let key, let parts, let division):
            switch division {
            case .separator:
                return MigrationRule(.merge(parts: parts, key: key, division: division))
            case .closures(let split, let join):
                return join.map {
                    MigrationRule(.merge(parts: parts, key: key, division: .closuresFromJoin(join: $0, split: split)))
                }
            case .closuresFromJoin:
                return nil
            }
        case .merge(let parts, let key, let division):
            switch division {
            case .separator:
                return MigrationRule(.split(key: key, parts: parts, division: division))
            case .closuresFromJoin(let join, let split):
                return split.map {
                    MigrationRule(.split(key: key, parts: parts, division: .closures(split: $0, join: join)))
                }
            case .closures:
                return nil
            }
        case .renameType(let oldName, let newName):
            return MigrationRule(.renameType(from: newName, to: oldName))
        case .scoped(let path, let rules):
            var inverted: [MigrationRule] = []
            inverted.reserveCapacity(rules.count)
            for rule in rules.reversed() {
                guard let inverse = rule.inverse else { return nil }
                inverted.append(inverse)
            }
            return MigrationRule(.scoped(path: path, rules: inverted))
        case .transform(let name, let forward, let inverse, let inverseName):
            return inverse.map {
                MigrationRule(.transform(name: inverseName, forward: $0, inverse: forward, inverseName: name))
            }
        }
    }

    /// Whether the rule has an ``inverse``.
    public var isReversible: Bool { inverse != nil }

    /// The first rule, this one or one nested in it, that has no inverse.
    var firstIrreversibleRule: MigrationRule? {
        if case .scoped(_, let rules) = operation {
            return rules.lazy.compactMap(\.firstIrreversibleRule).first
        }
        return inverse == nil ? self : nil
    }

    /// The type names this rule renames from, including those in scoped rules.
    var renamedTypeNames: [String] {
        switch operation {
        case .renameType(let oldName, _): return [oldName]
        case .scoped(_, let rules): return rules.flatMap(\.renamedTypeNames)
        default: return []
        }
    }

    /// A short, stable rendering used in reports and errors: `rename(name → title)`,
    /// `add(mark_as_favorite = false)`, `scoped(people[*]: split(name → first_name, last_name))`.
    public var description: String {
        switch operation {
        case .rename(let key, let newKey, let required):
            return "rename(\(key) → \(newKey)\(required ? ", required" : ""))"
        case .add(let key, let value):
            return "add(\(key) = \(value.literalDescription))"
        case .remove(let key, let restoring):
            return "remove(\(key)" + (restoring.map { ", restoring \($0.literalDescription))" } ?? ")")
        case .convert(let key, let converter):
            return "convert(\(key): \(converter))"
        case .move(let source, let destination, _):
            return "move(\(source) → \(destination))"
        case .nest(let keys, let container):
            return "nest(\(keys.joined(separator: ", ")) → \(container))"
        case .hoist(let keys, let container):
            return "hoist(\(container) → \(keys.joined(separator: ", ")))"
        case .wrapInArray(let key):
            return "wrapInArray(\(key))"
        case .takeFirst(let key):
            return "takeFirst(\(key))"
        case .split(let key, let parts, _):
            return "split(\(key) → \(parts.joined(separator: ", ")))"
        case .merge(let parts, let key, _):
            return "merge(\(parts.joined(separator: ", ")) → \(key))"
        case .renameType(let oldName, let newName):
            return "renameType(\(oldName) → \(newName))"
        case .scoped(let path, let rules):
            return "scoped(\(path): \(rules.map(\.description).joined(separator: "; ")))"
        case .transform(let name, _, _, _):
            return "transform(\(name))"
        }
    }
}
