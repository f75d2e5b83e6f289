import Foundation
import ModelVersioning
import TestSupport
import Testing

/// `upgrade --dry-run` and `downgrade --dry-run` read, migrate and report everything and write
/// nothing; their exit status says whether anything would change.
@Suite("archive-migrate --dry-run")
struct DryRunTests {
    static let zorn = "versioned-json/zorn-VersionedFilesDemo/"

    @Test(
        "--dry-run leaves every byte, mode and timestamp alone and creates nothing",
        arguments: [["--in-place", "--backup"], ["-o", "out"], []])
    func writesNothing(destination: [String]) throws {
        let scratch = try FileSafetyTests.peopleFolder(["a.json", "b.json", "store/c.json"])
        try FileManager.default.createSymbolicLink(
            atPath: scratch.url.appendingPathComponent("c.json").path, withDestinationPath: "store/c.json")
        // Timestamps in the past, so that any write would show.
        let past = Date(timeIntervalSinceNow: -86_400)
        for name in ["a.json", "b.json", "store/c.json", "store", "."] {
            try FileManager.default.setAttributes(
                [.modificationDate: past], ofItemAtPath: scratch.url.appendingPathComponent(name).path)
        }
        let before = try FileFacts.snapshot(scratch.url)
        for command in [["upgrade"], ["downgrade", "--to", "1"]] {
            let run = try ToolProcess.run(
                command + ["a.json", "b.json", "c.json", "--rules", "rules.json", "--dry-run"] + destination,
                in: scratch.url)
            #expect(run.status == (command == ["upgrade"] ? 1 : 0), "\(command) \(destination): \(run.standardError)")
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError.contains("nothing was written"))
            #expect(try FileFacts.snapshot(scratch.url) == before, "\(command) \(destination)")
        }
    }

    @Test("--dry-run --format json lists every step of the document and of every object, as the upgrade runs them")
    func jsonListsEveryStep() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: "archives/Sketch/v1/kyoto-trip.json", to: "kyoto-trip.json")
        try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        let arguments = ["upgrade", "kyoto-trip.json", "--rules", "rules.json", "--format", "json"]
        let dry = try ToolProcess.run(arguments + ["--dry-run"], in: scratch.url)
        #expect(dry.status == 1, "\(dry.standardError)")
        let report = try ArchiveFormat.json.read(Data(dry.standardError.utf8))
        #expect(report["dryRun"] == true)
        #expect(report["written"] == false)
        #expect(report["exitStatus"] == 1)
        let file = try #require(report["files"]?[0])
        #expect(file["changed"] == true)
        #expect(file["document"]?["steps"] == ["app 1.1", "app 1.2", "app 2.0"])
        let objects = try #require(file["objects"]?.arrayValue)
        #expect(objects.count == file["migrated"]?.intValue)
        for object in objects {
            let from = try #require(object["from"]?.intValue)
            let to = try #require(object["to"]?.intValue)
            #expect(object["steps"]?.arrayValue?.count == to - from, "\(object)")
        }
        #expect(objects.contains { $0["steps"]?.arrayValue?.contains("app 1.2: radius") == true })

        let real = try ToolProcess.run(arguments + ["--in-place"], in: scratch.url)
        #expect(real.status == 0, "\(real.standardError)")
        let done = try ArchiveFormat.json.read(Data(real.standardError.utf8))
        #expect(done["files"]?[0]?["objects"] == file["objects"], "the dry run lists what the upgrade ran")
        #expect(done["files"]?[0]?["document"] == file["document"])

        let again = try ToolProcess.run(arguments + ["--dry-run"], in: scratch.url)
        #expect(again.status == 0, "nothing would change: \(again.standardError)")
    }
}
