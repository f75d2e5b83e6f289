import Foundation
import ModelVersioning

/// The `archive-migrate` command-line tool as a library, so that an app builds the same tool
/// with its own registered models (closures and typed migrations included):
///
/// ```swift
/// // main.swift of the app's executable target `myapp-migrate`
/// import ArchiveMigrateKit
/// import MyAppModels
/// ArchiveMigrate.main(name: "myapp-migrate", registry: MyAppModels.registry)
/// ```
///
/// Subcommands: `upgrade`, `downgrade`, `check`, `inspect`, `convert`, `diff`; `--help` at
/// every level. Exit status: 0 success, 1 findings (a failed check, a difference, a `--dry-run`
/// that would change something), 2 usage or input error, 3 an archive written by a newer
/// version than the tool knows; in a batch 2 wins over 3 and 3 over 1. Reports and errors go to
/// standard error, archive data to standard output; `--format json` gives machine-readable
/// reports.
public struct ArchiveMigrate: Sendable {
    /// The name shown in usage text.
    public var name: String
    /// The app's models and chains; empty for the stand-alone tool, which works from rules files.
    public var registry: ModelRegistry

    /// The version of the tool.
    public static let version = "0.1.0"

    /// The subcommands, in the order `--help` lists them.
    static let commands: [Command] = [
        UpgradeCommand.command, DowngradeCommand.command, CheckCommand.command, InspectCommand.command,
        ConvertCommand.command, DiffCommand.command,
    ]

    /// Creates the tool.
    public init(name: String = "archive-migrate", registry: ModelRegistry = ModelRegistry()) {
        self.name = name
        self.registry = registry
    }

    /// Runs the tool with `arguments` (without the program name) and returns the exit status.
    public func run(_ arguments: [String]) -> Int32 {
        let console = Console()
        console.claimClosedStreams()
        let status = run(arguments, console: console)
        // A run whose output or messages could not be written failed, whatever it did: the
        // failure is told on the stream that still works.
        for (stream, other) in [(Console.Stream.output, Console.Stream.error), (.error, .output)] {
            guard let failure = console.failure(of: stream) else { continue }
            if console.failure(of: other) == nil {
                if other == .error { console.error("error: \(failure)") } else { console.print("error: \(failure)") }
            }
            return ExitStatus.failure.rawValue  // the most severe status
        }
        return status
    }

    private func run(_ arguments: [String], console: Console) -> Int32 {
        let abstract = "Upgrades, checks, inspects, converts and downgrades versioned archives."
        guard let first = arguments.first else {
            console.error(UsageText.tool(Self.commands.map(\.spec), tool: name, abstract: abstract))
            return ExitStatus.failure.rawValue
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1, let command = command(named: arguments[1]) {
                console.print(UsageText.command(command.spec, tool: name))
            } else {
                console.print(UsageText.tool(Self.commands.map(\.spec), tool: name, abstract: abstract))
            }
            return ExitStatus.success.rawValue
        }
        if first == "--version" {
            console.print("\(name) \(Self.version)")
            return ExitStatus.success.rawValue
        }
        guard let command = command(named: first) else {
            console.error("error: unknown command '\(first)'\(suggestion(for: first))")
            console.error("See '\(name) --help'.")
            return ExitStatus.failure.rawValue
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            console.print(UsageText.command(command.spec, tool: name))
            return ExitStatus.success.rawValue
        }
        let context = ToolContext(
            tool: name, registry: registry, console: console,
            workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        do {
            let parsed = try ArgumentParser.parse(rest, for: command.spec)
            return try command.run(parsed, context).rawValue
        } catch let error as UsageError {
            console.error("error: \(error.message)")
            console.error(UsageText.command(command.spec, tool: name).components(separatedBy: "\n").first ?? "")
            console.error("See '\(name) \(command.spec.name) --help'.")
            return ExitStatus.failure.rawValue
        } catch {
            console.error("error: \(error)")
            return ExitStatus(error: error).rawValue
        }
    }

    /// Runs the tool with the process's arguments and exits with its status.
    public static func main(name: String = "archive-migrate", registry: ModelRegistry = ModelRegistry()) -> Never {
        let status = ArchiveMigrate(name: name, registry: registry).run(Array(CommandLine.arguments.dropFirst()))
        exit(status)
    }

    /// Builds the registry, then runs the tool; a registry that fails to build (an invalid
    /// chain, two types with one name) is reported on standard error with exit status 2.
    ///
    /// ```swift
    /// ArchiveMigrate.main(name: "myapp-migrate", registry: MyAppModels.registry)   // a throwing function
    /// ```
    public static func main(name: String, registry makeRegistry: () throws -> ModelRegistry) -> Never {
        do {
            main(name: name, registry: try makeRegistry())
        } catch {
            Console().error("error: the app's models are inconsistent: \(error)")
            exit(ExitStatus.failure.rawValue)
        }
    }

    private func command(named name: String) -> Command? {
        Self.commands.first { $0.spec.name == name }
    }

    private func suggestion(for name: String) -> String {
        let close = Self.commands.map(\.spec.name).filter { ArgumentParser.editDistance($0, name) <= 2 }
        return close.first.map { " (did you mean '\($0)'?)" } ?? ""
    }
}
