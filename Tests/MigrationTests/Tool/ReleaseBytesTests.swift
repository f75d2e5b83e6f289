import ArchiveCompatibility
import Foundation
import ModelVersioning
import SketchModel
import TestSupport
import Testing

/// README step 4: an archive a release wrote, upgraded and then downgraded to that release, is the
/// very file the release wrote — byte for byte — because the release manifest says in which order
/// the release wrote each type's keys and under which other names it archived some objects, and
/// the upgrade keeps the name each such object had.
@Suite("Downgrades write the bytes the release wrote")
struct ReleaseBytesTests {
    /// The release that wrote each document version of the Sketch fixtures.
    static let releases = [1: "1.0", 2: "1.1", 3: "1.2"]

    /// Every Sketch fixture written by releases 1.0 to 1.2, as `v<N>/<file>`.
    static let fixtures: [String] = releases.keys.sorted().flatMap { version in
        let folder = Fixture.url("archives/Sketch/v\(version)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { "v\(version)/\($0)" }
    }

    @Test("there are fixtures of versions 1 to 3 to run")
    func fixturesExist() {
        #expect(Self.fixtures.count == 9)
    }

    @Test("upgrade, then downgrade to the release that wrote it: the very file", arguments: fixtures)
    func upgradeThenDowngrade(fixture: String) throws {
        let scratch = try ScratchFolder()
        let name = URL(fileURLWithPath: fixture).lastPathComponent
        let original = try scratch.copy(fixture: "archives/Sketch/" + fixture, to: "original/" + name)
        let rules = Fixture.url("archives/rules.json").path
        let version = try #require(Int(fixture.dropFirst().prefix { $0 != "/" }))
        let release = try #require(Self.releases[version])

        let upgrade = try ToolProcess.run(
            ["upgrade", original.path, "--rules", rules, "-o", scratch.url.appendingPathComponent("up").path])
        #expect(upgrade.status == 0, "\(upgrade.standardError)")
        let upgraded = scratch.url.appendingPathComponent("up/" + name)
        let downgrade = try ToolProcess.run(
            [
                "downgrade", upgraded.path, "--rules", rules, "--to", release, "-o",
                scratch.url.appendingPathComponent("down").path,
            ])
        #expect(downgrade.status == 0, "\(downgrade.standardError)")
        let written = try Data(contentsOf: scratch.url.appendingPathComponent("down/" + name))
        let saved = try Data(contentsOf: original)
        #expect(written == saved, "\(fixture): the downgrade is not the file release \(release) wrote")
    }

    @Test(
        "a rectangle release 1.1 archived under an alias keeps it through the upgrade, and gets it back from a downgrade to 1.1 alone"
    )
    func aliasComesBack() throws {
        let scratch = try ScratchFolder()
        let original = try scratch.copy(fixture: "archives/Sketch/v2/pasted-shapes.json", to: "pasted-shapes.json")
        let rules = Fixture.url("archives/rules.json").path
        let upgrade = try ToolProcess.run(["upgrade", original.path, "--rules", rules, "-o", "up"], in: scratch.url)
        #expect(upgrade.status == 0, "\(upgrade.standardError)")
        let upgraded = try ArchiveFormat.read(try scratch.data("up/pasted-shapes.json")).0
        let shapes = try #require(upgraded["root"]?["shapes"]?.arrayValue)
        // Upgraded, both rectangles are today's Rectangle; the pasted one remembers its name.
        #expect(shapes.prefix(2).map { $0.objectValue?.typeName } == ["Rectangle", "Rectangle"])
        #expect(shapes[0]["$archivedAs"] == ["type": "SketchApp.Rect", "version": 1])
        #expect(shapes[1]["$archivedAs"] == nil)

        // Release 1.0's models never read the alias: a downgrade to 1.0 writes Rect.
        let down = try ToolProcess.run(
            ["downgrade", "up/pasted-shapes.json", "--rules", rules, "--to", "1.0", "-o", "down"], in: scratch.url)
        #expect(down.status == 0, "\(down.standardError)")
        let forOne = try ArchiveFormat.read(try scratch.data("down/pasted-shapes.json")).0
        let oldShapes = try #require(forOne["root"]?["shapes"]?.arrayValue)
        #expect(oldShapes.prefix(2).map { $0.objectValue?.typeName } == ["Rect", "Rect"])
    }

    @Test("the rules file and the Swift manifest give the keys the schema snapshots list, in their order")
    func keyOrdersAgreeWithSnapshots() throws {
        let store = SchemaStore(directory: Fixture.url("schemas"))
        let fromRules = try #require(Fixture.rules("archives/rules.json").releases)
        #expect(fromRules == SketchRegistry.releases)
        var checked = 0
        for release in fromRules.releases {
            for (typeName, archived) in release.types {
                guard let version = archived.version else { continue }
                let snapshot = try #require(try store.snapshot(typeName: typeName, version: version))
                let keys = snapshot.properties.filter { $0.behavior != .excluded }.map(\.name)
                #expect(release.keyOrders[typeName] == keys, "release \(release.name), \(typeName) v\(version)")
                checked += 1
            }
        }
        #expect(checked == 22)
    }
}
