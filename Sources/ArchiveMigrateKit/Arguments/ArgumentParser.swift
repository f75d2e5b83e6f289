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
                    throw UsageError("unknown option '--\(name)'\(suggestion(for: name, in: spec))")
                }
                option = found
            } else {
                let letters = Array(argument.dropFirst())
                guard letters.count == 1, let found = spec.options.first(where: { $0.short == letters[0] }) else {
                    throw UsageError("unknown option '\(argument)'")
                }
                option = found
            }
            if !option.repeatable, parsed.values[option.name] != nil {
                throw UsageError("'--\(option.name)' is given twice")
            }
            switch option.kind {
            case .flag:
                guard inlineValue == nil else {
                    throw UsageError("'--\(option.name)' takes no value")
                }
                parsed.values[option.name, default: []].append("")
            case .value(let valueName):
                if let inlineValue {
                    parsed.values[option.name, default: []].append(inlineValue)
                } else if index < arguments.count {
                    parsed.values[option.name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw UsageError("'--\(option.name)' needs a value <\(valueName)>")
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
            throw UsageError("missing argument <\(missing.name)>")
        }
        if !unlimited, positional.count > spec.arguments.count {
            throw UsageError("unexpected argument '\(positional[spec.arguments.count])'")
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

/// A usage error: wrong option, missing argument, bad value. Printed with the command's usage
/// line; the process exits with status 2.
struct UsageError: Error, Sendable, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
