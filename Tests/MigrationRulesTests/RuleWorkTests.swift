import MigrationRules
import Testing

/// ``ArchiveLimits/maxRuleWork``: what the rules of one migration pass write and look up is
/// bounded by a multiple of the archive and the rules, whether the rules are carried in the
/// archive's way down or are the app's own.
@Suite("Rule work: what rules make, bounded by what the archive holds")
struct RuleWorkTests {
    static let large = ArchiveValue.string(String(repeating: "x", count: 10_000))

    /// BoardApp's archive for 1.0, its way down edited so that taking `Note` v3 to v2 adds a
    /// large default, and its board holding `notes` notes.
    static func amplifyingArchive(notes: Int) throws -> ArchiveValue {
        var tree = try WayDownTests.tampered { wayDown in
            WayDownTests.editRules(&wayDown, type: "Note") { $0 = [["add": "blob", "default": large]] }
        }
        WayDownTests.setRoot(&tree) { root in
            root.fields["notes"] = .array(
                (0..<notes).map { object("Note", 3, ["body": .string("note \($0)"), "tags": []]) })
            root.fields["focus"] = nil
        }
        return tree
    }

    @Test("a carried add of a large default into every object is refused, naming the limit, object, step and rule")
    func carriedAmplification() throws {
        var tree = try Self.amplifyingArchive(notes: 2_000)
        let catalog = try BoardApp.firstRelease()
        let error = archiveError { try MigrationPass(catalog: catalog).upgrade(&tree) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .ruleWork)
        #expect(error?.path.description.hasPrefix("notes[") == true, "\(String(describing: error?.path))")
        // Steps are named as they go up; the carried rules are their inverses.
        #expect(error?.step == "Note v2 → v3 (app 2.0: tags)")
        #expect(error?.rule?.hasPrefix("add(blob = \"xxx") == true)
        #expect(error?.message.contains("times what the archive and its rules hold") == true)
    }

    @Test("the same way down into a few objects makes what it makes")
    func fewCopies() throws {
        var tree = try Self.amplifyingArchive(notes: 20)
        try MigrationPass(catalog: try BoardApp.firstRelease()).upgrade(&tree)
        guard case .dictionary(let envelope) = tree, case .object(let root)? = envelope["root"],
            case .array(let notes)? = root.fields["notes"]
        else { throw Failure("no notes") }
        #expect(notes.count == 20)
        #expect(notes.allSatisfy { $0["blob"] == Self.large })
    }

    /// A plain document whose step adds `default` to each of its `items` through a scoped rule.
    static func scopedAdd(items: Int, default value: ArchiveValue) throws -> (MigrationCatalog, ArchiveValue) {
        let catalog = try MigrationCatalog(
            types: [],
            documents: [
                DocumentMigrations(
                    name: "list", versionPath: "version", currentVersion: 2,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.scoped("items[*]", [.add("blob", default: value)])])]
                )
            ])
        let tree: ArchiveValue = ["version": 1, "items": .array((0..<items).map { ["n": .int(Int64($0))] })]
        return (catalog, tree)
    }

    @Test("the app's own rules count too: a scoped add of a large default into every element is refused")
    func ownRules() throws {
        var (catalog, tree) = try Self.scopedAdd(items: 2_000, default: Self.large)
        let error = archiveError { try MigrationPass(catalog: catalog).upgrade(&tree, document: "list") }
        #expect(error?.limit == .ruleWork)
        #expect(error?.path.description.hasPrefix("items[") == true, "\(String(describing: error?.path))")
        #expect(error?.step == "document list v1 → v2")

        // A small default into as many elements is what migrations do.
        var (small, items) = try Self.scopedAdd(items: 2_000, default: false)
        try MigrationPass(catalog: small).upgrade(&items, document: "list")
        #expect(items["items"]?[1_999]?["blob"] == false)
    }

    @Test("untrusted limits allow less: 4 times the archive instead of 16")
    func untrustedAllowsLess() throws {
        // 10,000 copies of 280 bytes: about 3 MB of work for an archive and rules of about 280 KB,
        // which allow 1 MiB and 16 times that (5.5 MB), or 4 times that (2.2 MB).
        let (catalog, tree) = try Self.scopedAdd(items: 10_000, default: .string(String(repeating: "x", count: 280)))
        var trusted = tree
        try MigrationPass(catalog: catalog).upgrade(&trusted, document: "list")
        var untrusted = tree
        let pass = MigrationPass(catalog: catalog, options: MigrationOptions(limits: .untrusted))
        let error = archiveError { try pass.upgrade(&untrusted, document: "list") }
        #expect(error?.limit == .ruleWork)
        #expect(ArchiveLimits.untrusted.maxRuleWork == 4)
    }

    @Test("a rule applied outside a migration pass counts against no limit")
    func outsideAPass() throws {
        var target = MigrationTarget(fields: [:])
        for index in 0..<2_000 {
            try MigrationRule.add("blob\(index)", default: Self.large).apply(to: &target)
        }
        #expect(target.fields.count == 2_000)
    }

    @Test("a long carried chain run on many objects counts every step it runs, empty ones too")
    func stepsCount() throws {
        // 1,000 empty steps down, on 2,000 notes: two million step runs, for an archive of
        // about 170 KB.
        let steps = (0..<1_000).map { offset in
            MigrationStep(from: 1_003 - offset, to: 1_002 - offset, rules: [])
        }
        let wayDown = WayDown(release: "1.0", types: [WayDown.Chain(name: "Note", from: 1_003, to: 3, steps: steps)])
        var tree: ArchiveValue = [
            "$archive": 1, "document": "Board", "documentVersion": 1, "wayDown": try wayDown.tree,
            "root": object(
                "Board", 1,
                ["notes": .array((0..<2_000).map { _ in object("Note", 1_003, ["body": "x", "tags": []]) })]),
        ]
        let catalog = try MigrationCatalog(
            types: [BoardApp.note, TypeMigrations(typeName: "Board", currentVersion: 1)],
            documents: [DocumentMigrations(name: "Board", currentVersion: 1)])
        let error = archiveError { try MigrationPass(catalog: catalog).upgrade(&tree) }
        #expect(error?.limit == .ruleWork)
    }
}
