import Foundation
import ModelVersioning
import TestSupport
import Testing

/// `-` (one archive from standard input to standard output) and `--ndjson` (one JSON archive per
/// line in, one per line out, in order, with an error record in place of a bad line).
@Suite("Streams: - and --ndjson")
struct StreamTests {
    static let sketches = ["empty", "floor-plan", "kyoto-trip"]

    static func line(_ name: String) throws -> String {
        let data = try ArchiveFormat.json.write(
            try Fixture.tree("archives/Sketch/v1/\(name).json"), options: ArchiveWritingOptions(prettyPrinted: false))
        return String(decoding: data, as: UTF8.self)
    }

    static func differences(_ data: Data, golden name: String) throws -> [ArchiveDifference] {
        ArchiveDiff.differences(
            from: try Fixture.tree("archives/Sketch/expected/v1/\(name).json"), to: try ArchiveFormat.read(data).0,
            options: ArchiveDiff.Options(nullMeansAbsent: true))
    }

    static let rules = Fixture.url("archives/rules.json").path

    @Test("- reads one archive from standard input and writes the upgraded one to standard output")
    func standardInput() throws {
        let input = try Fixture.data("archives/Sketch/v1/kyoto-trip.json")
        let run = try ToolProcess.run(["upgrade", "-", "--rules", Self.rules], standardInput: input)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try Self.differences(run.standardOutput, golden: "kyoto-trip").isEmpty)
        #expect(run.standardError.contains("upgraded standard input:"))

        let plist = try ToolProcess.run(
            ["convert", "-", "--to", "binary-plist"], standardInput: try Fixture.data("archives/Sketch/v1/empty.json"))
        #expect(plist.status == 0 && plist.standardOutput.starts(with: Array("bplist00".utf8)))
        let keyed = try ToolProcess.run(["upgrade", "-", "--rules", Self.rules], standardInput: plist.standardOutput)
        #expect(keyed.status == 0, "\(keyed.standardError)")
        #expect(keyed.standardOutput.starts(with: Array("bplist00".utf8)), "written back in its own format")
        #expect(try Self.differences(keyed.standardOutput, golden: "empty").isEmpty)

        let inspect = try ToolProcess.run(["inspect", "-"], standardInput: input)
        #expect(inspect.output.hasPrefix("standard input: json"), "\(inspect.output)")
        let dry = try ToolProcess.run(["upgrade", "-", "--rules", Self.rules, "--dry-run"], standardInput: input)
        #expect(dry.status == 1 && dry.standardOutput.isEmpty)
        let broken = try ToolProcess.run(["upgrade", "-", "--rules", Self.rules], standardInput: Data("{\"a\": ".utf8))
        #expect(broken.status == 2 && broken.standardOutput.isEmpty)
        #expect(broken.standardError.contains("of standard input)"), "\(broken.standardError)")
        for extra in [["--in-place"], ["-o", "out"], ["a.json"]] {
            let refused = try ToolProcess.run(["upgrade", "-", "--rules", Self.rules] + extra, standardInput: input)
            #expect(refused.status == 2, "\(extra)")
        }
    }

    @Test("--ndjson writes one archive per line in the same order, and an error record for a malformed line")
    func ndjson() throws {
        var lines: [String] = []
        for index in 0..<30 {
            lines.append(try Self.line(Self.sketches[index % 3]))
        }
        lines[14] = #"{"$archive": 1, "document": "Sketch", "documentVersion": 1, "root": {"#  // cut short
        lines[20] = ""  // a blank line stays blank
        let today = String(decoding: try Fixture.data("archives/Sketch/v4/empty.json"), as: UTF8.self)
        lines[25] = today.replacingOccurrences(of: "\n", with: " ")  // already current: written as it came
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let run = try ToolProcess.run(["upgrade", "--ndjson", "--rules", Self.rules], standardInput: input)
        #expect(run.status == 2, "a line failed: \(run.standardError)")
        let output = run.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(output.count == lines.count + 1 && output.last == "", "one line out per line in")
        for (index, line) in output.dropLast().enumerated() {
            switch index {
            case 14:
                let record = try ArchiveFormat.json.read(
                    Data(line.utf8), options: ArchiveReadingOptions(markup: .plain))
                #expect(record["$error"]?["line"] == 15)
                #expect(record["$error"]?["code"] == "malformedInput")
                #expect(record["$error"]?["message"]?.stringValue?.contains("(line 15, column") == true, "\(record)")
            case 20:
                #expect(line.isEmpty)
            case 25:
                #expect(line == lines[25])
            default:
                #expect(
                    try Self.differences(Data(line.utf8), golden: Self.sketches[index % 3]).isEmpty, "line \(index + 1)"
                )
            }
        }
        #expect(run.standardError.contains("of standard input)"))
        #expect(
            run.standardError.contains("upgraded 27 of 29 lines of standard input; 1 failed"), "\(run.standardError)")

        // From a file, the same; --dry-run writes nothing; --format json names each line by number.
        let scratch = try ScratchFolder()
        try input.write(to: scratch.url.appendingPathComponent("in.ndjson"))
        let fromFile = try ToolProcess.run(
            ["upgrade", "--ndjson", "in.ndjson", "--rules", Self.rules], in: scratch.url)
        // Line 15's error record names the file instead of standard input.
        #expect(fromFile.output == run.output.replacingOccurrences(of: "standard input", with: "in.ndjson"))
        let dry = try ToolProcess.run(
            ["upgrade", "--ndjson", "in.ndjson", "--rules", Self.rules, "--dry-run", "--format", "json"],
            in: scratch.url)
        #expect(dry.standardOutput.isEmpty && dry.status == 2)
        let report = try ArchiveFormat.json.read(Data(dry.standardError.utf8))
        #expect(report["lines"]?.arrayValue?.count == 29)
        #expect(report["lines"]?[14]?["line"] == 15 && report["lines"]?[14]?["ok"] == false)
        #expect(report["changed"] == 27 && report["failed"] == 1)

        let inspect = try ToolProcess.run(["inspect", "--ndjson", "in.ndjson", "--rules", Self.rules], in: scratch.url)
        #expect(inspect.output.contains("in.ndjson: 30 lines (1 blank)"), "\(inspect.output)")
        #expect(inspect.output.contains("Sketch v1: 27 lines") && inspect.output.contains("Sketch v4: 1 line"))
        #expect(inspect.output.contains("line 15: "))
    }

    @Test("--ndjson refuses what is for files, and a line that is not JSON")
    func ndjsonRefusals() throws {
        let refused = try ToolProcess.run(["upgrade", "--ndjson", "--in-place", "--rules", Self.rules])
        #expect(refused.status == 2 && refused.standardError.contains("'--ndjson' writes to standard output"))
        let plist = try ToolProcess.run(
            ["upgrade", "--ndjson", "--rules", Self.rules], standardInput: Data("<plist><dict/></plist>\n".utf8))
        #expect(plist.status == 2)
        #expect(plist.output.contains(#""code":"unsupportedFormat""#), "\(plist.output)")
    }
}
