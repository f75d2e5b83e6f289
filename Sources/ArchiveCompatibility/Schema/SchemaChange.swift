import Foundation
import ModelVersioning

/// One difference between two schemas of a model: a key added, removed or retyped — in the
/// model's own keys or deep inside a nested type — or an enum case added or removed.
///
/// ```swift
/// for change in try ModelSchema(of: Model.self).changes(from: snapshot) {
///     print(change)   // + rect: Frame.depth: Double
/// }
/// ```
///
/// ``location`` names the value as messages write it: the model's own key (`radius`), or the
/// keys and nested types on the way to it (`rect: Frame.depth`, `points[*]: Point.x`);
/// ``path`` is the same place as an `ArchivePath` from the model object, with `[*]` for
/// array elements and `*` for dictionary values, as a `MigrationRule.scoped(_:_:)` rule
/// spells it.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// What changed.
    public enum Kind: String, Sendable, Hashable {
        /// A key is new (``SchemaChange/new``).
        case added
        /// A key is gone (``SchemaChange/old``).
        case removed
        /// A key's type, optionality, behaviour or allow list changed.
        case changed
        /// An enum gained a case (``SchemaChange/enumCase``).
        case caseAdded
        /// An enum lost a case (``SchemaChange/enumCase``).
        case caseRemoved
    }

    /// Whether a key was added, removed or changed, or an enum case added or removed.
    public var kind: Kind
    /// Where the value is, from the model object: `radius`, `rect.depth`, `points[*].x`; for a
    /// case, the value holding the enum (`kind`).
    public var path: ArchivePath
    /// How messages name the place: `radius`, `rect: Frame.depth`.
    public var location: String
    /// The nested type the change is inside, or the enum whose cases changed; `nil` for the
    /// model's own keys.
    public var nestedType: String?
    /// The property before (removed, changed) or holding the enum (cases).
    public var old: ModelSchema.Property?
    /// The property after (added, changed) or holding the enum (cases).
    public var new: ModelSchema.Property?
    /// The case added or removed.
    public var enumCase: ModelSchema.NestedType.Case?
    /// Every case of the enum before the change, for cases.
    public var oldCases: [ModelSchema.NestedType.Case]
    /// Every case of the enum after the change, for cases.
    public var newCases: [ModelSchema.NestedType.Case]

    /// A change at `path`, named `location` in messages (``ModelSchema/changes(from:)`` finds them).
    public init(
        kind: Kind, path: ArchivePath, location: String, nestedType: String? = nil, old: ModelSchema.Property? = nil,
        new: ModelSchema.Property? = nil, enumCase: ModelSchema.NestedType.Case? = nil,
        oldCases: [ModelSchema.NestedType.Case] = [], newCases: [ModelSchema.NestedType.Case] = []
    ) {
        self.kind = kind
        self.path = path
        self.location = location
        self.nestedType = nestedType
        self.old = old
        self.new = new
        self.enumCase = enumCase
        self.oldCases = oldCases
        self.newCases = newCases
    }

    /// `+ color: String`, `- para: Int`, `~ radius: Int → Double`, `+ rect: Frame.depth: Double`,
    /// `+ kind: ModelKind case sketch = "sketch"`.
    public var description: String {
        switch kind {
        case .added:
            return "+ \(location): \(new?.typeDescription ?? "?")"
        case .removed:
            return "- \(location): \(old?.typeDescription ?? "?")"
        case .changed:
            return "~ \(location): \(old?.typeDescription ?? "?") → \(new?.typeDescription ?? "?")"
        case .caseAdded, .caseRemoved:
            let sign = kind == .caseAdded ? "+" : "-"
            let value = enumCase.map { "\($0.name) = \(SchemaText.literal($0.value))" } ?? "?"
            return "\(sign) \(location): \(nestedType ?? "?") case \(value)"
        }
    }

    /// The key the change is about (the last key of ``path``), if the path ends in one.
    var key: String? {
        if case .key(let key) = path.last { return key }
        return nil
    }

    /// The container the key is in (``path`` without its last key).
    var container: ArchivePath {
        path.parent
    }
}

/// Short renderings of archive values for messages and proposals.
enum SchemaText {
    /// A value as compact JSON: `"photo"`, `2`, `[]`, `{"x":1.0}`.
    static func literal(_ value: ArchiveValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .uint(let number): return String(number)
        case .double(let number): return "\(number)"
        case .string(let text): return quoted(text)
        default:
            guard
                let data = try? ArchiveFormat.json.write(
                    value, options: ArchiveWritingOptions(prettyPrinted: false, markup: .plain))
            else { return "\(value)" }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// A string as a JSON (and Swift) string literal.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    result += String(format: "\\u%04x", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// `A`, `A and B`, `A, B and C`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + (items.last ?? "")
    }
}
