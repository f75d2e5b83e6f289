/// The arguments of one invocation, checked against a ``CommandSpec``.
struct ParsedArguments: Sendable, Hashable {
    /// Positional arguments in order.
    var positional: [String] = []
    /// Values by option name (flags hold an empty string per occurrence).
    var values: [String: [String]] = [:]

    /// Whether the flag `option` was given.
    func flag(_ option: OptionSpec) -> Bool {
        values[option.name] != nil
    }

    /// The (last) value of `option`.
    func value(_ option: OptionSpec) -> String? {
        values[option.name]?.last
    }

    /// Every value of a repeatable `option`.
    func all(_ option: OptionSpec) -> [String] {
        values[option.name] ?? []
    }
}
