import Foundation
import ModelVersioning
import TestModels
import TestSupport
import Testing

/// `archive-migrate` run as a real process.
@Suite("archive-migrate command-line tool")
struct CommandLineToolTests {
    static let zorn = "versioned-json/zorn-VersionedFilesDemo/"
    static let subcommands = ["upgrade", "downgrade", "check", "inspect", "convert", "diff"]

    @Test("--help lists every command and exits 0")
    func help() throws {
        let run = try ToolProcess.run(["--help"])
        #expect(run.status == 0)
        for command in Self.subcommands {
            #expect(run.output.contains("  \(command) "), "\(command) missing from --help")
        }
        #expect(try ToolProcess.run(["--version"]).output.hasPrefix("archive-migrate "))
    }

    @Test("every subcommand has --help generated from its option table", arguments: subcommands)
    func subcommandHelp(command: String) throws {
        let run = try ToolProcess.run([command, "--help"])
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("USAGE: archive-migrate \(command)"))
        #expect(run.output.contains("-h, --help"))
    }

    @Test("usage errors exit 2 with the reason on standard error and nothing on standard output")
    func usageErrors() throws {
        let unknown = try ToolProcess.run(["upgrde"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("unknown command 'upgrde' (did you mean 'upgrade'?)"))
        let option = try ToolProcess.run(["upgrade", "x.json", "--rulez", "r.json"])
        #expect(option.status == 2)
        #expect(option.standardError.contains("unknown option '--rulez' (did you mean '--rules'?)"))
        #expect(option.standardOutput.isEmpty)
        let missing = try ToolProcess.run(["diff", "a.json"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("missing argument <b>"))
        #expect(try ToolProcess.run([]).status == 2)
    }

    @Test("upgrade writes the upgraded archive to standard output and the report to standard error")
    func upgradeToStandardOutput() throws {
        let run = try ToolProcess.run(
            [
                "upgrade", Fixture.url(Self.zorn + "simple-v1.people.json").path, "--rules",
                Fixture.url(Self.zorn + "people.rules.json").path, "--document", "people",
            ])
        #expect(run.status == 0)
        let tree = try ArchiveFormat.json.read(run.standardOutput)
        #expect(tree["schema_version"] == 3)
        #expect(tree["people"]?[1]?["first_name"] == "George")
        #expect(run.standardError.contains("document people from v1 to v3"))
    }

    @Test("upgrade --to stops at an earlier version; downgrade goes back down")
    func upgradeToAndDowngrade() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.zorn + "simple-v1.people.json", to: "people.json")
        try scratch.copy(fixture: Self.zorn + "people.rules.json", to: "rules.json")
        let toV2 = try ToolProcess.run(
            ["upgrade", "people.json", "--rules", "rules.json", "--document", "people", "--to", "2"], in: scratch.url)
        #expect(toV2.status == 0)
        #expect(
            try ArchiveFormat.json.read(toV2.standardOutput) == (try Fixture.tree(Self.zorn + "simple-v2.people.json")))

        try ToolProcess.run(
            ["upgrade", "people.json", "--rules", "rules.json", "--document", "people", "--in-place"], in: scratch.url)
        let down = try ToolProcess.run(
            ["downgrade", "people.json", "--rules", "rules.json", "--document", "people", "--to", "1", "--in-place"],
            in: scratch.url)
        #expect(down.status == 0, "\(down.standardError)")
        let v1 = try ArchiveFormat.json.read(try scratch.data("people.json"))
        #expect(v1 == (try Fixture.tree(Self.zorn + "simple-v1.people.json")))
    }

    @Test("downgrade through an irreversible step fails naming the step and the rule, leaving the file as it was")
    func irreversibleDowngrade() throws {
        let scratch = try ScratchFolder()
        try scratch.write(
            #"{"formatVersion": 1, "document": {"name": "d", "versionPath": "v", "currentVersion": 2, "#
                + #""steps": [{"from": 1, "name": "drop notes", "rules": [{"remove": "notes"}]}]}}"#, to: "rules.json")
        try scratch.write(#"{"v": 2, "title": "t"}"#, to: "doc.json")
        let before = try scratch.data("doc.json")
        let run = try ToolProcess.run(
            ["downgrade", "doc.json", "--rules", "rules.json", "--document", "d", "--to", "1", "--in-place"],
            in: scratch.url)
        #expect(run.status == 2)
        #expect(run.standardError.contains("document d v1 → v2 (drop notes), rule remove(notes)"))
        #expect(try scratch.data("doc.json") == before)
    }

    @Test("an in-place batch with a damaged archive in the middle writes nothing and keeps every original intact")
    func inPlaceBatchFailure() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.zorn + "people.rules.json", to: "rules.json")
        var names: [String] = []
        for index in 0..<9 {
            let name = "people-\(index).json"
            if index == 4 {
                try scratch.write(#"{"schema_version": 1, "people": [{"id": "x", "name": 42}]}"#, to: name)
            } else {
                try scratch.copy(fixture: Self.zorn + "simple-v1.people.json", to: name)
            }
            names.append(name)
        }
        let originals = try names.map { try scratch.data($0) }
        let run = try ToolProcess.run(
            ["upgrade"] + names + ["--rules", "rules.json", "--document", "people", "--in-place", "--backup"],
            in: scratch.url)
        #expect(run.status == 2)
        #expect(run.standardError.contains("people-4.json"))
        #expect(run.standardError.contains("split(name → first_name, last_name): expected a string, found int 42"))
        #expect(run.standardError.contains("nothing was written: 1 of 9 archives failed"))
        for (name, original) in zip(names, originals) {
            #expect(try scratch.data(name) == original, "\(name) changed")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter {
            $0.hasPrefix(".") || $0.hasSuffix(".bak")
        }
        #expect(leftovers.isEmpty, "temporary or backup files left: \(leftovers)")

        // Repaired, the same batch upgrades every file and keeps backups.
        try scratch.copy(fixture: Self.zorn + "simple-v1.people.json", to: "people-4.json")
        let again = try ToolProcess.run(
            ["upgrade"] + names + [
                "--rules", "rules.json", "--document", "people", "--in-place", "--backup",
                "--format", "json",
            ], in: scratch.url)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.isEmpty)
        let report = try ArchiveFormat.json.read(Data(again.standardError.utf8))
        #expect(report["failed"] == 0)
        for name in names {
            #expect(try ArchiveFormat.json.read(try scratch.data(name))["schema_version"] == 3)
            #expect(try scratch.data(name + ".bak") == originals[0])
        }
    }

    @Test("upgrade --output writes every file into a folder")
    func upgradeToFolder() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.zorn + "simple-v1.people.json", to: "a.json")
        try scratch.copy(fixture: Self.zorn + "simple-v2.people.json", to: "b.json")
        try scratch.copy(fixture: Self.zorn + "people.rules.json", to: "rules.json")
        let run = try ToolProcess.run(
            ["upgrade", "a.json", "b.json", "--rules", "rules.json", "--document", "people", "-o", "out"],
            in: scratch.url)
        #expect(run.status == 0)
        #expect(try ArchiveFormat.json.read(try scratch.data("out/a.json"))["schema_version"] == 3)
        #expect(try ArchiveFormat.json.read(try scratch.data("out/b.json"))["schema_version"] == 3)
        #expect(try scratch.data("a.json") == (try Fixture.data(Self.zorn + "simple-v1.people.json")))
    }

    @Test(
        "convert goes through every format and back to the same tree", arguments: ["xml-plist", "binary-plist", "json"])
    func convert(format: String) throws {
        let scratch = try ScratchFolder()
        let original = try ArchiveEncoder().encode(Extremes.sample)
        try original.write(to: scratch.url.appendingPathComponent("extremes.json"))
        let there = try ToolProcess.run(
            ["convert", "extremes.json", "--to", format, "-o", "converted"], in: scratch.url)
        #expect(there.status == 0, "\(there.standardError)")
        #expect(ArchiveFormat.detect(try scratch.data("converted"))?.rawValue == format)
        let back = try ToolProcess.run(["convert", "converted", "--to", "json"], in: scratch.url)
        #expect(try ArchiveFormat.json.read(back.standardOutput) == (try ArchiveFormat.json.read(original)))
        #expect(try ToolProcess.run(["convert", "extremes.json", "--to", "yaml"], in: scratch.url).status == 2)

        // `-o -` is standard output, not a file named "-".
        let dash = try ToolProcess.run(["convert", "converted", "--to", "json", "-o", "-"], in: scratch.url)
        #expect(dash.status == 0, "\(dash.standardError)")
        #expect(dash.standardOutput == back.standardOutput)
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("-").path))
    }

    @Test("diff prints paths and exits 1 when archives differ, 0 when a JSON and a plist copy agree")
    func diff() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.zorn + "simple-v2.people.json", to: "v2.json")
        try scratch.copy(fixture: Self.zorn + "simple-v3.people.json", to: "v3.json")
        let differ = try ToolProcess.run(["diff", "v2.json", "v3.json"], in: scratch.url)
        #expect(differ.status == 1)
        #expect(differ.output.contains("+ people[0].birthday: \"0001-01-01T00:00:00Z\""))
        #expect(differ.output.contains("~ schema_version: 2 → 3"))
        try ToolProcess.run(["convert", "v2.json", "--to", "binary-plist", "-o", "v2.plist"], in: scratch.url)
        let same = try ToolProcess.run(["diff", "v2.json", "v2.plist"], in: scratch.url)
        #expect(same.status == 0)
        #expect(same.output == "no differences\n")
        let json = try ToolProcess.run(["diff", "v2.json", "v3.json", "--format", "json"], in: scratch.url)
        #expect(try ArchiveFormat.json.read(json.standardOutput)["equal"] == false)
    }

    @Test("inspect lists objects with types and versions, shared objects, cycles and the upgrade plan")
    func inspect() throws {
        let scratch = try ScratchFolder()
        let root = Node(name: "root", children: [Node(name: "a"), Node(name: "b")])
        let shared = Shared(value: 1)
        try ArchiveEncoder().encode(root).write(to: scratch.url.appendingPathComponent("tree.json"))
        try ArchiveEncoder().encode(Holder(first: shared, second: shared, list: []))
            .write(to: scratch.url.appendingPathComponent("holder.json"))
        let tree = try ToolProcess.run(["inspect", "tree.json"], in: scratch.url)
        #expect(tree.status == 0)
        #expect(tree.output.contains("tree.json: json"))
        #expect(tree.output.contains("(root): Node v1 #1"))
        #expect(tree.output.contains("Node v1: 3"))
        #expect(tree.output.contains("cycle: #1 Node"))
        let holder = try ToolProcess.run(["inspect", "holder.json", "--format", "json"], in: scratch.url)
        let report = try ArchiveFormat.json.read(holder.standardOutput)
        #expect(report["shared"] == [1])
        #expect(report["cycles"] == [])
        #expect(report["counts"]?["Shared v1"] == 1)

        try scratch.copy(fixture: Self.zorn + "simple-v1.people.json", to: "people.json")
        try scratch.copy(fixture: Self.zorn + "people.rules.json", to: "rules.json")
        let plan = try ToolProcess.run(
            ["inspect", "people.json", "--rules", "rules.json", "--document", "people"], in: scratch.url)
        #expect(plan.output.contains("no envelope"))
        #expect(plan.output.contains("upgrade would run: Upgraded document people from v1 to v3"))
    }

    @Test("check passes on recorded fixtures and fails with a located message on a corrupted one")
    func checkFixtures() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.zorn + "simple-v1.people.json", to: "Fixtures/archives/people/v1/simple.json")
        try scratch.copy(fixture: Self.zorn + "simple-v2.people.json", to: "Fixtures/archives/people/v2/simple.json")
        try scratch.write(
            String(decoding: try Fixture.data(Self.zorn + "people.rules.json"), as: UTF8.self)
                .replacingOccurrences(of: #""document": {"#, with: #""documents": [{"#)
                .replacingOccurrences(of: "\n  }\n}", with: "\n  }]\n}"),
            to: "Fixtures/archives/rules.json")
        // The fixtures are plain documents: the chain named like their folder ("people") upgrades them.
        let missingGoldens = try ToolProcess.run(["check", "--format", "json"], in: scratch.url)
        #expect(missingGoldens.status == 1)
        let recorded = try ToolProcess.run(["check", "--record"], in: scratch.url)
        #expect(recorded.status == 0, "\(recorded.output)\(recorded.standardError)")
        let passing = try ToolProcess.run(["check", "--junit", "report.xml"], in: scratch.url)
        #expect(passing.status == 0, "\(passing.output)")
        #expect(passing.output.contains("ok        fixture: people/v1/simple.json"))
        let golden = try ArchiveFormat.json.read(try scratch.data("Fixtures/archives/people/expected/v1/simple.json"))
        #expect(golden["schema_version"] == 3, "the golden is the upgraded document")
        #expect(try String(decoding: scratch.data("report.xml"), as: UTF8.self).contains(#"failures="0""#))

        try scratch.write(
            #"{"schema_version": 1, "people": [{"id": 7, "name": true}]}"#,
            to: "Fixtures/archives/people/v1/simple.json")
        let failing = try ToolProcess.run(["check", "--format", "github"], in: scratch.url)
        #expect(failing.status == 1)
        #expect(failing.output.contains("::error file=Fixtures/archives/people/v1/simple.json"))
        #expect(failing.output.contains("split(name → first_name, last_name): expected a string, found bool true"))
        #expect(failing.output.contains("people[0].name"))
    }

    // MARK: Keyed archives

    @Test("convert prints a keyed archive as JSON with each object's class and keys, and writes keyed archives")
    func convertKeyedArchive() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(
            fixture: "nskeyedarchiver/kiler129-php/ArchivedData/objectWithSingleProp.bin.plist", to: "a.plist")
        let json = try ToolProcess.run(["convert", "a.plist", "--to", "json"], in: scratch.url)
        #expect(json.status == 0)
        let tree = try ArchiveFormat.json.read(json.standardOutput)
        #expect(tree.objectValue?.typeName == "TestDummy")
        #expect(tree["foo"] == "bar")

        try scratch.write(json.output, to: "a.json")
        let back = try ToolProcess.run(
            ["convert", "a.json", "--to", "keyed-archive", "-o", "b.plist"], in: scratch.url)
        #expect(back.status == 0)
        #expect(ArchiveFormat.detect(try scratch.data("b.plist")) == .keyedArchive)
        #expect(try ToolProcess.run(["diff", "a.plist", "b.plist"], in: scratch.url).status == 0)
    }

    @Test("upgrade takes Mantle's pre-0.3 archive to the model's current shape, still a keyed archive")
    func upgradeMantleArchive() throws {
        let scratch = try ScratchFolder()
        let mantle = "nskeyedarchiver/mantle/"
        try scratch.copy(fixture: mantle + "mtl-test-model-v0-external-representation.plist", to: "old.plist")
        try scratch.copy(fixture: mantle + "mtl-test-model-v1.plist", to: "v1.plist")
        try scratch.copy(fixture: mantle + "mantle.rules.json", to: "rules.json")
        let inspect = try ToolProcess.run(["inspect", "old.plist", "--rules", "rules.json"], in: scratch.url)
        #expect(inspect.output.contains("old.plist: keyed-archive"))
        #expect(inspect.output.contains("(root): MTLTestModel v0"))
        let upgrade = try ToolProcess.run(
            ["upgrade", "old.plist", "--rules", "rules.json", "--in-place"], in: scratch.url)
        #expect(upgrade.status == 0, "\(upgrade.standardError)")
        #expect(upgrade.standardError.contains("MTLTestModel v0 → v1 (pre-0.3 external representation)"))
        #expect(ArchiveFormat.detect(try scratch.data("old.plist")) == .keyedArchive)
        let diff = try ToolProcess.run(["diff", "old.plist", "v1.plist"], in: scratch.url)
        #expect(diff.status == 0, "\(diff.output)")
    }
}
