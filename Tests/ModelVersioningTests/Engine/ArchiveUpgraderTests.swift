import Foundation
import TestSupport
import Testing

@testable import ModelVersioning

// JSON archives whose old objects only move keys are upgraded by rewriting their text
// (JSONTextRewrite, behind ArchiveUpgrader and the tool's rows and lines). What it writes
// must be, byte for byte, what the tree path writes (read, migration pass, write in the
// document's own layout); whatever it cannot rewrite must go to the tree, with the tree's result
// or error. Generated archives vary every spelling the reader accepts: numbers, escapes,
// whitespace, key order, nesting, markup.

@Suite("Upgrading JSON archives by rewriting their text")
struct ArchiveUpgraderTests {
    @Test("generated archives: every rewrite is the tree path's bytes, and most archives are rewritten")
    func generatedArchives() throws {
        let catalog = try KeyMovingArchives.catalog()
        let rewriter = JSONTextRewrite(catalog: catalog, limits: .default)
        let upgrader = try ArchiveUpgrader(catalog: catalog)
        var generator = ArchiveTextGenerator(seed: 0x5EED_0001)
        var rewritten = 0
        var rewrittenChanged = 0
        var treeOnly = 0
        let count = 3000
        for _ in 0..<count {
            let text = generator.document()
            let data = Data(text.utf8)
            let tree = KeyMovingArchives.treePath(data, catalog: catalog)
            if let outcome = rewriter.upgrade(data) {
                rewritten += 1
                guard let tree else {
                    Issue.record("rewritten, but the tree path fails: \(text)")
                    continue
                }
                #expect(outcome.changed == tree.changed, "\(text)")
                #expect(
                    outcome.output == tree.output,
                    "\(text)\nrewritten: \(String(decoding: outcome.output, as: UTF8.self))\ntree:      \(String(decoding: tree.output, as: UTF8.self))"
                )
                if outcome.changed { rewrittenChanged += 1 }
            } else if tree != nil {
                treeOnly += 1
            }
            // The public upgrader: the tree's result or error, whichever path ran.
            if let tree {
                let result = try upgrader.upgrade(data)
                #expect(result.changed == tree.changed)
                #expect(result.data == (tree.changed ? tree.output : data), "\(text)")
            } else {
                #expect(throws: ArchiveError.self, "\(text)") { try upgrader.upgrade(data) }
            }
        }
        // The generator mixes in what only the tree handles (a converting chain, references,
        // escaped keys, newer versions, broken text), so not all; but most old archives.
        #expect(rewrittenChanged > count / 3, "rewritten \(rewritten), of which changed \(rewrittenChanged)")
        #expect(treeOnly > count / 40, "the generator still reaches the tree path: \(treeOnly)")
    }

    @Test("flat objects: the one-pass lane writes the structural walk's bytes, or leaves the text to it")
    func flatObjectsMatchTheWalk() throws {
        let catalog = try KeyMovingArchives.catalog()
        let rewriter = JSONTextRewrite(catalog: catalog, limits: .default)
        var generator = ArchiveTextGenerator(seed: 0x5EED_0003, singleLine: true)
        var flat = 0
        let count = 4000
        for _ in 0..<count {
            let text = generator.document()
            let data = Data(text.utf8)
            let walked = rewriter.upgrade(data, flat: false)
            guard let outcome = rewriter.upgrade(data, flat: true) else { continue }
            flat += 1
            #expect(outcome == walked, "\(text)")
            #expect(outcome.changed, "\(text)")
            let tree = KeyMovingArchives.treePath(data, catalog: catalog)
            #expect(tree?.output == outcome.output, "\(text)")
        }
        // Compact old Shapes without objects in their values: about one archive in seven.
        #expect(flat > count / 10, "flat: \(flat)")
    }

    @Test(
        "what the flat lane takes and what it leaves to the walk",
        arguments: [
            // Taken: escaped strings and numbers the writer spells otherwise as fields, nested
            // arrays of values spelled as written, no version, a type renamed, a trailing newline,
            // a non-ASCII key.
            (
                #"{"$type":"Shape","$version":1,"id":7,"name":"a\n","x":1.50,"y":-0,"tags":["a",[1,[]],true,null]}"#,
                true
            ),
            (#"{"$type":"Shape","id":3,"name":"n","x":1,"y":2}"#, true),
            (#"{"$type":"OldShape","$version":1,"id":3,"name":"é","x":0.25,"y":1e2,"legacy":[[["x"]]]}"#, true),
            ("{\"$type\":\"Board\",\"$version\":1,\"user\":\"u\",\"shapes\":[]}\n", true),
            (#"{"$type":"Shape","$version":1,"id":1,"name":"a","x":1,"y":2,"é":false}"#, true),
            // Left to the walk: an array holding a value the writer spells otherwise, spaces, a
            // leading space, an object in a value, `$version` after a field, a repeated key (which
            // the walk leaves to the tree too), an object up to date, `$type` with escapes.
            (#"{"$type":"Shape","$version":1,"id":7,"name":"a","x":1,"y":2,"tags":["a\n"]}"#, false),
            (#"{"$type":"Shape","$version":1,"id":7,"name":"a","x":1,"y":2,"tags":[1.50]}"#, false),
            (#"{"$type": "Shape","$version":1,"id":7,"name":"a","x":1,"y":2}"#, false),
            (#" {"$type":"Shape","$version":1,"id":7,"name":"a","x":1,"y":2}"#, false),
            (#"{"$type":"Board","$version":1,"user":"u","shapes":[{"$type":"Tag","$version":1,"name":"t"}]}"#, false),
            (#"{"$type":"Shape","id":7,"$version":1,"name":"a","x":1,"y":2}"#, false),
            (#"{"$type":"Shape","$version":1,"id":7,"id":8,"name":"a","x":1,"y":2}"#, false),
            (#"{"$type":"Tag","$version":1,"name":"x"}"#, false),
            (#"{"$type":"Sh\u0061pe","$version":1,"id":7,"name":"a","x":1,"y":2}"#, false),
            // Neither: invalid text.
            (#"{"$type":"Shape","$version":1,"id":01,"name":"a","x":1,"y":2}"#, false),
            (#"{"$type":"Shape","$version":1,"id":1,"name":"a","x":1,"y":2,"tags":[1,]}"#, false),
            (#"{"$type":"Shape","$version":1,"id":1,"name":"a","x":tru,"y":2}"#, false),
            ("{\"$type\":\"Shape\",\"$version\":1,\"id\":1,\"name\":\"a\u{1}\",\"x\":1,\"y\":2}", false),
        ])
    func flatLane(_ text: String, taken: Bool) throws {
        let catalog = try KeyMovingArchives.catalog()
        let rewriter = JSONTextRewrite(catalog: catalog, limits: .default)
        let data = Data(text.utf8)
        let flat = rewriter.upgrade(data, flat: true)
        let walked = rewriter.upgrade(data, flat: false)
        #expect((flat != nil) == taken)
        if let flat {
            #expect(flat == walked)
            // And the tree path's bytes (a trailing newline included: compact output has none).
            #expect(KeyMovingArchives.treePath(data, catalog: catalog)?.output == flat.output)
        }
        // Whichever way runs, the upgrade is the walk's.
        #expect(rewriter.upgrade(data) == walked)
    }

    @Test("invalid UTF-8 in a flat object's string or key is left to the walk, which refuses it")
    func flatLaneInvalidUTF8() throws {
        let rewriter = JSONTextRewrite(catalog: try KeyMovingArchives.catalog(), limits: .default)
        for (prefix, suffix) in [
            (#"{"$type":"Shape","$version":1,"id":1,"name":""#, #"","x":1,"y":2}"#),
            (#"{"$type":"Shape","$version":1,"id":1,"name":"a","x":1,"y":2,""#, #"":1}"#),
            (#"{"$type":""#, #"","$version":1,"id":1}"#),
        ] {
            let data = Data(prefix.utf8) + Data([0xC3, 0x28]) + Data(suffix.utf8)
            #expect(rewriter.upgrade(data, flat: true) == nil)
            #expect(rewriter.upgrade(data, flat: false) == nil)
            #expect(rewriter.upgrade(data) == nil)
        }
    }

    @Test("under tight limits the flat lane refuses all that the structural pass refuses")
    func flatLaneLimits() throws {
        let catalog = try KeyMovingArchives.catalog()
        let text = #"{"$type":"Shape","$version":1,"id":1,"name":"abcdef","x":1,"y":2,"tags":[["a"],["b","c"]]}"#
        let data = Data(text.utf8)
        #expect(JSONTextRewrite(catalog: catalog, limits: .default).upgrade(data, flat: true) != nil)
        let edges: [(WritableKeyPath<ArchiveLimits, Int>, [Int])] = [
            (\.maxDepth, [3, 5, 6, 7, 8]), (\.maxStringLength, [2, 5, 6]), (\.maxCollectionCount, [1, 2, 6, 7]),
            (\.maxObjectCount, [5, 12, 13]), (\.maxInputBytes, [text.utf8.count - 1, text.utf8.count]),
        ]
        var variants: [ArchiveLimits] = []
        for (limit, values) in edges {
            for value in values {
                var limits = ArchiveLimits.default
                limits[keyPath: limit] = value
                variants.append(limits)
            }
        }
        var refusedByBoth = 0
        for limits in variants {
            let rewriter = JSONTextRewrite(catalog: catalog, limits: limits)
            let walked = rewriter.upgrade(data, flat: false)
            let flat = rewriter.upgrade(data, flat: true)
            if walked == nil {
                #expect(flat == nil, "\(limits)")
                refusedByBoth += 1
            } else if let flat {
                #expect(flat == walked, "\(limits)")
            }
        }
        // Each limit refuses the text at its lowest value here.
        #expect(refusedByBoth >= 5, "refused: \(refusedByBoth)")
    }

    @Test("a small archive comes out as the tree writes it, compact or pretty-printed")
    func knownOutput() throws {
        let catalog = try KeyMovingArchives.catalog()
        let upgrader = try ArchiveUpgrader(catalog: catalog)
        let compact = Data(
            #"{"$type":"Shape","$version":1,"id":7,"name":"a \u00e9","x":1.50,"y":-0,"legacy":[1,{"k":2}],"tags":["a"]}"#
                .utf8)
        let result = try upgrader.upgrade(compact)
        #expect(result.rewroteText && result.changed)
        #expect(
            String(decoding: result.data, as: UTF8.self)
                == #"{"$type":"Shape","$version":4,"id":7,"title":"a é","center":{"x":1.5,"y":0},"tags":["a"],"#
                + #""visible":true,"note":null,"rank":2,"label":"none"}"#)

        let pretty = Data(
            "{\n  \"$type\": \"Board\",\n  \"$version\": 1,\n  \"user\": \"kim\",\n  \"shapes\": []\n}\n".utf8)
        let board = try upgrader.upgrade(pretty)
        #expect(board.rewroteText && board.changed)
        #expect(
            String(decoding: board.data, as: UTF8.self)
                == "{\n  \"$type\": \"Board\",\n  \"$version\": 2,\n  \"owner\": \"kim\",\n  \"shapes\": []\n}\n")

        let current = Data(#"{"$type":"Tag","$version":1,"name":"x"}"#.utf8)
        let unchanged = try upgrader.upgrade(current)
        #expect(unchanged.rewroteText && !unchanged.changed && unchanged.data == current)
    }

    @Test(
        "what only the tree can do goes to the tree, with its result or its error",
        arguments: [
            // An envelope, references, a date, an escaped `$` key, an escaped key, a repeated key.
            #"{"$archive":1,"root":{"$type":"Shape","$version":1,"id":1,"name":"a","x":1,"y":2}}"#,
            #"{"$type":"Board","$version":1,"user":"u","shapes":[{"$type":"Tag","$version":1,"$id":1,"name":"t"},{"$ref":1}]}"#,
            #"{"$type":"Board","$version":1,"user":{"$date":"2020-01-01T00:00:00Z"},"shapes":[]}"#,
            #"{"$type":"Board","$version":1,"user":"u","shapes":[],"$$cost":1}"#,
            #"{"$type":"Board","$version":1,"us\u0065r":"u","shapes":[]}"#,
            #"{"$type":"Board","$version":1,"user":"u","user":"v","shapes":[]}"#,
            // A chain that converts, a version newer than the chain, a typed object in a removed
            // field, `$type` not first at the top (a plain document), a byte-order mark.
            #"{"$type":"Frame","$version":1,"size":3}"#,
            #"{"$type":"Shape","$version":5,"id":1}"#,
            #"{"$type":"Shape","$version":1,"id":1,"name":"a","x":1,"y":2,"legacy":{"$type":"Tag","$version":1,"name":"t"}}"#,
            #"{"id":1,"$type":"Shape","$version":1,"name":"a","x":1,"y":2}"#,
            "\u{FEFF}{\"$type\":\"Board\",\"$version\":1,\"user\":\"u\",\"shapes\":[]}",
        ])
    func treeOnly(_ text: String) throws {
        let catalog = try KeyMovingArchives.catalog()
        let data = Data(text.utf8)
        #expect(JSONTextRewrite(catalog: catalog, limits: .default).upgrade(data) == nil)
        let upgrader = try ArchiveUpgrader(catalog: catalog)
        if let tree = KeyMovingArchives.treePath(data, catalog: catalog) {
            let result = try upgrader.upgrade(data)
            #expect(!result.rewroteText && result.changed == tree.changed)
            #expect(result.data == (tree.changed ? tree.output : data))
        } else {
            #expect(throws: ArchiveError.self) { try upgrader.upgrade(data) }
        }
    }

    @Test("an added infinity and a type name spelled with other scalars than its chain's go to the tree")
    func spelledOnlyByTheTree() throws {
        // Markup spells infinity as a tagged value laid out by the containers the tree writer has
        // open; the pass keeps an upgraded object's name when it equals the chain's as a String
        // (U+212A KELVIN SIGN is canonically "K").
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(
                typeName: "Gauge", currentVersion: 2,
                steps: [MigrationStep(from: 1, to: 2, rules: [.add("limit", default: .double(.infinity))])]),
            TypeMigrations(
                typeName: "Kite", currentVersion: 2,
                steps: [MigrationStep(from: 1, to: 2, rules: [.rename("a", to: "b")])]),
        ])
        let rewriter = JSONTextRewrite(catalog: catalog, limits: .default)
        let upgrader = try ArchiveUpgrader(catalog: catalog)
        for text in [
            "{\n  \"$type\": \"Gauge\",\n  \"$version\": 1\n}\n", #"{"$type":"\u212Aite","$version":1,"a":1}"#,
            "{\"$type\":\"\u{212A}ite\",\"$version\":1,\"a\":1}",
        ] {
            let data = Data(text.utf8)
            #expect(rewriter.upgrade(data) == nil, "\(text)")
            let tree = try #require(KeyMovingArchives.treePath(data, catalog: catalog))
            let result = try upgrader.upgrade(data)
            #expect(!result.rewroteText && result.changed && result.data == tree.output, "\(text)")
        }
        let plain = try upgrader.upgrade(Data(#"{"$type":"Kite","$version":1,"a":1}"#.utf8))
        #expect(
            plain.rewroteText && String(decoding: plain.data, as: UTF8.self) == #"{"$type":"Kite","$version":2,"b":1}"#)
    }

    @Test(
        "an object at the current version with the keys of the version before: the rewrite leaves it to the tree's refusal"
    )
    func currentVersionWithOldKeys() throws {
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(
                typeName: "Kite", currentVersion: 2,
                steps: [MigrationStep(from: 1, to: 2, rules: [.rename("a", to: "b")])])
        ])
        let rewriter = JSONTextRewrite(catalog: catalog, limits: .default)
        let upgrader = try ArchiveUpgrader(catalog: catalog)
        for text in [
            #"{"$type":"Kite","$version":2,"a":{"k":"\u212A"}}"#, #"{"$type":"Kite","$version":2,"a":1,"c":2}"#,
        ] {
            let data = Data(text.utf8)
            #expect(rewriter.upgrade(data) == nil, "\(text)")
            let error = try #require(throws: ArchiveError.self) { try upgrader.upgrade(data) }
            #expect(error.code == .missingMigration && error.message.contains("holds 'a' and no 'b'"), "\(error)")
        }
        // Both keys: the tree accepts it as current, and so does the upgrader (through the tree).
        let both = Data(#"{"$type":"Kite","$version":2,"a":1,"b":2}"#.utf8)
        let tree = try #require(KeyMovingArchives.treePath(both, catalog: catalog))
        let result = try upgrader.upgrade(both)
        #expect(!result.changed && !tree.changed && result.data == both)
        // The current layout is still rewritten (unchanged) from the text.
        let current = Data(#"{"$type":"Kite","$version":2,"b":1}"#.utf8)
        let unchanged = try upgrader.upgrade(current)
        #expect(unchanged.rewroteText && !unchanged.changed && unchanged.data == current)
    }

    @Test("a dropped value nested deeper than the rewrite goes, under raised limits, goes to the tree without a trap")
    func deepDroppedValue() throws {
        var limits = ArchiveLimits.default
        limits.maxDepth = 100_000
        let upgrader = try ArchiveUpgrader(
            catalog: try KeyMovingArchives.catalog(), options: ArchiveReadingOptions(limits: limits))
        let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
        let data = Data(#"{"$type":"Shape","$version":1,"id":1,"name":"a","x":1,"y":2,"legacy":\#(deep)}"#.utf8)
        let result = try upgrader.upgrade(data)
        #expect(!result.rewroteText && result.changed)
        #expect(
            String(decoding: result.data, as: UTF8.self).hasPrefix(#"{"$type":"Shape","$version":4,"id":1,"title":"a""#)
        )
    }

    @Test("one upgrader on many threads at once gives each archive its own result")
    func concurrentUse() async throws {
        let catalog = try KeyMovingArchives.catalog()
        let upgrader = try ArchiveUpgrader(catalog: catalog)
        var generator = ArchiveTextGenerator(seed: 0x5EED_0002)
        let archives = (0..<400).map { _ in Data(generator.document().utf8) }
        let expected = archives.map { data in KeyMovingArchives.treePath(data, catalog: catalog) }
        try await withThrowingTaskGroup(of: (Int, ArchiveUpgrader.UpgradedArchive?).self) { group in
            for (index, data) in archives.enumerated() {
                group.addTask { (index, try? upgrader.upgrade(data)) }
            }
            var rewritten = 0
            for try await (index, result) in group {
                if result?.rewroteText == true { rewritten += 1 }
                #expect(result?.changed == expected[index]?.changed)
                if let result, let tree = expected[index] {
                    #expect(result.data == (tree.changed ? tree.output : archives[index]))
                }
            }
            #expect(rewritten > archives.count / 2)
        }
    }
}

@Suite("MigrationEngine: the text rewrite and the tree")
struct MigrationEngineRewriteTests {
    static func engine(_ catalog: MigrationCatalog, reporting: MigrationEngine.Reporting) throws -> MigrationEngine {
        var options = MigrationEngine.Options()
        options.reporting = reporting
        return try MigrationEngine(catalog: catalog, options: options)
    }

    @Test(
        "a store's two halves of the engine (rewriteText, then migrateTree) give migrate's answer, archive by archive")
    func storeHalvesGiveMigratesAnswer() throws {
        let catalog = try KeyMovingArchives.catalog()
        let engine = try Self.engine(catalog, reporting: .none)
        var generator = ArchiveTextGenerator(seed: 0x5EED_0004, singleLine: true)
        var rewritten = 0
        var throughTheTree = 0
        for _ in 0..<1500 {
            let data = Data(generator.document().utf8)
            let whole = Result { try engine.migrate(data) }
            if let half = data.withUnsafeBytes({ engine.rewriteText($0) }) {
                rewritten += 1
                let outcome = try whole.get()
                #expect(outcome.rewroteText && outcome.changed == half.changed)
                #expect(outcome.data == half.output?.data)
            } else {
                throughTheTree += 1
                let tree = Result { try engine.migrateTree(data) }
                switch (whole, tree) {
                case (.success(let outcome), .success(let other)):
                    #expect(!outcome.rewroteText && outcome.changed == other.changed && outcome.data == other.data)
                case (.failure(let error), .failure(let other)):
                    #expect("\(error)" == "\(other)")
                default:
                    Issue.record("migrate and migrateTree disagree on \(String(decoding: data, as: UTF8.self))")
                }
            }
        }
        #expect(rewritten > 300 && throughTheTree > 100, "rewritten \(rewritten), tree \(throughTheTree)")
    }

    @Test("an archive's text is rewritten only when no report is asked for, to the tree path's bytes")
    func rewritesWithoutReports() throws {
        let catalog = try KeyMovingArchives.catalog()
        let archive = Data(#"{"$type":"Board","$version":1,"user":"kim","shapes":[]}"#.utf8)
        let expected = try #require(KeyMovingArchives.treePath(archive, catalog: catalog))
        let rewritten = try Self.engine(catalog, reporting: .none).migrate(archive)
        #expect(rewritten.rewroteText && rewritten.report == nil && rewritten.changed)
        #expect(rewritten.data == expected.output)
        for reporting in [MigrationEngine.Reporting.counts, .everyObject] {
            let tree = try Self.engine(catalog, reporting: reporting).migrate(archive)
            #expect(!tree.rewroteText && tree.report?.changedTree == true && tree.data == expected.output)
        }
        // What only the tree can do goes through the tree, even without a report.
        let converted = Data(#"{"$type":"Frame","$version":1,"size":3}"#.utf8)
        let frame = try Self.engine(catalog, reporting: .none).migrate(converted)
        #expect(!frame.rewroteText && frame.changed && frame.report == nil)
        #expect(frame.data == KeyMovingArchives.treePath(converted, catalog: catalog)?.output)
    }
}
