import Foundation
import ModelVersioning
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `upgrade` and `downgrade` take as input, and how they say what an input is: folders
/// (walked with `--include`, or refused), FIFOs, files that are no archive; and where their
/// reports go.
@Suite("archive-migrate inputs")
struct ToolInputTests {
    static let zorn = "versioned-json/zorn-VersionedFilesDemo/"

    static func peopleFolder(_ names: [String]) throws -> ScratchFolder {
        try FileSafetyTests.peopleFolder(names)
    }

    @Test("a folder is refused without --include, saying so, and walked with it (hidden files and backups skipped)")
    func folders() throws {
        let scratch = try Self.peopleFolder(["data/a.json", "data/sub/b.json", "data/.hidden.json", "data/c.json.bak"])
        try scratch.write("notes", to: "data/notes.txt")
        let refused = try ToolProcess.run(["upgrade", "data", "--rules", "rules.json", "--in-place"], in: scratch.url)
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("error: data is a directory (give --include PATTERN to walk it)"))
        #expect(!refused.standardError.contains("NSCocoaErrorDomain"))
        let inspect = try ToolProcess.run(["inspect", "data"], in: scratch.url)
        #expect(inspect.status == 2)
        #expect(inspect.standardError.contains("error: data is a directory"))

        let walked = try ToolProcess.run(
            ["upgrade", "data", "--include", "*.json", "--rules", "rules.json", "--in-place"], in: scratch.url)
        #expect(walked.status == 0, "\(walked.standardError)")
        #expect(walked.standardError.contains("upgraded data/a.json"))
        #expect(walked.standardError.contains("upgraded data/sub/b.json"))
        for name in ["data/a.json", "data/sub/b.json"] {
            #expect(try FileSafetyTests.version(scratch.url.appendingPathComponent(name)) == 3, "\(name)")
        }
        let v1 = try Fixture.data(Self.zorn + "simple-v1.people.json")
        #expect(try scratch.data("data/.hidden.json") == v1)
        #expect(try scratch.data("data/c.json.bak") == v1)
        #expect(try scratch.data("data/notes.txt") == Data("notes".utf8))

