import ModelVersioning

/// One rule of a ``MigrationProposal``, rendered as Swift and as a rules-file rule; values the
/// user must choose are ``ProposedValue/todo(_:)`` placeholders that neither compiles nor loads.
indirect enum ProposedRule: Sendable, Hashable {
    case add(String, default: ProposedValue)
    /// `restoring` is the value a downgrade restores (`.literal(.null)` for an optional key).
    case remove(String, restoring: ProposedValue)
    case rename(String, to: String)
    case convert(String, ProposedConverter)
    case wrapInArray(String)
    case takeFirst(String)
    case scoped(ArchivePath, [ProposedRule])
    /// Alternatives the user picks from (a likely rename, or a key removed and one added): never
    /// applied silently. `comment` explains the choice.
    case choice(comment: String, [[ProposedRule]])

    /// The rule in Swift, one element of a `rules:` array literal (without the trailing comma),
    /// over one or more lines, indented by `indent`.
    func swift(indent: String) -> [String] {
        switch self {
        case .add(let key, let value):
            return [indent + ".add(\(Self.swiftString(key)), default: \(value.swift(optionalIsNil: true)))"]
        case .remove(let key, let value):
            return [indent + ".remove(\(Self.swiftString(key)), restoring: \(value.swift(optionalIsNil: false)))"]
        case .rename(let key, let newKey):
            return [indent + ".rename(\(Self.swiftString(key)), to: \(Self.swiftString(newKey)))"]
        case .convert(let key, let converter):
            return [indent + ".convert(\(Self.swiftString(key)), \(converter.swift))"]
        case .wrapInArray(let key):
            return [indent + ".wrapInArray(\(Self.swiftString(key)))"]
        case .takeFirst(let key):
            return [indent + ".takeFirst(\(Self.swiftString(key)))"]
        case .scoped(let path, let rules):
            let inner = rules.flatMap { $0.swift(indent: indent + "    ") }
            if inner.count == 1, !rules.contains(where: \.isChoice) {
                let rule = inner[0].drop { $0 == " " }
                return [indent + ".scoped(\(Self.swiftString(path.description)), [\(rule)])"]
            }
            return [indent + ".scoped(\(Self.swiftString(path.description)), ["]
                + rules.flatMap { $0.swiftElements(indent: indent + "    ") } + [indent + "])"]
        case .choice:
            return swiftElements(indent: indent)
        }
    }

    /// The rule as elements of an array literal, each rule's last line ending with a comma; a
    /// choice is its comment and every alternative, each introduced by a comment.
    func swiftElements(indent: String) -> [String] {
        guard case .choice(let comment, let choices) = self else {
            var lines = swift(indent: indent)
            if let last = lines.indices.last { lines[last] += "," }
            return lines
        }
        // A placeholder element: the step does not compile until the choice is made.
        var lines = [indent + "<#TODO: \(comment) Keep one choice, delete the other and this line#>,"]
        for (number, choice) in choices.enumerated() {
            lines.append(indent + "// Choice \(number + 1) of \(choices.count) (delete the other):")
            lines += choice.flatMap { $0.swiftElements(indent: indent) }
        }
        return lines
    }

    var isChoice: Bool {
        if case .choice = self { return true }
        return false
    }

    /// The rule as rules-file JSON objects, each as its lines (a choice is several objects, the
    /// first of each alternative carrying a `TODO` key, which the rules-file reader refuses until
    /// the choice is made).
    func jsonObjects(indent: String) -> [[String]] {
        switch self {
        case .add(let key, let value):
            return [[indent + "{ \"add\": \(Self.jsonString(key)), \(value.json(key: "default")) }"]]
        case .remove(let key, let value):
            return [[indent + "{ \"remove\": \(Self.jsonString(key)), \(value.json(key: "restoring")) }"]]
        case .rename(let key, let newKey):
            return [[indent + "{ \"rename\": \(Self.jsonString(key)), \"to\": \(Self.jsonString(newKey)) }"]]
        case .convert(let key, let converter):
            return [[indent + "{ \"convert\": \(Self.jsonString(key)), \(converter.json) }"]]
        case .wrapInArray(let key):
            return [[indent + "{ \"wrapInArray\": \(Self.jsonString(key)) }"]]
        case .takeFirst(let key):
            return [[indent + "{ \"takeFirst\": \(Self.jsonString(key)) }"]]
        case .scoped(let path, let rules):
            return [
                [indent + "{ \"scope\": \(Self.jsonString(path.description)), \"rules\": ["]
                    + Self.jsonList(rules, indent: indent + "  ") + [indent + "] }"]
            ]
        case .choice(let comment, let choices):
            var objects: [[String]] = []
            for (number, choice) in choices.enumerated() {
                let note =
                    "\(comment) Choice \(number + 1) of \(choices.count): keep it (and delete this key) or delete it."
                for (index, rule) in choice.enumerated() {
                    var rendered = rule.jsonObjects(indent: indent)
                    if index == 0, var first = rendered.first, let line = first.first,
                        let brace = line.firstIndex(of: "{")
                    {
                        first[0] =
                            String(line[...brace]) + " \"TODO\": \(Self.jsonString(note)),"
                            + String(line[line.index(after: brace)...])
                        rendered[0] = first
                    }
                    objects += rendered
                }
            }
            return objects
        }
    }

    /// Rules as the elements of a JSON array, commas between them.
    static func jsonList(_ rules: [ProposedRule], indent: String) -> [String] {
        var objects = rules.flatMap { $0.jsonObjects(indent: indent) }
        for index in objects.indices.dropLast() {
            objects[index][objects[index].count - 1] += ","
        }
        return objects.flatMap { $0 }
    }

    static func swiftString(_ text: String) -> String { SchemaText.quoted(text) }
    static func jsonString(_ text: String) -> String { SchemaText.quoted(text) }
}

