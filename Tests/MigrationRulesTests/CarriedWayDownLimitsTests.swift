import MigrationRules
import Testing

/// The limits of what a carried way down (and a rules file) may ask for: steps per chain
/// (``ArchiveLimits/maxChainSteps``), keys per rule (``ArchiveLimits/maxRuleKeys``), rules in
/// all (``ArchiveLimits/maxRuleCount``) and paths no deeper than ``ArchiveLimits/maxDepth``;
/// and the names a chain gives its objects at each version, computed once.
@Suite("Carried way downs: limits of their own, read and compiled once")
struct CarriedWayDownLimitsTests {
    /// An archive of one `Note` at `from`, carrying a way down of `steps` (from `from` down to
    /// v3, the `Note` today's BoardApp writes and so the one an older app that knows v3 reads).
    static func archive(from: Int, steps: [MigrationStep]) throws -> ArchiveValue {
        let wayDown = WayDown(release: "2.0", types: [WayDown.Chain(name: "Note", from: from, to: 3, steps: steps)])
        return [
            "$archive": 1, "document": "Board", "documentVersion": 2, "wayDown": try wayDown.tree,
            "root": object("Board", 2, ["notes": [object("Note", from, ["body": "x", "tags": []])]]),
        ]
    }

    /// Empty steps from `from` down to v3.
    static func emptySteps(from: Int) -> [MigrationStep] {
        (3..<from).reversed().map { MigrationStep(from: $0 + 1, to: $0, rules: []) }
    }

    /// The error today's BoardApp catalog's upgrade of `tree` throws with `limits`.
    static func error(_ tree: ArchiveValue, limits: ArchiveLimits) throws -> ArchiveError? {
        var tree = tree
        let pass = MigrationPass(catalog: try BoardApp.today(), options: MigrationOptions(limits: limits))
        return archiveError { try pass.upgrade(&tree) }
    }

    @Test("a carried chain of more steps than maxChainSteps is refused at its steps, before any runs")
    func stepsPerChain() throws {
        var limits = ArchiveLimits()
        limits.maxChainSteps = 100
        let tree = try Self.archive(from: 104, steps: Self.emptySteps(from: 104))
        let error = try Self.error(tree, limits: limits)
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .chainSteps)
        #expect(error?.path == "wayDown.types.Note.steps")
        #expect(error?.message.contains("the chain has 101 steps, more than 100") == true)

