import Foundation
import ModelVersioning
import TestSupport
import Testing

/// `archive-migrate convert` drops no type silently: a Terminal profile (colours and font as
/// keyed archives in `<data>`) and an app's preferences (dates) go to JSON and back, and between
/// XML and binary, as the same property lists — for our reader, for `diff`, and for Python's
/// `plistlib`, a reader independent of ours.
@Suite("Conversions keep every type")
struct LosslessConversionTests {
    /// A real-shaped property list, its file name and the other property-list format.
    struct Subject: Sendable, CustomTestStringConvertible {
        var fixture: String
        var name: String { URL(fileURLWithPath: fixture).lastPathComponent }
        var testDescription: String { name }
    }

    static let subjects = [
        Subject(fixture: "plist/terminal/Harbor.terminal"),
        Subject(fixture: "plist/preferences/com.example.Harbor.plist"),
    ]

    /// Each road a property list takes and comes back by: through JSON, and through the other
    /// property-list format.
    static let roads: [[String]] = [["json"], ["xml-plist"], ["binary-plist"], ["json", "binary-plist", "json"]]

    /// Converts `subject` along `road` and back to its own format; returns the final file's name.
    static func travel(_ subject: Subject, _ road: [String], in scratch: ScratchFolder) throws -> String {
        let original = try ArchiveDocument(data: try Fixture.data(subject.fixture))
        var current = subject.name
        for (step, format) in (road + [original.format.rawValue]).enumerated() {
            let next = "step\(step).\(format)"
            let run = try ToolProcess.run(["convert", current, "--to", format, "-o", next], in: scratch.url)
            #expect(run.status == 0, "\(current) → \(format): \(run.standardError)")
            current = next
        }
        return current
    }

