import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What to run.
struct BenchmarkOptions {
    var quick: Bool
    var runs = 5
    /// Document sizes, in shape objects.
    var sizes: [Int]
    /// Chain lengths for the per-step measurement.
    var chainLengths = [1, 10, 100]
    /// Rows of the SQLite case; files and NDJSON lines of the batch-memory cases (0: skipped).
    var storeRows: Int
    var batchFiles: Int
    var batchLines: Int
    /// Key counts of the large-dictionary cases.
    var dictionarySizes: [Int]
    /// Whether the front-door rows are left out (`--without-front-doors`: at full size they take
    /// about 40 minutes; `--front-doors` runs them alone).
    var skipsFrontDoors = false

    /// The decoder's options for every size: a million shapes are 14 million values, above
    /// `ArchiveLimits.maxObjectCount`'s default of 10 million, so the benchmark raises that one
    /// limit (as an app that opens documents this large would); every other limit stays.
    static let decoding: DecodingOptions = {
        var options = DecodingOptions()
        options.limits.maxObjectCount = 50_000_000
        return options
    }()

    init(quick: Bool) {
        self.quick = quick
        sizes = quick ? [2_000, 10_000] : [10_000, 100_000, 1_000_000]
        storeRows = quick ? 10_000 : 100_000
        batchFiles = quick ? 0 : 20_000
        batchLines = quick ? 0 : 1_000_000
        dictionarySizes = quick ? [1_000, 10_000] : [10_000, 100_000, 1_000_000]
    }
}

/// Every measurement of one run of the benchmark.
struct BenchmarkResults {
    struct Row {
        var name: String
        var size: Int
        var bytes: Int
        /// Median seconds per contender.
        var medians: [String: Double]
    }

    var rows: [Row] = []
    var perStepNanoseconds: [Int: Double] = [:]
    var chainObjects = 0
    /// Nanoseconds per key of the large-dictionary cases, by case and key count.
    var perKeyNanoseconds: [String: [Int: Double]] = [:]
    /// Peak resident-set growth divided by the input size, per case.
    var peakMemory: [String: Double] = [:]
    var stores: StoreBenchmark.Results?
    var frontDoors: FrontDoorBenchmark.Results?
    var options: BenchmarkOptions

    /// The headline size: the middle one of the full run, the largest of a quick one.
    var headlineSize: Int { options.quick ? options.sizes.last ?? 0 : options.sizes[options.sizes.count / 2] }

    /// `baseline`'s time over the library's in one case (above 1: the library is faster).
    func ratio(_ name: String, _ baseline: String, size: Int? = nil) -> Double? {
        ratio(name, of: "ModelVersioning", over: baseline, size: size)
    }

    /// `baseline`'s time over `contender`'s in one case (above 1: the contender is faster), at
    /// `size` objects or the headline size.
    func ratio(_ name: String, of contender: String, over baseline: String, size: Int? = nil) -> Double? {
        guard let row = rows.first(where: { $0.name == name && $0.size == (size ?? headlineSize) }),
            let time = row.medians[contender], let theirs = row.medians[baseline], time > 0
        else { return nil }
        return theirs / time
    }

    /// What Codable alone allows (``CodableFloor``): Foundation's time over the time the models'
    /// own `init(from:)` and `encode(to:)` take with a decoder and an encoder that do nothing,
    /// the most any coder through Codable could reach if the bytes cost nothing; and that time
    /// as a fraction of the library's.
    func codableFloor() -> [(String, Double?)] {
        [
            (
                "decode_current_codable_floor_vs_jsondecoder",
                ratio("decode current", of: CodableFloor.name, over: "Foundation JSONDecoder")
            ),
            (
                "migrate_decode_codable_floor_vs_jsondecoder",
                ratio("migrate + decode", of: CodableFloor.name, over: "JSONDecoder on current bytes")
            ),
            (
                "encode_codable_floor_vs_jsonencoder",
                ratio("encode", of: CodableFloor.name, over: "Foundation JSONEncoder")
            ),
            (
                "decode_current_codable_floor_of_ours",
                ratio("decode current", of: "ModelVersioning", over: CodableFloor.name)
            ),
            (
                "migrate_decode_codable_floor_of_ours",
                ratio("migrate + decode", of: "ModelVersioning", over: CodableFloor.name)
            ),
            ("encode_codable_floor_of_ours", ratio("encode", of: "ModelVersioning", over: CodableFloor.name)),
        ]
    }

