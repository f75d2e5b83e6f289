/// A location inside an archive tree, written the way a Swift developer reads it:
/// `shapes[3].center.x`.
///
/// Paths name where an error happened and where a migration rule applies. In rules, `[*]`
/// matches every element of an array and `*` every value of a dictionary:
///
/// ```swift
/// let path: ArchivePath = "people[*].name"
/// let odd = try ArchivePath(parsing: #"metadata["schema.version"]"#)
/// print(ArchivePath.root.appending("shapes").appending(3))   // shapes[3]
/// ```
///
/// Keys that are not plain identifiers are quoted: `["first name"]`.
public struct ArchivePath: Hashable, Sendable {
    /// One step of a path.
    public enum Component: Hashable, Sendable {
        /// A dictionary key or object field.
        case key(String)
        /// An array position.
        case index(Int)
        /// `[*]`: every element of an array (rules only).
        case anyIndex
        /// `*`: every value of a dictionary or every field of an object (rules only).
        case anyKey
    }

    /// The steps from the root.
    public var components: [Component]

    /// The root of the archive.
    public static let root = ArchivePath([])

    /// Creates a path from its components.
    public init(_ components: [Component]) {
        self.components = components
    }

    /// Parses the textual form (`a.b[2].c`, `items[*]`, `["odd key"].x`).
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidPath`` naming the
    ///   offending character.
    public init(parsing text: String) throws {
        var parser = PathParser(text)
        self.components = try parser.parse()
    }

    /// Whether this is the root.
    public var isRoot: Bool { components.isEmpty }

    /// The number of steps.
    public var count: Int { components.count }

    /// The last step, if any.
    public var last: Component? { components.last }

    /// The path without its last step (the root stays the root).
    public var parent: ArchivePath {
        ArchivePath(Array(components.dropLast()))
    }

    /// This path followed by a key.
    public func appending(_ key: String) -> ArchivePath {
        ArchivePath(components + [.key(key)])
    }

    /// This path followed by an array position.
    public func appending(_ index: Int) -> ArchivePath {
        ArchivePath(components + [.index(index)])
    }

    /// This path followed by one component.
    public func appending(_ component: Component) -> ArchivePath {
        ArchivePath(components + [component])
    }

    /// This path followed by another.
    public func appending(_ other: ArchivePath) -> ArchivePath {
        ArchivePath(components + other.components)
    }

    /// Whether `self` starts with every component of `prefix`.
    public func hasPrefix(_ prefix: ArchivePath) -> Bool {
        components.starts(with: prefix.components)
    }
}

extension ArchivePath: CustomStringConvertible {
    /// The textual form; the root is written as an empty string.
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if Self.isPlainIdentifier(key) {
                    if !text.isEmpty { text += "." }
                    text += key
                } else {
                    text += "[\"" + Self.escape(key) + "\"]"
                }
            case .index(let index):
                text += "[\(index)]"
            case .anyIndex:
                text += "[*]"
            case .anyKey:
                if !text.isEmpty { text += "." }
                text += "*"
            }
        }
        return text
    }

    static func isPlainIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first != "*" else { return false }
        if first.properties.numericType != nil { return false }
        return key.unicodeScalars.allSatisfy { scalar in
            scalar == "_" || scalar == "$" || scalar == "-" || scalar.properties.isAlphabetic
                || scalar.properties.numericType != nil
        }
    }

    /// `key` for a quoted component: `"` and `\` escaped with a backslash, control characters
    /// (invisible, and some cannot be printed at all) as `\u{1B}`.
    static func escape(_ key: String) -> String {
        var escaped = ""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

extension ArchivePath: ExpressibleByStringLiteral {
    /// Parses a literal path. A literal that does not parse is taken as one key, verbatim.
    public init(stringLiteral value: String) {
        self = (try? ArchivePath(parsing: value)) ?? ArchivePath([.key(value)])
    }
}

extension ArchivePath: ExpressibleByArrayLiteral {
    /// The path of the literal's components: `[.key("shapes"), .index(3)]` is `shapes[3]`.
    public init(arrayLiteral elements: Component...) {
        self.init(elements)
    }
}

extension ArchivePath: Comparable {
    /// Orders paths component by component (keys before indices), for stable reports.
    public static func < (lhs: ArchivePath, rhs: ArchivePath) -> Bool {
        for (a, b) in zip(lhs.components, rhs.components) where a != b {
            switch (a, b) {
            case (.key(let x), .key(let y)): return x.precedesExactly(y)
            case (.index(let x), .index(let y)): return x < y
            default: return a.sortRank < b.sortRank
            }
        }
        return lhs.components.count < rhs.components.count
    }
}

/// Keys compare and hash by their exact Unicode scalars, as ``ArchiveDictionary``'s do: a path
/// to `"\u{E9}"` and one to `"e\u{301}"` name two different values.
extension ArchivePath.Component {
    /// Whether the two components are the same step; keys compare by their exact Unicode scalars.
    public static func == (lhs: ArchivePath.Component, rhs: ArchivePath.Component) -> Bool {
        switch (lhs, rhs) {
        case (.key(let a), .key(let b)): return a.hasSameScalars(as: b)
        case (.index(let a), .index(let b)): return a == b
        case (.anyIndex, .anyIndex), (.anyKey, .anyKey): return true
        default: return false
        }
    }

    /// Hashes the kind of step and its key's Unicode scalars or its index.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sortRank)
        switch self {
        case .key(let key): key.hashScalars(into: &hasher)
        case .index(let index): hasher.combine(index)
        case .anyIndex, .anyKey: break
        }
    }

    fileprivate var sortRank: Int {
        switch self {
        case .key: return 0
        case .index: return 1
        case .anyKey: return 2
        case .anyIndex: return 3
        }
    }
}

