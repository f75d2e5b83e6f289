import Foundation
import ModelVersioning

/// What every command may use: the registry, the console, the working directory.
struct ToolContext: Sendable {
    let tool: String
    let registry: ModelRegistry
    let console: Console
    let workingDirectory: URL

    /// The context of the Swift API's front doors (``ArchiveFiles``, ``SQLiteArchiveColumn``):
    /// no registry, the process's working directory, and a console that writes nothing.
    static var library: ToolContext {
        ToolContext(
            tool: "ModelVersioning", registry: ModelRegistry(), console: .silent,
            workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
    }

    /// A path from the command line, relative to the working directory.
    func url(_ path: String) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : workingDirectory.appendingPathComponent(path)
    }

    /// The registry with the chains of the given rules files added.
    func registry(rules paths: [String]) throws -> ModelRegistry {
        var registry = self.registry
        for path in paths {
            registry = try registry.adding(rules: try Self.loadRules(url(path), shownAs: path))
        }
        return registry
    }

    /// Reads a rules file with the limits archives are read with (`ArchiveLimits.default`): a
    /// file larger than the readers accept is refused before it is read into memory, and the JSON
    /// reader and the rules-file reader check the same bounds.
    static func loadRules(_ url: URL, shownAs path: String, limits: ArchiveLimits = .default) throws
        -> MigrationCatalog
    {
        let data = try InputFile.read(url, shownAs: "the rules file \(path)", limit: limits.maxInputBytes)
        do {
            let tree = try ArchiveFormat.json.read(data, options: ArchiveReadingOptions(limits: limits, markup: .plain))
            return try MigrationCatalog(rulesFile: tree, fileName: path, limits: limits)
        } catch let error as ArchiveError {
            throw error.adding(file: path)
        }
    }

    /// An input read as a document, with the bytes it was read from.
    struct InputDocument: Sendable {
        var document: ArchiveDocument
        var bytes: Data
    }

    /// Reads an archive or plain document in any supported format; `-` reads standard input.
    ///
    /// - Throws: `ArchiveError`: code `io` for a path that is not a readable file (a
    ///   directory, a FIFO, a device; the message says which), `limitExceeded` for a file larger
    ///   than ``ArchiveLimits/maxInputBytes``, or what the format's reader throws, located in
    ///   the file.
    func readArchive(_ path: String) throws -> ArchiveDocument {
        try readInput(path).document
    }

    /// Reads an archive or plain document, keeping its bytes (for a backup); see
    /// ``readArchive(_:)``.
    func readInput(_ path: String) throws -> InputDocument {
        let limit = ArchiveLimits.default.maxInputBytes
        // `-` is standard input.
        let bytes =
            path == "-"
            ? try InputFile.readStandardInput(limit: limit) : try InputFile.read(url(path), shownAs: path, limit: limit)
        let path = path == "-" ? InputFile.standardInputName : path
        do {
            return InputDocument(document: try ArchiveDocument(data: bytes), bytes: bytes)
        } catch let error as ArchiveError {
            throw error.adding(file: path)
        }
    }

    /// The value of `--format`, checked against `allowed`.
    func outputFormat(_ arguments: ParsedArguments, allowed: [OutputFormat] = [.text, .json]) throws -> OutputFormat {
        guard let name = arguments.value(.format) else { return .text }
        guard let format = OutputFormat(rawValue: name), allowed.contains(format) else {
            throw UsageError("'--format' must be \(allowed.map(\.rawValue).joined(separator: " or ")), not '\(name)'")
        }
        return format
    }

    /// A tree printed as pretty JSON (plain markup, for people and scripts).
    func printJSON(_ tree: ArchiveValue) throws {
        let data = try ArchiveFormat.json.write(
            tree, options: ArchiveWritingOptions(prettyPrinted: true, markup: .plain))
        console.write(data)
    }
}