        // At the limit, the way down runs.
        var atLimit = try Self.archive(from: 103, steps: Self.emptySteps(from: 103))
        let pass = MigrationPass(catalog: try BoardApp.today(), options: MigrationOptions(limits: limits))
        let report = try pass.upgrade(&atLimit)
        #expect(report.wayDownRun?.counts.first?.fromVersion == 103)
        #expect(atLimit["root"]?["notes"]?[0]?.objectValue?.version == 3)
    }

    @Test("a carried rule of more keys than maxRuleKeys is refused at the rule")
    func keysPerRule() throws {
        var limits = ArchiveLimits()
        limits.maxRuleKeys = 10
        let keys = (0..<11).map { "k\($0)" }
        let tree = try Self.archive(from: 4, steps: [MigrationStep(from: 4, to: 3, rules: [.nest(keys, into: "bag")])])
        let error = try Self.error(tree, limits: limits)
        #expect(error?.limit == .ruleKeys)
        #expect(error?.path == "wayDown.types.Note.steps[0].rules[0].nest")
    }

    @Test("a carried way down of more rules than maxRuleCount is refused, counting scoped rules")
    func ruleCount() throws {
        var limits = ArchiveLimits()
        limits.maxRuleCount = 10
        let scoped = MigrationRule.scoped("tags[*]", (0..<5).map { .remove("k\($0)") })
        let rules = [scoped] + (0..<5).map { MigrationRule.remove("x\($0)") }
        let tree = try Self.archive(from: 4, steps: [MigrationStep(from: 4, to: 3, rules: rules)])
        let error = try Self.error(tree, limits: limits)
        #expect(error?.limit == .ruleCount)
        #expect(error?.path == "wayDown.types.Note")

        let fewer = try Self.archive(from: 4, steps: [MigrationStep(from: 4, to: 3, rules: Array(rules.dropLast()))])
        #expect(try Self.error(fewer, limits: limits) == nil)
    }

    @Test("a carried path deeper than maxDepth is refused at the rule")
    func pathDepth() throws {
        let deep = ArchivePath((0..<40).map { .key("k\($0)") })
        let tree = try Self.archive(from: 4, steps: [MigrationStep(from: 4, to: 3, rules: [.move("body", to: deep)])])
        let error = try Self.error(tree, limits: .untrusted)
        #expect(error?.limit == .depth)
        #expect(error?.path == "wayDown.types.Note.steps[0].rules[0].to")
    }

    @Test("rules files are read within the same limits")
    func rulesFiles() throws {
        var limits = ArchiveLimits()
        limits.maxChainSteps = 1
        limits.maxRuleKeys = 2
        let steps: ArchiveValue = [["from": 1, "to": 2, "rules": []], ["from": 2, "to": 3, "rules": []]]
        let tooLong: ArchiveValue = ["formatVersion": 1, "types": ["Circle": ["currentVersion": 3, "steps": steps]]]
        let long = archiveError { _ = try MigrationCatalog(rulesFile: tooLong, fileName: "r.json", limits: limits) }
        #expect(long?.limit == .chainSteps)
        #expect(long?.path == "types.Circle.steps")
        let nest: ArchiveValue = [["from": 1, "to": 2, "rules": [["nest": ["a", "b", "c"], "into": "d"]]]]
        let wide: ArchiveValue = ["formatVersion": 1, "types": ["Circle": ["currentVersion": 2, "steps": nest]]]
        let keys = archiveError { _ = try MigrationCatalog(rulesFile: wide, fileName: "r.json", limits: limits) }
        #expect(keys?.limit == .ruleKeys)
        #expect(keys?.path == "types.Circle.steps[0].rules[0].nest")
    }

    @Test("keys listed twice are told apart by their Unicode scalars, as keys are everywhere")
    func keysListedTwice() throws {
        func catalog(_ keys: [ArchiveValue]) throws -> MigrationCatalog {
            let steps: ArchiveValue = [["from": 1, "to": 2, "rules": [["nest": .array(keys), "into": "d"]]]]
            return try MigrationCatalog(
                rulesFile: ["formatVersion": 1, "types": ["Circle": ["currentVersion": 2, "steps": steps]]])
        }
        #expect(throws: Never.self) { try catalog(["caf\u{E9}", "cafe\u{301}"]) }
        let twice = archiveError { _ = try catalog(["a", "b", "a"]) }
        #expect(twice?.code == .invalidRules)
        #expect(twice?.path == "types.Circle.steps[0].rules[0].nest[2]")
    }

    @Test("the names a chain's objects carry at each version are those TypeMigrations.archiveName gives")
    func namesPerVersion() throws {
        let chain = TypeMigrations(
            typeName: "Shape", currentVersion: 6,
            steps: [
                MigrationStep(from: 1, to: 2, rules: [.renameType(from: "Figure", to: "Form")]),
                MigrationStep(from: 2, to: 3, rules: []),
                MigrationStep(from: 3, to: 4, rules: [.scoped("a", []), .renameType(from: "Form", to: "Shape")]),
                MigrationStep(from: 4, to: 5, rules: []),
                MigrationStep(from: 5, to: 6, rules: []),
            ])
        let wayDown = try MigrationCatalog(
            types: [chain],
            releases: ReleaseManifest(releases: [
                AppRelease("1", types: ["Shape": 1]), AppRelease("2", types: ["Shape": 6]),
            ])
        ).wayDown(toRelease: "1", for: object("Shape", 6))
        // The way down renames back on the steps that renamed: Shape at v6…v4, Form at v3, v2.
        let names = (0...7).map { chain.archiveName(atVersion: $0) }
        #expect(names == ["Figure", "Figure", "Form", "Form", "Shape", "Shape", "Shape", "Shape"])
        var tree: ArchiveValue = [
            "$archive": 1, "wayDown": try #require(wayDown).tree, "root": object("Shape", 6),
        ]
        let older = try MigrationCatalog(types: [
            TypeMigrations(
                typeName: "Form", currentVersion: 3,
                steps: [
                    MigrationStep(from: 1, to: 2, rules: [.renameType(from: "Figure", to: "Form")]),
                    MigrationStep(from: 2, to: 3, rules: []),
                ])
        ])
        try MigrationPass(catalog: older).upgrade(&tree)
        #expect(tree["root"]?.objectValue?.typeName == "Form")
        #expect(tree["root"]?.objectValue?.version == 3)
    }
}
