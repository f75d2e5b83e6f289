import Foundation
import MigrationRules
import ModelVersioning
import TestSupport
import Testing

/// Rules files are input too: read with the same limits as archives, every version in a
/// documented range, no guessed inverse, no empty names; a bad file is a located error, never a
/// trap or a wrong answer.
@Suite("Rules files as untrusted input")
struct RulesFileHardeningTests {
    /// The error `body` throws, or `nil` (recorded as an issue) when it throws none or another type.
    static func rulesError(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) -> ArchiveError? {
        do {
            try body()
            Issue.record("expected an ArchiveError, but nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as ArchiveError {
            return error
        } catch {
            Issue.record("expected an ArchiveError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// A rules file with one type `T` whose single step v1 → v2 has `rules`.
    static func file(rules: [ArchiveValue]) -> ArchiveValue {
        [
            "formatVersion": 1,
            "types": ["T": ["currentVersion": 2, "steps": [["from": 1, "to": 2, "rules": .array(rules)]]]],
        ]
    }

    /// A rules file with one type `T` and this chain.
    static func file(chain: ArchiveDictionary) -> ArchiveValue {
        ["formatVersion": 1, "types": ["T": .dictionary(chain)]]
    }

    /// A rules file, the code, path and message it must fail with.
    struct Broken: CustomTestStringConvertible, Sendable {
        var name: String
        var file: ArchiveValue
        var code: ArchiveError.Code = .invalidRules
        var path: String
        var message: String
        var testDescription: String { name }
    }

    static let rulePath = "types.T.steps[0].rules[0]"

    // MARK: Versions

    /// A chain whose versions reach `Int64.max`: it was accepted, and every command then failed
    /// (or not) on the archive, with messages naming the archive rather than the rules file.
    static let int64MaxFile = """
        {
          "formatVersion": 1,
          "types": {
            "Circle": {
              "currentVersion": 9223372036854775807,
              "steps": [ { "from": 9223372036854775806, "to": 9223372036854775807, "rules": [] } ]
            }
          }
        }
        """

    static let int64MaxMessage =
        "'currentVersion' must be a version from 0 to 2147483647; found 9223372036854775807 "
        + "at types.Circle.currentVersion (of int64-max.json)"

    @Test(
        "a rules file with versions up to Int64.max stops every command with exit 2, naming the file and the path",
        arguments: [
            ["upgrade", "kyoto-trip.json"], ["downgrade", "kyoto-trip.json", "--to", "Circle=1"],
            ["inspect", "kyoto-trip.json"], ["check", "archives"],
        ])
    func int64MaxThroughTheTool(command: [String]) throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: "archives/Sketch/v1/kyoto-trip.json")
        try scratch.copy(fixtureFolder: "archives/Sketch", to: "archives/Sketch")
        try scratch.write(Self.int64MaxFile, to: "int64-max.json")
        let run = try ToolProcess.run(command + ["--rules", "int64-max.json"], in: scratch.url)
        #expect(run.status == 2, "exit \(run.status): \(run.standardError)")
        #expect(run.standardError == "error: \(Self.int64MaxMessage)\n")
        #expect(run.standardOutput.isEmpty)
    }

    @Test("MigrationCatalog(rulesFile:) rejects the Int64.max file at the version's path")
    func int64MaxThroughTheLibrary() throws {
        let tree = try ArchiveFormat.json.read(
            Data(Self.int64MaxFile.utf8), options: ArchiveReadingOptions(markup: .plain))
        let error = Self.rulesError { _ = try MigrationCatalog(rulesFile: tree, fileName: "int64-max.json") }
        #expect(error?.code == .invalidRules)
        #expect(error?.path.description == "types.Circle.currentVersion")
        #expect(error?.location?.file == "int64-max.json")
        #expect(error?.description == Self.int64MaxMessage)
    }

    static let badVersions: [Broken] = [
        Broken(
            name: "from Int64.max without a to (wrapped to a negative 'to')",
            file: file(chain: ["currentVersion": 2, "steps": [["from": .int(.max), "rules": []]]]),
            path: "types.T.steps[0].from",
            message: "'from' must be a version from 0 to 2147483647; found 9223372036854775807"),
        Broken(
            name: "from the last version without a to",
            file: file(chain: ["currentVersion": 2_147_483_647, "steps": [["from": 2_147_483_647, "rules": []]]]),
            path: "types.T.steps[0].from",
            message: "a step from v2147483647 has nowhere to go: v2147483647 is the last version a rules file names"),
        Broken(
            name: "to beyond the range",
            file: file(chain: [
                "currentVersion": 2_147_483_647, "steps": [["from": 2_147_483_647, "to": 2_147_483_648, "rules": []]],
            ]),
            path: "types.T.steps[0].to", message: "'to' must be a version from 0 to 2147483647; found 2147483648"),
        Broken(
            name: "negative from",
            file: file(chain: ["currentVersion": 0, "steps": [["from": -1, "rules": []]]]),
            path: "types.T.steps[0].from", message: "'from' must be a version from 0 to 2147483647; found -1"),
        Broken(
            name: "unsigned currentVersion",
            file: file(chain: ["currentVersion": .uint(.max)]),
            path: "types.T.currentVersion",
            message: "'currentVersion' must be a version from 0 to 2147483647; found 18446744073709551615"),
        Broken(
            name: "unversionedVersion Int64.min",
            file: file(chain: ["currentVersion": 1, "unversionedVersion": .int(.min)]),
            path: "types.T.unversionedVersion",
            message: "'unversionedVersion' must be a version from 0 to 2147483647; found -9223372036854775808"),
        Broken(
            name: "document currentVersion Int64.max",
            file: ["formatVersion": 1, "document": ["name": "D", "currentVersion": .int(.max)]],
            path: "document.currentVersion",
            message: "'currentVersion' must be a version from 0 to 2147483647; found 9223372036854775807"),
    ]

    @Test("a version outside 0...2147483647 is invalidRules at its path", arguments: badVersions)
    func versionOutOfRange(_ broken: Broken) {
        let error = Self.rulesError { _ = try MigrationCatalog(rulesFile: broken.file, fileName: "rules.json") }
        #expect(error?.code == broken.code)
        #expect(error?.path.description == broken.path)
        #expect(error?.message == broken.message)
        #expect(error?.location?.file == "rules.json")
    }

    @Test("a chain may end at the last version, and the pass migrates to it")
    func lastVersion() throws {
        let catalog = try MigrationCatalog(
            rulesFile: Self.file(chain: [
                "currentVersion": 2_147_483_647,
                "steps": [["from": 2_147_483_646, "rules": [["rename": "a", "to": "b"]]]],
            ]))
        #expect(RulesFile.versions == 0...2_147_483_647)
        var tree = ArchiveValue.object(ArchiveObject(typeName: "T", version: 2_147_483_646, fields: ["a": 1]))
        let report = try MigrationPass(catalog: catalog).upgrade(&tree)
        #expect(tree == .object(ArchiveObject(typeName: "T", version: 2_147_483_647, fields: ["b": 1])))
        #expect(report.counts.map(\.fromVersion) == [2_147_483_646])
        #expect(report.counts.map(\.toVersion) == [2_147_483_647])
    }

    @Test("a Swift chain ending at Int.max upgrades, downgrades and counts without overflowing")
    func swiftChainAtIntMax() throws {
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(
                typeName: "T", currentVersion: .max, unversionedVersion: .max - 2,
                steps: [
                    MigrationStep(from: .max - 1, to: .max, rules: [.rename("b", to: "c")]),
                    MigrationStep(from: .max - 2, to: .max - 1, rules: [.rename("a", to: "b")]),
                ])
        ])
        var tree: ArchiveValue = [
            "old": .object(ArchiveObject(typeName: "T", version: .max - 2, fields: ["a": 1])),
            "unversioned": .object(ArchiveObject(typeName: "T", version: nil, fields: ["a": 2])),
            "current": .object(ArchiveObject(typeName: "T", version: .max, fields: ["c": 3])),
        ]
        let up = try MigrationPass(catalog: catalog).upgrade(&tree)
        #expect(tree["old"] == .object(ArchiveObject(typeName: "T", version: .max, fields: ["c": 1])))
        #expect(tree["unversioned"] == .object(ArchiveObject(typeName: "T", version: .max, fields: ["c": 2])))
        #expect(up.counts.map(\.fromVersion) == [.max - 2])
        #expect(up.counts.map(\.count) == [2])
        let down = try MigrationPass(catalog: catalog).downgrade(
            &tree, to: DowngradeTarget(typeVersions: ["T": .max - 2]))
        #expect(tree["current"] == .object(ArchiveObject(typeName: "T", version: .max - 2, fields: ["a": 3])))
        #expect(down.counts.map(\.fromVersion) == [.max])
        #expect(down.counts.map(\.count) == [3])
    }

