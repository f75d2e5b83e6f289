import ModelVersioning

/// The migration step `check` proposes for a model whose archived shape changed without a
/// version bump: one rule per change, with `TODO` placeholders where only the author knows the
/// value.
///
/// ```swift
/// let changes = try ModelSchema(of: Model.self).changes(from: snapshot)
/// let proposal = MigrationProposal(typeName: "Model", version: 3, changes: changes, old: snapshot, new: current)
/// print(proposal.swiftStep)
/// // MigrationStep(
/// //     from: 3, to: 4, name: "Frame.depth added",
/// //     rules: [
/// //         .scoped("rect", [.add("depth", default: <#TODO: a Double#>)]),
/// //     ])
/// ```
///
/// - A key added → `MigrationRule.add(_:default:)` with a default to fill in (`nil` for an
///   optional key, an empty collection for a collection);
/// - a key removed → `MigrationRule.remove(_:restoring:)` with the value a downgrade restores
///   (the one value the snapshot allows, when it allows one);
/// - a type changed → `MigrationRule.convert(_:_:)` with the matching converter
///   (`intToDouble`, `doubleToFloat`, `stringToInt`, a value map for enums, …);
/// - a case added to an enum → a value map that is the identity on the old cases (older
///   archives hold only those; a downgrade of a new case fails instead of writing what the
///   older version cannot read), or no rule for an enum inside a collection;
/// - keys inside nested types → the same rules in a `MigrationRule.scoped(_:_:)` rule at the
///   nested value's path.
///
/// A likely rename (a key removed and one of the same type added in the same place) is offered
/// as a choice between `MigrationRule.rename(_:to:required:)` and a removal and an addition,
/// never applied silently. Placeholders are Xcode editor placeholders in Swift (the step does
/// not compile until they are filled) and `TODO` keys in the rules-file step (the rules-file
/// reader refuses the file until they are replaced).
public struct MigrationProposal: Sendable, Hashable {
    /// The model.
    public var typeName: String
    /// The version whose snapshot the model no longer matches.
    public var fromVersion: Int
    /// The version to raise it to.
    public var toVersion: Int
    /// What changed.
    public var changes: [SchemaChange]
    /// Explanations: changes that need no rule, and what to check by hand.
    public var notes: [String]
    var rules: [ProposedRule]

    /// Proposes the step from `version` to `version + 1` for `changes` between the snapshot `old`
    /// and today's schema `new`.
    public init(typeName: String, version: Int, changes: [SchemaChange], old: ModelSchema, new: ModelSchema) {
        self.typeName = typeName
        self.fromVersion = version
        self.toVersion = version + 1
        self.changes = changes
        var builder = ProposalBuilder(old: old, new: new)
        builder.propose(changes)
        self.rules = builder.rules
        self.notes = builder.notes
    }

    /// Whether a value is left to fill in.
    public var hasPlaceholders: Bool {
        swiftStep.contains("<#TODO")
    }

    /// The file name the proposal is written under, without extension (`Model-v4`).
    public var fileName: String { "\(typeName)-v\(toVersion)" }

    /// A short name for the step: what changed (`Frame.depth added`).
    public var stepName: String {
        var names: [String] = []
        for change in changes {
            let subject = (change.nestedType.map { $0 + "." } ?? "") + (change.key ?? change.location)
            let text: String
            switch change.kind {
            case .added: text = "\(subject) added"
            case .removed: text = "\(subject) removed"
            case .changed:
                text = "\(subject) \(change.old?.typeDescription ?? "") → \(change.new?.typeDescription ?? "")"
            case .caseAdded: text = "\(change.nestedType ?? "") case \(change.enumCase?.name ?? "") added"
            case .caseRemoved: text = "\(change.nestedType ?? "") case \(change.enumCase?.name ?? "") removed"
            }
            if !names.contains(text) { names.append(text) }
        }
        return names.count > 2 ? names.prefix(2).joined(separator: ", ") + ", …" : names.joined(separator: ", ")
    }

    /// The step in Swift: a `MigrationStep(…)` expression.
    public var swiftStep: String {
        var lines = [
            "MigrationStep(",
            "    from: \(fromVersion), to: \(toVersion), name: \(SchemaText.quoted(stepName)),",
        ]
        if rules.isEmpty {
            lines.append("    rules: [])")
        } else {
            lines.append("    rules: [")
            lines += rules.flatMap { $0.swiftElements(indent: "        ") }
            lines.append("    ])")
        }
        return lines.joined(separator: "\n")
    }