    @Test(
        "convert takes a property list through JSON or the other format and back to the same tree, and diff agrees",
        arguments: subjects, roads)
    func roundTrip(_ subject: Subject, road: [String]) throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: subject.fixture)
        let back = try Self.travel(subject, road, in: scratch)
        let original = try ArchiveDocument(data: try Fixture.data(subject.fixture))
        let final = try ArchiveDocument(data: try scratch.data(back))
        #expect(final.format == original.format)
        #expect(final.tree == original.tree)
        let diff = try ToolProcess.run(["diff", subject.name, back], in: scratch.url)
        #expect(diff.status == 0)
        #expect(diff.output == "no differences\n")
    }

    @Test(
        "Python's plistlib finds the same values of the same types at both ends of each round trip",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")),
        arguments: subjects, roads)
    func independentReader(_ subject: Subject, road: [String]) throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: subject.fixture)
        let back = try Self.travel(subject, road, in: scratch)
        let check = try Self.python(
            Fixture.url("plist/compare_with_plistlib.py").path, Fixture.url(subject.fixture).path,
            scratch.url.appendingPathComponent(back).path)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.hasPrefix("equal: "), "\(check.output)")
    }

    @Test(
        "the comparison script itself tells data from its base64 text",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func independentReaderSeesTypes() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.subjects[0].fixture)
        let text = try ToolProcess.run(
            ["convert", Self.subjects[0].name, "--to", "json", "--plain", "-o", "text.json"], in: scratch.url)
        #expect(text.status == 0)
        let back = try ToolProcess.run(
            ["convert", "text.json", "--to", "xml-plist", "-o", "back.terminal"], in: scratch.url)
        #expect(back.status == 0)
        let check = try Self.python(
            Fixture.url("plist/compare_with_plistlib.py").path, Fixture.url(Self.subjects[0].fixture).path,
            scratch.url.appendingPathComponent("back.terminal").path)
        #expect(check.status == 1)
        #expect(check.output.hasPrefix("different: BackgroundColor: a data "), "\(check.output)")
    }

    @Test("Harbor.json is the profile as convert writes it to JSON (a plain envelope), and converts back to it")
    func profileAsJSON() throws {
        let json = try ArchiveDocument(data: try Fixture.data(Self.subjects[0].fixture)).data(as: .json)
        if ProcessInfo.processInfo.environment["ARCHIVE_MIGRATE_RECORD"] == "1" {
            try json.write(to: Fixture.url("plist/terminal/Harbor.json"))
        }
        #expect(json == (try Fixture.data("plist/terminal/Harbor.json")), "ARCHIVE_MIGRATE_RECORD=1 writes it again")
        let document = try ArchiveDocument(data: json)
        #expect(document.usesPlainEnvelope)
        #expect(try document.data(as: .xmlPropertyList) == (try Fixture.data(Self.subjects[0].fixture)))
    }

    @Test("a plain document converted to JSON takes a plain envelope, and a note names the first value that needs it")
    func plainEnvelopeAndNote() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.subjects[0].fixture)
        let run = try ToolProcess.run(["convert", "Harbor.terminal", "--to", "json"], in: scratch.url)
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("{\n  \"$archive\": 1,\n  \"plain\": true,\n  \"root\": {\n"))
        #expect(run.output.contains(#""BackgroundColor": {"# + "\n" + #"      "$data": "YnBsaXN0MDD"#))
        #expect(
            run.standardError
                == "note: Harbor.terminal holds data at BackgroundColor, which plain JSON has no type for: written in "
                + #"a plain envelope ({"$archive": 1, "plain": true, "root": …}) that keeps its type, so that "#
                + "converting back restores it; --plain writes such values as text instead\n")
        // The same bytes as the Swift API (`ArchiveDocument.data(as:)`).
        #expect(
            run.standardOutput
                == (try ArchiveDocument(data: try Fixture.data(Self.subjects[0].fixture)).data(as: .json)))

        // Preferences: the first date.
        try scratch.copy(fixture: Self.subjects[1].fixture)
        let preferences = try ToolProcess.run(["convert", "com.example.Harbor.plist", "--to", "json"], in: scratch.url)
        #expect(preferences.standardError.hasPrefix("note: com.example.Harbor.plist holds a date at SULastCheckTime,"))
        #expect(preferences.output.contains(#""$date": "2024-03-01T10:22:31.123456Z""#))

        // Nothing to keep: plain JSON, and no note.
        try scratch.write(
            "<plist version=\"1.0\"><dict><key>name</key><string>Basic</string></dict></plist>", to: "p.plist")
        let plain = try ToolProcess.run(["convert", "p.plist", "--to", "json"], in: scratch.url)
        #expect(plain.output == "{\n  \"name\": \"Basic\"\n}\n")
        #expect(plain.standardError.isEmpty)
    }

    @Test("--plain drops the types on request, and diff names the kinds that changed")
    func plainOnRequestAndDiff() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.subjects[0].fixture)
        let text = try ToolProcess.run(
            ["convert", "Harbor.terminal", "--to", "json", "--plain", "-o", "text.json"], in: scratch.url)
        #expect(text.status == 0)
        #expect(text.standardError.isEmpty)
        #expect(try ArchiveDocument(data: try scratch.data("text.json")).tree["Font"]?.kind == .string)

        let diff = try ToolProcess.run(["diff", "Harbor.terminal", "text.json"], in: scratch.url)
        #expect(diff.status == 1)
        let lines = diff.output.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { $0.hasSuffix(" (data → string)") }, "\(diff.output)")
        #expect(lines.first?.hasPrefix(#"~ BackgroundColor: <1010 bytes> → "YnBsaXN0MDD"#) == true, "\(diff.output)")

        let json = try ToolProcess.run(["diff", "Harbor.terminal", "text.json", "--format", "json"], in: scratch.url)
        let report = try ArchiveFormat.json.read(json.standardOutput)
        let first = try #require(report["differences"]?.arrayValue?.first)
        #expect(first["path"] == "BackgroundColor")
        #expect(first["oldKind"] == "data" && first["newKind"] == "string")
        // Written as JSON text, the two values read alike: only their kinds tell them apart.
        #expect(first["old"] == first["new"])

        // The typed conversion is no difference at all.
        let typed = try ToolProcess.run(
            ["convert", "Harbor.terminal", "--to", "json", "-o", "typed.json"], in: scratch.url)
        #expect(typed.status == 0)
        let same = try ToolProcess.run(["diff", "Harbor.terminal", "typed.json"], in: scratch.url)
        #expect(same.status == 0 && same.output == "no differences\n")
    }

    @Test("the archives nested in a converted profile's data values are still archives in its JSON")
    func nestedArchivesInJSON() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.subjects[0].fixture)
        #expect(
            try ToolProcess.run(["convert", "Harbor.terminal", "--to", "json", "-o", "h.json"], in: scratch.url).status
                == 0)
        let inspect = try ToolProcess.run(["inspect", "h.json"], in: scratch.url)
        #expect(inspect.output.contains("no envelope (a plain document, in a plain envelope"), "\(inspect.output)")
        #expect(inspect.output.contains("nested archives: 5\n"), "\(inspect.output)")
        #expect(inspect.output.contains("  Font: keyed-archive (NSFont unversioned)\n"), "\(inspect.output)")
        let fromJSON = try ArchiveDocument(data: try scratch.data("h.json")).nestedArchives()
        let fromProfile = try ArchiveDocument(data: try Fixture.data(Self.subjects[0].fixture)).nestedArchives()
        #expect(fromJSON.map(\.path) == fromProfile.map(\.path))
        #expect(fromJSON.map(\.document.tree) == fromProfile.map(\.document.tree))
    }

    /// Runs `python3` with `arguments`.
    static func python(_ arguments: String...) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
