import ArchiveMigrateKit
import Foundation
import ModelVersioning
import TestSupport
import Testing

/// An app that keeps archives as files upgrades them from Swift with `ArchiveFiles`, and gets
/// what `archive-migrate upgrade --in-place` gives: the same files, byte for byte and mode for
/// mode, the same backups, the same refusals, all or nothing.
@Suite("Archive files: the Swift API and the tool")
struct FilesFrontDoorTests {
    static let patterns = ["*.json", "*.plist"]

    /// Two copies (`tool/`, `api/`) of every Sketch fixture, one folder per version, one file
    /// readable by its owner only; and the batch of the repository's rules file.
    static func copies(broken: String? = nil) throws -> (ScratchFolder, ArchiveBatch) {
        let scratch = try ScratchFolder()
        for road in ["tool", "api"] {
            for fixture in Fixture.sketchArchives {
                let url = scratch.url.appendingPathComponent(road).appendingPathComponent(fixture)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                var data = try Fixture.data("archives/Sketch/" + fixture)
                if fixture == broken { data = Data(#"{"$archive": 1, "root": "#.utf8) }
                try data.write(to: url)
            }
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o600],
                ofItemAtPath: scratch.url.appendingPathComponent(road).appendingPathComponent("v1/kyoto-trip.json").path
            )
        }
        return (scratch, try ArchiveBatch(catalog: try Fixture.rules("archives/rules.json")))
    }

    /// Every file under `folder` (backups included) with its bytes and permission bits.
    static func contents(of folder: URL) throws -> [String: (Data, Int)] {
        var result: [String: (Data, Int)] = [:]
        for version in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let directory = folder.appendingPathComponent(version)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                let path = directory.appendingPathComponent(name).path
                let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1
                result["\(version)/\(name)"] = (try Data(contentsOf: URL(fileURLWithPath: path)), mode)
            }
        }
        return result
    }

    static func same(_ a: [String: (Data, Int)], _ b: [String: (Data, Int)]) -> Bool {
        a.count == b.count && a.allSatisfy { name, value in b[name].map { $0 == value } ?? false }
    }

    static func toolArguments(_ folder: URL, _ extra: String...) -> [String] {
        ["upgrade", folder.path] + patterns.flatMap { ["--include", $0] }
            + ["--rules", Fixture.url("archives/rules.json").path, "--in-place"] + extra
    }

    @Test("every Sketch fixture upgraded in place with backups by each road: the same files, bytes and modes")
    func sameFiles() throws {
        let (scratch, batch) = try Self.copies()
        let tool = scratch.url.appendingPathComponent("tool")
        let api = scratch.url.appendingPathComponent("api")
        let original = try Self.contents(of: api)

        var files = ArchiveFiles([api.path], include: Self.patterns)
        files.keepsBackups = true
        let preview = try files.upgradePreview(with: batch)
        #expect(preview.files == original.count && preview.written == 0 && preview.failures.isEmpty, "\(preview)")
        #expect(Self.same(try Self.contents(of: api), original))

        let run = try ToolProcess.run(Self.toolArguments(tool, "--backup"))
        #expect(run.status == 0, "\(run.standardError)")
        let summary = try files.upgrade(with: batch)
        #expect(summary.failures.isEmpty && summary.changed == preview.changed, "\(summary)")
        // Every changed file and its backup; the v4 files are current and left alone.
        let current = Fixture.sketchArchives.filter { $0.hasPrefix("v4/") }.count
        #expect(summary.changed == original.count - current && summary.written == 2 * summary.changed, "\(summary)")
        let toolUpgraded = run.standardError.split(separator: "\n").filter {
            $0.hasPrefix("upgraded ") && !$0.hasSuffix("Nothing to migrate.")
        }
        #expect(toolUpgraded.count == summary.changed, "\(run.standardError)")

        let upgraded = try Self.contents(of: api)
        #expect(Self.same(upgraded, try Self.contents(of: tool)))
        #expect(upgraded["v1/kyoto-trip.json"]?.1 == 0o600 && upgraded["v1/kyoto-trip.json.bak"]?.1 == 0o600)
        #expect(upgraded["v1/kyoto-trip.json.bak"]?.0 == original["v1/kyoto-trip.json"]?.0)

        // Once current, neither road writes again.
        let again = try files.upgrade(with: batch)
        #expect(again.written == 0 && again.changed == 0 && again.files == original.count, "\(again)")
    }

    @Test("one broken file: named with its located error by each road, and no file written")
    func sameFailures() throws {
        let (scratch, batch) = try Self.copies(broken: "v2/garden.json")
        let tool = scratch.url.appendingPathComponent("tool")
        let api = scratch.url.appendingPathComponent("api")
        let original = try Self.contents(of: api)

        let run = try ToolProcess.run(Self.toolArguments(tool))
        #expect(run.status == 2)
        let summary = try ArchiveFiles([api.path], include: Self.patterns).upgrade(with: batch)
        let failure = try #require(summary.failures.first)
        #expect(summary.failures.count == 1 && summary.written == 0, "\(summary)")
        #expect(failure.file == api.path + "/v2/garden.json" && failure.error.code == .malformedInput, "\(failure)")
        #expect(run.standardError.contains("v2/garden.json"), "\(run.standardError)")
        #expect(Self.same(try Self.contents(of: api), original))
        #expect(Self.same(try Self.contents(of: tool), original))
    }

    @Test("a file with two hard links is refused by each road, before anything is written")
    func hardLinkRefused() throws {
        let (scratch, batch) = try Self.copies()
        for road in ["tool", "api"] {
            let folder = scratch.url.appendingPathComponent(road)
            try FileManager.default.linkItem(
                atPath: folder.appendingPathComponent("v2/stamps.json").path,
                toPath: scratch.url.appendingPathComponent("\(road)-stamps-link.json").path)
        }
        let original = try Self.contents(of: scratch.url.appendingPathComponent("api"))
        let run = try ToolProcess.run(Self.toolArguments(scratch.url.appendingPathComponent("tool")))
        #expect(run.status == 2 && run.standardError.contains("has 2 hard links"), "\(run.standardError)")
        let summary = try ArchiveFiles([scratch.url.appendingPathComponent("api").path], include: Self.patterns)
            .upgrade(with: batch)
        #expect(summary.written == 0 && summary.failures.map(\.file).last?.hasSuffix("v2/stamps.json") == true)
        #expect(summary.failures.first?.error.message.contains("has 2 hard links") == true, "\(summary.failures)")
        #expect(Self.same(try Self.contents(of: scratch.url.appendingPathComponent("api")), original))
    }

    @Test("a folder without patterns is an error before anything is read; a missing file fails the batch")
    func refusedInputs() throws {
        let (scratch, batch) = try Self.copies()
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveFiles([scratch.url.path]).upgrade(with: batch)
        }
        #expect(error.message.contains("is a directory"), "\(error)")

        let original = try Self.contents(of: scratch.url.appendingPathComponent("api"))
        let missing = scratch.url.path + "/missing.json"
        let summary = try ArchiveFiles([scratch.url.path + "/api/v1/empty.json", missing]).upgrade(with: batch)
        #expect(summary.failures.map(\.file) == [missing] && summary.failures.first?.error.code == .io, "\(summary)")
        let after = try Self.contents(of: scratch.url.appendingPathComponent("api"))
        #expect(summary.written == 0 && Self.same(after, original))
    }
}