    func perObjectNanoseconds(size: Int) -> Double? {
        guard let row = rows.first(where: { $0.name == "decode current" && $0.size == size }),
            let seconds = row.medians["ModelVersioning"]
        else { return nil }
        return seconds / Double(size) * 1e9
    }

    func table() -> String {
        var lines = ["ModelVersioning vs Foundation — medians of \(options.runs) alternating runs, release build", ""]
        lines.append(
            pad("case", 30) + pad("objects", 10) + pad("MB", 8) + pad("contender", 34) + pad("time", 12) + "MB/s")
        for row in rows {
            for (contender, seconds) in row.medians.sorted(by: { $0.value < $1.value }) {
                let megabytes = Double(row.bytes) / 1e6
                lines.append(
                    pad(row.name, 30) + pad("\(row.size)", 10) + pad(String(format: "%.1f", megabytes), 8)
                        + pad(contender, 34) + pad(String(format: "%.2f ms", seconds * 1e3), 12)
                        + String(format: "%.1f", megabytes / seconds))
            }
        }
        lines.append("")
        lines.append("ratios at \(headlineSize) objects (above 1: ModelVersioning is faster)")
        for (key, value) in headlineRatios() {
            lines.append("  " + pad(key, 40) + (value.map { String(format: "%.2f×", $0) } ?? "n/a"))
        }
        lines.append("of the ceiling (hand-written code for exactly these types; 1.00: as fast as it)")
        for (key, value) in ceilingFractions() {
            lines.append("  " + pad(key, 40) + (value.map { String(format: "%.2f", $0) } ?? "n/a"))
        }
        lines.append("Codable alone (the models' own init(from:) and encode(to:), no bytes)")
        for (key, value) in codableFloor() {
            lines.append("  " + pad(key, 44) + (value.map { String(format: "%.2f", $0) } ?? "n/a"))
        }
        lines.append("per-object decode time")
        for size in options.sizes {
            lines.append(
                "  " + pad("\(size) objects", 40)
                    + (perObjectNanoseconds(size: size).map { String(format: "%.0f ns", $0) } ?? "n/a"))
        }
        if let first = options.sizes.first, let last = options.sizes.last,
            let small = perObjectNanoseconds(size: first),
            let large = perObjectNanoseconds(size: last)
        {
            lines.append("  " + pad("\(last) vs \(first)", 40) + String(format: "%.2f×", large / small))
        }
        lines.append("migration pass, per step per object (\(chainObjects) objects)")
        for length in options.chainLengths {
            lines.append(
                "  " + pad("\(length)-step chain", 40)
                    + (perStepNanoseconds[length].map { String(format: "%.1f ns", $0) } ?? "n/a"))
        }
        if let long = perStepNanoseconds[options.chainLengths.last ?? 0], let short = perStepNanoseconds[1] {
            lines.append("  " + pad("longest chain vs single steps", 40) + String(format: "%.2f×", long / short))
        }
        lines.append("objects with many keys, per key (linear: the same at every size)")
        for name in LargeDictionaryBenchmark.cases {
            let figures = perKeyNanoseconds[name] ?? [:]
            for size in options.dictionarySizes {
                lines.append(
                    "  " + pad("\(name), \(size) keys", 40)
                        + (figures[size].map { String(format: "%.1f ns", $0) } ?? "n/a"))
            }
            if let spread = perKeySpread(name) {
                lines.append("  " + pad("\(name), slowest vs fastest size", 40) + String(format: "%.2f×", spread))
            }
        }
        lines.append("peak memory (resident-set growth / input size)")
        for (name, ratio) in peakMemory.sorted(by: { $0.key < $1.key }) {
            lines.append("  " + pad(name, 40) + String(format: "%.2f×", ratio))
        }
        if let stores { lines += stores.tableLines() }
        if let frontDoors { lines += frontDoors.tableLines() }
        return lines.joined(separator: "\n")
    }

