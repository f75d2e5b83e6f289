import Foundation
import ModelVersioning

/// `archive-bench --hostile-inputs`: small files made to take time or memory, each given to
/// `archive-migrate` (this executable with `--run-tool`) in a process of its own, with its wall
/// time and the peak of its resident set.
///
/// The inputs are the ones an independent probe used to make the tool hang or grow without
/// limit: way downs carried in an archive with 10,000, 80,000 and 1,000,001 steps, a carried
/// `nest` of 60,000 keys, a carried `add` whose 100 KB default would be copied into 40,000
/// objects, and a 1 KB property list whose shared data values nest a million archives six levels
/// deep. Each must be opened or refused in under a second per megabyte and, above the tool's own
/// footprint (its peak on a one-object archive), in under ten times its size in memory.
enum HostileInputBenchmark {
    struct Row {
        var name: String
        var command: String
        var bytes: Int
        var run: ChildProcess.Run
    }

    /// Runs every input; `keeping` names a folder to leave the inputs in (by default they are
    /// made in a temporary folder and removed).
    static func run(keeping: String? = nil, progress: (String) -> Void) throws -> (
        baseline: ChildProcess.Run, rows: [Row]
    ) {
        let folder =
            keeping.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "archive-bench-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if keeping == nil { try? FileManager.default.removeItem(at: folder) } }
        // The sample app's rules as release 1.1's tool has them, from the repository's fixtures.
        let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Fixtures/archives/Sketch-1.1.rules.json"
        ).standardized
        let me = CommandLine.arguments[0]

        func upgrade(_ input: URL, _ extra: [String] = []) -> [String] {
            [
                me, "--run-tool", "upgrade", input.path, "--rules", rules.path, "-o",
                folder.appendingPathComponent("out").path,
            ]
                + extra
        }
        func write(_ name: String, _ data: Data) throws -> URL {
            let url = folder.appendingPathComponent(name)
            try data.write(to: url)
            return url
        }

        let small = try write("one-circle.json", sketch(circlesAt: 3, count: 1, steps: [emptyStep(from: 3)]))
        progress("hostile inputs: the tool's footprint on a one-object archive")
        let baseline = try ChildProcess.run(upgrade(small), captureError: true)

        var inputs: [(name: String, file: String, data: () throws -> Data, command: (URL) -> [String])] = []
        for steps in [10_000, 80_000, 1_000_001] {
            inputs.append(
                (
                    "carried way down, \(steps.formatted()) one-version steps", "steps-\(steps).json",
                    {
                        try sketch(
                            circlesAt: steps + 2, count: 1,
                            steps: (2..<(steps + 2)).reversed().map { emptyStep(from: $0 + 1) })
                    },
                    { upgrade($0) }
                ))
        }
        inputs.append(
            (
                "carried nest of 60,000 keys", "nest-60000.json",
                {
                    let keys = (0..<60_000).map { "k\($0)" }
                    return try sketch(
                        circlesAt: 3, count: 1,
                        steps: [MigrationStep(from: 3, to: 2, rules: [.nest(keys, into: "group")])],
                        extraFields: keys)
                }, { upgrade($0) }
            ))
        inputs.append(
            (
                "carried add of a 100 KB default into 40,000 circles", "amplifying-add.json",
                {
                    let large = ArchiveValue.string(String(repeating: "x", count: 100_000))
                    return try sketch(
                        circlesAt: 3, count: 40_000,
                        steps: [MigrationStep(from: 3, to: 2, rules: [.add("note", default: large)])])
                }, { upgrade($0) }
            ))
        inputs.append(
            (
                "six levels of ten shared nested archives (inspect)", "fan-out.plist", { fanOut(levels: 6) },
                { [me, "--run-tool", "inspect", $0.path] }
            ))
        inputs.append(
            (
                "six levels of ten shared nested archives (upgrade --nested)", "fan-out.plist", { fanOut(levels: 6) },
                { upgrade($0, ["--nested"]) }
            ))

