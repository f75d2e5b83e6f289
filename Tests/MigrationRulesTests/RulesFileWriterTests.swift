import Foundation
import MigrationRules
import Testing

@Suite("Rules-file writer")
struct RulesFileWriterTests {
    /// Reads `file`, writes it, reads that: the same rules, and writing them again gives the
    /// same tree.
    static func roundTrip(_ file: ArchiveValue) throws -> (first: MigrationCatalog, written: ArchiveValue) {
        let catalog = try MigrationCatalog(rulesFile: file, fileName: "rules.json")
        let written = try catalog.rulesFile()
        let reread = try MigrationCatalog(rulesFile: written, fileName: "written.json")
        #expect(try reread.rulesFile() == written)
        return (catalog, written)
    }

    @Test(
        "every rule and converter spelling the reader accepts is written back as a rule that reads the same",
        arguments: RulesFileTests.spellings)
    func everySpelling(_ spelling: RulesFileTests.Spelling) throws {
        let (_, written) = try Self.roundTrip(RulesFileTests.file(rules: [spelling.rule]))
        let reread = try MigrationCatalog(rulesFile: written)
        #expect(reread.migrations(forTypeName: "T")?.steps.first?.rules.map(\.description) == [spelling.expected])
    }

    @Test(
        "a plain document chain's conventions are written back and read as the same style",
        arguments: RulesFileTests.plainStyles)
    func plainDocuments(_ value: ArchiveValue, _ style: DocumentStyle) throws {
        let (_, written) = try Self.roundTrip(RulesFileTests.plainDocument(value))
        let reread = try MigrationCatalog(rulesFile: written)
        #expect(reread.document(named: "d")?.style == style)
        #expect((written["document"]?["plain"] != nil) == (style != .archive))
    }

    @Test("the spellings cover every rule keyword and converter name the reader knows")
    func vocabularyIsCovered() throws {
        var keywords = Set<String>()
        var converters = Set<String>()
        for spelling in RulesFileTests.spellings {
            let (_, written) = try Self.roundTrip(RulesFileTests.file(rules: [spelling.rule]))
            guard case .array(let rules)? = written["types"]?["T"]?["steps"]?[0]?["rules"] else { continue }
            for case .dictionary(let rule) in rules {
                keywords.formUnion(rule.keys.filter { RulesFile.RuleKeyword(rawValue: $0) != nil })
                if let using = rule["using"]?.stringValue { converters.insert(using) }
                if rule["map"] != nil { converters.insert(RulesFile.ConverterName.map.rawValue) }
            }
        }
        #expect(keywords == Set(RulesFile.RuleKeyword.allCases.map(\.rawValue)))
        #expect(converters == Set(RulesFile.ConverterName.allCases.map(\.rawValue)))
    }

