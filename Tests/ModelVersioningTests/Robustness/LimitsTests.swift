import Foundation
import TestSupport
import Testing

@testable import ModelVersioning

/// Every `ArchiveLimits` member, enforced everywhere it applies: each test feeds one path (a
/// reader, the migration pass, the decoder, the encoder, a writer) an input just past one limit
/// and expects `ArchiveError.Code.limitExceeded` naming that limit and where it was hit.
@Suite("Limits")
struct LimitsTests {
    static func limits(_ change: (inout ArchiveLimits) -> Void) -> ArchiveLimits {
        var limits = ArchiveLimits.default
        change(&limits)
        return limits
    }

    /// The error `body` throws; records an issue when it throws none or another type.
    static func limitError(_ body: () throws -> Void) -> ArchiveError? {
        do {
            try body()
            Issue.record("no error")
        } catch let error as ArchiveError {
            return error
        } catch {
            Issue.record("not an ArchiveError: \(error)")
        }
        return nil
    }

    static func expect(
        _ error: ArchiveError?, _ limit: ArchiveLimits.Limit, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error?.code == .limitExceeded, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.limit == limit, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    // MARK: - Depth and stack

    /// Runs `path` with `depth` levels of input under `limits`: the input is built on a large
    /// stack, the work runs on a 512 KiB one.
    static func run(_ path: DeepPath, depth: Int, limits: ArchiveLimits) throws {
        let input = try SmallStack.runOnLargeStack { try path.make(depth) }
        try SmallStack.run { try path.run(input, limits) }
    }

    /// Whether `path` accepts an input of `depth` levels under `limits` (on a large stack);
    /// rethrows anything but a depth error.
    static func accepts(_ path: DeepPath, depth: Int, limits: ArchiveLimits) throws -> Bool {
        let input = try SmallStack.runOnLargeStack { try path.make(depth) }
        do {
            try SmallStack.runOnLargeStack { try path.run(input, limits) }
            return true
        } catch let error as ArchiveError where error.code == .limitExceeded && error.limit == .depth {
            return false
        }
    }

    @Test(
        "at exactly the default depth limit every recursive path runs on a 512 KiB stack; one level more is refused",
        arguments: DeepPath.all)
    func depthAtTheLimit(_ path: DeepPath) throws {
        let limit = ArchiveLimits.default.maxDepth
        // The deepest input the path accepts. Paths count levels their own way (the encoder
        // counts the levels of Codable containers, a polymorphic element is one more), so find
        // it: between a quarter of the limit and a little over it.
        var accepted = limit / 4
        var refused = limit + 4
        #expect(try Self.accepts(path, depth: accepted, limits: .default))
        if path.name != "dropping a tree" {
            #expect(try !Self.accepts(path, depth: refused, limits: .default))
        } else {
            accepted = limit  // no limit of its own: trees as deep as the readers make
            refused = limit
        }
        while refused - accepted > path.step {
            let middle = (accepted + refused) / 2
            if try Self.accepts(path, depth: middle, limits: .default) { accepted = middle } else { refused = middle }
        }
        // The deepest accepted input, on the stack of a secondary thread.
        try Self.run(path, depth: accepted, limits: .default)
        print("depth limit: \(path.name) accepts \(accepted) levels at maxDepth \(limit)")
        guard path.name != "dropping a tree" else { return }
        let error = Self.limitError { try Self.run(path, depth: accepted + path.step, limits: .default) }
        Self.expect(error, .depth)
    }

    /// `MV_STACK_PROBE="<path name>=<depth>"` runs one path at that depth (with no depth limit)
    /// on a 512 KiB stack: `.ci/stack-depth.sh` bisects the depth at which each path
    /// overflows. Skipped otherwise.
    @Test(
        "stack probe (MV_STACK_PROBE)", .enabled(if: ProcessInfo.processInfo.environment["MV_STACK_PROBE"] != nil))
    func stackProbe() throws {
        let request = ProcessInfo.processInfo.environment["MV_STACK_PROBE"] ?? ""
        let parts = request.split(separator: "=", maxSplits: 1).map(String.init)
        let path = try #require(DeepPath.all.first { $0.name == parts.first }, "no path named \(request)")
        let depth = try #require(parts.count == 2 ? Int(parts[1]) : nil, "no depth in \(request)")
        do {
            try Self.run(path, depth: depth, limits: DeepPath.unlimited)
            print("STACK-PROBE OK \(path.name)=\(depth)")
        } catch {
            print("STACK-PROBE ERROR \(path.name)=\(depth): \(error)")
        }
    }

    // MARK: - Every other limit, on every path it applies to

    /// One limit on one path: `run` must stop with `limitExceeded` naming `limit`.
    struct LimitCase: Sendable, CustomTestStringConvertible {
        let name: String
        let limit: ArchiveLimits.Limit
        /// Whether the error must say where (a path or an input location).
        let locates: Bool
        let run: @Sendable () throws -> Void

        init(
            _ name: String, _ limit: ArchiveLimits.Limit, locates: Bool = true,
            run: @escaping @Sendable () throws -> Void
        ) {
            self.name = name
            self.limit = limit
            self.locates = locates
            self.run = run
        }

        var testDescription: String { name }
    }

    static func reading(_ format: ArchiveFormat, _ text: String, _ limits: ArchiveLimits) throws {
        _ = try format.read(Data(text.utf8), options: ArchiveReadingOptions(limits: limits))
    }

    static func reading(_ format: ArchiveFormat, _ data: Data, _ limits: ArchiveLimits) throws {
        _ = try format.read(data, options: ArchiveReadingOptions(limits: limits))
    }

    static func xml(_ body: String) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"# + body + "</plist>"
    }

