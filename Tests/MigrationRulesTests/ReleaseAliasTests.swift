import MigrationRules
import Testing

/// A release's aliases (`AppRelease.aliases`, `"aliases"` in a rules file): an object archived
/// under one of them keeps the name through its upgrade (`$archivedAs`), and a downgrade to that
/// release writes it again.
@Suite("Release aliases")
struct ReleaseAliasTests {
    /// Rect v1 became Rectangle v2; release 1.1 wrote some rectangles as `App.Rect`, an alias.
    static func file(
        aliases: ArchiveValue? = ["App.Rect"], chainAliases: ArchiveValue = ["App.Rect", "Module.Rectangle"]
    )
        -> ArchiveValue
    {
        var rect: ArchiveDictionary = ["version": 1, "archivedAs": "Rect"]
        if let aliases { rect["aliases"] = aliases }
        return [
            "formatVersion": 1,
            "releases": [
                ["name": "1.0", "types": ["Rectangle": ["version": 1, "archivedAs": "Rect"]]],
                ["name": "1.1", "types": ["Rectangle": .dictionary(rect)]],
                ["name": "2.0", "types": ["Rectangle": 2]],
            ],
            "types": [
                "Rectangle": [
                    "currentVersion": 2, "aliases": chainAliases,
                    "steps": [
                        [
                            "from": 1,
                            "rules": [["renameType": "Rect", "to": "Rectangle"], ["rename": "w", "to": "width"]],
                        ]
                    ],
                ]
            ],
        ]
    }

    static func rect(_ name: String, version: Int = 1) -> ArchiveValue {
        object(name, version, version == 1 ? ["x": 1, "w": 2] : ["x": 1, "width": 2])
    }

    @Test("upgraded, an object archived under a release's alias keeps it; downgraded to that release, it gets it back")
    func roundTrip() throws {
        let catalog = try MigrationCatalog(rulesFile: Self.file(), fileName: "rules.json")
        var tree: ArchiveValue = [Self.rect("App.Rect"), Self.rect("Rect")]
        let original = tree
        try MigrationPass(catalog: catalog).upgrade(&tree)
        #expect(tree[0]?.objectValue?.typeName == "Rectangle" && tree[1]?.objectValue?.typeName == "Rectangle")
        #expect(tree[0]?["$archivedAs"] == ["type": "App.Rect", "version": 1])
        #expect(tree[1]?["$archivedAs"] == nil)

        var forOneOne = tree
        try MigrationPass(catalog: catalog).downgrade(&forOneOne, toRelease: "1.1")
        #expect(forOneOne == original)

        // Release 1.0 did not archive the alias: it gets the manifest's name, and the note stays.
        var forOne = tree
        try MigrationPass(catalog: catalog).downgrade(&forOne, toRelease: "1.0")
        #expect(forOne[0]?.objectValue?.typeName == "Rect" && forOne[0]?["$archivedAs"] != nil)
    }

    @Test("aliases no release lists, and objects at today's version under an alias, are only renamed")
    func notKept() throws {
        let catalog = try MigrationCatalog(rulesFile: Self.file(), fileName: "rules.json")
        var tree: ArchiveValue = [Self.rect("Module.Rectangle"), Self.rect("App.Rect", version: 2)]
        try MigrationPass(catalog: catalog).upgrade(&tree)
        #expect(tree == [Self.rect("Rectangle", version: 2), Self.rect("Rectangle", version: 2)])

        let without = try MigrationCatalog(rulesFile: Self.file(aliases: nil), fileName: "rules.json")
        var plain: ArchiveValue = [Self.rect("App.Rect")]
        try MigrationPass(catalog: without).upgrade(&plain)
        #expect(plain == [Self.rect("Rectangle", version: 2)])
    }

    @Test("a $archivedAs that names another chain's type, or the wrong version, is left as a field")
    func forgedNote() throws {
        let catalog = try MigrationCatalog(
            rulesFile: Self.file(), fileName: "rules.json")
        for note: ArchiveValue in [["type": "Circle", "version": 1], ["type": "App.Rect", "version": 2], "App.Rect"] {
            var fields: ArchiveDictionary = ["x": 1, "width": 2]
            fields["$archivedAs"] = note
            var tree = ArchiveValue.object(ArchiveObject(typeName: "Rectangle", version: 2, fields: fields))
            try MigrationPass(catalog: catalog).downgrade(&tree, toRelease: "1.1")
            #expect(tree.objectValue?.typeName == "Rect", "\(note)")
            #expect(tree["$archivedAs"] == note, "\(note)")
        }
    }