    @Test("rules built in Swift are written with the reader's spellings, and read back to the same behaviour")
    func rulesBuiltInSwift() throws {
        let rules: [MigrationRule] = [
            .rename("r", to: "radius", required: true), .add("visible", default: true),
            .remove("flag", restoring: false), .remove("thumbnail"),
            .convert("n", .stringToInt), .convert("d", .date(format: .millisecondsSince1970)),
            .convert("e", .dateToString(format: .pattern("yyyy-MM-dd'T'HH:mm"))),
            .convert("state", .map(["open": "todo", "closed": "done"])),
            .convert("size", .map([1: "small", 2: "large"], default: "medium")),
            .convert("ids", .wrapElements(inKey: "id", with: ["type": "arrow"])),
            .convert("refs", .unwrapElements(key: "id", restoring: [:])),
            .move("x", to: "center.x"), .move([.key("first name")], to: "names.first"),
            .nest(["x", "y"], into: "center"), .hoist(["a"], from: "b"), .wrapInArray("tag"), .takeFirst("tags"),
            .split("name", into: ["first", "last"], separator: " "), .merge(["a", "b"], into: "ab", separator: "-"),
            .renameType(from: "Round", to: "Circle"),
            .scoped("people[*].tags.*", [.rename("label", to: "title"), .scoped("", [.add("k", default: nil)])]),
        ]
        let chain = TypeMigrations(
            typeName: "Circle", currentVersion: 2,
            steps: [
                MigrationStep(
                    from: 1, to: 2, name: "everything", rules: rules,
                    inverseRules: [.rename("radius", to: "r")])
            ])
        let catalog = try MigrationCatalog(types: [chain])
        let written = try catalog.rulesFile()
        let reread = try MigrationCatalog(rulesFile: written)
        let step = try #require(reread.migrations(forTypeName: "Circle")?.steps.first)
        #expect(step.rules.map(\.description) == rules.map(\.description))
        #expect(step.inverseRules?.map(\.description) == ["rename(radius → r)"])
        #expect(step.name == "everything")
        #expect(try reread.rulesFile() == written)
        // The map is written as pairs sorted by their old value, whatever the dictionary's order.
        #expect(
            written["types"]?["Circle"]?["steps"]?[0]?["rules"]?[7]
                == ["convert": "state", "map": [["closed", "done"], ["open", "todo"]]])
    }

    @Test("a whole catalog — documents, releases, aliases, fallbacks — reads back to the same file")
    func wholeCatalog() throws {
        let catalog = try MigrationCatalog(
            types: [
                TypeMigrations(
                    typeName: "Rectangle", currentVersion: 2, aliases: ["App.Rect"], unversionedVersion: 1,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.renameType(from: "Rect", to: "Rectangle")])]),
                TypeMigrations(
                    typeName: "Rounded", currentVersion: 1,
                    downgradeFallback: DowngradeFallback(becoming: "Rectangle", version: 2, rules: [.remove("r")])),
            ],
            documents: [
                DocumentMigrations(
                    name: "people", versionPath: "meta.version", currentVersion: 2, unversionedVersion: 1,
                    steps: [MigrationStep(from: 1, to: 2, rules: [])]),
                DocumentMigrations(
                    name: "Sketch", currentVersion: 2, steps: [MigrationStep(from: 1, to: 2, rules: [])]),
            ],
            releases: ReleaseManifest(
                document: "Sketch",
                releases: [
                    AppRelease(
                        "1.0", documentVersion: 1,
                        types: ["Rectangle": .version(1, archivedAs: "Rect"), "Rounded": .absent]
                    ),
                    AppRelease("2.0", documentVersion: 2, types: ["Rectangle": 2, "Rounded": 1]),
                ]))
        let written = try catalog.rulesFile()
        #expect(written["releasesDocument"] == "Sketch")
        #expect(written["documents"]?[0]?["versionPath"] == "meta.version")
        let reread = try MigrationCatalog(rulesFile: written)
        #expect(reread.releases == catalog.releases)
        #expect(reread.types.map(\.typeName) == ["Rectangle", "Rounded"])
        #expect(reread.migrations(forTypeName: "App.Rect")?.typeName == "Rectangle")
        #expect(reread.migrations(forTypeName: "Rounded")?.downgradeFallback?.typeName == "Rectangle")
        #expect(try reread.rulesFile() == written)
    }

    @Test("a closure, a closure split and a custom converter have no spelling: an error names the rule and the step")
    func closuresAreNotData() throws {
        let closures: [MigrationRule] = [
            .transform("swap", { _ in }, inverse: { _ in }),
            .split("size", into: ["w", "h"], using: { _ in [1, 2] }, inverse: { _ in 0 }),
            .convert("cents", .custom(name: "dollarsToCents", forward: { $0 }, inverse: { $0 })),
        ]
        for rule in closures {
            let catalog = try MigrationCatalog(
                types: [
                    TypeMigrations(
                        typeName: "T", currentVersion: 2,
                        steps: [MigrationStep(from: 1, to: 2, name: "money", rules: [rule])])
                ])
            let error = archiveError { _ = try catalog.rulesFile() }
            #expect(error?.code == .invalidValue)
            #expect(error?.rule == rule.description)
            #expect(error?.step == "T v1 → v2 (money)")
        }
    }
}
