import Foundation
import ModelVersioning
import TestModels
import TestSupport
import Testing

/// `archive-migrate … --readable-by`: archives written with today's rules for an older release,
/// read with that release's rules file alone, and upgraded back.
@Suite("archive-migrate --readable-by")
struct ReadableByToolTests {
    static let fixtures = Fixture.sketchArchives

    @Test(
        "archive-migrate: today's rules write for 1.1, 1.1's rules alone read it, today's rules give the archive back",
        arguments: fixtures)
    func throughTheTool(_ fixture: String) throws {
        let scratch = try ScratchFolder()
        let input = try scratch.copy(fixture: "archives/Sketch/" + fixture)
        let name = input.lastPathComponent
        let rules = Fixture.url("archives/rules.json").path
        let rules11 = Fixture.url("archives/Sketch-1.1.rules.json").path
        func folder(_ name: String) -> String { scratch.url.appendingPathComponent(name).path }

        let written = try ToolProcess.run([
            "upgrade", input.path, "--rules", rules, "--readable-by", "1.1", "-o", folder("today"),
        ])
        #expect(written.status == 0, "\(written.standardError)")
        let today = folder("today") + "/" + name

        let opened = try ToolProcess.run(["upgrade", today, "--rules", rules11, "-o", folder("for-1.1")])
        #expect(opened.status == 0, "\(opened.standardError)")
        #expect(opened.standardError.contains("Ran the steps the archive carries down to release 1.1"))
        let for11 = folder("for-1.1") + "/" + name
        let tree = try ArchiveFormat.read(try Data(contentsOf: URL(fileURLWithPath: for11))).0
        #expect(tree["documentVersion"] == 2)
        #expect(tree["wayDown"] == nil)
        let versions: [String: Int] = ["Drawing": 2, "Circle": 2, "Rect": 1, "Style": 2, "Model": 2]
        for (path, object) in Self.objects(in: tree["root"] ?? .null) {
            #expect(versions[object.typeName] == object.version, "\(path): \(object.typeName) v\(object.version ?? -1)")
        }

        let back = try ToolProcess.run([
            "upgrade", for11, "--rules", rules, "--readable-by", "1.1", "-o", folder("back"),
        ])
        #expect(back.status == 0, "\(back.standardError)")
        let diff = try ToolProcess.run(["diff", today, folder("back") + "/" + name])
        #expect(diff.status == 0)
        #expect(diff.output == "no differences\n")

        let inspect = try ToolProcess.run(["inspect", today])
        #expect(inspect.output.contains("way down: to release 1.1: document Sketch v4 → v2"))
        #expect(inspect.output.contains("digest: sha256:"))
    }

    /// Every object of `value`, with its path.
    static func objects(in value: ArchiveValue, at path: ArchivePath = .root) -> [(ArchivePath, ArchiveObject)] {
        switch value {
        case .object(let object):
            return [(path, object)]
                + object.fields.filter { $0.key != "$wayBack" }.flatMap {
                    objects(in: $0.value, at: path.appending($0.key))
                }
        case .array(let elements):
            return elements.enumerated().flatMap { objects(in: $1, at: path.appending($0)) }
        case .dictionary(let entries):
            return entries.flatMap { objects(in: $0.value, at: path.appending($0.key)) }
        default:
            return []
        }
    }

    @Test("--readable-by needs releases, and names one of them")
    func usage() throws {
        let scratch = try ScratchFolder()
        let input = try scratch.copy(fixture: "archives/Sketch/v1/kyoto-trip.json")
        let unknown = try ToolProcess.run([
            "upgrade", input.path, "--rules", Fixture.url("archives/rules.json").path, "--readable-by", "0.9",
        ])
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("'--readable-by 0.9': no release has that name"))
        let noRules = try ToolProcess.run(["convert", input.path, "--to", "json", "--readable-by", "1.1"])
        #expect(noRules.status == 2)
        #expect(noRules.standardError.contains("needs the app's releases"))
        let converted = try ToolProcess.run([
            "convert", input.path, "--to", "xml-plist", "--rules", Fixture.url("archives/rules.json").path,
            "--readable-by", "1",
        ])
        // A 1.0 archive is what 1.0 reads already: nothing to carry.
        #expect(converted.status == 0)
        #expect(!converted.output.contains("wayDown"))
    }

    @Test("convert and downgrade carry the way down too: from 1.2's versions, only 1.2's steps")
    func convertAndDowngrade() throws {
        let scratch = try ScratchFolder()
        let input = try scratch.copy(fixture: "archives/Sketch/v4/moodboard.json")
        let rules = Fixture.url("archives/rules.json").path
        let converted = try ToolProcess.run([
            "convert", input.path, "--to", "binary-plist", "--rules", rules, "--readable-by", "1.1",
        ])
        #expect(converted.status == 0, "\(converted.standardError)")
        let plist = try ArchiveFormat.read(converted.standardOutput).0
        #expect(try WayDown(tree: try #require(plist["wayDown"])).release == "1.1")

        let downgraded = try ToolProcess.run([
            "downgrade", input.path, "--rules", rules, "--to", "1.2", "--readable-by", "1.1",
        ])
        #expect(downgraded.status == 0, "\(downgraded.standardError)")
        let tree = try ArchiveFormat.read(downgraded.standardOutput).0
        let wayDown = try WayDown(tree: try #require(tree["wayDown"]))
        #expect(
            wayDown.summary
                == "to release 1.1: document Sketch v3 → v2, Drawing v3 → v2, Circle v3 → v2, Rectangle v2 → v1, "
                + "RoundedRectangle v1 → Rectangle v2")
        let file = scratch.url.appendingPathComponent("for-1.2.json")
        try downgraded.standardOutput.write(to: file)
        let read = try ToolProcess.run([
            "upgrade", file.path, "--rules", Fixture.url("archives/Sketch-1.1.rules.json").path,
        ])
        #expect(read.status == 0, "\(read.standardError)")
        #expect(try ArchiveFormat.read(read.standardOutput).0["documentVersion"] == 2)
    }
}
