/// One difference between two archive trees, at a path.
///
/// ```
/// ~ shapes[1].radius: 3 → 3.5
/// + shapes[2]: {"$type": "Circle", …}
/// - meta
/// ```
public struct ArchiveDifference: Sendable, Hashable, CustomStringConvertible {
    /// What changed at ``path``.
    public enum Kind: String, Sendable, Hashable {
        /// Present only in the second tree.
        case added
        /// Present only in the first tree.
        case removed
        /// Present in both with different values (or kinds, type names, versions).
        case changed
    }

    /// Where, from the root (`$type` and `$version` components name an object's type and version).
    public var path: ArchivePath
    /// Whether the value was added, removed or changed.
    public var kind: Kind
    /// The value in the first tree.
    public var old: ArchiveValue?
    /// The value in the second tree.
    public var new: ArchiveValue?

    package init(path: ArchivePath, kind: Kind, old: ArchiveValue?, new: ArchiveValue?) {
        self.path = path
        self.kind = kind
        self.old = old
        self.new = new
    }

    /// `~ path: old → new`, `+ path: new`, `- path: old`; a change of kind says so, since the
    /// two values may look alike: `~ logo: <8 bytes> → "iVBORw0KGgo=" (data → string)`.
    public var description: String {
        let place = path.isRoot ? "(root)" : path.description
        switch kind {
        case .added: return "+ \(place): \(Self.render(new))"
        case .removed: return "- \(place): \(Self.render(old))"
        case .changed:
            let change = "~ \(place): \(Self.render(old)) → \(Self.render(new))"
            guard let old, let new, isChangeOfKind else { return change }
            return change + " (\(old.kind) → \(new.kind))"
        }
    }

    /// Whether ``old`` and ``new`` are values of different kinds (`ArchiveValue.Kind`): data and
    /// a string, a date and a string, a date and a number, a Boolean and an integer. Numbers are
    /// one kind here — integers (also those above `Int64.max`, `ArchiveValue.uint(_:)`) and
    /// doubles — since their spellings already tell them apart (`3 → 3.5`, and `1 → 1.0` when
    /// ``ArchiveDiff/Options/numbersByValue`` is off).
    public var isChangeOfKind: Bool {
        guard let old, let new else { return false }
        func isNumber(_ value: ArchiveValue) -> Bool {
            switch value.kind {
            case .int, .uint, .double: return true
            default: return false
            }
        }
        if isNumber(old) && isNumber(new) { return false }
        return old.kind != new.kind
    }

    /// A short rendering of a value for difference lines.
    package static func render(_ value: ArchiveValue?, limit: Int = 60) -> String {
        guard let value else { return "nothing" }
        let text: String
        switch value {
        case .null: text = "null"
        case .bool(let flag): text = String(flag)
        case .int(let number): text = String(number)
        case .uint(let number): text = String(number)
        case .double(let number): text = String(number)
        case .string(let string): text = "\"" + string + "\""
        case .data(let data): text = "<\(data.count) bytes>"
        case .date(let date): text = ISO8601Date.exactString(from: date) ?? "\(date.timeIntervalSinceReferenceDate)"
        case .array(let elements): text = "[\(elements.count) elements]"
        case .dictionary(let entries):
            text = "{" + entries.keys.prefix(6).joined(separator: ", ") + (entries.count > 6 ? ", …}" : "}")
        case .object(let object): text = object.description
        case .reference(let id): text = "reference to \(id)"
        }
        return text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }
}
