import Foundation
import MigrationRules
import ModelVersioning
import TestSupport
import Testing

/// The exit statuses a CI job branches on: 0 success, 1 findings (a dry run that would change
/// something), 2 errors, 3 written by a newer version; in a batch 2 > 3 > 1 > 0.
@Suite("archive-migrate exit status")
struct ExitStatusTests {
    static func folder() throws -> ScratchFolder {
        let scratch = try FileSafetyTests.peopleFolder(["old.json"])
        try scratch.write(#"{"schema_version": 9, "people": []}"#, to: "newer.json")
        try scratch.write(#"{"schema_version": "#, to: "broken.json")
        return scratch
    }

    static func status(_ arguments: [String], in scratch: ScratchFolder) throws -> Int32 {
        try ToolProcess.run(arguments + ["--rules", "rules.json", "--document", "people"], in: scratch.url).status
    }

    @Test("an archive written by a newer version exits 3, in every command that meets it")
    func newerVersion() throws {
        let scratch = try Self.folder()
        let run = try ToolProcess.run(["upgrade", "newer.json", "--rules", "rules.json"], in: scratch.url)
        #expect(run.status == 3)
        #expect(run.standardError.contains("written by a newer version: document people v9, this app knows v3"))
        #expect(try Self.status(["upgrade", "newer.json", "old.json", "--in-place"], in: scratch) == 3)
        #expect(try Self.status(["inspect", "newer.json"], in: scratch) == 3)
        #expect(try Self.status(["upgrade", "newer.json", "--allow-newer"], in: scratch) == 0)
        #expect(try Self.status(["upgrade", "broken.json"], in: scratch) == 2)
    }

    @Test("an envelope of a newer format is refused and left as it was, by the tool and by the pass alike")
    func newerEnvelopeFormat() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        let original = try String(decoding: Fixture.data("archives/Sketch/v1/kyoto-trip.json"), as: UTF8.self)
        let newer = original.replacingOccurrences(of: #""$archive": 1"#, with: #""$archive": 2"#)
        #expect(newer != original)
        try scratch.write(newer, to: "newer.json")
        let file = scratch.url.appendingPathComponent("newer.json")
        for arguments in [
            ["upgrade", "newer.json", "--in-place"], ["upgrade", "newer.json", "-o", "out"],
            ["downgrade", "newer.json", "--to", "1.0", "-o", "down"],
            ["upgrade", "newer.json", "--allow-newer", "--in-place"],
            ["convert", "newer.json", "--to", "xml-plist", "-o", "converted.plist"],
            ["convert", "newer.json", "--to", "json", "-o", "newer.json"],
        ] {
            let run = try ToolProcess.run(arguments + ["--rules", "rules.json"], in: scratch.url)
            #expect(run.status == 3, "\(arguments): \(run.standardError)")
            #expect(run.standardError.contains("the archive envelope has format 2; this library reads format 1"))
            #expect(try String(decoding: Data(contentsOf: file), as: UTF8.self) == newer, "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("out/newer.json").path))
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("converted.plist").path))

        // The Swift API's road for convert: reading shows the document, writing it is refused.
        let document = try ArchiveDocument(data: Data(newer.utf8))
        for write in [{ try document.data() }, { try document.data(as: .xmlPropertyList) }] {
            #expect {
                _ = try write()
            } throws: { error in
                let error = error as? ArchiveError
                return error?.code == .newerVersion && error?.path.description == "$archive"
            }
        }

        // The pass itself: the same error, located at the marker, and the tree untouched.
        let catalog = try MigrationCatalog(
            rulesFile: ArchiveFormat.json.read(Fixture.data("archives/rules.json")), fileName: "rules.json")
        let read = try ArchiveFormat.json.read(Data(newer.utf8))
        var tree = read
        #expect {
            try MigrationPass(catalog: catalog, options: MigrationOptions(allowsNewerVersions: true)).upgrade(&tree)
        } throws: { error in
            (error as? ArchiveError)?.code == .newerVersion && (error as? ArchiveError)?.path.description == "$archive"
        }
        #expect(tree == read)
    }

    @Test("in a batch the most severe status wins: 2 over 3, 3 over 1, 1 over 0")
    func precedence() throws {
        let scratch = try Self.folder()
        #expect(try Self.status(["upgrade", "old.json", "--dry-run"], in: scratch) == 1)
        #expect(try Self.status(["upgrade", "newer.json", "old.json", "--dry-run"], in: scratch) == 3)
        #expect(try Self.status(["upgrade", "broken.json", "newer.json", "old.json", "--dry-run"], in: scratch) == 2)
        #expect(try Self.status(["upgrade", "broken.json", "newer.json", "-o", "out"], in: scratch) == 2)
    }

    @Test("--to a version no chain reaches is a usage error, not 'written by a newer version'")
    func targetOutOfRange() throws {
        let scratch = try Self.folder()
        for command in ["upgrade", "downgrade"] {
            let run = try ToolProcess.run(
                [command, "old.json", "--rules", "rules.json", "--to", "0"], in: scratch.url)
            #expect(run.status == 2)
            #expect(
                run.standardError.contains("'--to 0': the document people goes from v1 to v3"), "\(run.standardError)")
            #expect(run.standardError.contains("USAGE: archive-migrate \(command)"))
            #expect(!run.standardError.contains("newer version"))
        }
        let unknown = try ToolProcess.run(
            ["upgrade", "old.json", "--rules", "rules.json", "--document", "peeple"], in: scratch.url)
        #expect(unknown.status == 2)
        #expect(
            unknown.standardError.contains("'--document peeple': no document chain has that name (there are people)"))
    }
}