    /// The step as a rules-file step: a JSON object for the `steps` of the type's chain.
    public var rulesFileStep: String {
        var lines = [
            "{ \"from\": \(fromVersion), \"to\": \(toVersion), \"name\": \(SchemaText.quoted(stepName)),"
        ]
        if rules.isEmpty {
            lines.append("  \"rules\": [] }")
        } else {
            lines.append("  \"rules\": [")
            lines += ProposedRule.jsonList(rules, indent: "    ")
            lines.append("  ] }")
        }
        return lines.joined(separator: "\n")
    }

    /// The Swift file `check --write` writes: the step, with what to do around it as comments.
    ///
    /// - Parameter command: How the check is run (`sketch-migrate check`), for the instructions.
    public func swiftFile(command: String) -> String {
        var lines = ["// Proposed by `\(command)` for \(typeName) v\(fromVersion) → v\(toVersion), because of:"]
        lines += changes.map { "//   \($0)" }
        lines += notes.map { "// Note: \($0)" }
        lines += [
            "//",
            "// 1. Fill in every TODO placeholder (the step does not compile until you do).",
            "// 2. Raise \(typeName)'s modelVersion to \(toVersion) and append the step to its migrationSteps.",
            "// 3. If the app declares its releases, declare the release that will archive \(typeName) v\(toVersion).",
            "// 4. Record the v\(toVersion) snapshot, the goldens and a fixture: `\(command) --record`.",
            "// 5. If a rules file repeats the chains, add the step beside this file to it (\(fileName).json).",
            "",
            "import ModelVersioning",
            "",
            "let proposed\(typeName.filter { $0.isLetter || $0.isNumber })V\(toVersion) = " + swiftStep,
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rules-file fragment `check --write` writes: the step, with a comment.
    public func rulesFile(command: String) -> String {
        var step = rulesFileStep
        let comment =
            "Proposed by \(command) for \(typeName) v\(fromVersion) → v\(toVersion): add it to the steps of "
            + "types.\(typeName), set its currentVersion to \(toVersion) and replace every TODO key (the file does "
            + "not load until you do). "
            + changes.map(\.description).joined(separator: "; ")
        step = "{ \"comment\": \(SchemaText.quoted(comment)),\n  " + step.dropFirst(2)
        return step + "\n"
    }
}

/// Turns schema changes into proposed rules.
private struct ProposalBuilder {
    let old: ModelSchema
    let new: ModelSchema
    var rules: [ProposedRule] = []
    var notes: [String] = []

    init(old: ModelSchema, new: ModelSchema) {
        self.old = old
        self.new = new
    }

    mutating func propose(_ changes: [SchemaChange]) {
        // Rules by container: the model's own keys first, then each nested value's.
        var containers: [ArchivePath] = []
        var byContainer: [ArchivePath: [SchemaChange]] = [:]
        for change in changes {
            let container =
                change.kind == .caseAdded || change.kind == .caseRemoved ? change.path.parent : change.container
            if byContainer[container] == nil { containers.append(container) }
            byContainer[container, default: []].append(change)
        }
        containers.sort { ($0.count, $0.description) < ($1.count, $1.description) }
        for container in containers {
            let inner = rulesFor(byContainer[container] ?? [])
            guard !inner.isEmpty else { continue }
            if container.isRoot {
                rules += inner
            } else {
                rules.append(.scoped(container, inner))
            }
        }
    }

    private mutating func rulesFor(_ changes: [SchemaChange]) -> [ProposedRule] {
        var rules: [ProposedRule] = []
        var added = changes.filter { $0.kind == .added }
        var handledEnums: Set<ArchivePath> = []
        for change in changes {
            switch change.kind {
            case .removed:
                guard let property = change.old, let key = change.key else { continue }
                if property.behavior == .excluded {
                    notes.append("\(change.location) was never archived (excluded): no rule")
                    continue
                }
                let remove = ProposedRule.remove(key, restoring: restoreValue(property, in: old))
                if let index = added.firstIndex(where: { isLikelyRename(from: property, to: $0.new) }),
                    let newProperty = added[index].new, let newKey = added[index].key
                {
                    added.remove(at: index)
                    rules.append(
                        .choice(
                            comment:
                                "'\(key)' was removed and '\(newKey)' (\(newProperty.typeDescription)) added: a rename?",
                            [
                                [.rename(key, to: newKey)],
                                [remove, .add(newKey, default: defaultValue(newProperty, in: new))],
                            ]))
                } else {
                    rules.append(remove)
                }
            case .changed:
                guard let before = change.old, let after = change.new, let key = change.key else { continue }
                rules += conversion(key: key, from: before, to: after, location: change.location)
            case .caseAdded, .caseRemoved:
                guard !handledEnums.contains(change.path) else { continue }
                handledEnums.insert(change.path)
                rules += enumRules(changes.filter { $0.path == change.path && $0.nestedType == change.nestedType })
            case .added:
                continue
            }
        }
        for change in added {
            guard let property = change.new, let key = change.key else { continue }
            if property.behavior == .excluded {
                notes.append("\(change.location) is never archived (excluded): no rule")
                continue
            }
            rules.append(.add(key, default: defaultValue(property, in: new)))
        }
        return rules
    }

    private func isLikelyRename(from removed: ModelSchema.Property, to added: ModelSchema.Property?) -> Bool {
        guard let added else { return false }
        return removed.type == added.type && removed.optional == added.optional && removed.behavior == added.behavior
    }

    /// What an `add` puts in archives that lack the key.
    private func defaultValue(_ property: ModelSchema.Property, in schema: ModelSchema) -> ProposedValue {
        if property.optional || property.behavior == .conditional { return .literal(.null) }
        if let values = property.values, values.count == 1, let value = values.first { return .literal(value) }
        switch TypeExpression(parsing: property.type) {
        case .optional, .weak: return .literal(.null)
        case .array, .set: return .literal([])
        case .dictionary: return .literal(.dictionary([:]))
        case .named(let name): return .todo(describe(name, in: schema))
        }
    }

    /// What a downgrade restores for a removed key: the only value the snapshot allows, `null`
    /// for an optional key, an empty collection, or a value to fill in.
    private func restoreValue(_ property: ModelSchema.Property, in schema: ModelSchema) -> ProposedValue {
        defaultValue(property, in: schema)
    }

    /// `a Double`, `a Frame {x, y, width, height}`, `a ModelKind ("photo", "drawing", "text")`.
    private func describe(_ name: String, in schema: ModelSchema) -> String {
        let article = name.first.map { "AEIOU".contains($0) } == true ? "an" : "a"
        guard let nested = schema.nestedType(named: name) else { return "\(article) \(name)" }
        switch nested.kind {
        case .struct, .class:
            return "\(article) \(name) {" + nested.properties.map(\.name).joined(separator: ", ") + "}"
        case .enum:
            return "\(article) \(name) (" + nested.cases.map { SchemaText.literal($0.value) }.joined(separator: ", ")
                + ")"
        case .value:
            return "\(article) \(name) (\(nested.valueType ?? "a value"))"
        }
    }

    private mutating func conversion(
        key: String, from before: ModelSchema.Property, to after: ModelSchema.Property, location: String
    ) -> [ProposedRule] {
        if before.behavior != after.behavior {
            if after.behavior == .excluded { return [.remove(key, restoring: restoreValue(before, in: old))] }
            if before.behavior == .excluded { return [.add(key, default: defaultValue(after, in: new))] }
            notes.append(
                "\(location) is now \(after.behavior.rawValue) (was \(before.behavior.rawValue)): no rule; "
                    + "check that older archives hold what it needs")
        }
        if before.allowedTypes != after.allowedTypes {
            notes.append(
                "the allow list of \(location) changed: no rule, unless archives hold types it no longer allows")
        }
        let a = TypeExpression(parsing: before.type)
        let b = TypeExpression(parsing: after.type)
        var rules: [ProposedRule] = []
        if before.optional, !after.optional, a == b {
            rules.append(.add(key, default: defaultValue(after, in: new)))
            notes.append("\(location) is no longer optional: archives without it get the default (a null stays null)")
            return rules
        }
        if !before.optional, after.optional, a == b {
            notes.append("\(location) became optional: older archives always have it, no rule")
            return rules
        }
        if a == b { return rules }
        return rules + convert(key: key, from: a.unwrapped, to: b.unwrapped, before: before, location: location)
    }

    private mutating func convert(
        key: String, from a: TypeExpression, to b: TypeExpression, before: ModelSchema.Property, location: String
    ) -> [ProposedRule] {
        if case .array(let element) = b, element.unwrapped == a { return [.wrapInArray(key)] }
        if case .array(let element) = a, element.unwrapped == b { return [.takeFirst(key)] }
        guard case .named(let from) = a, case .named(let to) = b else {
            return [.convert(key, .custom(from: a.description, to: b.description))]
        }
        if let nested = new.nestedType(named: to), nested.kind == .enum {
            let oldValues = before.values ?? old.nestedType(named: from)?.cases.map(\.value)
            guard let oldValues else { return [.convert(key, .custom(from: from, to: to))] }
            let mappings = oldValues.map { value in
                ProposedMapping(
                    old: value,
                    new: nested.cases.contains { $0.value == value } ? .literal(value) : .todo(describe(to, in: new)))
            }
            return [.convert(key, .map(mappings))]
        }
        if let nested = old.nestedType(named: from), nested.kind == .enum {
            let mappings = nested.cases.map {
                ProposedMapping(old: $0.value, new: .todo("the \(to) for \($0.name)"))
            }
            return [.convert(key, .map(mappings))]
        }
        let integers: Set<String> = [
            "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        ]
        let floats: Set<String> = ["Double", "Float"]
        switch (from, to) {
        case _ where integers.contains(from) && integers.contains(to):
            notes.append(
                "\(location): \(from) → \(to) needs no rule (both are archived as integers); values outside \(to)'s "
                    + "range fail to decode, and the law check finds them")
            return []
        case (_, "Double") where integers.contains(from): return [.convert(key, .builtin("intToDouble"))]
        case (_, "Float") where integers.contains(from) || from == "Double":
            return [.convert(key, .builtin("doubleToFloat"))]
        case ("Float", "Double"):
            notes.append("\(location): Float → Double needs no rule (every Float is a Double)")
            return []
        case (_, _) where floats.contains(from) && integers.contains(to):
            return [.convert(key, .builtin("doubleToInt"))]
        case ("String", _) where integers.contains(to): return [.convert(key, .builtin("stringToInt"))]
        case (_, "String") where integers.contains(from): return [.convert(key, .builtin("intToString"))]
        case ("String", _) where floats.contains(to): return [.convert(key, .builtin("stringToDouble"))]
        case (_, "String") where floats.contains(from): return [.convert(key, .builtin("doubleToString"))]
        case ("String", "Bool"): return [.convert(key, .builtin("stringToBool"))]
        case ("Bool", "String"): return [.convert(key, .builtin("boolToString"))]
        case ("String", "Date"): return [.convert(key, .date(toString: false))]
        case ("Date", "String"): return [.convert(key, .date(toString: true))]
        default:
            return [.convert(key, .custom(from: from, to: to))]
        }
    }

    /// The rules for the cases of one enum value that changed.
    private mutating func enumRules(_ changes: [SchemaChange]) -> [ProposedRule] {
        guard let first = changes.first, let name = first.nestedType else { return [] }
        let removed = changes.filter { $0.kind == .caseRemoved }.compactMap(\.enumCase)
        let added = changes.filter { $0.kind == .caseAdded }.compactMap(\.enumCase)
        let oldValues = first.oldCases.map { SchemaText.literal($0.value) }.joined(separator: ", ")
        if removed.isEmpty {
            let gained = added.map { "\($0.name) (\(SchemaText.literal($0.value)))" }.joined(separator: ", ")
            guard let key = first.key else {
                notes.append(
                    "\(name) gained \(gained): archives of \(old.typeName) v\(old.version) hold only \(oldValues), "
                        + "which the new version reads as they are, so no rule is needed; a downgrade writes a new "
                        + "case as it is, which v\(old.version) cannot read")
                return []
            }
            // The identity on the old cases: nothing changes on the way up, and a downgrade of a new
            // case fails at its path instead of writing what the older version cannot read.
            notes.append(
                "\(name) gained \(gained): archives of \(old.typeName) v\(old.version) hold only \(oldValues), which "
                    + "the map keeps as they are; downgrading an object holding a new case fails there (v\(old.version) "
                    + "cannot read it) unless you map it to an old case")
            return [.convert(key, .map(first.oldCases.map { ProposedMapping(old: $0.value, new: .literal($0.value)) }))]
        }
        guard let key = first.key else {
            notes.append(
                "\(first.location) holds \(name) inside a collection: map its old values with a transform rule")
            return [.convert(first.location, .custom(from: name, to: name))]
        }
        let candidates = added.map { SchemaText.literal($0.value) }.joined(separator: " or ")
        let mappings = first.oldCases.map { item in
            ProposedMapping(
                old: item.value,
                new: removed.contains(item)
                    ? .todo("what \(item.name) becomes" + (candidates.isEmpty ? "" : " (\(candidates)?)"))
                    : .literal(item.value))
        }
        return [.convert(key, .map(mappings))]
    }
}

extension TypeExpression {
    /// The type without optional wrappers.
    var unwrapped: TypeExpression {
        if case .optional(let wrapped) = self { return wrapped.unwrapped }
        return self
    }
}
