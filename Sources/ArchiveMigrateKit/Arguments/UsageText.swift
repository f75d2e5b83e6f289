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
        lines.append(
            "Exit status: 0 success, 1 findings (a failed check, a difference, a dry run that would change something),")
        lines.append("2 usage or input error, 3 an archive written by a newer version; in a batch 2 > 3 > 1 > 0.")
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
