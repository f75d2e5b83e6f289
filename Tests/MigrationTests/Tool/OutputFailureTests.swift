import Foundation
import TestSupport
import Testing

// Output is I/O like any other: standard output or standard error on a full disk (/dev/full) or
// closed (`>&-`) ends the run with exit status 2 and a message on the stream that still works,
// never a trap (Foundation's FileHandle.write traps on such an error), and leaves no temporary
// file behind; a SQLite transaction is whole whatever happens to the report.

@Suite("Writes to standard output and standard error that fail")
struct OutputFailureTests {
    /// What a shell run of the tool left: its status and the streams that were files.
    struct ShellRun {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs `archive-migrate ARGUMENTS REDIRECTIONS` through `/bin/sh` in `folder`: the
    /// redirections may send a stream to `/dev/full` or close it; the streams not redirected go
    /// to `out.txt` and `err.txt`.
    static func shell(_ arguments: [String], redirections: String, in folder: URL) throws -> ShellRun {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let tool = ToolProcess.productsDirectory.appendingPathComponent("archive-migrate").path
        let command = ([tool] + arguments).map(quoted).joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(command) >out.txt 2>err.txt \(redirections)"]
        process.currentDirectoryURL = folder
        try process.run()
        process.waitUntilExit()
        func text(_ name: String) -> String {
            (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
        }
        return ShellRun(status: process.terminationStatus, output: text("out.txt"), errors: text("err.txt"))
    }

    static let canUseDevFull = FileManager.default.isWritableFile(atPath: "/dev/full")

    @Test(
        "upgrade, convert and inspect to a full standard output: status 2 and the reason on standard error",
        .enabled(if: canUseDevFull))
    func fullStandardOutput() throws {
        let scratch = try ScratchFolder()
        _ = try scratch.copy(fixture: "archives/Sketch/v1/kyoto-trip.json", to: "kyoto-trip.json")
        _ = try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        for arguments in [
            ["upgrade", "-", "--rules", "rules.json"], ["convert", "kyoto-trip.json", "--to", "xml-plist"],
            ["inspect", "kyoto-trip.json", "--rules", "rules.json"],
            ["upgrade", "--ndjson", "-", "--rules", "rules.json"],
        ] {
            let input = arguments.contains("-") ? "<kyoto-trip.json" : ""
            let run = try Self.shell(arguments, redirections: "\(input) >/dev/full", in: scratch.url)
            #expect(run.status == 2, "\(arguments): \(run.status) \(run.errors)")
            #expect(
                run.errors.contains("error: cannot write to standard output: No space left on device"),
                "\(arguments): \(run.errors)")
        }
    }

    @Test("a closed standard output: status 2 and the reason on standard error")
    func closedStandardOutput() throws {
        let scratch = try ScratchFolder()
        _ = try scratch.copy(fixture: "archives/Sketch/v1/kyoto-trip.json", to: "kyoto-trip.json")
        _ = try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        let run = try Self.shell(
            ["upgrade", "kyoto-trip.json", "--rules", "rules.json"], redirections: ">&-", in: scratch.url)
        #expect(run.status == 2, "\(run.status) \(run.errors)")
        #expect(run.errors.contains("error: cannot write to standard output: Bad file descriptor"), "\(run.errors)")
    }

    @Test(
        "an in-place batch with a full standard error: every file upgraded, no temporary file left, status 2 told on standard output",
        .enabled(if: canUseDevFull))
    func fullStandardErrorInPlace() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixtureFolder: "archives/Sketch/v1", to: "drawings")
        _ = try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        let run = try Self.shell(
            ["upgrade", "drawings", "--include", "*.json", "--rules", "rules.json", "--in-place"],
            redirections: "2>/dev/full", in: scratch.url)
        #expect(run.status == 2, "\(run.status) \(run.output)")
        #expect(run.output.contains("error: cannot write to standard error: No space left on device"), "\(run.output)")
        let names = try FileManager.default.contentsOfDirectory(
            atPath: scratch.url.appendingPathComponent("drawings").path)
        #expect(names.sorted() == ["empty.json", "floor-plan.json", "kyoto-trip.json"], "\(names)")
        // Every file was upgraded: a dry run finds nothing to change.
        let again = try ToolProcess.run(
            ["upgrade", "drawings", "--include", "*.json", "--rules", "rules.json", "--dry-run"], in: scratch.url)
        #expect(again.status == 0, "\(again.standardError)")
    }
}