/// Reads the textual form of a path.
private struct PathParser {
    let scalars: [Unicode.Scalar]
    let text: String
    var position = 0

    init(_ text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    mutating func parse() throws -> [ArchivePath.Component] {
        var components: [ArchivePath.Component] = []
        var expectKey = true
        while position < scalars.count {
            let scalar = scalars[position]
            if scalar == "[" {
                position += 1
                components.append(try parseBracket())
                expectKey = false
            } else if scalar == "." {
                if components.isEmpty || expectKey { throw error("unexpected '.'") }
                position += 1
                expectKey = true
            } else {
                if !expectKey { throw error("expected '.' or '['") }
                components.append(parseBareKey())
                expectKey = false
            }
        }
        if expectKey && !components.isEmpty { throw error("the path ends with '.'") }
        return components
    }

    mutating func parseBareKey() -> ArchivePath.Component {
        let start = position
        while position < scalars.count, scalars[position] != ".", scalars[position] != "[" {
            position += 1
        }
        var key = String.UnicodeScalarView()
        key.append(contentsOf: scalars[start..<position])
        let string = String(key)
        return string == "*" ? .anyKey : .key(string)
    }

    mutating func parseBracket() throws -> ArchivePath.Component {
        guard position < scalars.count else { throw error("unterminated '['") }
        if scalars[position] == "\"" {
            position += 1
            var key = String.UnicodeScalarView()
            while position < scalars.count, scalars[position] != "\"" {
                if scalars[position] == "\\" {
                    position += 1
                    guard position < scalars.count else { break }
                    if let escaped = try parseScalarEscape() {
                        key.append(escaped)
                        continue
                    }
                }
                key.append(scalars[position])
                position += 1
            }
            guard position < scalars.count else { throw error("unterminated quoted key") }
            position += 1
            try expectClosingBracket()
            return .key(String(key))
        }
        if scalars[position] == "*" {
            position += 1
            try expectClosingBracket()
            return .anyIndex
        }
        var digits = ""
        while position < scalars.count, ("0"..."9").contains(scalars[position]) {
            digits.unicodeScalars.append(scalars[position])
            position += 1
        }
        guard let index = Int(digits) else { throw error("expected an index, '*' or a quoted key after '['") }
        try expectClosingBracket()
        return .index(index)
    }

    /// After a backslash: `u{HEX}` as the scalar it names (``ArchivePath/escape(_:)``), or `nil`
    /// for any other character, which stands for itself.
    mutating func parseScalarEscape() throws -> Unicode.Scalar? {
        guard scalars[position] == "u", position + 1 < scalars.count, scalars[position + 1] == "{" else { return nil }
        var end = position + 2
        var hex = ""
        while end < scalars.count, scalars[end] != "}", hex.unicodeScalars.count < 8 {
            hex.unicodeScalars.append(scalars[end])
            end += 1
        }
        guard end < scalars.count, scalars[end] == "}", let value = UInt32(hex, radix: 16),
            let scalar = Unicode.Scalar(value)
        else { throw error("expected a scalar such as \\u{1B} after '\\u'") }
        position = end + 1
        return scalar
    }

    mutating func expectClosingBracket() throws {
        guard position < scalars.count, scalars[position] == "]" else { throw error("expected ']'") }
        position += 1
    }

    func error(_ message: String) -> ArchiveError {
        ArchiveError(.invalidPath, "invalid path '\(text)': \(message) at character \(position + 1)")
    }
}
