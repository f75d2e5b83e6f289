/// The arguments of one invocation, checked against a ``CommandSpec``.
public struct ParsedArguments: Sendable, Hashable {
    /// Positional arguments in order.
    public var positional: [String] = []
    /// Values by option name (flags hold an empty string per occurrence).
    public var values: [String: [String]] = [:]

    /// Whether the flag `name` was given.
    public func flag(_ name: String) -> Bool {
        values[name] != nil
    }

    /// The (last) value of option `name`.
    public func value(_ name: String) -> String? {
        values[name]?.last
    }

    /// Every value of a repeatable option `name`.
    public func all(_ name: String) -> [String] {
        values[name] ?? []
    }
}

/// A usage error: wrong option, missing argument, bad value. Printed with the command's usage
/// line; the process exits with status 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var command: String?

    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}

/// Parses arguments against a ``CommandSpec``: long options (`--to 3`, `--to=3`), short ones
/// (`-o dir`), flags, `--` ending options, and positional arguments.
enum ArgumentParser {
    static func parse(_ arguments: [String], for spec: CommandSpec) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positional.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let option: OptionSpec
            var inlineValue: String?
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let found = spec.options.first(where: { $0.name == name }) else {
                    throw UsageError("unknown option '--\(name)'\(suggestion(for: name, in: spec))", command: spec.name)
                }
                option = found
            } else {
                let letters = Array(argument.dropFirst())
                guard letters.count == 1, let found = spec.options.first(where: { $0.short == letters[0] }) else {
                    throw UsageError("unknown option '\(argument)'", command: spec.name)
                }
                option = found
            }
            if !option.repeatable, parsed.values[option.name] != nil {
                throw UsageError("'--\(option.name)' is given twice", command: spec.name)
            }
            switch option.kind {
            case .flag:
                guard inlineValue == nil else {
                    throw UsageError("'--\(option.name)' takes no value", command: spec.name)
                }
                parsed.values[option.name, default: []].append("")
            case .value(let valueName):
                if let inlineValue {
                    parsed.values[option.name, default: []].append(inlineValue)
                } else if index < arguments.count {
                    parsed.values[option.name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw UsageError("'--\(option.name)' needs a value <\(valueName)>", command: spec.name)
                }
            }
        }
        try checkPositional(parsed.positional, spec: spec)
        return parsed
    }

    private static func checkPositional(_ positional: [String], spec: CommandSpec) throws {
        let required = spec.arguments.filter { !$0.optional }.count
        let unlimited = spec.arguments.contains { $0.repeating }
        if positional.count < required {
            let missing = spec.arguments.filter { !$0.optional }[positional.count]
            throw UsageError("missing argument <\(missing.name)>", command: spec.name)
        }
        if !unlimited, positional.count > spec.arguments.count {
            throw UsageError("unexpected argument '\(positional[spec.arguments.count])'", command: spec.name)
        }
    }

    private static func suggestion(for name: String, in spec: CommandSpec) -> String {
        let close = spec.options.map(\.name).filter { candidate in
            candidate.hasPrefix(name) || name.hasPrefix(candidate) || editDistance(candidate, name) <= 2
        }
        return close.first.map { " (did you mean '--\($0)'?)" } ?? ""
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// Usage text generated from the same tables the parser reads.
enum UsageText {
    static func command(_ spec: CommandSpec, tool: String) -> String {
        var lines: [String] = []
        let arguments = spec.arguments.map(\.usageFragment).joined(separator: " ")
        let options = spec.options.isEmpty ? "" : " [options]"
        lines.append("USAGE: \(tool) \(spec.name)\(options)\(arguments.isEmpty ? "" : " " + arguments)")
        lines.append("")
        lines.append(spec.abstract)
        if !spec.discussion.isEmpty {
            lines.append("")
            lines.append(contentsOf: wrap(spec.discussion, width: 100))
        }
        if !spec.arguments.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            lines.append(contentsOf: table(spec.arguments.map { ($0.usageFragment, $0.help) }))
        }
        lines.append("")
        lines.append("OPTIONS:")
        var rows = spec.options.map { option -> (String, String) in
            let short = option.short.map { "-\($0), " } ?? ""
            return (short + option.usageFragment, option.help + (option.repeatable ? " (repeatable)" : ""))
        }
        rows.append(("-h, --help", "Show help for this command."))
        lines.append(contentsOf: table(rows))
        return lines.joined(separator: "\n") + "\n"
    }

    static func tool(_ specs: [CommandSpec], tool: String, abstract: String) -> String {
        var lines = ["USAGE: \(tool) <command> [options] [arguments]", "", abstract, "", "COMMANDS:"]
        lines.append(contentsOf: table(specs.map { ($0.name, $0.abstract) }))
        lines.append("")
        lines.append("OPTIONS:")
        lines.append(contentsOf: table([("-h, --help", "Show this help."), ("--version", "Show the version.")]))
        lines.append("")
        lines.append("See '\(tool) <command> --help' for the options of a command.")
        lines.append("Exit status: 0 success, 1 findings (a failed check, a difference), 2 usage or input error.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Breaks `text` into lines of at most `width` characters at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.components(separatedBy: "\n") {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                if !line.isEmpty, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            lines.append(line)
        }
        return lines
    }

    private static func table(_ rows: [(String, String)]) -> [String] {
        let width = min(32, (rows.map(\.0.count).max() ?? 0) + 2)
        return rows.map { left, right in
            let padding = left.count < width ? String(repeating: " ", count: width - left.count) : "  "
            return "  " + left + padding + right
        }
    }
}
