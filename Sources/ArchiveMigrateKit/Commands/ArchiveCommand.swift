/// One subcommand: its table and its action.
struct Command: Sendable {
    let spec: CommandSpec
    let run: @Sendable (_ arguments: ParsedArguments, _ context: ToolContext) throws -> ExitStatus
}

/// A subcommand's namespace: its table and its action, made into a ``Command``.
protocol ArchiveCommand: SendableMetatype {
    static var spec: CommandSpec { get }
    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus
}

extension ArchiveCommand {
    static var command: Command {
        Command(spec: spec, run: { arguments, context in try run(arguments, context: context) })
    }
}