    @Test("a Swift step from Int.max is rejected, not wrapped")
    func swiftStepFromIntMax() {
        let error = Self.rulesError {
            _ = try MigrationCatalog(types: [
                TypeMigrations(
                    typeName: "T", currentVersion: .max, steps: [MigrationStep(from: .max, to: .min, rules: [])])
            ])
        }
        #expect(error?.code == .invalidChain)
        #expect(error?.path.description == "steps[0]")
    }

    // MARK: Value maps

    static let ambiguousMaps: [Broken] = [
        Broken(
            name: "pairs",
            file: file(rules: [
                ["convert": "state", "map": [["open", "todo"], ["new", "todo"], ["closed", "done"]]]
            ]),
            path: rulePath + ".map[1]",
            message:
                #"the map sends both "open" (at types.T.steps[0].rules[0].map[0]) and "new" to "todo", so a downgrade "#
                + "could not tell which to restore; give each old value a new value of its own, or add a 'default' to "
                + "make the map one-way"),
        Broken(
            name: "object",
            file: file(rules: [["convert": "state", "map": ["open": "todo", "closed": "done", "new": "todo"]]]),
            path: rulePath + ".map.new",
            message:
                #"the map sends both "open" (at types.T.steps[0].rules[0].map.open) and "new" to "todo", so a "#
                + "downgrade could not tell which to restore; give each old value a new value of its own, or add a "
                + "'default' to make the map one-way"),
        Broken(
            name: "null values",
            file: file(rules: [["convert": "sharpness", "map": [["sharp", nil], ["round", nil]]]]),
            path: rulePath + ".map[1]",
            message:
                #"the map sends both "sharp" (at types.T.steps[0].rules[0].map[0]) and "round" to null, so a downgrade "#
                + "could not tell which to restore; give each old value a new value of its own, or add a 'default' to "
                + "make the map one-way"),
    ]

