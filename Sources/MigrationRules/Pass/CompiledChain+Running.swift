/// Running a chain's steps on one container, with the context every error needs.
extension CompiledChain {
    /// Runs the steps from `from` up to `to` on `target`.
    ///
    /// The caller checks `oldestVersion <= from <= to <= currentVersion`.
    ///
    /// - Throws: The first rule's error, with the archived type name and version and the step's
    ///   label added.
    func upgrade(
        _ target: inout MigrationTarget, from: Int, to: Int, archivedName: String?, archivedVersion: Int?
    ) throws {
        var version = from
        while version < to {
            let index = version - oldestVersion
            target.version = version
            try charge(step: index, on: &target, archivedName, archivedVersion)
            try run(steps[index].rules, on: &target, step: index, archivedName, archivedVersion)
            version += 1
        }
        target.version = to
    }

    /// Runs the inverses of the steps from `from` down to `to` on `target`.
    ///
    /// The caller checks `oldestVersion <= to <= from <= currentVersion`.
    ///
    /// - Throws: ``ArchiveError/Code/irreversibleStep`` naming the step and the rule without an
    ///   inverse; or the first rule's error, with context added.
    func downgrade(
        _ target: inout MigrationTarget, from: Int, to: Int, archivedName: String?, archivedVersion: Int?
    ) throws {
        var version = from
        while version > to {
            let index = version - 1 - oldestVersion
            guard let inverse = inverse(ofStep: index) else {
                let rule = steps[index].irreversibleRule
                throw ArchiveError(
                    .irreversibleStep,
                    "the step cannot be undone because the rule \(rule.map(\.description) ?? "?") has no inverse, "
                        + "so \(subject) cannot go down to v\(to)",
                    path: target.path, typeName: archivedName, archivedVersion: archivedVersion,
                    step: label(ofStep: index),
                    rule: rule?.description)
            }
            target.version = version
            try charge(step: index, on: &target, archivedName, archivedVersion)
            try run(inverse.rules, on: &target, step: index, archivedName, archivedVersion)
            version -= 1
        }
        target.version = to
    }

    /// Counts one step's run (``RuleWork/stepBytes``) against the pass's rule work.
    private func charge(
        step index: Int, on target: inout MigrationTarget, _ archivedName: String?, _ archivedVersion: Int?
    ) throws {
        do {
            try target.work.charge(RuleWork.stepBytes, at: target.path)
        } catch let error as ArchiveError {
            throw error.adding(typeName: archivedName, archivedVersion: archivedVersion, step: label(ofStep: index))
        }
    }

    /// Runs `rules`, of the step at `step` or its inverse; errors get that step's label.
    private func run(
        _ rules: [MigrationRule], on target: inout MigrationTarget, step: Int, _ archivedName: String?,
        _ archivedVersion: Int?
    ) throws {
        // Indices rather than `for rule in rules`: the rules are used in place, not copied.
        var index = rules.startIndex
        while index < rules.endIndex {
            if Self.editsEntryList(rules[index]) {
                // A run of `move` and `remove` rules on a large object: on a linked list of its
                // entries (``EntryList``), where each takes constant time, as one after another
                // would on the dictionary.
                var end = index + 1
                while end < rules.endIndex, Self.editsEntryList(rules[end]) { end += 1 }
                if end - index > 1 && target.fields.count > ArchiveDictionary.indexedCount {
                    do {
                        try Self.runOnEntryList(rules[index..<end], on: &target)
                    } catch let error as ArchiveError {
                        throw error.adding(
                            typeName: archivedName, archivedVersion: archivedVersion, step: label(ofStep: step))
                    }
                    index = end
                    continue
                }
            }
            if case .add = rules[index].operation {
                // A run of `add` rules on a large object: appended together (one growth of the
                // key index, look-ups a group at a time), as one after another would.
                var end = index + 1
                while end < rules.endIndex, case .add = rules[end].operation { end += 1 }
                if end - index > 1 && target.fields.count + (end - index) > ArchiveDictionary.indexedCount {
                    do {
                        try target.work.charge(rules[index..<end].reduce(0) { $0 &+ $1.work }, at: target.path)
                    } catch let error as ArchiveError {
                        throw error.adding(
                            typeName: archivedName, archivedVersion: archivedVersion, step: label(ofStep: step))
                    }
                    let first = index
                    target.fields.appendIfAbsent(
                        count: end - index,
                        key: { offset in
                            guard case .add(let key, _) = rules[first + offset].operation else { return nil }
                            return key
                        },
                        value: { offset in
                            guard case .add(_, let value) = rules[first + offset].operation else { return .null }
                            return value
                        })
                    index = end
                    continue
                }
            }
            do {
                try rules[index].apply(to: &target)
            } catch let error as ArchiveError {
                throw error.adding(typeName: archivedName, archivedVersion: archivedVersion, step: label(ofStep: step))
            }
            index += 1
        }
    }

    /// Whether `rule` is one ``runOnEntryList(_:on:)`` runs: a `remove`, or a `move` along key
    /// paths.
    private static func editsEntryList(_ rule: MigrationRule) -> Bool {
        switch rule.operation {
        case .remove: return true
        case .move(_, _, let keys): return keys != nil
        default: return false
        }
    }

    /// Runs `rules` (each one ``editsEntryList(_:)`` accepts) on a linked list of the target's
    /// entries, which becomes its fields again at the end, or when a rule throws.
    ///
    /// - Throws: The first rule's error, with the rule named, as ``MigrationRule/apply(to:)``
    ///   throws it; or ``ArchiveError/Code/limitExceeded`` for the rules' work.
    private static func runOnEntryList(_ rules: ArraySlice<MigrationRule>, on target: inout MigrationTarget) throws {
        var fields = ArchiveDictionary()
        swap(&fields, &target.fields)
        let list = EntryList(consume fields)
        defer { target.fields = list.dictionary() }
        for rule in rules {
            do {
                try target.work.charge(rule.work, at: target.path)
                switch rule.operation {
                case .remove(let key, _):
                    list.remove(key)
                case .move(_, _, let keys?):
                    try list.move(keys.from, to: keys.to, base: target.path)
                default:
                    break
                }
            } catch let error as ArchiveError {
                throw error.adding(rule: rule.description)
            }
        }
    }
}