    /// A keyed archive (a binary property list) whose `$objects` follow `"$null"`; the root is
    /// entry 1.
    static func keyedArchive(_ objects: [ArchiveValue], xml: Bool = false) throws -> Data {
        let tree: ArchiveValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .reference(1)],
            "$objects": .array(["$null"] + objects),
        ]
        let options = ArchiveWritingOptions(prettyPrinted: false, markup: .plain)
        return try (xml ? ArchiveFormat.xmlPropertyList : .binaryPropertyList).write(tree, options: options)
    }

    /// A class entry of a keyed archive.
    static func keyedClass(_ name: String) -> ArchiveValue {
        ["$classname": .string(name), "$classes": [.string(name), "NSObject"]]
    }

    /// A keyed archive whose root array references an array that references an array of 1,000
    /// numbers, 1,000 times each: a few kilobytes that expand to a billion values.
    static func keyedReferenceBomb(xml: Bool) throws -> Data {
        let uids = { (uid: Int) in ArchiveValue.array(Array(repeating: .reference(ArchiveObjectID(uid)), count: 1000)) }
        return try keyedArchive(
            [
                ["$class": .reference(4), "NS.objects": uids(2)],  // 1: the root
                ["$class": .reference(4), "NS.objects": uids(3)],  // 2
                ["$class": .reference(4), "NS.objects": uids(5)],  // 3
                keyedClass("NSArray"),  // 4
                7,  // 5
            ], xml: xml)
    }

    /// The same bomb as a plain binary property list: three arrays of 1,000 shared references.
    static func binaryReferenceBomb() -> Data {
        var plist = BinaryPlistBuilder()
        plist.add(.array(Array(repeating: 1, count: 1000)))
        plist.add(.array(Array(repeating: 2, count: 1000)))
        plist.add(.array(Array(repeating: 3, count: 1000)))
        plist.add(.int(7))
        return plist.data()
    }

    /// A JSON archive whose structs are decoded again for every reference: `items` holds a
    /// `Mid` and 999 references to it; each `Mid` holds a `Big` of 1,000 numbers and 999
    /// references to it. About 70 KB that decode to a billion numbers.
    static func decoderReferenceBomb(mid: String, big: String) -> Data {
        let numbers = Array(repeating: "1", count: 1000).joined(separator: ",")
        let bigs =
            #"{"$type":"\#(big)","$version":1,"$id":1,"values":[\#(numbers)]}"#
            + String(repeating: #",{"$ref":1}"#, count: 999)
        let mids =
            #"{"$type":"\#(mid)","$version":1,"$id":2,"bigs":[\#(bigs)]}"#
            + String(repeating: #",{"$ref":2}"#, count: 999)
        return Data(#"{"$archive":1,"root":{"items":[\#(mids)]}}"#.utf8)
    }

    /// A struct model decoded from shared references.
    struct Big: VersionedModel {
        var values: [Int]
    }

    struct Mid: VersionedModel {
        var bigs: [Big]
    }

    struct Holder: VersionedModel {
        var items: [Mid]
    }

    /// The same shape as plain Codable structs (not models): their fields are decoded from the
    /// archived objects all the same.
    struct PlainBig: Codable {
        var values: [Int]
    }

    struct PlainMid: Codable {
        var bigs: [PlainBig]
    }

    struct PlainHolder: Codable {
        var items: [PlainMid]
    }

    static let bombRegistry: ModelRegistry = {
        do {
            return try ModelRegistry([Big.self, Mid.self, Holder.self])
        } catch {
            preconditionFailure("the registry is valid: \(error)")
        }
    }()

    static func decoding<T: Decodable>(_ type: T.Type, _ data: Data, _ limits: ArchiveLimits) throws {
        var options = DecodingOptions()
        options.limits = limits
        _ = try ArchiveDecoder(registry: bombRegistry, options: options).decode(T.self, from: data)
    }

    static let cases: [LimitCase] = {
        let tiny = limits { $0.maxInputBytes = 8 }
        let fewValues = limits { $0.maxObjectCount = 3 }
        let shortStrings = limits { $0.maxStringLength = 4 }
        let shortData = limits { $0.maxDataLength = 2 }
        let smallCollections = limits { $0.maxCollectionCount = 2 }
        let nineBytes = "[1,2,3,4]"
        return [
            // Input bytes: every entry point refuses before parsing.
            LimitCase("input bytes: detection", .inputBytes, locates: false) {
                _ = try ArchiveFormat.read(Data(nineBytes.utf8), options: ArchiveReadingOptions(limits: tiny))
            },
            LimitCase("input bytes: JSON reader", .inputBytes, locates: false) { try reading(.json, nineBytes, tiny) },
            LimitCase("input bytes: property-list reader", .inputBytes, locates: false) {
                try reading(.xmlPropertyList, xml("<true/>"), tiny)
            },
            LimitCase("input bytes: keyed-archive reader", .inputBytes, locates: false) {
                try reading(.keyedArchive, try keyedArchive(["x"]), tiny)
            },
            LimitCase("input bytes: decoder", .inputBytes, locates: false) {
                try decoding([Int].self, Data(nineBytes.utf8), tiny)
            },

            // Values of one document.
            LimitCase("object count: JSON reader", .objectCount) { try reading(.json, nineBytes, fewValues) },
            LimitCase("object count: XML property-list reader", .objectCount) {
                try reading(.xmlPropertyList, xml("<array><true/><true/><true/></array>"), fewValues)
            },
            LimitCase("object count: binary property-list reader", .objectCount) {
                try reading(
                    .binaryPropertyList,
                    try ArchiveFormat.binaryPropertyList.write([1, 2, 3], options: .init(prettyPrinted: false)),
                    fewValues)
            },
            LimitCase("object count: OpenStep property-list reader", .objectCount) {
                try reading(.xmlPropertyList, "(a, b, c)", fewValues)
            },
            LimitCase("object count: keyed-archive reader ($objects)", .objectCount) {
                try reading(.keyedArchive, try keyedArchive(["a", "b", "c"]), fewValues)
            },
            LimitCase("object count: keyed-archive reader (expanded)", .objectCount, locates: false) {
                try reading(
                    .keyedArchive,
                    try keyedArchive([
                        ["$class": .reference(2), "NS.objects": [.reference(3), .reference(3), .reference(3)]],
                        keyedClass("NSArray"), 5,
                    ]),
                    limits { $0.maxObjectCount = 4 })
            },

            // Strings and keys.
            LimitCase("string length: JSON string", .stringLength) { try reading(.json, #"["hello"]"#, shortStrings) },
            LimitCase("string length: JSON key", .stringLength) { try reading(.json, #"{"hello":1}"#, shortStrings) },
            LimitCase("string length: XML string", .stringLength) {
                try reading(.xmlPropertyList, xml("<string>hello</string>"), shortStrings)
            },
            LimitCase("string length: XML key", .stringLength) {
                try reading(.xmlPropertyList, xml("<dict><key>hello</key><true/></dict>"), shortStrings)
            },
            LimitCase("string length: binary ASCII string", .stringLength) {
                try reading(
                    .binaryPropertyList,
                    try ArchiveFormat.binaryPropertyList.write("hello", options: .init(prettyPrinted: false)),
                    shortStrings)
            },
            LimitCase("string length: binary UTF-16 string", .stringLength) {
                try reading(
                    .binaryPropertyList,
                    try ArchiveFormat.binaryPropertyList.write("héllo", options: .init(prettyPrinted: false)),
                    shortStrings)
            },
            LimitCase("string length: OpenStep string", .stringLength) {
                try reading(.xmlPropertyList, "(hello)", shortStrings)
            },
            LimitCase("string length: keyed-archive NSURL", .stringLength) {
                // Base and relative string each within the limit, the absolute URL beyond it.
                try reading(
                    .keyedArchive,
                    try keyedArchive([
                        ["$class": .reference(2), "NS.base": .reference(3), "NS.relative": .reference(4)],
                        keyedClass("NSURL"),
                        ["$class": .reference(2), "NS.base": .reference(0), "NS.relative": .reference(5)],
                        "b/c", "a:/",
                    ]),
                    limits { $0.maxStringLength = 5 })
            },

            // Data.
            LimitCase("data length: JSON $data", .dataLength) {
                try reading(.json, #"{"$archive":1,"root":{"$data":"AQID"}}"#, shortData)
            },
            LimitCase("data length: XML data", .dataLength) {
                try reading(.xmlPropertyList, xml("<data>AQID</data>"), shortData)
            },
            LimitCase("data length: binary data", .dataLength) {
                var plist = BinaryPlistBuilder()
                plist.add(.data(3))
                try reading(.binaryPropertyList, plist.data(), shortData)
            },
            LimitCase("data length: OpenStep data", .dataLength) {
                try reading(.xmlPropertyList, "<010203>", shortData)
            },
            LimitCase("data length: keyed-archive NSData", .dataLength) {
                try reading(
                    .keyedArchive,
                    try keyedArchive([
                        ["$class": .reference(2), "NS.data": .data(Data([1, 2, 3]))], keyedClass("NSData"),
                    ]),
                    shortData)
            },

            // Elements of one collection.
            LimitCase("collection count: JSON array", .collectionCount) {
                try reading(.json, "[1,2,3]", smallCollections)
            },
            LimitCase("collection count: JSON object", .collectionCount) {
                try reading(.json, #"{"a":1,"b":2,"c":3}"#, smallCollections)
            },
            LimitCase("collection count: XML array", .collectionCount) {
                try reading(.xmlPropertyList, xml("<array><true/><true/><true/></array>"), smallCollections)
            },
            LimitCase("collection count: XML dictionary", .collectionCount) {
                try reading(
                    .xmlPropertyList, xml("<dict><key>a</key><true/><key>b</key><true/><key>c</key><true/></dict>"),
                    smallCollections)
            },
            LimitCase("collection count: binary array", .collectionCount) {
                try reading(
                    .binaryPropertyList,
                    try ArchiveFormat.binaryPropertyList.write([1, 2, 3], options: .init(prettyPrinted: false)),
                    smallCollections)
            },
            LimitCase("collection count: binary dictionary", .collectionCount) {
                try reading(
                    .binaryPropertyList,
                    try ArchiveFormat.binaryPropertyList.write(
                        ["a": 1, "b": 2, "c": 3], options: .init(prettyPrinted: false)),
                    smallCollections)
            },
            LimitCase("collection count: OpenStep array", .collectionCount) {
                try reading(.xmlPropertyList, "(a, b, c)", smallCollections)
            },
            LimitCase("collection count: OpenStep dictionary", .collectionCount) {
                try reading(.xmlPropertyList, "{a = 1; b = 2; c = 3;}", smallCollections)
            },
            LimitCase("collection count: keyed-archive counted set", .collectionCount) {
                try reading(
                    .keyedArchive,
                    try keyedArchive([
                        ["$class": .reference(2), "NS.count": 1, "NS.object0": .reference(3), "NS.count0": 3],
                        keyedClass("NSCountedSet"), 5,
                    ]),
                    smallCollections)
            },

            // A few kilobytes that expand to a billion values, at the default limits. Only binary
            // property lists and keyed archives (binary or XML) can share a value between places;
            // JSON, XML and OpenStep text spell every value out, and the `$ref`s of the archive
            // markup are followed by the decoder, which counts what it decodes again.
            LimitCase("references expanded: binary property list", .referencesExpanded) {
                try reading(.binaryPropertyList, binaryReferenceBomb(), .default)
            },
            LimitCase("references expanded: keyed archive, binary", .referencesExpanded, locates: false) {
                try reading(.keyedArchive, try keyedReferenceBomb(xml: false), .default)
            },
            LimitCase("references expanded: keyed archive, XML", .referencesExpanded, locates: false) {
                try reading(.keyedArchive, try keyedReferenceBomb(xml: true), .default)
            },
            LimitCase("references expanded: decoder, struct models", .referencesExpanded) {
                try decoding(Holder.self, decoderReferenceBomb(mid: "Mid", big: "Big"), .default)
            },
            LimitCase("references expanded: decoder, plain Codable structs", .referencesExpanded) {
                try decoding(PlainHolder.self, decoderReferenceBomb(mid: "PlainMid", big: "PlainBig"), .default)
            },
            LimitCase("chain steps: a rules file", .chainSteps) {
                let steps = (1...1_001).map { ArchiveValue.dictionary(["from": .int(Int64($0)), "rules": []]) }
                _ = try MigrationCatalog(
                    rulesFile: [
                        "formatVersion": 1, "types": ["C": ["currentVersion": 1_002, "steps": .array(steps)]],
                    ],
                    limits: .untrusted)
            },
            LimitCase("rule keys: a nest of a rules file", .ruleKeys) {
                let nest: ArchiveValue = ["nest": .array((0...10_000).map { .string("k\($0)") }), "into": "bag"]
                _ = try MigrationCatalog(
                    rulesFile: [
                        "formatVersion": 1,
                        "types": ["C": ["currentVersion": 2, "steps": [["from": 1, "rules": [nest]]]]],
                    ],
                    limits: .untrusted)
            },
            LimitCase("rule count: a rules file", .ruleCount) {
                let rules = (0...10_000).map { ArchiveValue.dictionary(["remove": .string("k\($0)")]) }
                _ = try MigrationCatalog(
                    rulesFile: [
                        "formatVersion": 1,
                        "types": ["C": ["currentVersion": 2, "steps": [["from": 1, "rules": .array(rules)]]]],
                    ],
                    limits: .untrusted)
            },
            LimitCase("nested archives: shared data values nesting 1,110 archives in three levels", .nestedArchives) {
                var bytes = Data("{}".utf8)
                for _ in 0..<3 {
                    var level = BinaryPlistBuilder()
                    let shared = level.add(.bytes(bytes))
                    let array = level.add(.array([Int](repeating: shared, count: 10)))
                    bytes = level.data(top: array)
                }
                _ = try ArchiveDocument(data: bytes).nestedArchives(options: ArchiveReadingOptions(limits: .untrusted))
            },
            LimitCase("rule work: an add of a large default into every element", .ruleWork) {
                let add = MigrationRule.add("blob", default: .string(String(repeating: "x", count: 10_000)))
                let catalog = try MigrationCatalog(
                    types: [],
                    documents: [
                        DocumentMigrations(
                            name: "list", versionPath: "version", currentVersion: 2,
                            steps: [MigrationStep(from: 1, to: 2, rules: [.scoped("items[*]", [add])])])
                    ])
                var tree: ArchiveValue = ["version": 1, "items": .array((0..<2_000).map { ["n": .int(Int64($0))] })]
                let pass = MigrationPass(catalog: catalog, options: MigrationOptions(limits: .untrusted))
                try pass.upgrade(&tree, document: "list")
            },
        ]
    }()

    @Test("each limit stops each path it applies to, naming the limit and where", arguments: cases)
    func limit(_ limitCase: LimitCase) throws {
        let started = Date()
        let error = Self.limitError { try limitCase.run() }
        Self.expect(error, limitCase.limit)
        if limitCase.locates {
            #expect(error?.location != nil || error?.path.isRoot == false, "\(String(describing: error))")
        }
        if limitCase.limit == .referencesExpanded {
            print("\(limitCase.name): stopped after \(String(format: "%.3f", Date().timeIntervalSince(started))) s")
        }
    }

    @Test("every limit has a case, and the table of ArchiveLimits lists every one")
    func everyLimitIsTested() {
        let tested = Set(Self.cases.map(\.limit)).union([.depth])
        #expect(tested == Set(ArchiveLimits.Limit.allCases))
    }

    @Test("a shared collection reused from its kept tree reads as expanding it again would")
    func keptExpansions() throws {
        // The root uses one array three times; the array holds an object and a number. The first
        // use defines the object, every later use refers to it.
        let data = try Self.keyedArchive([
            ["$class": .reference(5), "NS.objects": [.reference(2), .reference(2), .reference(2), .reference(2)]],
            ["$class": .reference(5), "NS.objects": [.reference(3), .reference(4)]],
            ["$class": .reference(6), "name": "x"],
            5,
            Self.keyedClass("NSArray"),
            Self.keyedClass("Thing"),
        ])
        let thing = ArchiveValue.object(
            ArchiveObject(typeName: "Thing", version: nil, id: 3, superclassNames: [], fields: ["name": "x"]))
        let later: ArchiveValue = [.reference(3), 5]
        #expect(try ArchiveFormat.keyedArchive.read(data) == [[thing, 5], later, later, later])
        // Three reuses of two values each are copies; the limit sees them all.
        var limits = ArchiveLimits()
        limits.maxReferencesExpanded = 5
        let error = Self.limitError { _ = try ArchiveFormat.keyedArchive.read(data, options: .init(limits: limits)) }
        Self.expect(error, .referencesExpanded)
        limits.maxReferencesExpanded = 6
        #expect(try ArchiveFormat.keyedArchive.read(data, options: .init(limits: limits)).arrayValue?.count == 4)
    }

    // MARK: - Documentation

    /// The rows `| name | default | untrusted | … |` of a Markdown table in `text`, by limit name.
    static func documentedLimits(in text: String) -> [String: (default: Int, untrusted: Int)] {
        func number(_ cell: Substring) -> Int? {
            let words = cell.trimmingCharacters(in: .whitespaces).split(separator: " ")
            guard let first = words.first, let value = Int(first.replacingOccurrences(of: ",", with: "")) else {
                return nil
            }
            switch words.dropFirst().first {
            case nil: return value
            case "GiB": return value << 30
            case "MiB": return value << 20
            default: return nil
            }
        }
        var rows: [String: (default: Int, untrusted: Int)] = [:]
        for line in text.split(separator: "\n") {
            let cells = line.drop { $0 == "/" || $0 == " " }.split(separator: "|")
            guard cells.count >= 4 else { continue }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: " `"))
            guard name.hasPrefix("max"), let standard = number(cells[1]), let untrusted = number(cells[2]) else {
                continue
            }
            rows[name] = (standard, untrusted)
        }
        return rows
    }

    @Test(
        "the limits tables of ArchiveLimits and of the article on untrusted archives give the values in force",
        arguments: [
            "Sources/MigrationRules/Options/ArchiveLimits.swift",
            "Sources/ModelVersioning/ModelVersioning.docc/HandlingUntrustedArchives.md",
        ])
    func documentedLimits(_ file: String) throws {
        let text = try String(
            contentsOf: Fixture.root.deletingLastPathComponent().appendingPathComponent(file), encoding: .utf8)
        let rows = Self.documentedLimits(in: text)
        #expect(rows.count == ArchiveLimits.Limit.allCases.count)
        for limit in ArchiveLimits.Limit.allCases {
            let row = try #require(rows[limit.rawValue], "\(file) has no row for \(limit.rawValue)")
            #expect(row.default == ArchiveLimits.default[limit], "\(file): \(limit.rawValue)")
            #expect(row.untrusted == ArchiveLimits.untrusted[limit], "\(file): \(limit.rawValue), untrusted")
        }
    }
}
