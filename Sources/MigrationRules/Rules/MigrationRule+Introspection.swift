/// What tooling may ask a rule about itself, without switching over its operation.
extension MigrationRule {
    /// The keys this rule (or a rule scoped inside it) adds with a default when absent, with the
    /// default: what a downgrade drops and the upgrade after it puts back as the default.
    ///
    /// ```swift
    /// MigrationRule.scoped("rect", [.add("depth", default: 0)]).addedDefaults   // [("depth", 0)]
    /// ```
    package var addedDefaults: [(key: String, value: ArchiveValue)] {
        switch operation {
        case .add(let key, let value): return [(key, value)]
        case .scoped(_, let rules): return rules.flatMap(\.addedDefaults)
        default: return []
        }
    }

    /// The keys this rule (or a rule scoped inside it) renames or moves, by their last key:
    /// what a key added by an earlier step is called after it.
    package var renamedKeys: [(from: String, to: String)] {
        switch operation {
        case .rename(let key, let newKey, _):
            return [(key, newKey)]
        case .move(let source, let destination, _):
            guard case .key(let from) = source.last, case .key(let to) = destination.last else { return [] }
            return [(from, to)]
        case .scoped(_, let rules):
            return rules.flatMap(\.renamedKeys)
        default:
            return []
        }
    }

    /// Where this rule takes values from and puts them, as key paths, for rules that only move
    /// values (`rename`, `move`, `nest`, `hoist`): an object that holds a source and not its
    /// destination has not been through the rule.
    ///
    /// ```swift
    /// MigrationRule.nest(["x", "y"], into: "origin").movedKeyPaths   // [(["x"], ["origin", "x"]), (["y"], ["origin", "y"])]
    /// ```
    package var movedKeyPaths: [(from: [String], to: [String])] {
        switch operation {
        case .rename(let key, let newKey, _):
            return [([key], [newKey])]
        case .move(_, _, let keys?):
            return [(keys.from, keys.to)]
        case .nest(let keys, let container):
            return keys.map { ([$0], [container, $0]) }
        case .hoist(let keys, let container):
            return keys.map { ([container, $0], [$0]) }
        default:
            return []
        }
    }
}
