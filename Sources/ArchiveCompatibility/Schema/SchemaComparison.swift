import ModelVersioning

/// Compares two schemas of one model structurally, following properties into the nested types
/// they reach; see ``ModelSchema/changes(from:)``.
struct SchemaComparison {
    let old: ModelSchema
    let new: ModelSchema
    private(set) var changes: [SchemaChange] = []
    /// The nested types being compared on the way down (old name, new name), so that a recursive
    /// type is compared once per path, not for ever.
    private var stack: [String] = []

    init(old: ModelSchema, new: ModelSchema) {
        self.old = old
        self.new = new
    }

    /// Compares the keys of one container: the model's own (`at: .root`) or a nested type's.
    mutating func compareProperties(
        _ before: [ModelSchema.Property], _ after: [ModelSchema.Property], at container: ArchivePath,
        location: String, nestedType: String?
    ) {
        let remaining = Set(after.map(\.name))
        for property in before where !remaining.contains(property.name) {
            changes.append(
                SchemaChange(
                    kind: .removed, path: Self.path(container, property.name), location: location + property.name,
                    nestedType: nestedType, old: property))
        }
        for property in after {
            let path = Self.path(container, property.name)
            guard let earlier = before.first(where: { $0.name == property.name }) else {
                changes.append(
                    SchemaChange(
                        kind: .added, path: path, location: location + property.name, nestedType: nestedType,
                        new: property))
                continue
            }
            let holder = (old: earlier, new: property)
            let attributesDiffer =
                earlier.optional != property.optional || earlier.behavior != property.behavior
                || earlier.allowedTypes != property.allowedTypes
            // A key that is never archived has no shape to compare.
            let shapesDiffer =
                property.behavior == .excluded && earlier.behavior == .excluded
                ? earlier.type != property.type
                : compareTypes(
                    TypeExpression(parsing: earlier.type), TypeExpression(parsing: property.type), at: path,
                    location: location + property.name, holder: holder)
            if attributesDiffer || shapesDiffer {
                changes.append(
                    SchemaChange(
                        kind: .changed, path: path, location: location + property.name, nestedType: nestedType,
                        old: earlier, new: property))
            }
        }
    }

    /// Compares two type expressions at `path`; returns whether they differ at this level (the
    /// holder's type changed), having recorded differences deeper down (inside nested types)
    /// as changes of their own.
    private mutating func compareTypes(
        _ a: TypeExpression, _ b: TypeExpression, at path: ArchivePath, location: String,
        holder: (old: ModelSchema.Property, new: ModelSchema.Property)
    ) -> Bool {
        switch (a, b) {
        case (.optional(let x), .optional(let y)):
            return compareTypes(x, y, at: path, location: location, holder: holder)
        case (.array(let x), .array(let y)), (.set(let x), .set(let y)):
            return compareTypes(
                x, y, at: path.appending(.anyIndex), location: location + "[*]", holder: holder)
        case (.dictionary(let k1, let v1), .dictionary(let k2, let v2)):
            if k1 != k2 { return true }
            return compareTypes(v1, v2, at: path.appending(.anyKey), location: location + ".*", holder: holder)
        case (.weak(let x), .weak(let y)):
            return x != y
        case (.named(let x), .named(let y)):
            switch (old.nestedType(named: x), new.nestedType(named: y)) {
            case (nil, nil):
                return x != y
            case (let before?, let after?):
                return compareNested(before, after, at: path, location: location, holder: holder)
            default:
                return true
            }
        default:
            return true
        }
    }

    private mutating func compareNested(
        _ before: ModelSchema.NestedType, _ after: ModelSchema.NestedType, at path: ArchivePath, location: String,
        holder: (old: ModelSchema.Property, new: ModelSchema.Property)
    ) -> Bool {
        let key = before.name + "\u{0}" + after.name
        guard !stack.contains(key) else { return false }
        stack.append(key)
        defer { stack.removeLast() }
        switch (before.kind, after.kind) {
        case (.struct, .struct), (.struct, .class), (.class, .struct), (.class, .class):
            compareProperties(
                before.properties, after.properties, at: path, location: location + ": \(after.name).",
                nestedType: after.name)
            return false
        case (.enum, .enum) where !before.listsEveryCase || !after.listsEveryCase:
            // One side does not know its cases: no case can be said to be added or removed.
            return before.valueType != nil && after.valueType != nil && before.valueType != after.valueType
        case (.value, .enum), (.enum, .value):
            // A snapshot written before the probe recognised enums that are not CaseIterable
            // recorded them as values of their raw type: the same archived shape, not a change.
            let (value, item) = before.kind == .value ? (before, after) : (after, before)
            return !Self.sameRawType(value.valueType, asCasesOf: item)
        case (.enum, .enum):
            for item in before.cases where !after.cases.contains(where: { $0.value == item.value }) {
                changes.append(
                    SchemaChange(
                        kind: .caseRemoved, path: path, location: location, nestedType: after.name, old: holder.old,
                        new: holder.new, enumCase: item, oldCases: before.cases, newCases: after.cases))
            }
            for item in after.cases where !before.cases.contains(where: { $0.value == item.value }) {
                changes.append(
                    SchemaChange(
                        kind: .caseAdded, path: path, location: location, nestedType: after.name, old: holder.old,
                        new: holder.new, enumCase: item, oldCases: before.cases, newCases: after.cases))
            }
            return false
        case (.value, .value):
            return compareTypes(
                TypeExpression(parsing: before.valueType ?? ""), TypeExpression(parsing: after.valueType ?? ""),
                at: path, location: location, holder: holder)
        default:
            return true
        }
    }

    /// Whether `valueType` is the raw type of the enum `item`: its declared raw type, or the
    /// type every listed case's value has (integers for `Int`, strings for `String`).
    static func sameRawType(_ valueType: String?, asCasesOf item: ModelSchema.NestedType) -> Bool {
        guard let valueType else { return false }
        if let raw = item.valueType { return raw == valueType }
        guard !item.cases.isEmpty else { return false }
        return item.cases.allSatisfy { item in
            switch item.value {
            case .string: return valueType == "String"
            case .int, .uint: return ArchiveGenerator.integers[valueType] != nil
            case .double: return valueType == "Double" || valueType == "Float"
            case .bool: return valueType == "Bool"
            default: return false
            }
        }
    }

    /// The path of a property in a container: its dotted name's keys (`super.origin`) appended.
    static func path(_ container: ArchivePath, _ name: String) -> ArchivePath {
        var path = container
        for key in name.split(separator: ".", omittingEmptySubsequences: false) {
            path = path.appending(String(key))
        }
        return path
    }
}
