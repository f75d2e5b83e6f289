/// The declaration of one command-line option: the table usage text and parsing are generated
/// from.
public struct OptionSpec: Sendable, Hashable {
    /// Whether the option takes a value.
    public enum Kind: Sendable, Hashable {
        /// `--in-place`: present or absent.
        case flag
        /// `--to 3`, `--to=3`: one value (or several when repeatable).
        case value(name: String)
    }

    /// The long name without dashes (`in-place`).
    public var name: String
    /// An optional one-letter alias (`o` for `-o`).
    public var short: Character?
    public var kind: Kind
    /// One line of help.
    public var help: String
    /// Whether the option may be given several times.
    public var repeatable: Bool

    public init(_ name: String, short: Character? = nil, _ kind: Kind = .flag, repeatable: Bool = false, help: String) {
        self.name = name
        self.short = short
        self.kind = kind
        self.help = help
        self.repeatable = repeatable
    }

    var usageFragment: String {
        switch kind {
        case .flag: return "--\(name)"
        case .value(let value): return "--\(name) <\(value)>"
        }
    }
}

/// The declaration of the positional arguments of a command.
public struct ArgumentSpec: Sendable, Hashable {
    /// The name shown in usage (`file`).
    public var name: String
    public var help: String
    /// Whether several may be given (`<file>…`).
    public var repeating: Bool
    /// Whether it may be left out.
    public var optional: Bool

    public init(_ name: String, repeating: Bool = false, optional: Bool = false, help: String) {
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
public struct CommandSpec: Sendable {
    public var name: String
    /// One line shown in the command list.
    public var abstract: String
    /// Paragraphs shown by `<command> --help`.
    public var discussion: String
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]

    public init(
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
