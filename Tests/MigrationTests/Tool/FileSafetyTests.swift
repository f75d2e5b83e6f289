import Foundation
import ModelVersioning
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every file `archive-migrate` writes keeps what the user gave the file it replaces — mode,
/// owner and group, extended attributes, symbolic links, hard links — and a batch is written
/// all or nothing, even when the disk fills up or another run writes the same files.
@Suite("archive-migrate writes files safely")
struct FileSafetyTests {
    static let zorn = "versioned-json/zorn-VersionedFilesDemo/"
    static let attribute = "user.archive-migrate-test"

    /// A scratch folder with the people rules and a v1 people document as `name`.
    static func peopleFolder(_ names: [String] = ["people.json"]) throws -> ScratchFolder {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: zorn + "people.rules.json", to: "rules.json")
        for name in names {
            try scratch.copy(fixture: zorn + "simple-v1.people.json", to: name)
        }
        return scratch
    }

    static func version(_ url: URL) throws -> ArchiveValue? {
        try ArchiveFormat.json.read(try Data(contentsOf: url))["schema_version"]
    }

    /// Whether the scratch folder's file system keeps `user.` attributes (ext4, XFS, APFS do).
    static func tagged(_ url: URL) -> Bool {
        ExtendedAttributeProbe.set(attribute, "kept", atPath: url.path)
    }

    // MARK: Metadata

    @Test(
        "in-place upgrade, downgrade and their backups keep the file's mode and extended attributes",
        arguments: [0o600, 0o444, 0o2755])
    func modeAndAttributesKept(mode: Int) throws {
        let scratch = try Self.peopleFolder()
        let file = scratch.url.appendingPathComponent("people.json")
        let backup = scratch.url.appendingPathComponent("people.json.bak")
        let hasAttributes = Self.tagged(file)
        try FileFacts.setMode(mode, of: file)
        let up = try ToolProcess.run(
            ["upgrade", "people.json", "--rules", "rules.json", "--document", "people", "--in-place", "--backup"],
            in: scratch.url)
        #expect(up.status == 0, "\(up.standardError)")
        #expect(try Self.version(file) == 3)
        for url in [file, backup] {
            #expect(
                FileFacts(url)?.mode == mode, "\(url.lastPathComponent): \(String(FileFacts(url)?.mode ?? 0, radix: 8))"
            )
            if hasAttributes {
                #expect(ExtendedAttributeProbe.value(Self.attribute, atPath: url.path) == "kept")
            }
        }
        let down = try ToolProcess.run(
            [
                "downgrade", "people.json", "--rules", "rules.json", "--document", "people", "--to", "1", "--in-place",
                "--backup",
                "--overwrite",
            ],
            in: scratch.url)
        #expect(down.status == 0, "\(down.standardError)")
        #expect(try Self.version(file) == 1)
        #expect(try Self.version(backup) == 3, "the backup holds what the downgrade replaced")
        for url in [file, backup] {
            #expect(FileFacts(url)?.mode == mode, "\(url.lastPathComponent) after the downgrade")
            if hasAttributes {
                #expect(ExtendedAttributeProbe.value(Self.attribute, atPath: url.path) == "kept")
            }
        }
        #expect(FileFacts.temporaries(in: scratch.url).isEmpty)

        // A new file gets the input's permission bits less the umask (never more than the input).
        let out = try ToolProcess.run(
            ["upgrade", "people.json", "--rules", "rules.json", "--document", "people", "-o", "out"], in: scratch.url)
        #expect(out.status == 0, "\(out.standardError)")
        let expected = mode & 0o777 & ~ExtendedAttributeProbe.umaskValue
        #expect(FileFacts(scratch.url.appendingPathComponent("out/people.json"))?.mode == expected)
    }

    @Test("convert -o and check --junit replace an existing file keeping its mode and attributes")
    func namedOutputsKeepMetadata() throws {
        let scratch = try Self.peopleFolder()
        try scratch.write("old", to: "people.plist")
        try scratch.write("old", to: "report.xml")
        var hasAttributes = true
        for name in ["people.plist", "report.xml"] {
            let url = scratch.url.appendingPathComponent(name)
            try FileFacts.setMode(0o640, of: url)
            hasAttributes = Self.tagged(url) && hasAttributes
        }
        let convert = try ToolProcess.run(
            ["convert", "people.json", "--to", "xml-plist", "-o", "people.plist"], in: scratch.url)
        #expect(convert.status == 0, "\(convert.standardError)")
        try FileManager.default.createDirectory(
            at: scratch.url.appendingPathComponent("Fixtures/archives"), withIntermediateDirectories: true)
        let check = try ToolProcess.run(["check", "--junit", "report.xml"], in: scratch.url)
        #expect(check.status != 2, "\(check.output)\(check.standardError)")
        for name in ["people.plist", "report.xml"] {
            let url = scratch.url.appendingPathComponent(name)
            #expect(try scratch.data(name) != Data("old".utf8), "\(name) was not written")
            #expect(FileFacts(url)?.mode == 0o640, "\(name)")
            if hasAttributes {
                #expect(ExtendedAttributeProbe.value(Self.attribute, atPath: url.path) == "kept", "\(name)")
            }
        }
    }

    @Test("owner and group are kept by an in-place upgrade and its backup", .enabled(if: geteuid() == 0))
    func ownerKept() throws {
        let scratch = try Self.peopleFolder()
        let file = scratch.url.appendingPathComponent("people.json")
        #expect(chown(file.path, 1000, 1000) == 0)
        let run = try ToolProcess.run(
            ["upgrade", "people.json", "--rules", "rules.json", "--document", "people", "--in-place", "--backup"],
            in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try Self.version(file) == 3)
        for url in [file, scratch.url.appendingPathComponent("people.json.bak")] {
            #expect(FileFacts(url)?.owner == 1000, "\(url.lastPathComponent)")
            #expect(FileFacts(url)?.group == 1000, "\(url.lastPathComponent)")
        }
    }

    // MARK: Links

    @Test("a symbolic link stays a link and the file it points to is upgraded; the backup sits beside the link")
    func symbolicLinkFollowed() throws {
        let scratch = try Self.peopleFolder(["store/people.json"])
        let link = scratch.url.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "store/people.json")
        try FileFacts.setMode(0o600, of: scratch.url.appendingPathComponent("store/people.json"))
        let run = try ToolProcess.run(
            ["upgrade", "link.json", "--rules", "rules.json", "--document", "people", "--in-place", "--backup"],
            in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(FileFacts(link)?.isSymbolicLink == true)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "store/people.json")
        #expect(try Self.version(scratch.url.appendingPathComponent("store/people.json")) == 3)
        #expect(FileFacts(scratch.url.appendingPathComponent("store/people.json"))?.mode == 0o600)
        let backup = scratch.url.appendingPathComponent("link.json.bak")
        #expect(FileFacts(backup)?.isSymbolicLink == false)
        #expect(FileFacts(backup)?.mode == 0o600)
        #expect(try scratch.data("link.json.bak") == (try Fixture.data(Self.zorn + "simple-v1.people.json")))
        #expect(FileFacts.temporaries(in: scratch.url).isEmpty)

        // convert -o onto the link replaces its file too.
        let convert = try ToolProcess.run(["convert", "link.json", "--to", "json", "-o", "link.json"], in: scratch.url)
        #expect(convert.status == 0, "\(convert.standardError)")
        #expect(FileFacts(link)?.isSymbolicLink == true)
    }

    @Test("a file with several hard links is refused before anything is written; the others in the batch stay too")
    func hardLinksRefused() throws {
        let scratch = try Self.peopleFolder(["a.json", "people.json"])
        let file = scratch.url.appendingPathComponent("people.json")
        let twin = scratch.url.appendingPathComponent("twin.json")
        try FileManager.default.linkItem(at: file, to: twin)
        let original = try scratch.data("people.json")
        let run = try ToolProcess.run(
            [
                "upgrade", "a.json", "people.json", "--rules", "rules.json", "--document", "people", "--in-place",
                "--backup",
            ], in: scratch.url)
        #expect(run.status == 2)
        #expect(run.standardError.contains("people.json has 2 hard links: replacing it would leave the other names"))
        #expect(run.standardError.contains("nothing was written"))
        #expect(try scratch.data("a.json") == original)
        #expect(try scratch.data("people.json") == original)
        #expect(FileFacts(file)?.linkCount == 2)
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("a.json.bak").path))
        #expect(FileFacts.temporaries(in: scratch.url).isEmpty)
    }

    // MARK: All or nothing

    /// Two small documents and a large one (30 KB), as `a.json`, `b.json`, `c.json`.
    static func batchWithLargeThird() throws -> ScratchFolder {
        let scratch = try peopleFolder(["a.json", "b.json"])
        var people: [ArchiveValue] = []
        for index in 0..<300 {
            people.append(["id": .string(UUID().uuidString), "name": .string("Person Number\(index)")])
        }
        let large: ArchiveValue = ["schema_version": 1, "people": .array(people)]
        try ArchiveFormat.json.write(large, options: ArchiveWritingOptions(prettyPrinted: true, markup: .plain))
            .write(to: scratch.url.appendingPathComponent("c.json"))
        return scratch
    }

    @Test(
        "a write that fails on the third file (a file size limit, as a full disk) leaves every original and no temporary"
    )
    func fileSizeLimitLeavesEveryOriginal() throws {
        let scratch = try Self.batchWithLargeThird()
        let names = ["a.json", "b.json", "c.json"]
        let before = try FileFacts.snapshot(scratch.url, folders: false)
        let run = try ToolProcess.run(
            ["upgrade"] + names + ["--rules", "rules.json", "--document", "people", "--in-place", "--backup"],
            in: scratch.url,
            fileSizeLimit: 4)
        #expect(run.status == 2)
        #expect(run.standardError.contains("cannot write c.json: File too large"), "\(run.standardError)")
        #expect(run.standardError.contains("nothing was written"))
        #expect(!run.standardError.contains(".tmp"), "a temporary file is named: \(run.standardError)")
        #expect(try FileFacts.snapshot(scratch.url, folders: false) == before)

        let folder = try ToolProcess.run(
            ["upgrade"] + names + ["--rules", "rules.json", "--document", "people", "-o", "out"], in: scratch.url,
            fileSizeLimit: 4)
        #expect(folder.status == 2)
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("out").path))
        #expect(try FileFacts.snapshot(scratch.url, folders: false) == before)
    }

    /// Whether this process can mount a tmpfs (root, on a system that lets it): asked once, by
    /// mounting and unmounting one.
    static let canMountTmpfs: Bool = {
        guard geteuid() == 0, let scratch = try? ScratchFolder() else { return false }
        let point = scratch.url.appendingPathComponent("probe")
        guard (try? FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)) != nil,
            (try? ToolProcess.runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=8k", "tmpfs", point.path])) == 0
        else { return false }
        _ = try? ToolProcess.runCommand("/bin/umount", [point.path])
        return true
    }()

    @Test(
        "a full tmpfs (ENOSPC on the third file) leaves every original",
        .enabled(if: canMountTmpfs, "mounting a tmpfs needs root on a system that allows it"))
    func fullDiskLeavesEveryOriginal() throws {
        let scratch = try Self.batchWithLargeThird()
        let disk = scratch.url.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        // Two pages for the small files' copies; not enough for the large one's.
        let mount =
            (try? ToolProcess.runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=56k", "tmpfs", disk.path])) ?? -1
        try #require(mount == 0, "mounting the test's tmpfs failed after the probe's succeeded")
        defer { _ = try? ToolProcess.runCommand("/bin/umount", [disk.path]) }
        for name in ["a.json", "b.json", "c.json", "rules.json"] {
            try FileManager.default.copyItem(
                at: scratch.url.appendingPathComponent(name), to: disk.appendingPathComponent(name))
        }
        let before = try FileFacts.snapshot(disk, folders: false)
        let run = try ToolProcess.run(
            ["upgrade", "a.json", "b.json", "c.json", "--rules", "rules.json", "--document", "people", "--in-place"],
            in: disk)
        #expect(run.status == 2)
        #expect(run.standardError.contains("No space left on device"), "\(run.standardError)")
        #expect(try FileFacts.snapshot(disk, folders: false) == before)
    }

    // MARK: Collisions and existing files

    @Test("two inputs with one name are refused with -o before anything is written; a walked folder keeps paths")
    func collidingOutputsRefused() throws {
        let scratch = try Self.peopleFolder(["data/v1/x.json", "data/v2/x.json"])
        let run = try ToolProcess.run(
            [
                "upgrade", "data/v1/x.json", "data/v2/x.json", "--rules", "rules.json", "--document", "people", "-o",
                "out",
            ], in: scratch.url)
        #expect(run.status == 2)
        #expect(run.standardError.contains("data/v1/x.json and data/v2/x.json would both be written to out/x.json"))
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("out").path))

        let twice = try ToolProcess.run(
            [
                "upgrade", "data/v1/x.json", "data/v1/x.json", "--rules", "rules.json", "--document", "people",
                "--in-place",
            ], in: scratch.url)
        #expect(twice.status == 2)
        #expect(twice.standardError.contains("are one file"))

        let walked = try ToolProcess.run(
            ["upgrade", "data", "--include", "*.json", "--rules", "rules.json", "--document", "people", "-o", "out"],
            in: scratch.url)
        #expect(walked.status == 0, "\(walked.standardError)")
        #expect(try Self.version(scratch.url.appendingPathComponent("out/v1/x.json")) == 3)
        #expect(try Self.version(scratch.url.appendingPathComponent("out/v2/x.json")) == 3)
    }

    @Test("an output the folder already has is refused unless --overwrite, which keeps its mode")
    func existingOutputs() throws {
        let scratch = try Self.peopleFolder(["a.json", "b.json"])
        try scratch.write("mine", to: "out/b.json")
        try FileFacts.setMode(0o600, of: scratch.url.appendingPathComponent("out/b.json"))
        let refused = try ToolProcess.run(
            ["upgrade", "a.json", "b.json", "--rules", "rules.json", "--document", "people", "-o", "out"],
            in: scratch.url)
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("out/b.json already exists (give --overwrite to replace it)"))
        #expect(try scratch.data("out/b.json") == Data("mine".utf8))
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("out/a.json").path))

        let replaced = try ToolProcess.run(
            [
                "upgrade", "a.json", "b.json", "--rules", "rules.json", "--document", "people", "-o", "out",
                "--overwrite",
            ], in: scratch.url)
        #expect(replaced.status == 0, "\(replaced.standardError)")
        #expect(try Self.version(scratch.url.appendingPathComponent("out/b.json")) == 3)
        #expect(FileFacts(scratch.url.appendingPathComponent("out/b.json"))?.mode == 0o600)
    }

    @Test("an existing .bak is kept when it holds the original (a rerun), refused when it differs")
    func existingBackups() throws {
        let scratch = try Self.peopleFolder(["a.json", "b.json"])
        let original = try scratch.data("a.json")
        try original.write(to: scratch.url.appendingPathComponent("a.json.bak"))
        let rerun = try ToolProcess.run(
            ["upgrade", "a.json", "--rules", "rules.json", "--document", "people", "--in-place", "--backup"],
            in: scratch.url)
        #expect(rerun.status == 0, "\(rerun.standardError)")
        #expect(try scratch.data("a.json.bak") == original)
        #expect(try Self.version(scratch.url.appendingPathComponent("a.json")) == 3)

        try scratch.write("an older backup", to: "b.json.bak")
        let refused = try ToolProcess.run(
            ["upgrade", "b.json", "--rules", "rules.json", "--document", "people", "--in-place", "--backup"],
            in: scratch.url)
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("b.json.bak already exists and is not a copy of b.json"))
        #expect(try scratch.data("b.json") == original)
        #expect(try scratch.data("b.json.bak") == Data("an older backup".utf8))
        let overwritten = try ToolProcess.run(
            [
                "upgrade", "b.json", "--rules", "rules.json", "--document", "people", "--in-place", "--backup",
                "--overwrite",
            ], in: scratch.url)
        #expect(overwritten.status == 0, "\(overwritten.standardError)")
        #expect(try scratch.data("b.json.bak") == original)
    }

    // MARK: Overlapping runs

    @Test("two overlapping in-place runs on the same files both succeed: one waits for the other")
    func overlappingRuns() throws {
        let scratch = try ScratchFolder()
        try FileManager.default.copyItem(
            at: Fixture.url("archives/rules.json"), to: scratch.url.appendingPathComponent("rules.json"))
        var random = SplitMix64(seed: 7)
        let names = (0..<4).map { "drawing-\($0).plist" }
        let old = try names.indices.map { try CrashSafetyTests.oldArchive($0, random: &random) }
        let arguments = ["upgrade"] + names + ["--rules", "rules.json", "--in-place", "--backup"]
        var new: [Data] = []
        var waited = 0
        var failed = 0
        var trials = 0
        for trial in 0..<30 {
            trials += 1
            for name in try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) where name != "rules.json"
            {
                try FileManager.default.removeItem(at: scratch.url.appendingPathComponent(name))
            }
            for (name, data) in zip(names, old) {
                try data.write(to: scratch.url.appendingPathComponent(name))
            }
            let first = try ToolProcess.start(arguments, in: scratch.url)
            let second = try ToolProcess.start(arguments, in: scratch.url)
            let runs = [try first.wait(), try second.wait()]
            for run in runs {
                #expect(run.status == 0, "trial \(trial): \(run.standardError)")
                if run.status != 0 { failed += 1 }
                if run.standardError.contains("waiting for another archive-migrate run writing in") { waited += 1 }
            }
            let contents = try names.map { try scratch.data($0) }
            if new.isEmpty { new = contents }
            #expect(contents == new, "trial \(trial): the files differ from the first trial's")
            #expect(
                try names.map { try scratch.data($0 + ".bak") } == old, "trial \(trial): a backup is not the original")
            #expect(FileFacts.temporaries(in: scratch.url).isEmpty, "trial \(trial)")
            if runs.contains(where: { $0.status != 0 }) { break }
        }
        print(
            "overlapping runs: \(trials) trials of two runs at once, \(failed) runs failed, \(waited) runs waited for the "
                + "other")
        #expect(new != old)
    }
}