        var rows: [Row] = []
        for input in inputs {
            let data = try input.data()
            let url = try write(input.file, data)
            progress("hostile inputs: \(input.name) (\(data.count.formatted()) bytes)")
            let command = input.command(url)
            let run = try ChildProcess.run(command, captureError: true)
            rows.append(Row(name: input.name, command: command[2], bytes: data.count, run: run))
        }
        return (baseline, rows)
    }

    static func tableLines(baseline: ChildProcess.Run, rows: [Row]) -> [String] {
        var lines = [
            String(
                format: "the tool's footprint (one-object archive): %.1f MB, %.2f s", Double(baseline.peakBytes) / 1e6,
                baseline.seconds),
            "input | command | size | exit | seconds | s per MB | peak MB | growth over footprint / size | what it said",
        ]
        for row in rows {
            let megabytes = Double(row.bytes) / 1e6
            let growth = Double(max(0, row.run.peakBytes - baseline.peakBytes)) / Double(row.bytes)
            lines.append(
                String(
                    format: "%@ | %@ | %@ B | %d | %.2f | %.3f | %.1f | %.1f× | %@", row.name, row.command,
                    row.bytes.formatted(), row.run.status, row.run.seconds, row.run.seconds / max(megabytes, 1e-9),
                    Double(row.run.peakBytes) / 1e6, growth, String(row.run.errorLine.prefix(200))))
        }
        return lines
    }

    // MARK: The inputs

    /// A step of `Circle` one version down that changes nothing.
    static func emptyStep(from version: Int) -> MigrationStep {
        MigrationStep(from: version, to: version - 1, rules: [])
    }

    /// An archive today's Sketch app could have written for release 1.1, its way down taking
    /// `Circle` from `from` to v2 through `steps`; its drawing holds `count` circles at `from`,
    /// each with `extraFields` (numbered values) beside its own.
    static func sketch(circlesAt from: Int, count: Int, steps: [MigrationStep], extraFields: [String] = []) throws
        -> Data
    {
        let wayDown = WayDown(release: "1.1", types: [WayDown.Chain(name: "Circle", from: from, to: 2, steps: steps)])
        var fields: ArchiveDictionary = ["center": ["x": 0, "y": 0], "radius": 1]
        for (index, key) in extraFields.enumerated() { fields[key] = .int(Int64(index)) }
        let circle = ArchiveValue.object(ArchiveObject(typeName: "Circle", version: from, fields: fields))
        let drawing = ArchiveObject(
            typeName: "Drawing", version: 2,
            fields: [
                "title": "bounds", "author": "probe", "canvasColor": "#FFFFFF", "created": nil,
                "shapes": .array(Array(repeating: circle, count: count)), "models": [],
            ])
        let tree: ArchiveValue = [
            "$archive": 1, "document": "Sketch", "documentVersion": 2,
            "wayDown": try wayDown.tree, "root": .object(drawing),
        ]
        var compact = ArchiveWritingOptions()
        compact.prettyPrinted = false
        return try ArchiveFormat.json.write(tree, options: compact)
    }

    /// A binary property list (`bplist00`) whose top array holds ten references to one data
    /// value holding the next level, `levels` deep: about a kilobyte that nests `10^levels`
    /// archives when every reference is followed.
    static func fanOut(levels: Int) -> Data {
        // The innermost level: a property list holding the string "leaf".
        var bytes = plist(objects: [[0x54] + Array("leaf".utf8)], top: 0)
        for _ in 0..<levels {
            var data: [UInt8] =
                bytes.count < 15 ? [0x40 | UInt8(bytes.count)] : [0x4F, 0x12] + bigEndian(bytes.count, 4)
            data += bytes
            let array: [UInt8] = [0xAA] + [UInt8](repeating: 0, count: 10).flatMap { _ in [0x00, 0x00] }
            bytes = plist(objects: [data, array], top: 1)
        }
        return Data(bytes)
    }

    /// A `bplist00` of `objects` (already encoded, references two bytes wide), offsets four bytes wide.
    private static func plist(objects: [[UInt8]], top: Int) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let tableOffset = bytes.count
        for offset in offsets { bytes += bigEndian(offset, 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 2]
        bytes += bigEndian(objects.count, 8) + bigEndian(top, 8) + bigEndian(tableOffset, 8)
        return bytes
    }

    private static func bigEndian(_ value: Int, _ size: Int) -> [UInt8] {
        stride(from: (size - 1) * 8, through: 0, by: -8).map { UInt8(truncatingIfNeeded: value >> $0) }
    }
}