    /// The slowest size's time per key over the fastest's, for one large-dictionary case.
    func perKeySpread(_ name: String) -> Double? {
        let figures = options.dictionarySizes.compactMap { perKeyNanoseconds[name]?[$0] }
        guard figures.count == options.dictionarySizes.count, let fastest = figures.min(), fastest > 0,
            let slowest = figures.max()
        else { return nil }
        return slowest / fastest
    }

    func headlineRatios() -> [(String, Double?)] {
        [
            ("decode_current_vs_jsondecoder", ratio("decode current", "Foundation JSONDecoder")),
            ("migrate_decode_vs_jsondecoder", ratio("migrate + decode", "JSONDecoder on current bytes")),
            ("migrate_decode_vs_diy", ratio("migrate + decode", "DIY JSONSerialization")),
            ("encode_vs_jsonencoder", ratio("encode", "Foundation JSONEncoder")),
            ("keyed_read_vs_nskeyedunarchiver", ratio("keyed-archive read", "NSKeyedUnarchiver")),
        ]
    }

    /// Each case's time as a fraction of the hand-written code's for exactly the benchmark's
    /// types (1: as fast as the ceiling).
    func ceilingFractions() -> [(String, Double?)] {
        [
            ("decode_current_of_ceiling", ratio("decode current", HandWrittenCodec.name)),
            ("decode_long_values_of_ceiling", ratio("decode current, long values", HandWrittenCodec.name)),
            ("migrate_decode_of_ceiling", ratio("migrate + decode", HandWrittenCodec.name)),
            ("encode_of_ceiling", ratio("encode", HandWrittenCodec.name)),
        ]
    }

