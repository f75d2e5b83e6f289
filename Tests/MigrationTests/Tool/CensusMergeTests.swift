import ArchiveMigrateKit
import Foundation
import ModelVersioning
import TestSupport
import Testing

/// A census of a store's parts, merged, is the census of the whole: `inspect --ndjson` per part
/// (with `--first-line`, so failures keep their line in the whole), then `inspect --merge` or
/// `ArchiveCensus.merged`.
@Suite("Census: parts merged equal the whole")
struct CensusMergeTests {
    /// 70 lines cycled from the JSON Sketch fixtures of all four versions, with 23 broken lines
    /// (more than the 20 a census lists by name) and two blank ones.
    static func lines() throws -> [String] {
        let fixtures = Fixture.sketchArchives.filter { $0.hasSuffix(".json") }
        var lines: [String] = []
        for index in 0..<70 {
            let tree = try Fixture.tree("archives/Sketch/" + fixtures[index % fixtures.count])
            lines.append(
                String(
                    decoding: try ArchiveFormat.json.write(tree, options: ArchiveWritingOptions(prettyPrinted: false)),
                    as: UTF8.self))
        }
        for index in stride(from: 3, to: 70, by: 3) { lines[index] = #"{"$archive": 1, "root": "# }
        lines[10] = ""
        lines[44] = " "
        return lines
    }

    static let rules = Fixture.url("archives/rules.json").path

    static func census(_ lines: ArraySlice<String>, firstLine: Int) throws -> Data {
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let run = try ToolProcess.run(
            ["inspect", "--ndjson", "--rules", rules, "--format", "json", "--first-line", String(firstLine)],
            standardInput: input)
        #expect(run.status == (try ArchiveCensus(json: run.standardOutput)).exitStatus, "\(run.standardError)")
        #expect(run.status != 0)
        return run.standardOutput
    }

    @Test("three parts' censuses, merged by the tool and by ArchiveCensus in any grouping, equal the whole's")
    func partsEqualWhole() throws {
        let lines = try Self.lines()
        let scratch = try ScratchFolder()
        // The whole from standard input too: failures' messages name their input.
        let whole = try Self.census(lines[...], firstLine: 1)
        let expected = try ArchiveCensus(json: whole)
        #expect(expected.count == 70 && expected.empty == 2 && expected.failed == 23 && expected.failures.count == 20)

        let bounds = [0, 17, 40, 70]
        var parts: [ArchiveCensus] = []
        for part in 0..<3 {
            let data = try Self.census(lines[bounds[part]..<bounds[part + 1]], firstLine: bounds[part] + 1)
            try data.write(to: scratch.url.appendingPathComponent("part\(part).json"))
            parts.append(try ArchiveCensus(json: data))
        }
        let merged = try #require(try ArchiveCensus.merged(parts))
        #expect(merged == expected)
        #expect(try parts[0].merging(parts[1]).merging(parts[2]) == (try parts[0].merging(parts[1].merging(parts[2]))))
        #expect(merged.failures.map(\.name) == expected.failures.map(\.name))
        #expect(merged.failures.last?.name == "line 61" && merged.failed == 23)
        #expect(merged.exitStatus == 1 && merged.upgrade?.isEmpty == false)

        let tool = try ToolProcess.run(
            ["inspect", "--format", "json"] + (0..<3).flatMap { ["--merge", "part\($0).json"] }, in: scratch.url)
        #expect(tool.status == 1, "\(tool.standardError)")
        #expect(try ArchiveCensus(json: tool.standardOutput) == merged)
        let text = try ToolProcess.run(
            ["inspect"] + (0..<3).flatMap { ["--merge", "part\($0).json"] }, in: scratch.url)
        #expect(text.output == merged.text + "\n", "\(text.output)")
        #expect(text.output.hasPrefix("standard input: 70 lines (2 blank)"))
    }

    @Test("100,000 shards' censuses, each of its own source, merge into one naming each source once, in order")
    func manySources() throws {
        let parts = (0..<100_000).map { index in
            var part = ArchiveCensus(items: .rows, source: "shard \(index % 50_000)", withRules: false)
            part.count = 2
            return part
        }
        let merged = try #require(try ArchiveCensus.merged(parts))
        #expect(merged.sources == (0..<50_000).map { "shard \($0)" })
        #expect(merged.count == 200_000)
        #expect(try parts[0].merging(parts[50_000]).sources == ["shard 0"])
    }

    @Test("censuses of lines and of rows, or with and without rules, do not merge; a file that is no census is named")
    func refusals() throws {
        let lines = ArchiveCensus(items: .lines, source: "a", withRules: true)
        #expect(throws: ArchiveError.self) {
            try lines.merging(ArchiveCensus(items: .rows, source: "b", withRules: true))
        }
        #expect(throws: ArchiveError.self) {
            try lines.merging(ArchiveCensus(items: .lines, source: "b", withRules: false))
        }
        let scratch = try ScratchFolder()
        try Data(#"{"source": "x", "lines": 3}"#.utf8).write(to: scratch.url.appendingPathComponent("bad.json"))
        let run = try ToolProcess.run(["inspect", "--merge", "bad.json"], in: scratch.url)
        #expect(run.status == 2 && run.standardError.contains("bad.json"), "\(run.standardError)")
        #expect(run.standardError.contains("not a census"), "\(run.standardError)")
        let misplaced = try ToolProcess.run(["inspect", "x.json", "--first-line", "3"], in: scratch.url)
        #expect(misplaced.status == 2 && misplaced.standardError.contains("'--first-line' goes with '--ndjson'"))
    }

    @Test("the census fails exactly the lines upgrade fails, with the same codes (a plain document no chain takes too)")
    func censusAgreesWithUpgrade() throws {
        var lines = try Array(Self.lines().prefix(12))
        lines[1] = #"{"title": "a plain object no document chain applies to"}"#
        lines[2] = "<plist><dict/></plist>"
        lines[4] = lines[0].replacingOccurrences(of: #""documentVersion":1"#, with: #""documentVersion":9"#)
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let upgrade = try ToolProcess.run(["upgrade", "--ndjson", "--rules", Self.rules], standardInput: input)
        var failed: [String: String] = [:]
        for (index, line) in upgrade.output.split(separator: "\n").enumerated() where line.hasPrefix(#"{"$error""#) {
            let record = try ArchiveFormat.json.read(Data(line.utf8), options: ArchiveReadingOptions(markup: .plain))
            failed["line \(index + 1)"] = record["$error"]?["code"]?.stringValue
        }
        #expect(failed.count >= 5, "\(failed)")
        let census = try ArchiveCensus(json: try Self.census(lines[...], firstLine: 1))
        #expect(Dictionary(uniqueKeysWithValues: census.failures.map { ($0.name, $0.code) }) == failed)
        #expect(census.failed == failed.count)
    }
}
