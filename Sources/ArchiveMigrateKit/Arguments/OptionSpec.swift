/// The declaration of one command-line option: the table usage text and parsing are generated
/// from.
struct OptionSpec: Sendable, Hashable {
    /// Whether the option takes a value.
    enum Kind: Sendable, Hashable {
        /// `--in-place`: present or absent.
        case flag
        /// `--to 3`, `--to=3`: one value (or several when repeatable).
        case value(name: String)
    }

    /// The long name without dashes (`in-place`).
    var name: String
    /// An optional one-letter alias (`o` for `-o`).
    var short: Character?
    var kind: Kind
    /// One line of help.
    var help: String
    /// Whether the option may be given several times.
    var repeatable: Bool

    init(_ name: String, short: Character? = nil, _ kind: Kind = .flag, repeatable: Bool = false, help: String) {
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