    func json() throws -> Data {
        var tree: ArchiveDictionary = [:]
        for (key, value) in headlineRatios() + ceilingFractions() + codableFloor() {
            tree[key] = value.map { .double(($0 * 100).rounded() / 100) } ?? .null
        }
        tree["per_object_ns"] = .dictionary(
            ArchiveDictionary(
                options.sizes.map { size in
                    ("\(size)", perObjectNanoseconds(size: size).map { .double($0.rounded()) } ?? .null)
                }))
        tree["per_step_ns"] = .dictionary(
            ArchiveDictionary(
                options.chainLengths.map { length in
                    ("\(length)", perStepNanoseconds[length].map { .double(($0 * 10).rounded() / 10) } ?? .null)
                }))
        tree["many_keys_ns_per_key"] = .dictionary(
            ArchiveDictionary(
                LargeDictionaryBenchmark.cases.map { name in
                    var figures = ArchiveDictionary(
                        options.dictionarySizes.map { size in
                            (
                                "\(size)",
                                perKeyNanoseconds[name]?[size].map { .double(($0 * 10).rounded() / 10) } ?? .null
                            )
                        })
                    figures["slowest_vs_fastest"] =
                        perKeySpread(name).map { .double(($0 * 100).rounded() / 100) } ?? .null
                    return (name.replacingOccurrences(of: " ", with: "_"), .dictionary(figures))
                }))
        tree["peak_memory_vs_input"] = .dictionary(
            ArchiveDictionary(
                peakMemory.sorted(by: { $0.key < $1.key }).map { ($0.key, .double(($0.value * 100).rounded() / 100)) }))
        if let stores {
            for (key, value) in stores.jsonEntries() { tree[key] = value }
        }
        if let frontDoors {
            for (key, value) in frontDoors.jsonEntries() { tree[key] = value }
        }
        tree["headline_objects"] = .int(Int64(headlineSize))
        tree["runs"] = .int(Int64(options.runs))
        tree["cases"] = .array(
            rows.map { row in
                [
                    "case": .string(row.name), "objects": .int(Int64(row.size)), "bytes": .int(Int64(row.bytes)),
                    "seconds": .dictionary(
                        ArchiveDictionary(
                            row.medians.sorted(by: { $0.key < $1.key }).map { ($0.key, .double($0.value)) })),
                ]
            })
        return try ArchiveFormat.json.write(.dictionary(tree), options: ArchiveWritingOptions(markup: .plain))
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

/// Runs the cases.
struct BenchmarkSuite {
    let options: BenchmarkOptions

    func run(progress: (String) -> Void) throws -> BenchmarkResults {
        var results = BenchmarkResults(options: options)
        let registry = try ModelRegistry([BenchDocument.self, BenchShape.self])
        let decoder = ArchiveDecoder(registry: registry, options: BenchmarkOptions.decoding)
        for size in options.sizes {
            progress("generating \(size) shapes…")
            let shapes = DocumentGenerator.shapes(count: size, flavor: .short)
            let document = BenchDocument(shapes: shapes)
            let current = try DocumentGenerator.currentArchive(shapes)
            let version1 = try DocumentGenerator.version1Archive(shapes)
            let runs = size >= 1_000_000 ? options.runs : options.runs + 2

            /// Times the contenders on one case and adds its row.
            func measure(_ name: String, bytes: Int, _ contenders: [(String, () throws -> Void)]) throws {
                progress("\(name), \(size)")
                results.rows.append(
                    BenchmarkResults.Row(
                        name: name, size: size, bytes: bytes,
                        medians: try Timing.medians(runs: runs, contenders)))
            }
            /// Ours, JSONDecoder and the hand-written reader decoding the same current-version bytes.
            func decoding(_ data: Data) throws -> [(String, () throws -> Void)] {
                try HandWrittenCodec.check(decoded: HandWrittenCodec.decodeCurrent(data), from: data, decoder: decoder)
                return [
                    ("ModelVersioning", { _ = try decoder.decode(BenchDocument.self, from: data) }),
                    ("Foundation JSONDecoder", { _ = try JSONDecoder().decode(FoundationEnvelope.self, from: data) }),
                    (HandWrittenCodec.name, { _ = try HandWrittenCodec.decodeCurrent(data) }),
                    (CodableFloor.name, { _ = try CodableFloor.decode(shapes: size) }),
                ]
            }

            try measure("decode current", bytes: current.count, decoding(current))
            try HandWrittenCodec.check(
                decoded: HandWrittenCodec.decodeVersion1(version1), from: version1, decoder: decoder)

            try measure(
                "migrate + decode", bytes: version1.count,
                [
                    ("ModelVersioning", { _ = try decoder.decode(BenchDocument.self, from: version1) }),
                    (
                        "JSONDecoder on current bytes",
                        { _ = try JSONDecoder().decode(FoundationEnvelope.self, from: current) }
                    ),
                ]
                    + (size <= DIYMigration.largestSize
                        ? [("DIY JSONSerialization", { _ = try DIYMigration.decode(version1) })] : [])
                    + [
                        (HandWrittenCodec.name, { _ = try HandWrittenCodec.decodeVersion1(version1) }),
                        (CodableFloor.name, { _ = try CodableFloor.decode(shapes: size) }),
                    ])

            if size <= KeyedArchiveCase.largestSize {
                let keyed = try KeyedArchiveCase.archive(shapes)
                try KeyedArchiveCase.checkBothRead(keyed, count: size)
                try measure(
                    "keyed-archive read", bytes: keyed.count,
                    [
                        ("ModelVersioning", { _ = try ArchiveFormat.keyedArchive.read(keyed) }),
                        ("NSKeyedUnarchiver", { _ = try KeyedArchiveCase.unarchiveWithFoundation(keyed) }),
                    ])

                let long = try DocumentGenerator.currentArchive(DocumentGenerator.shapes(count: size, flavor: .long))
                try measure("decode current, long values", bytes: long.count, try decoding(long))
            }

            let mirror = FoundationEnvelope(root: FoundationDocument(shapes: shapes.map(FoundationShape.init)))
            let encoder = ArchiveEncoder(writingOptions: ArchiveWritingOptions(prettyPrinted: false))
            try HandWrittenCodec.check(
                decoded: decoder.decode(BenchDocument.self, from: HandWrittenCodec.encode(document)), from: current,
                decoder: decoder)
            try measure(
                "encode", bytes: current.count,
                [
                    ("ModelVersioning", { _ = try encoder.encode(document) }),
                    ("Foundation JSONEncoder", { _ = try JSONEncoder().encode(mirror) }),
                    (HandWrittenCodec.name, { _ = HandWrittenCodec.encode(document) }),
                    (CodableFloor.name, { try CodableFloor.encode(document) }),
                ])

            if size == options.sizes.last {
                progress("peak memory, \(size)")
                results.peakMemory = try MemoryProbe.measureAll(current: current, version1: version1)
            }
        }
        progress("chain lengths")
        (results.chainObjects, results.perStepNanoseconds) = try ChainBenchmark.run(
            lengths: options.chainLengths, objects: options.quick ? 5_000 : 20_000, runs: options.runs)
        results.stores = try StoreBenchmark.run(
            rows: options.storeRows, runs: options.runs, batchFiles: options.batchFiles, batchLines: options.batchLines,
            progress: progress)
        // Quick: few enough files that their flushes stay within seconds.
        if !options.skipsFrontDoors {
            results.frontDoors = try FrontDoorBenchmark.run(
                count: options.quick ? min(options.storeRows, 2_000) : options.storeRows, runs: options.runs,
                progress: progress)
        }
        results.perKeyNanoseconds = try LargeDictionaryBenchmark.run(
            sizes: options.dictionarySizes, runs: options.runs, progress: progress)
        return results
    }
}

extension FoundationShape {
    init(_ shape: BenchShape) {
        self.init(
            id: shape.id, title: shape.title, kind: shape.kind, center: shape.center, radius: shape.radius,
            tags: shape.tags, visible: shape.visible)
    }
}

/// Alternating timed runs.
enum Timing {
    /// Seconds on a monotonic clock.
    static func now() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        try body()
        clock_gettime(CLOCK_MONOTONIC, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    /// The median time of each contender over `runs` rounds; the order of contenders rotates
    /// every round so that none always runs on a warm or a cold heap.
    static func medians(runs: Int, _ contenders: [(String, () throws -> Void)]) throws -> [String: Double] {
        var samples = [String: [Double]]()
        for contender in contenders { try contender.1() }  // warm-up
        for round in 0..<runs {
            for offset in 0..<contenders.count {
                let (name, body) = contenders[(round + offset) % contenders.count]
                samples[name, default: []].append(try seconds(body))
            }
        }
        return samples.mapValues { values in values.sorted()[values.count / 2] }
    }
}

/// Reading an NSKeyedArchiver archive of plain Foundation values (the shapes as dictionaries
/// in an array), which our own writer builds: Foundation's archiver is quadratic on Linux.
enum KeyedArchiveCase {
    /// NSKeyedUnarchiver reads about 12 MB/s here; larger documents would take minutes per run.
    static let largestSize = 100_000

    static let foundationClasses: [AnyClass] = [
        NSArray.self, NSDictionary.self, NSString.self, NSNumber.self,
    ]

    static func archive(_ shapes: [BenchShape]) throws -> Data {
        let elements: [ArchiveValue] = shapes.map { shape in
            .dictionary([
                "id": .int(Int64(shape.id)), "title": .string(shape.title), "kind": .string(shape.kind),
                "center": .dictionary(["x": .double(shape.center.x), "y": .double(shape.center.y)]),
                "radius": .double(shape.radius), "tags": .array(shape.tags.map { .string($0) }),
                "visible": .bool(shape.visible),
            ])
        }
        return try ArchiveFormat.keyedArchive.write(.array(elements))
    }

    /// Both contenders must see the same number of shapes before they are timed.
    static func checkBothRead(_ data: Data, count: Int) throws {
        let ours = try ArchiveFormat.keyedArchive.read(data)
        let theirs = try unarchiveWithFoundation(data) as? NSArray
        guard case .array(let elements) = ours, elements.count == count, theirs?.count == count else {
            throw ArchiveError(.malformedInput, "the keyed archive did not read back as \(count) shapes")
        }
    }

    static func unarchiveWithFoundation(_ data: Data) throws -> Any {
        guard let object = try NSKeyedUnarchiver.unarchivedObject(ofClasses: foundationClasses, from: data) else {
            throw ArchiveError(.malformedInput, "NSKeyedUnarchiver returned nothing")
        }
        return object
    }
}

/// The usual hand-made migration: JSONSerialization → mutate `[String: Any]` → serialize →
/// JSONDecoder.
enum DIYMigration {
    /// About 2 MB/s: at a million objects one run takes over a minute, so it stops here.
    static let largestSize = 100_000

    static func decode(_ data: Data) throws -> FoundationEnvelope {
        guard var envelope = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            var root = envelope["root"] as? [String: Any], let shapes = root["shapes"] as? [[String: Any]]
        else { throw ArchiveError(.malformedInput, "unexpected document") }
        root["shapes"] = shapes.map { old -> [String: Any] in
            var shape = old
            shape["title"] = shape.removeValue(forKey: "name")
            shape["center"] = ["x": shape.removeValue(forKey: "x") ?? 0, "y": shape.removeValue(forKey: "y") ?? 0]
            if shape["visible"] == nil { shape["visible"] = true }
            return shape
        }
        envelope["root"] = root
        return try JSONDecoder().decode(FoundationEnvelope.self, from: JSONSerialization.data(withJSONObject: envelope))
    }
}

/// The migration pass with chains of 1, 10 and 100 steps, per step per object.
enum ChainBenchmark {
    static func run(lengths: [Int], objects: Int, runs: Int) throws -> (Int, [Int: Double]) {
        var perStep: [Int: Double] = [:]
        for length in lengths {
            let steps = (0..<length).map { step in
                MigrationStep(from: step, to: step + 1, rules: [.rename("k\(step)", to: "k\(step + 1)")])
            }
            let catalog = try MigrationCatalog(types: [
                TypeMigrations(typeName: "Item", currentVersion: length, steps: steps)
            ])
            // A hundred renames of small objects write far more than the objects hold, past the
            // default ArchiveLimits.maxRuleWork (16 times the archive), which bounds what an archive
            // of unknown origin can make its rules do: this measures the pass, not that bound.
            var limits = ArchiveLimits.default
            limits.maxRuleWork = 1_000
            let pass = MigrationPass(catalog: catalog, options: MigrationOptions(recordsSteps: false, limits: limits))
            let elements: [ArchiveValue] = (0..<objects).map { index in
                .object(
                    ArchiveObject(
                        typeName: "Item", version: 0,
                        fields: ["id": .int(Int64(index)), "name": "item", "k0": .double(Double(index) / 4)]))
            }
            let bytes = try ArchiveFormat.json.write(
                .object(ArchiveObject(typeName: "List", version: 1, fields: ["items": .array(elements)])),
                options: ArchiveWritingOptions(prettyPrinted: false))
            var samples: [Double] = []
            for _ in 0..<runs {
                var tree = try ArchiveFormat.json.read(bytes)  // fresh, uniquely held tree
                samples.append(try Timing.seconds { try pass.upgrade(&tree) })
            }
            let median = samples.sorted()[samples.count / 2]
            perStep[length] = median / Double(objects * length) * 1e9
        }
        return (objects, perStep)
    }
}

/// Peak memory of one case, measured in a child process.
enum MemoryProbe {
    /// Ours, and Foundation's on the same input for comparison.
    static let cases = [
        "decode current", "decode current, JSONDecoder", "migrate + decode", "encode", "encode, JSONEncoder",
    ]

    static func measureAll(current: Data, version1: Data) throws -> [String: Double] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("archive-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let currentURL = folder.appendingPathComponent("current.json")
        let version1URL = folder.appendingPathComponent("v1.json")
        try current.write(to: currentURL)
        try version1.write(to: version1URL)
        var results: [String: Double] = [:]
        for name in cases {
            let input = name == "migrate + decode" ? version1URL : currentURL
            let size = Double(name == "migrate + decode" ? version1.count : current.count)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--measure-memory", name, input.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if let bytes = Double(text) {
                results[name] = bytes / size
            }
        }
        return results
    }

    /// Child side: prints the growth of the peak resident set while running the case, in bytes.
    /// For the decoding cases that includes reading the input (so its own bytes count); for
    /// encoding the models are decoded first, the memory that freed is given back to the system
    /// (glibc's `malloc_trim`), and the peak restarted.
    static func run(case name: String, inputPath: String) -> Int32 {
        do {
            let registry = try ModelRegistry([BenchDocument.self, BenchShape.self])
            let decoder = ArchiveDecoder(registry: registry, options: BenchmarkOptions.decoding)
            var prepared: BenchDocument?
            var mirror: FoundationEnvelope?
            var keyed: Data?
            if name == "encode" || name == "encode, Codable alone" || name == "encode, by hand" {
                prepared = try decoder.decode(
                    BenchDocument.self, from: try Data(contentsOf: URL(fileURLWithPath: inputPath)))
            } else if name == "keyed read" {
                // The input is a current JSON archive; its shapes are written as the keyed archive
                // the benchmark's keyed case reads, before the peak is restarted.
                let document = try decoder.decode(
                    BenchDocument.self, from: try Data(contentsOf: URL(fileURLWithPath: inputPath)))
                keyed = try KeyedArchiveCase.archive(document.shapes)
            } else if name == "encode, JSONEncoder" {
                mirror = try JSONDecoder().decode(
                    FoundationEnvelope.self, from: try Data(contentsOf: URL(fileURLWithPath: inputPath)))
            }
            // Decoding the models left freed memory resident; return it to the system so that
            // what the encoder allocates shows as growth instead of reusing those pages.
            trimHeap()
            let baseline = resetPeakResidentBytes()
            switch name {
            case "encode":
                let data = try ArchiveEncoder(writingOptions: ArchiveWritingOptions(prettyPrinted: false))
                    .encode(prepared ?? BenchDocument(shapes: []))
                withExtendedLifetime(data) {}
            case "encode, Codable alone":
                // Callgrind's reference for what Codable itself costs (not a memory case).
                try CodableFloor.encode(prepared ?? BenchDocument(shapes: []))
            case "decode current, Codable alone":
                // Callgrind's reference for what Codable itself costs decoding as many shapes as
                // the input holds (not a memory case). Counted without the models' `init(from:)`,
                // so that a callgrind run collecting inside it counts the floor's alone.
                let input = try JSONSerialization.jsonObject(
                    with: try Data(contentsOf: URL(fileURLWithPath: inputPath)))
                let shapes = ((input as? [String: Any])?["root"] as? [String: Any])?["shapes"] as? [Any]
                let document = try CodableFloor.decode(shapes: shapes?.count ?? 0)
                withExtendedLifetime(document) {}
            case "encode, by hand":
                // Callgrind's reference for the hand-written writer (not a memory case).
                let data = HandWrittenCodec.encode(prepared ?? BenchDocument(shapes: []))
                withExtendedLifetime(data) {}
            case "encode, JSONEncoder":
                let data = try JSONEncoder().encode(mirror ?? FoundationEnvelope(root: FoundationDocument(shapes: [])))
                withExtendedLifetime(data) {}
            case "keyed read":
                let tree = try ArchiveFormat.keyedArchive.read(keyed ?? Data())
                withExtendedLifetime(tree) {}
            case "decode current, JSONDecoder":
                let input = try Data(contentsOf: URL(fileURLWithPath: inputPath))
                let document = try JSONDecoder().decode(FoundationEnvelope.self, from: input)
                withExtendedLifetime((input, document)) {}
            default:
                let input = try Data(contentsOf: URL(fileURLWithPath: inputPath))
                let document = try decoder.decode(BenchDocument.self, from: input)
                withExtendedLifetime((input, document)) {}
            }
            print(peakResidentBytes() - baseline)
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            return 2
        }
    }

    /// Gives the heap's free memory back to the system: glibc's `malloc_trim(0)`, looked up at
    /// run time (`<malloc.h>` is not in the Glibc module); nothing elsewhere.
    static func trimHeap() {
        #if os(Linux)
            typealias Trim = @convention(c) (Int) -> Int32
            if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
                _ = unsafeBitCast(symbol, to: Trim.self)(0)
            }
        #endif
    }

    /// Restarts the high-water mark at the current resident set (Linux: `/proc/self/clear_refs`)
    /// and returns that resident set; elsewhere returns the current high-water mark.
    static func resetPeakResidentBytes() -> Int {
        #if os(Linux)
            if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
                handle.write(Data("5".utf8))
                try? handle.close()
            }
        #endif
        return peakResidentBytes()
    }

    /// The high-water mark of this process's resident set. On Linux it is read from
    /// `/proc/self/status` (`VmHWM`): `getrusage`'s figure carries over the parent's resident set
    /// from before `exec`, which would hide the child's own peak.
    static func peakResidentBytes() -> Int {
        #if os(Linux)
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
            {
                return kilobytes * 1024
            }
            return 0
        #else
            var usage = rusage()
            getrusage(RUSAGE_SELF, &usage)
            return Int(usage.ru_maxrss)
        #endif
    }
}
