/// Where an object's fields end up after its chain upgrades it, worked out from its keys alone.
///
/// Chains whose steps only move keys (rename, add a scalar default, remove, nest into a new
/// container, rename the type) change where values are, never what they are. For such a chain
/// the upgraded object can be read from the archived one without building or editing a tree:
/// ``MigrationCatalog/keyMovingUpgrade(typeName:version:keys:)`` runs the chain's own rules once on
/// stand-ins for the archived values, and the layout says, for each upgraded key, which
/// archived field (or default, or new container) holds its value. Objects with the same type,
/// version and keys share one layout.
///
/// ```swift
/// // Shape v1 {id, name, x, y} through rename name → title, nest [x, y] into center,
/// // add visible = true:
/// let upgrade = catalog.keyMovingUpgrade(typeName: "Shape", version: 1, keys: ["id", "name", "x", "y"])
/// // upgrade.fields.entries: id ← field 0, title ← field 1, center ← {x ← field 2, y ← field 3},
/// //                 visible ← true
/// ```
package struct FieldLayout: Sendable {
    /// Where one upgraded value comes from.
    package indirect enum Source: Sendable {
        /// The archived field at this position in the keys given.
        case field(Int)
        /// A value a rule added (a scalar: `null`, a Boolean, a number or a string).
        case constant(ArchiveValue)
        /// A new dictionary a rule made, with these entries.
        case dictionary(FieldLayout)
    }

    /// One upgraded key and where its value comes from.
    package struct Entry: Sendable {
        package var key: String
        package var source: Source
    }

    /// The upgraded fields, in their order after the upgrade.
    package var entries: [Entry]
}

/// An object's upgrade by moving keys: its type name and version afterwards, and where its
/// fields go (``FieldLayout``).
package struct KeyMovingUpgrade: Sendable {
    /// The chain's current type name.
    package var typeName: String
    /// The chain's current version.
    package var version: Int
    package var fields: FieldLayout
}

extension FieldLayout {
    /// The positions of the archived fields the upgrade drops.
    package func droppedFields(of count: Int) -> [Int] {
        var kept = [Bool](repeating: false, count: count)
        markKept(&kept)
        return kept.indices.filter { !kept[$0] }
    }

    private func markKept(_ kept: inout [Bool]) {
        for entry in entries {
            switch entry.source {
            case .field(let index): kept[index] = true
            case .constant: break
            case .dictionary(let inner): inner.markKept(&kept)
            }
        }
    }
}

extension MigrationCatalog {
    /// Whether upgrading an object of `typeName` archived at `version` only moves keys (see
    /// ``FieldLayout``); `false` for objects that need nothing or that the pass would report.
    package func upgradeMovesKeysOnly(typeName: String, version: Int?) -> Bool {
        guard let index = chainIndex(forTypeName: typeName), let from = chains[index].effectiveVersion(version)
        else { return false }
        return chains[index].movesKeysOnly(from: from)
    }

    /// How an object of `typeName` archived at `version` with `keys` (its fields, in order,
    /// without markup) looks after its upgrade to the current version; `nil` when the chain
    /// does more than move keys, when the object is current, newer or older than its chain
    /// reaches, or when a rule would fail on these keys (the migration pass then reports the
    /// error).
    package func keyMovingUpgrade(typeName: String, version: Int?, keys: [String]) -> KeyMovingUpgrade? {
        guard let index = chainIndex(forTypeName: typeName) else { return nil }
        let chain = chains[index]
        guard let from = chain.effectiveVersion(version), chain.movesKeysOnly(from: from) else { return nil }
        // An object archived under an alias a release declared keeps that name in its upgrade
        // (``ArchivedAlias``), which only the pass writes.
        if version != nil, from < chain.currentVersion, keepsAlias(typeName, chain: index, atVersion: from) {
            return nil
        }
        var stand = ArchiveDictionary(minimumCapacity: keys.count)
        for (position, key) in keys.enumerated() {
            stand.appendUnchecked(.reference(ArchiveObjectID(position)), forKey: key)
        }
        guard stand.firstDuplicateKey() == nil else { return nil }
        var target = MigrationTarget(fields: stand, typeName: typeName, version: from)
        do {
            try chain.upgrade(
                &target, from: from, to: chain.currentVersion, archivedName: typeName, archivedVersion: version)
        } catch {
            return nil
        }
        var seen = [Bool](repeating: false, count: keys.count)
        guard let fields = FieldLayout(target.fields, fieldCount: keys.count, seen: &seen) else { return nil }
        return KeyMovingUpgrade(typeName: chain.name, version: chain.currentVersion, fields: fields)
    }
}

extension FieldLayout {
    /// The layout of `fields` after the rules ran on stand-ins: `.reference(n)` is archived field
    /// `n`; every other value is what a rule made. `nil` when a stand-in turns up twice or a
    /// value is something key-moving rules cannot make.
    fileprivate init?(_ fields: ArchiveDictionary, fieldCount: Int, seen: inout [Bool]) {
        guard fields.firstDuplicateKey() == nil else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(fields.count)
        for (key, value) in fields {
            let source: Source
            switch value {
            case .reference(let id):
                guard id.rawValue >= 0, id.rawValue < fieldCount, !seen[id.rawValue] else { return nil }
                seen[id.rawValue] = true
                source = .field(id.rawValue)
            case .null, .bool, .int, .uint, .double, .string:
                source = .constant(value)
            case .dictionary(let inner):
                guard let layout = FieldLayout(inner, fieldCount: fieldCount, seen: &seen) else { return nil }
                source = .dictionary(layout)
            default:
                return nil
            }
            entries.append(Entry(key: key, source: source))
        }
        self.entries = entries
    }
}

extension CompiledChain {
    /// The version an object archived at `version` is upgraded from: `version`, or the chain's
    /// stand-in for unversioned objects; `nil` when there is nothing to upgrade by moving keys
    /// (current, newer, older than the chain reaches, or unversioned without a stand-in).
    func effectiveVersion(_ version: Int?) -> Int? {
        guard let from = version ?? unversionedVersion, from >= oldestVersion, from <= currentVersion else {
            return nil
        }
        return from
    }

    /// Whether every step from `from` up to the current version only moves keys.
    func movesKeysOnly(from: Int) -> Bool {
        let first = from - oldestVersion
        guard first >= 0, first <= steps.count else { return false }
        return keyMovingSteps[first...].allSatisfy { $0 }
    }

    /// Whether `rule` only moves keys: it never looks at a value, and what it adds is a scalar.
    static func ruleMovesKeysOnly(_ rule: MigrationRule) -> Bool {
        switch rule.operation {
        case .rename, .remove, .nest, .renameType:
            return true
        case .add(_, let value):
            switch value {
            case .null, .bool, .int, .uint, .double, .string: return true
            default: return false
            }
        default:
            return false
        }
    }
}