    @Test("a value map that sends two values to one is invalidRules naming both", arguments: ambiguousMaps)
    func ambiguousMap(_ broken: Broken) {
        let error = Self.rulesError { _ = try MigrationCatalog(rulesFile: broken.file, fileName: "rules.json") }
        #expect(error?.code == broken.code)
        #expect(error?.path.description == broken.path)
        #expect(error?.message == broken.message)
        #expect(error?.location?.file == "rules.json")
    }

    @Test("a value map with a default is one-way and may collapse values")
    func oneWayMap() throws {
        let catalog = try MigrationCatalog(
            rulesFile: Self.file(rules: [
                ["convert": "state", "map": ["open": "todo", "new": "todo"], "default": "done"]
            ]))
        let step = try #require(catalog.migrations(forTypeName: "T")?.steps.first)
        #expect(step.irreversibleRule != nil)
    }

    @Test("in Swift, a value map that is not one-to-one has no inverse: a downgrade through it fails, never guesses")
    func swiftAmbiguousMap() throws {
        let converter = ValueConverter.map(["open": "todo", "new": "todo"])
        #expect(converter.inverse == nil)
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(
                typeName: "T", currentVersion: 2,
                steps: [MigrationStep(from: 1, to: 2, rules: [.convert("state", converter)])])
        ])
        var tree = ArchiveValue.object(ArchiveObject(typeName: "T", version: 2, fields: ["state": "todo"]))
        let error = Self.rulesError {
            try MigrationPass(catalog: catalog).downgrade(&tree, to: DowngradeTarget(typeVersions: ["T": 1]))
        }
        #expect(error?.code == .irreversibleStep)
    }

    // MARK: Empty names

    static let emptyNames: [Broken] = [
        Broken(
            name: "empty alias",
            file: ["formatVersion": 1, "types": ["T": ["currentVersion": 1, "aliases": ["MyApp.T", ""]]]],
            path: "types.T.aliases[1]", message: "'aliases' must be a list of type names; element 1 is empty"),
        Broken(
            name: "empty type name", file: ["formatVersion": 1, "types": ["": ["currentVersion": 1]]],
            path: #"types[""]"#, message: "a type name is empty; name the chain after the type it migrates"),
        Broken(
            name: "empty document name", file: ["formatVersion": 1, "document": ["name": "", "currentVersion": 1]],
            path: "document.name", message: "'name' is empty"),
        Broken(
            name: "empty step name",
            file: file(chain: ["currentVersion": 2, "steps": [["from": 1, "name": "", "rules": []]]]),
            path: "types.T.steps[0].name", message: "'name' is empty; leave it out to show the versions instead"),
    ]

    @Test("an empty alias, type name, document name or step name is invalidRules", arguments: emptyNames)
    func emptyName(_ broken: Broken) {
        let error = Self.rulesError { _ = try MigrationCatalog(rulesFile: broken.file, fileName: "rules.json") }
        #expect(error?.code == broken.code)
        #expect(error?.path.description == broken.path)
        #expect(error?.message == broken.message)
        #expect(error?.location?.file == "rules.json")
    }

    @Test("in Swift, an empty alias is invalidChain at its path")
    func swiftEmptyAlias() {
        let error = Self.rulesError {
            _ = try MigrationCatalog(types: [TypeMigrations(typeName: "T", currentVersion: 1, aliases: [""])])
        }
        #expect(error?.code == .invalidChain)
        #expect(error?.path.description == "aliases[0]")
        #expect(error?.typeName == "T")
    }

    // MARK: Limits

    /// A rules file whose one rule is `levels` scope rules, each inside the one before.
    static func nestedScopes(_ levels: Int) -> ArchiveValue {
        var rule: ArchiveValue = ["rename": "a", "to": "b"]
        for _ in 0..<levels {
            rule = ["scope": "x", "rules": [rule]]
        }
        return file(rules: [rule])
    }

    @Test("a rules file nested deeper than ArchiveLimits.maxDepth is limitExceeded, located")
    func depth() {
        // Eight levels to the first rule, two per scope: 32 scopes nest 71 deep.
        let error = Self.rulesError {
            _ = try MigrationCatalog(rulesFile: Self.nestedScopes(32), fileName: "deep.json")
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .depth)
        #expect(error?.message == "the rules file nests deeper than 64 levels")
        #expect(error?.location?.file == "deep.json")
        #expect(error?.path.count == 64)
        var untrusted = ArchiveLimits.untrusted
        let shallower = Self.rulesError {
            _ = try MigrationCatalog(rulesFile: Self.nestedScopes(13), limits: untrusted)
        }
        #expect(shallower?.message == "the rules file nests deeper than 32 levels")
        untrusted.maxDepth = 64
        #expect(throws: Never.self) { try MigrationCatalog(rulesFile: Self.nestedScopes(13), limits: untrusted) }
    }

    @Test("counts and lengths in a rules file are bounded by ArchiveLimits")
    func countsAndLengths() {
        var limits = ArchiveLimits()
        limits.maxCollectionCount = 3
        let steps: [ArchiveValue] = (1...4).map { ["from": .int(Int64($0)), "rules": []] }
        let many = Self.rulesError {
            _ = try MigrationCatalog(
                rulesFile: Self.file(chain: ["currentVersion": 5, "steps": .array(steps)]), fileName: "r.json",
                limits: limits)
        }
        #expect(many?.limit == .collectionCount)
        #expect(many?.path.description == "types.T.steps")
        #expect(many?.location?.file == "r.json")

        limits = ArchiveLimits()
        limits.maxStringLength = 14  // "currentVersion"
        let long = Self.rulesError {
            _ = try MigrationCatalog(
                rulesFile: Self.file(rules: [["rename": "a", "to": "fifteen letters"]]), limits: limits)
        }
        #expect(long?.message == "a string is longer than 14 bytes (15)")
        #expect(long?.limit == .stringLength)
        #expect(long?.path.description == Self.rulePath + ".to")

        limits = ArchiveLimits()
        limits.maxObjectCount = 10
        let values = Self.rulesError {
            _ = try MigrationCatalog(
                rulesFile: Self.file(rules: [["nest": ["a", "b", "c"], "into": "d"]]), limits: limits)
        }
        #expect(values?.limit == .objectCount)
    }

    @Test("an object of a rules file with a key twice is invalidRules")
    func duplicateKey() {
        var rule = ArchiveDictionary()
        rule.appendUnchecked("a", forKey: "rename")
        rule.appendUnchecked("b", forKey: "to")
        rule.appendUnchecked("c", forKey: "to")
        let error = Self.rulesError {
            _ = try MigrationCatalog(rulesFile: Self.file(rules: [.dictionary(rule)]), fileName: "rules.json")
        }
        #expect(error?.code == .invalidRules)
        #expect(error?.path.description == Self.rulePath + ".to")
        #expect(error?.message == "the key 'to' appears twice in one object")
    }
}
