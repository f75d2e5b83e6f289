/// The declaration of the positional arguments of a command.
struct ArgumentSpec: Sendable, Hashable {
    /// The name shown in usage (`file`).
    var name: String
    var help: String
    /// Whether several may be given (`<file>…`).
    var repeating: Bool
    /// Whether it may be left out.
    var optional: Bool

    init(_ name: String, repeating: Bool = false, optional: Bool = false, help: String) {
        self.name = name
        self.help = help
        self.repeating = repeating
        self.optional = optional
    }

    var usageFragment: String {
        let core = repeating ? "<\(name)>…" : "<\(name)>"
        return optional ? "[\(core)]" : core
    }
}

/// The declaration of one subcommand: its name, help, arguments and options.
struct CommandSpec: Sendable {
    var name: String
    /// One line shown in the command list.
    var abstract: String
    /// Paragraphs shown by `<command> --help`.
    var discussion: String
    var arguments: [ArgumentSpec]
    var options: [OptionSpec]

    init(
        name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
    }
}