    @Test("an object of many fields whose note comes first: removed with its key index, no key lost or doubled")
    func manyFields() throws {
        let catalog = try MigrationCatalog(rulesFile: Self.file(), fileName: "rules.json")
        // More than 16 fields keep a key index; the note first, so every other entry moves up.
        var fields: ArchiveDictionary = ["$archivedAs": ["type": "App.Rect", "version": 1]]
        for index in 0..<40 { fields["extra\(index)"] = .int(Int64(index)) }
        fields["x"] = 1
        fields["width"] = 2
        var tree = ArchiveValue.object(ArchiveObject(typeName: "Rectangle", version: 2, fields: fields))
        try MigrationPass(catalog: catalog).downgrade(&tree, toRelease: "1.1")
        let object = try #require(tree.objectValue)
        #expect(object.typeName == "App.Rect" && object.version == 1)
        #expect(object.fields.firstDuplicateKey() == nil)
        #expect(object.fields.count == 42)
        #expect(object.fields["w"] == 2 && object.fields["width"] == nil && object.fields["extra39"] == 39)
        // Set through the index after the removal: replaced in place, not appended again.
        var edited = object.fields
        edited["extra20"] = "changed"
        #expect(edited.count == 42 && edited.firstDuplicateKey() == nil)
    }

    @Test("the rules file reads and writes a release's aliases, and refuses one that is no name of the chain")
    func rulesFile() throws {
        let catalog = try MigrationCatalog(rulesFile: Self.file(), fileName: "rules.json")
        #expect(catalog.releases?.release(named: "1.1")?.aliases == ["Rectangle": ["App.Rect"]])
        let written = try catalog.rulesFile()
        let reread = try MigrationCatalog(rulesFile: written, fileName: "written.json")
        #expect(reread.releases == catalog.releases)

        let error = try #require(throws: ArchiveError.self) {
            try MigrationCatalog(rulesFile: Self.file(aliases: ["Other.Rect"]), fileName: "rules.json")
        }
        #expect(error.code == .invalidChain, "\(error)")
        #expect(error.message.contains("archived Rectangle as 'Other.Rect', which is no name of its chain"), "\(error)")
        #expect(error.path == "releases[1].types.Rectangle.aliases", "\(error)")
    }

    @Test("100,000 aliases in a chain and in a release are checked in linear time; one more is refused by maxRuleKeys")
    func manyAliases() throws {
        let limits = ArchiveLimits()
        func names(_ count: Int) -> ArchiveValue { .array((0..<count).map { .string("Module\($0).Rect") }) }
        let count = limits.maxRuleKeys
        // Checked pairwise, a release's 100,000 aliases against its chain's took 10^10 comparisons.
        let catalog = try MigrationCatalog(
            rulesFile: Self.file(aliases: names(count), chainAliases: names(count)), fileName: "rules.json",
            limits: limits)
        var tree: ArchiveValue = [Self.rect("Module\(count - 1).Rect")]
        try MigrationPass(catalog: catalog).upgrade(&tree)
        #expect(tree[0]?["$archivedAs"] == ["type": .string("Module\(count - 1).Rect"), "version": 1])
        try MigrationPass(catalog: catalog).downgrade(&tree, toRelease: "1.1")
        #expect(tree == [Self.rect("Module\(count - 1).Rect")])

        for (file, path) in [
            (Self.file(aliases: names(count + 1), chainAliases: names(count)), "releases[1].types.Rectangle.aliases"),
            (Self.file(aliases: names(1), chainAliases: names(count + 1)), "types.Rectangle.aliases"),
        ] {
            let error = try #require(throws: ArchiveError.self) {
                try MigrationCatalog(rulesFile: file, fileName: "rules.json", limits: limits)
            }
            #expect(error.code == .limitExceeded && error.limit == .ruleKeys, "\(error)")
            #expect(error.path == ArchivePath(stringLiteral: path), "\(error)")
            #expect(error.message.contains("\(count + 1) names, more than \(count)"), "\(error)")
        }
    }
}