/// A value a proposed rule needs.
enum ProposedValue: Sendable, Hashable {
    case literal(ArchiveValue)
    /// A value to fill in, with what it must be (`a Double`).
    case todo(String)

    /// As a Swift `ArchiveValue` expression. `optionalIsNil`: whether `nil` may stand for
    /// `null` (`add(default: nil)`); `remove(restoring:)` needs `.null`, its `nil` means "nothing".
    func swift(optionalIsNil: Bool) -> String {
        switch self {
        case .literal(.null): return optionalIsNil ? "nil" : ".null"
        case .literal(let value): return Self.swiftLiteral(value)
        case .todo(let what): return "<#TODO: \(what)#>"
        }
    }

    /// As `"key": value` of a rules-file rule; a TODO is the key `TODO`, which the rules-file
    /// reader refuses until it is replaced by `key` and a value.
    func json(key: String) -> String {
        switch self {
        case .literal(let value): return "\(SchemaText.quoted(key)): \(SchemaText.literal(value))"
        case .todo(let what): return "\"TODO\": \(SchemaText.quoted("\(key): \(what)"))"
        }
    }

    static func swiftLiteral(_ value: ArchiveValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .uint(let number): return String(number)
        case .double(let number): return "\(number)"
        case .string(let text): return SchemaText.quoted(text)
        case .array(let items): return "[" + items.map(swiftLiteral).joined(separator: ", ") + "]"
        case .dictionary(let entries):
            guard !entries.isEmpty else { return "[:]" }
            return "["
                + entries.map { "\(SchemaText.quoted($0.key)): \(swiftLiteral($0.value))" }.joined(separator: ", ")
                + "]"
        default: return "<#TODO: \(SchemaText.literal(value))#>"
        }
    }
}

/// The converter of a proposed `convert` rule.
enum ProposedConverter: Sendable, Hashable {
    /// A built-in without operands: `intToDouble`, `doubleToFloat`.
    case builtin(String)
    /// A value map, old value → new value.
    case map([ProposedMapping])
    /// Dates from strings, or strings from dates, in a format to choose.
    case date(toString: Bool)
    /// Nothing built in fits: a custom converter to write.
    case custom(from: String, to: String)

    var swift: String {
        switch self {
        case .builtin(let name): return ".\(name)"
        case .map(let mappings):
            return ".map(["
                + mappings.map { "\(ProposedValue.swiftLiteral($0.old)): \($0.new.swift(optionalIsNil: true))" }
                .joined(separator: ", ") + "])"
        case .date(let toString):
            return toString
                ? ".dateToString(format: <#TODO: a date format (.iso8601, …)#>)"
                : ".date(format: <#TODO: the strings' date format (.iso8601, …)#>)"
        case .custom(let from, let to):
            return "<#TODO: a ValueConverter from \(from) to \(to) (.custom(name:forward:inverse:))#>"
        }
    }

    var json: String {
        switch self {
        case .builtin(let name): return "\"using\": \(SchemaText.quoted(name))"
        case .map(let mappings):
            let known = mappings.compactMap { mapping -> String? in
                guard case .literal(let new) = mapping.new else { return nil }
                return "[\(SchemaText.literal(mapping.old)), \(SchemaText.literal(new))]"
            }
            let todo = mappings.compactMap { mapping -> String? in
                guard case .todo(let what) = mapping.new else { return nil }
                return "\(SchemaText.literal(mapping.old)) → \(what)"
            }
            var text = "\"map\": [" + known.joined(separator: ", ") + "]"
            if !todo.isEmpty {
                text += ", \"TODO\": " + SchemaText.quoted("add to the map: " + todo.joined(separator: "; "))
            }
            return text
        case .date(let toString):
            return toString
                ? "\"using\": \"date\", \"from\": \"date\", \"TODO\": \"to: the strings' date format (iso8601, …)\""
                : "\"using\": \"date\", \"to\": \"date\", \"TODO\": \"from: the strings' date format (iso8601, …)\""
        case .custom(let from, let to):
            return "\"TODO\": "
                + SchemaText.quoted("no rules-file converter turns \(from) into \(to): migrate it in Swift")
        }
    }
}

/// One entry of a proposed value map.
struct ProposedMapping: Sendable, Hashable {
    var old: ArchiveValue
    var new: ProposedValue
}

extension String {
    var trimmingLeadingSpaces: Substring { drop { $0 == " " } }
}
