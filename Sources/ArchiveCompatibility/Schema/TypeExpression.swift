/// A property's type as a schema snapshot writes it (`String`, `[Point]`, `[String: Double]`,
/// `Set<Int>`, `Frame?`, `weak Node`), parsed so that snapshots can be compared, generated from
/// and checked structurally.
///
/// ```swift
/// TypeExpression(parsing: "[String: [Point]]")   // .dictionary(key: String, value: .array(Point))
/// ```
///
/// A name is a primitive (``primitiveNames``), a nested type the snapshot defines
/// (``ModelSchema/nestedTypes``), or an archive type name (a model, or the protocol of a
/// polymorphic key).
indirect enum TypeExpression: Hashable, Sendable, CustomStringConvertible {
    case named(String)
    case optional(TypeExpression)
    case array(TypeExpression)
    case set(TypeExpression)
    case dictionary(key: TypeExpression, value: TypeExpression)
    /// A weak back-reference (`@WeakReference`): archived conditionally, never required.
    case weak(TypeExpression)

    /// The types the coders write as one value of their own.
    static let primitiveNames: Set<String> = [
        "String", "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "Date", "Data", "URL", "Decimal", "UUID", "ArchiveValue", "UnknownFields", "UnknownModel",
        "[Any]",
    ]

    /// Parses the text; text that does not parse is kept as one name (compared as written).
    init(parsing text: String) {
        var parser = Parser(Array(text.unicodeScalars))
        if let parsed = parser.parseType(), parser.isAtEnd {
            self = parsed
        } else {
            self = .named(text)
        }
    }

    var description: String {
        switch self {
        case .named(let name): return name
        case .optional(let wrapped): return "\(wrapped)?"
        case .array(let element): return "[\(element)]"
        case .set(let element): return "Set<\(element)>"
        case .dictionary(let key, let value): return "[\(key): \(value)]"
        case .weak(let object): return "weak \(object)"
        }
    }

    /// Every name the expression mentions.
    var names: [String] {
        switch self {
        case .named(let name): return [name]
        case .optional(let inner), .array(let inner), .set(let inner), .weak(let inner): return inner.names
        case .dictionary(let key, let value): return key.names + value.names
        }
    }

    /// Whether the name is a primitive.
    static func isPrimitive(_ name: String) -> Bool {
        primitiveNames.contains(name)
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        var isAtEnd: Bool { index >= scalars.count }

        mutating func skipSpaces() {
            while index < scalars.count, scalars[index] == " " { index += 1 }
        }

        mutating func take(_ text: String) -> Bool {
            let wanted = Array(text.unicodeScalars)
            guard index + wanted.count <= scalars.count, Array(scalars[index..<index + wanted.count]) == wanted else {
                return false
            }
            index += wanted.count
            return true
        }

        mutating func parseType() -> TypeExpression? {
            skipSpaces()
            var type: TypeExpression
            if take("weak ") {
                guard let object = parseType() else { return nil }
                return .weak(object)
            } else if take("[Any]") {
                type = .named("[Any]")
            } else if take("[") {
                guard let first = parseType() else { return nil }
                skipSpaces()
                if take(":") {
                    guard let value = parseType() else { return nil }
                    skipSpaces()
                    guard take("]") else { return nil }
                    type = .dictionary(key: first, value: value)
                } else {
                    guard take("]") else { return nil }
                    type = .array(first)
                }
            } else if take("Set<") {
                guard let element = parseType() else { return nil }
                skipSpaces()
                guard take(">") else { return nil }
                type = .set(element)
            } else {
                guard let name = parseName() else { return nil }
                type = .named(name)
            }
            while index < scalars.count, scalars[index] == "?" {
                index += 1
                type = .optional(type)
            }
            return type
        }

        /// A name, with balanced generic arguments (`Box<Int>`).
        mutating func parseName() -> String? {
            var name = String.UnicodeScalarView()
            var depth = 0
            while index < scalars.count {
                let scalar = scalars[index]
                if depth == 0, scalar == "]" || scalar == ":" || scalar == "?" || scalar == ">" || scalar == "," {
                    break
                }
                if scalar == "<" { depth += 1 }
                if scalar == ">" { depth -= 1 }
                name.append(scalar)
                index += 1
            }
            let text = String(name).trimmingSpaces
            return text.isEmpty ? nil : text
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