        let nothing = try ToolProcess.run(
            ["upgrade", "data", "--include", "*.jsn", "--rules", "rules.json", "--in-place"], in: scratch.url)
        #expect(nothing.status == 2)
        #expect(nothing.standardError.contains("no file in data matches --include '*.jsn'"))
    }

    @Test("a FIFO is named as such, at once, by every command that reads")
    func fifo() throws {
        let scratch = try Self.peopleFolder([])
        #expect(mkfifo(scratch.url.appendingPathComponent("pipe.json").path, 0o644) == 0)
        for arguments in [
            ["upgrade", "pipe.json", "--rules", "rules.json", "--in-place"], ["inspect", "pipe.json"],
            ["convert", "pipe.json", "--to", "json"], ["diff", "pipe.json", "pipe.json"],
        ] {
            let run = try ToolProcess.run(arguments, in: scratch.url)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.standardError.contains("pipe.json is a FIFO, not a file"), "\(arguments): \(run.standardError)")
            #expect(!run.standardError.contains("permission"))
        }
    }

    @Test("a file that is no archive and no document chain applies to is an error that suggests --document")
    func notAnArchive() throws {
        let scratch = try Self.peopleFolder([])
        try scratch.write(#"{"name": "a shopping list", "items": ["milk"]}"#, to: "list.json")
        try scratch.write(
            #"{"formatVersion": 1, "types": {"Circle": {"currentVersion": 2, "steps": ["#
                + #"{"from": 1, "to": 2, "name": "radius", "rules": [{"rename": "r", "to": "radius"}]}]}}}"#,
            to: "types.rules.json")
        let typesOnly = try ToolProcess.run(["upgrade", "list.json", "--rules", "types.rules.json"], in: scratch.url)
        #expect(typesOnly.status == 2)
        #expect(
            typesOnly.standardError.contains(
                "not an archive (no envelope, no typed objects) and no document chain applies")
                && typesOnly.standardError.contains("list.json"), "\(typesOnly.standardError)")
        #expect(typesOnly.standardOutput.isEmpty)

        let people = String(decoding: try scratch.data("rules.json"), as: UTF8.self)
        try scratch.write(
            people.replacingOccurrences(
                of: #""document": {"#, with: #""documents": [{"name": "other", "currentVersion": 1}, {"#
            )
            .replacingOccurrences(of: "\n  }\n}", with: "\n  }]\n}"), to: "two.rules.json")
        let two = try ToolProcess.run(["upgrade", "list.json", "--rules", "two.rules.json"], in: scratch.url)
        #expect(two.status == 2)
        #expect(
            two.standardError.contains("name the document chain (--document")
                && two.standardError.contains("one of other, people"),
            "\(two.standardError)")
    }

    @Test("with one document chain, a plain document without --document is migrated by it, and the report says so")
    func onlyDocumentChain() throws {
        let scratch = try Self.peopleFolder(["people.json"])
        let run = try ToolProcess.run(["upgrade", "people.json", "--rules", "rules.json"], in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try ArchiveFormat.json.read(run.standardOutput)["schema_version"] == 3)
        #expect(
            run.standardError.contains("people.json has no envelope; migrated with the only document chain, people"))
        let json = try ToolProcess.run(
            ["upgrade", "people.json", "--rules", "rules.json", "--dry-run", "--format", "json"], in: scratch.url)
        let report = try ArchiveFormat.json.read(Data(json.standardError.utf8))
        #expect(report["files"]?[0]?["note"]?.stringValue?.contains("the only document chain, people") == true)
    }

    @Test("errors name the file once")
    func errorsNameTheFileOnce() throws {
        let scratch = try Self.peopleFolder([])
        try scratch.write(#"{"schema_version": 1, "people": [{"id": "x", "name": 42}]}"#, to: "bad.json")
        try scratch.write(#"{"schema_version": "#, to: "broken.json")
        try FileManager.default.createDirectory(
            at: scratch.url.appendingPathComponent("inputs.d"), withIntermediateDirectories: true)
        for name in ["bad.json", "broken.json", "missing.json", "inputs.d"] {
            var commands = [["upgrade", name, "--rules", "rules.json", "--document", "people", "--in-place"]]
            // bad.json is well-formed: only its migration fails.
            if name != "bad.json" { commands += [["inspect", name], ["convert", name, "--to", "json"]] }
            for command in commands {
                let run = try ToolProcess.run(command, in: scratch.url)
                #expect(run.status == 2, "\(command)")
                let mentions = run.standardError.components(separatedBy: name).count - 1
                #expect(mentions == 1, "\(command): \(run.standardError)")
            }
        }
        let missing = try ToolProcess.run(["inspect", "missing.json"], in: scratch.url)
        #expect(missing.standardError.contains("error: missing.json does not exist"))
    }

    @Test("reports go to standard error and only archive data to standard output, whatever the destination")
    func reportsOnStandardError() throws {
        let scratch = try Self.peopleFolder(["a.json", "b.json"])
        let base = ["--rules", "rules.json", "--document", "people"]
        let toOutput = try ToolProcess.run(["upgrade", "a.json"] + base, in: scratch.url)
        #expect(try ArchiveFormat.json.read(toOutput.standardOutput)["schema_version"] == 3)
        #expect(toOutput.standardError.contains("upgraded a.json: Upgraded document people from v1 to v3"))
        for destination in [["-o", "out"], ["--dry-run"], ["--in-place", "--backup"]] {
            for format in [["--format", "text"], ["--format", "json"]] {
                let folder = destination == ["-o", "out"] ? ["-o", "out-" + format[1]] : destination
                let run = try ToolProcess.run(
                    ["upgrade", "a.json", "b.json"] + base + folder + format, in: scratch.url)
                #expect(
                    run.status == (destination == ["--dry-run"] ? 1 : 0),
                    "\(destination) \(format): \(run.standardError)")
                #expect(run.standardOutput.isEmpty, "\(destination) \(format): \(run.output)")
                if format[1] == "json" {
                    let report = try ArchiveFormat.json.read(Data(run.standardError.utf8))
                    #expect(report["failed"] == 0)
                    #expect(report["files"]?[1]?["file"] == "b.json")
                } else {
                    #expect(run.standardError.contains("b.json"))
                }
            }
        }
    }
}
