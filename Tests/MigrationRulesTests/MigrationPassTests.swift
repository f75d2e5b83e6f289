import Foundation
import MigrationRules
import Testing

@Suite("Migration pass")
struct MigrationPassTests {
    // MARK: Fixtures built in code

    /// Drawing v1 → v2 renames `title` to `name`; Circle v1 → v2 → v3 → v4 (radius, center, visible);
    /// Point v1 → v2 renames `px`/`py`; Label has one version.
    static let catalog: MigrationCatalog = {
        do {
            return try MigrationCatalog(types: [
                TypeMigrations(
                    typeName: "Drawing", currentVersion: 2,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.rename("title", to: "name")])]),
                TypeMigrations(
                    typeName: "Circle", currentVersion: 4,
                    steps: [
                        MigrationStep(from: 1, to: 2, rules: [.rename("r", to: "radius")]),
                        MigrationStep(from: 2, to: 3, rules: [.nest(["x", "y"], into: "center")]),
                        MigrationStep(from: 3, to: 4, rules: [.add("visible", default: true)]),
                    ]),
                TypeMigrations(
                    typeName: "Point", currentVersion: 2, unversionedVersion: 1,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.rename("px", to: "x"), .rename("py", to: "y")])]),
                TypeMigrations(typeName: "Label", currentVersion: 1),
            ])
        } catch {
            Issue.record(error)
            return .empty
        }
    }()

    static func circleV3(_ radius: Double, id: Int? = nil) -> ArchiveValue {
        object("Circle", 3, ["radius": .double(radius), "center": ["x": 0, "y": 0]], id: id)
    }

    static func circleV4(_ radius: Double, id: Int? = nil) -> ArchiveValue {
        object("Circle", 4, ["radius": .double(radius), "center": ["x": 0, "y": 0], "visible": true], id: id)
    }

    // MARK: Nested objects and polymorphism

    @Test("nested objects at different versions each end at their own current version")
    func nestedVersions() throws {
        var tree = object(
            "Drawing", 1,
            [
                "title": "Sketch",
                "shapes": [Self.circleV3(1), Self.circleV3(2, id: 7)],
                "origin": object("Point", 1, ["px": 3, "py": 4]),
            ])
        let report = try MigrationPass(catalog: Self.catalog).upgrade(&tree)
        #expect(
            tree
                == object(
                    "Drawing", 2,
                    [
                        "name": "Sketch",
                        "shapes": [Self.circleV4(1), Self.circleV4(2, id: 7)],
                        "origin": object("Point", 2, ["x": 3, "y": 4]),
                    ]))
        #expect(tree["shapes"]?[1]?.objectValue?.id == ArchiveObjectID(7))
        // The report lists each object with its path, in pre-order.
        #expect(
            report.entries == [
                MigrationReport.Entry(
                    path: .root, archivedTypeName: "Drawing", typeName: "Drawing", fromVersion: 1,
                    wasUnversioned: false,
                    toVersion: 2, steps: ["v1 → v2"]),
                MigrationReport.Entry(
                    path: "shapes[0]", archivedTypeName: "Circle", typeName: "Circle", fromVersion: 3,
                    wasUnversioned: false, toVersion: 4, steps: ["v3 → v4"]),
                MigrationReport.Entry(
                    path: "shapes[1]", archivedTypeName: "Circle", typeName: "Circle", fromVersion: 3,
                    wasUnversioned: false, toVersion: 4, steps: ["v3 → v4"]),
                MigrationReport.Entry(
                    path: "origin", archivedTypeName: "Point", typeName: "Point", fromVersion: 1, wasUnversioned: false,
                    toVersion: 2, steps: ["v1 → v2"]),
            ])
        #expect(
            report.counts == [
                MigrationReport.Count(typeName: "Circle", fromVersion: 3, toVersion: 4, count: 2),
                MigrationReport.Count(typeName: "Drawing", fromVersion: 1, toVersion: 2, count: 1),
                MigrationReport.Count(typeName: "Point", fromVersion: 1, toVersion: 2, count: 1),
            ])
        #expect(report.migratedObjectCount == 4)
        #expect(
            report.description == """
                Upgraded 4 objects:
                  Circle v3 → v4: 2
                  Drawing v1 → v2: 1
                  Point v1 → v2: 1
                Objects:
                  (root): Drawing v1 → v2 (v1 → v2)
                  shapes[0]: Circle v3 → v4 (v3 → v4)
                  shapes[1]: Circle v3 → v4 (v3 → v4)
                  origin: Point v1 → v2 (v1 → v2)
                """)
    }

    @Test("a polymorphic array migrates each element by its own type and version")
    func polymorphicArray() throws {
        var tree: ArchiveValue = [
            "items": [
                object("Circle", 1, ["r": 5, "x": 1, "y": 2]),
                object("Point", 2, ["x": 0, "y": 0]),
                object("Label", 1, ["text": "hi"]),
                object("Circle", 4, ["radius": 1.0, "center": ["x": 0, "y": 0], "visible": false]),
                object("Point", nil, ["px": 9, "py": 8]),
                "plain string",
                object("Unknown", 3, ["a": 1]),
            ]
        ]
        let report = try MigrationPass(catalog: Self.catalog).upgrade(&tree)
        #expect(
            tree == [
                "items": [
                    object("Circle", 4, ["radius": 5, "center": ["x": 1, "y": 2], "visible": true]),
                    object("Point", 2, ["x": 0, "y": 0]),
                    object("Label", 1, ["text": "hi"]),
                    object("Circle", 4, ["radius": 1.0, "center": ["x": 0, "y": 0], "visible": false]),
                    object("Point", 2, ["x": 9, "y": 8]),
                    "plain string",
                    object("Unknown", 3, ["a": 1]),
                ]
            ])
        #expect(report.entries.map(\.path.description) == ["items[0]", "items[4]"])
        #expect(report.entries.map(\.wasUnversioned) == [false, true])
        #expect(report.unknownTypeNames == ["Unknown": 1])
    }

    @Test("objects a parent's step creates are migrated by their own chain")
    func createdByParent() throws {
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(
                typeName: "Drawing", currentVersion: 2,
                steps: [
                    MigrationStep(
                        from: 1, to: 2,
                        rules: [
                            .add("origin", default: object("Point", 1, ["px": 0, "py": 0])),
                            .scoped("legacy", [.renameType(from: "OldPoint", to: "Point")]),
                        ])
                ]),
            TypeMigrations(
                typeName: "Point", currentVersion: 2,
                steps: [MigrationStep(from: 1, to: 2, rules: [.rename("px", to: "x"), .rename("py", to: "y")])]),
        ])
        var tree = object("Drawing", 1, ["legacy": object("OldPoint", 1, ["px": 5, "py": 6])])
        try MigrationPass(catalog: catalog).upgrade(&tree)
        #expect(
            tree
                == object(
                    "Drawing", 2,
                    ["legacy": object("Point", 2, ["x": 5, "y": 6]), "origin": object("Point", 2, ["x": 0, "y": 0])]))
    }

    // MARK: Renamed types

    static let renamedTwice: MigrationCatalog = {
        do {
            return try MigrationCatalog(types: [
                TypeMigrations(
                    typeName: "Circle", currentVersion: 3,
                    steps: [
                        MigrationStep(
                            from: 1, to: 2,
                            rules: [.renameType(from: "Round", to: "MyApp.Disc"), .rename("r", to: "radius")]),
                        MigrationStep(from: 2, to: 3, rules: [.renameType(from: "MyApp.Disc", to: "Circle")]),
                    ])
            ])
        } catch {
            Issue.record(error)
            return .empty
        }
    }()

    @Test("a type renamed twice opens under its current name and downgrades to the names of each version")
    func renamedTwice() throws {
        let pass = MigrationPass(catalog: Self.renamedTwice)
        let original: ArchiveValue = [
            "a": object("Round", 1, ["r": 2]),
            "b": object("MyApp.Disc", 2, ["radius": 3]),
        ]
        var tree = original
        let report = try pass.upgrade(&tree)
        #expect(tree == ["a": object("Circle", 3, ["radius": 2]), "b": object("Circle", 3, ["radius": 3])])
        #expect(report.entries.map(\.archivedTypeName) == ["Round", "MyApp.Disc"])
        #expect(report.entries.map(\.typeName) == ["Circle", "Circle"])

        var v1 = tree
        try pass.downgrade(&v1, to: DowngradeTarget(typeVersions: ["Circle": 1]))
        #expect(v1 == ["a": object("Round", 1, ["r": 2]), "b": object("Round", 1, ["r": 3])])
        var v2 = tree
        let down = try pass.downgrade(&v2, to: DowngradeTarget(typeVersions: ["Circle": 2]))
        #expect(v2 == ["a": object("MyApp.Disc", 2, ["radius": 2]), "b": object("MyApp.Disc", 2, ["radius": 3])])
        #expect(down.direction == .downgrade)
        #expect(down.entries.map(\.typeName) == ["Circle", "Circle"])
        #expect(down.counts == [MigrationReport.Count(typeName: "Circle", fromVersion: 3, toVersion: 2, count: 2)])
        // Upgrading the original again gives the same tree.
        var unchanged = original
        try pass.upgrade(&unchanged)
        #expect(unchanged == tree)
    }

    // MARK: Newer, older and unversioned

    @Test("an object from a newer version is an error naming both versions")
    func newerObject() {
        let catalog = try? MigrationCatalog(types: [
            TypeMigrations(
                typeName: "Circle", currentVersion: 5,
                steps: (1..<5).map { MigrationStep(from: $0, to: $0 + 1, rules: []) })
        ])
        var tree: ArchiveValue = ["shapes": [object("Circle", 5), object("Circle", 7, ["r": 1])]]
        let error = archiveError { try MigrationPass(catalog: catalog ?? .empty).upgrade(&tree) }
        #expect(error?.code == .newerVersion)
        #expect(error?.message == "written by a newer version: Circle v7, this app knows v5")
        #expect(error?.path.description == "shapes[1]")
        #expect(error?.typeName == "Circle")
        #expect(error?.archivedVersion == 7)
    }

    @Test("lenient mode leaves newer objects untouched and reports them")
    func lenientNewer() throws {
        var tree: ArchiveValue = ["shapes": [object("Circle", 1, ["r": 1]), object("Circle", 7, ["r": 1, "z": 2])]]
        let pass = MigrationPass(catalog: Self.catalog, options: MigrationOptions(allowsNewerVersions: true))
        let report = try pass.upgrade(&tree)
        #expect(tree["shapes"]?[1] == object("Circle", 7, ["r": 1, "z": 2]))
        #expect(tree["shapes"]?[0]?.objectValue?.version == 4)
        #expect(
            report.newer == [
                MigrationReport.NewerItem(
                    path: "shapes[1]", name: "Circle", isDocument: false, version: 7, knownVersion: 4)
            ])
        #expect(report.description.contains("shapes[1]: Circle v7 (this app knows v4)"))
        #expect(!report.isEmpty)
    }

    @Test("an object older than the chain reaches is a missing migration")
    func tooOld() {
        var tree = object("Circle", 0)
        let error = archiveError { try MigrationPass(catalog: Self.catalog).upgrade(&tree) }
        #expect(error?.code == .missingMigration)
        #expect(error?.message == "no migration from Circle v0: the oldest version Circle migrates from is v1")
    }

    @Test("unversioned objects map to the declared pre-versioning version, or fail without one")
    func unversionedObjects() throws {
        var point = object("Point", nil, ["px": 1, "py": 2])
        try MigrationPass(catalog: Self.catalog).upgrade(&point)
        #expect(point == object("Point", 2, ["x": 1, "y": 2]))
        var circle = object("Circle", nil, ["r": 1])
        let error = archiveError { try MigrationPass(catalog: Self.catalog).upgrade(&circle) }
        #expect(error?.code == .missingMigration)
        #expect(error?.typeName == "Circle")
        #expect(error?.message.contains("set unversionedVersion") == true)
        // An unversioned object at the current version only gets its version written.
        let label = try MigrationCatalog(types: [
            TypeMigrations(typeName: "Label", currentVersion: 1, unversionedVersion: 1)
        ])
        var tree = object("Label", nil, ["text": "x"])
        let report = try MigrationPass(catalog: label).upgrade(&tree)
        #expect(tree == object("Label", 1, ["text": "x"]))
        #expect(report.entries.first?.steps == [])
        #expect(report.entries.first?.wasUnversioned == true)
    }

    // MARK: Errors carry context

    @Test("a rule failing inside the pass names type, version, step, rule and the full path")
    func errorContext() throws {
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(
                typeName: "Circle", currentVersion: 3,
                steps: [
                    MigrationStep(from: 1, to: 2, rules: [.rename("r", to: "radius")]),
                    MigrationStep(from: 2, to: 3, rules: [.convert("radius", .stringToDouble)]),
                ])
        ])
        var tree: ArchiveValue = ["shapes": [object("Circle", 1, ["r": "1"]), object("Circle", 1, ["r": "big"])]]
        let error = try #require(archiveError { try MigrationPass(catalog: catalog).upgrade(&tree) })
        #expect(error.code == .migrationFailed)
        #expect(error.typeName == "Circle")
        #expect(error.archivedVersion == 1)
        #expect(error.step == "Circle v2 → v3")
        #expect(error.rule == "convert(radius: stringToDouble)")
        #expect(error.path.description == "shapes[1].radius")
        #expect(
            error.description
                == #"Circle v2 → v3, rule convert(radius: stringToDouble): cannot convert "big": not a number at shapes[1].radius"#
        )
    }

    @Test("the depth limit stops runaway nesting")
    func depthLimit() {
        var tree: ArchiveValue = "leaf"
        for _ in 0..<20 { tree = [tree] }
        var limits = ArchiveLimits()
        limits.maxDepth = 10
        let error = archiveError {
            try MigrationPass(catalog: Self.catalog, options: MigrationOptions(limits: limits)).upgrade(&tree)
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .depth)
    }

    @Test("a tree with nothing to migrate is left as it is and the report is empty")
    func nothingToMigrate() throws {
        let original: ArchiveValue = ["shapes": [Self.circleV4(1), object("Label", 1, ["text": "x"])], "n": 3]
        var tree = original
        let report = try MigrationPass(catalog: Self.catalog).upgrade(&tree)
        #expect(tree == original)
        #expect(report.isEmpty)
        #expect(report.description == "Nothing to migrate.")
    }

    @Test("the read-only scan of a current tree agrees with the walk: unknown types counted once, depth still limited")
    func currentTreeScan() throws {
        // Current everywhere but an old Point at the very end: the scan gives up late and the walk
        // runs; the unknown "Note" objects the scan had counted are counted once, not twice.
        let current: [ArchiveValue] = (0..<50).map { Self.circleV4(Double($0)) }
        let notes: [ArchiveValue] = [object("Note", 1, ["text": "a"]), object("Note", 1, ["text": "b"])]
        var tree: ArchiveValue = ["shapes": .array(current + notes), "origin": object("Point", 1, ["px": 1, "py": 2])]
        let report = try MigrationPass(catalog: Self.catalog).upgrade(&tree)
        #expect(tree["origin"] == object("Point", 2, ["x": 1, "y": 2]))
        #expect(report.unknownTypeNames == ["Note": 2])
        #expect(report.counts.map(\.count) == [1])

        // Entirely current: nothing changes, and the unknown types are still reported.
        var currentTree: ArchiveValue = ["shapes": .array(current + notes)]
        let currentReport = try MigrationPass(catalog: Self.catalog).upgrade(&currentTree)
        #expect(currentTree == ["shapes": .array(current + notes)])
        #expect(currentReport.unknownTypeNames == ["Note": 2])
        #expect(currentReport.counts.isEmpty)

        // Current but nested deeper than the limit: still the depth error, not a silent pass.
        var deep: ArchiveValue = Self.circleV4(1)
        for _ in 0..<20 { deep = ["child": deep] }
        var limits = ArchiveLimits()
        limits.maxDepth = 10
        let error = archiveError {
            try MigrationPass(catalog: Self.catalog, options: MigrationOptions(limits: limits)).upgrade(&deep)
        }
        #expect(error?.limit == .depth)
    }

    @Test("editing in place keeps value semantics: a copy of the tree held elsewhere is unchanged")
    func valueSemantics() throws {
        let original: ArchiveValue = [
            "shapes": [object("Circle", 1, ["r": 1, "x": 0, "y": 0])],
            "nested": ["deep": [object("Point", 1, ["px": 1])]],
        ]
        var tree = original
        try MigrationPass(catalog: Self.catalog).upgrade(&tree)
        #expect(tree["shapes"]?[0]?.objectValue?.version == 4)
        #expect(tree["nested"]?["deep"]?[0] == object("Point", 2, ["x": 1]))
        #expect(original["shapes"]?[0] == object("Circle", 1, ["r": 1, "x": 0, "y": 0]))
        #expect(original["nested"]?["deep"]?[0] == object("Point", 1, ["px": 1]))
    }

    @Test("recordsSteps off keeps counts but no entries")
    func countsOnly() throws {
        var tree: ArchiveValue = .array((0..<50).map { _ in object("Circle", 1, ["r": 1, "x": 0, "y": 0]) })
        let report = try MigrationPass(catalog: Self.catalog, options: MigrationOptions(recordsSteps: false)).upgrade(
            &tree)
        #expect(report.entries.isEmpty)
        #expect(report.counts == [MigrationReport.Count(typeName: "Circle", fromVersion: 1, toVersion: 4, count: 50)])
        #expect(tree[49] == Self.circleV4(1).replacingRadius(with: 1))
    }

    // MARK: Downgrade

    @Test("downgrade runs inverses post-order and round-trips a nested tree")
    func downgradeRoundTrip() throws {
        let original = object(
            "Drawing", 1,
            [
                "title": "Sketch",
                "shapes": [object("Circle", 1, ["r": 1, "x": 1, "y": 2])],
                "origin": object("Point", 1, ["px": 3, "py": 4]),
            ])
        var tree = original
        let pass = MigrationPass(catalog: Self.catalog)
        try pass.upgrade(&tree)
        let report = try pass.downgrade(
            &tree, to: DowngradeTarget(typeVersions: ["Drawing": 1, "Circle": 1, "Point": 1]))
        #expect(tree == original)
        #expect(report.entries.map(\.path.description) == ["shapes[0]", "origin", ""])
        #expect(report.entries.first?.steps == ["v3 → v4", "v2 → v3", "v1 → v2"])
    }

    @Test("downgrading through an irreversible step names the step and the rule")
    func irreversibleDowngrade() throws {
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(
                typeName: "Circle", currentVersion: 3,
                steps: [
                    MigrationStep(from: 1, to: 2, rules: [.rename("r", to: "radius")]),
                    MigrationStep(from: 2, to: 3, rules: [.add("visible", default: true), .remove("thumbnail")]),
                ])
        ])
        var tree: ArchiveValue = ["shapes": [object("Circle", 3, ["radius": 1, "visible": true])]]
        let error = archiveError {
            try MigrationPass(catalog: catalog).downgrade(&tree, to: DowngradeTarget(typeVersions: ["Circle": 1]))
        }
        #expect(error?.code == .irreversibleStep)
        #expect(error?.step == "Circle v2 → v3")
        #expect(error?.rule == "remove(thumbnail)")
        #expect(error?.path.description == "shapes[0]")
        // An object already at v2 only needs the reversible step undone.
        var alsoTree: ArchiveValue = object("Circle", 2, ["radius": 1])
        try MigrationPass(catalog: catalog).downgrade(&alsoTree, to: DowngradeTarget(typeVersions: ["Circle": 1]))
        #expect(alsoTree == object("Circle", 1, ["r": 1]))
    }

    @Test("downgrade targets are checked before the tree is touched")
    func downgradeTargets() {
        let pass = MigrationPass(catalog: Self.catalog)
        var tree: ArchiveValue = object("Circle", 4)
        let above = archiveError { try pass.downgrade(&tree, to: DowngradeTarget(typeVersions: ["Circle": 5])) }
        #expect(above?.code == .missingMigration)
        #expect(above?.message == "cannot downgrade Circle to v5: the newest version is v4")
        let below = archiveError { try pass.downgrade(&tree, to: DowngradeTarget(typeVersions: ["Circle": 0])) }
        #expect(below?.code == .missingMigration)
        let unknown = archiveError { try pass.downgrade(&tree, to: DowngradeTarget(typeVersions: ["Square": 1])) }
        #expect(unknown?.code == .unknownType)
        #expect(tree == object("Circle", 4))
    }

    // MARK: Documents

    /// zorn/VersionedFilesDemo: v1 {people: [{id, name}]} → v2 splits the name → v3 adds
    /// `birthday` (null) and `mark_as_favorite` (false). Trees transcribed from
    /// `simple-v{1,2}.people.json` (Fixtures/versioned-json/README.md).
    static let people = DocumentMigrations(
        name: "people", versionPath: "schema_version", currentVersion: 3, unversionedVersion: 1,
        steps: [
            MigrationStep(
                from: 1, to: 2,
                rules: [.scoped("people[*]", [.split("name", into: ["first_name", "last_name"], separator: " ")])]),
            MigrationStep(
                from: 2, to: 3,
                rules: [
                    .scoped("people[*]", [.add("birthday", default: nil), .add("mark_as_favorite", default: false)])
                ]),
        ])

    static let peopleV1: ArchiveValue = [
        "people": [
            ["id": "4E966EDD-893C-4F96-973A-949411B50149", "name": "Fred Weasley"],
            ["id": "4545A339-A09F-4AEE-BE46-1C4FCF6466AA", "name": "George Weasley"],
        ],
        "schema_version": 1,
    ]

    static let peopleV2: ArchiveValue = [
        "people": [
            ["id": "4E966EDD-893C-4F96-973A-949411B50149", "first_name": "Fred", "last_name": "Weasley"],
            ["id": "4545A339-A09F-4AEE-BE46-1C4FCF6466AA", "first_name": "George", "last_name": "Weasley"],
        ],
        "schema_version": 2,
    ]

    @Test("the zorn people document: v1 → v2 gives the v2 document, v1 → v3 adds birthday and favourite")
    func zornPeople() throws {
        let toV2 = try MigrationCatalog(
            types: [],
            documents: [
                DocumentMigrations(
                    name: "people", versionPath: "schema_version", currentVersion: 2, steps: [Self.people.steps[0]])
            ])
        var v2 = Self.peopleV1
        let report = try MigrationPass(catalog: toV2).upgrade(&v2, document: "people")
        #expect(v2 == Self.peopleV2)
        #expect(
            report.document
                == MigrationReport.DocumentEntry(
                    name: "people", fromVersion: 1, wasUnversioned: false, toVersion: 2, steps: ["v1 → v2"]))

        let catalog = try MigrationCatalog(types: [], documents: [Self.people])
        var v3 = Self.peopleV1
        try MigrationPass(catalog: catalog).upgrade(&v3, document: "people")
        #expect(v3["schema_version"] == 3)
        for person in v3["people"]?.arrayValue ?? [] {
            #expect(person["birthday"] == .null)
            #expect(person["mark_as_favorite"] == false)
        }
        #expect(v3["people"]?[0]?["first_name"] == "Fred")
        #expect(v3["people"]?.arrayValue?.count == 2)

        // And back down to v1.
        try MigrationPass(catalog: catalog).downgrade(&v3, to: DowngradeTarget(documentVersion: 1), document: "people")
        #expect(v3 == Self.peopleV1)
    }

    @Test("an unversioned document maps to the declared pre-versioning version and gets a version")
    func unversionedDocument() throws {
        let catalog = try MigrationCatalog(types: [], documents: [Self.people])
        var tree: ArchiveValue = ["people": [["id": "1", "name": "Ron Weasley"]]]
        let report = try MigrationPass(catalog: catalog).upgrade(&tree, document: "people")
        #expect(report.document?.wasUnversioned == true)
        #expect(report.document?.fromVersion == 1)
        #expect(tree["schema_version"] == 3)
        #expect(
            tree["people"]?[0]
                == ["id": "1", "first_name": "Ron", "last_name": "Weasley", "birthday": nil, "mark_as_favorite": false])

        let strict = try MigrationCatalog(
            types: [], documents: [DocumentMigrations(name: "people", versionPath: "schema_version", currentVersion: 1)]
        )
        var bare: ArchiveValue = ["people": []]
        let error = archiveError { try MigrationPass(catalog: strict).upgrade(&bare, document: "people") }
        #expect(error?.code == .missingMigration)
    }

    @Test("a document from a newer version fails, or is left alone in lenient mode")
    func newerDocument() throws {
        let catalog = try MigrationCatalog(types: [], documents: [Self.people])
        var tree: ArchiveValue = ["schema_version": 7, "people": []]
        let error = archiveError { try MigrationPass(catalog: catalog).upgrade(&tree, document: "people") }
        #expect(error?.code == .newerVersion)
        #expect(error?.message == "written by a newer version: document people v7, this app knows v3")
        let report = try MigrationPass(catalog: catalog, options: MigrationOptions(allowsNewerVersions: true))
            .upgrade(&tree, document: "people")
        #expect(tree == ["schema_version": 7, "people": []])
        #expect(report.newer.first?.isDocument == true)
        #expect(
            report.description == "Left alone, written by a newer version:\n  document people v7 (this app knows v3)")
    }

    @Test("a version stored at a nested path is read and written there")
    func nestedVersionPath() throws {
        let catalog = try MigrationCatalog(
            types: [],
            documents: [
                DocumentMigrations(
                    name: "notes", versionPath: "metadata.documentVersion", currentVersion: 2,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.rename("body", to: "text")])])
            ])
        var tree: ArchiveValue = ["metadata": ["documentVersion": 1, "author": "x"], "body": "hi"]
        try MigrationPass(catalog: catalog).upgrade(&tree, document: "notes")
        #expect(tree == ["metadata": ["documentVersion": 2, "author": "x"], "text": "hi"])
        var bad: ArchiveValue = ["metadata": ["documentVersion": "1"]]
        let error = archiveError { try MigrationPass(catalog: catalog).upgrade(&bad, document: "notes") }
        #expect(error?.code == .typeMismatch)
        #expect(error?.path.description == "metadata.documentVersion")
    }

    @Test("a document-level step moves a field from a child object to its parent before objects migrate")
    func documentStepMovesField() throws {
        let catalog = try MigrationCatalog(
            types: [
                TypeMigrations(
                    typeName: "Page", currentVersion: 2,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.add("margin", default: 0)])])
            ],
            documents: [
                DocumentMigrations(
                    name: "Book", currentVersion: 2,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.move("cover.author", to: "author")])])
            ])
        let envelope = ArchiveEnvelope(
            root: object("Book", nil, ["cover": object("Page", 1, ["author": "Ada", "title": "Notes"])]),
            document: "Book", documentVersion: 1)
        var tree = envelope.tree
        let report = try MigrationPass(catalog: catalog).upgrade(&tree)
        let migrated = try #require(try ArchiveEnvelope(tree: tree))
        #expect(migrated.documentVersion == 2)
        #expect(
            migrated.root
                == object("Book", nil, ["author": "Ada", "cover": object("Page", 2, ["title": "Notes", "margin": 0])]))
        #expect(migrated.root.objectValue?.fields.keys == ["author", "cover"])
        #expect(report.document?.toVersion == 2)
        #expect(report.entries.map(\.path.description) == ["cover"])

        try MigrationPass(catalog: catalog).downgrade(
            &tree, to: DowngradeTarget(documentVersion: 1, typeVersions: ["Page": 1]))
        #expect(tree == envelope.tree)
    }

    @Test("an unknown document name is an error; an envelope's unknown document is ignored")
    func unknownDocument() throws {
        var tree: ArchiveValue = ["a": 1]
        let error = archiveError { try MigrationPass(catalog: Self.catalog).upgrade(&tree, document: "nope") }
        #expect(error?.code == .unknownType)
        var envelope = ArchiveEnvelope(root: ["a": 1], document: "nope", documentVersion: 4).tree
        let report = try MigrationPass(catalog: Self.catalog).upgrade(&envelope)
        #expect(report.document == nil)
    }
}

extension ArchiveValue {
    /// The same Circle with an integer radius (as a v1 archive stores it).
    fileprivate func replacingRadius(with radius: Int64) -> ArchiveValue {
        guard case .object(var object) = self else { return self }
        object["radius"] = .int(radius)
        return .object(object)
    }
}
