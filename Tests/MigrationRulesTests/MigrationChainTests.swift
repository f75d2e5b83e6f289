import MigrationRules
import Testing

@Suite("Migration chains and catalogs")
struct MigrationChainTests {
    static func step(_ from: Int, _ to: Int, _ rules: [MigrationRule] = []) -> MigrationStep {
        MigrationStep(from: from, to: to, rules: rules)
    }

    @Test("a four-step chain takes a v1 object through every step to v5")
    func fourSteps() throws {
        let shape = TypeMigrations(
            typeName: "Shape", currentVersion: 5,
            steps: [
                // Given out of order: the chain sorts them.
                Self.step(3, 4, [.add("visible", default: true)]),
                Self.step(1, 2, [.rename("r", to: "radius")]),
                Self.step(4, 5, [.convert("kind", .map(["circ": "circle"]))]),
                Self.step(2, 3, [.nest(["x", "y"], into: "center"), .convert("radius", .stringToDouble)]),
            ])
        let catalog = try MigrationCatalog(types: [shape])
        var tree = object("Shape", 1, ["kind": "circ", "r": "2.5", "x": 1, "y": 2])
        let report = try MigrationPass(catalog: catalog).upgrade(&tree)
        #expect(
            tree == object("Shape", 5, ["kind": "circle", "radius": 2.5, "center": ["x": 1, "y": 2], "visible": true]))
        #expect(tree.objectValue?.fields.keys == ["kind", "radius", "center", "visible"])
        #expect(report.entries.first?.steps == ["v1 → v2", "v2 → v3", "v3 → v4", "v4 → v5"])
        #expect(report.counts == [MigrationReport.Count(typeName: "Shape", fromVersion: 1, toVersion: 5, count: 1)])

        // An object at v3 runs only the last two steps.
        var later = object("Shape", 3, ["kind": "circ", "radius": 1.0, "center": ["x": 0, "y": 0]])
        try MigrationPass(catalog: catalog).upgrade(&later)
        #expect(
            later
                == object("Shape", 5, ["kind": "circle", "radius": 1.0, "center": ["x": 0, "y": 0], "visible": true]))
    }

    /// A chain and the exact validation error: message and the step's path.
    struct Invalid: CustomStringConvertible, Sendable {
        var name: String
        var chain: TypeMigrations
        var message: String
        var path: String
        var step: String?
        var description: String { name }
    }

    static let invalidChains: [Invalid] = [
        Invalid(
            name: "gap", chain: TypeMigrations(typeName: "Circle", currentVersion: 4, steps: [step(1, 2), step(3, 4)]),
            message: "the chain has a gap: no step from v2 to v3", path: "steps[1]", step: "Circle v3 → v4"),
        Invalid(
            name: "duplicate",
            chain: TypeMigrations(typeName: "Circle", currentVersion: 3, steps: [step(1, 2), step(2, 3), step(1, 2)]),
            message: "two steps start at v1 (steps[0] and steps[2])", path: "steps[2]", step: "Circle v1 → v2"),
        Invalid(
            name: "wrong end",
            chain: TypeMigrations(typeName: "Circle", currentVersion: 4, steps: [step(1, 2), step(2, 3)]),
            message: "the last step ends at v3 but the current version is v4", path: "steps[1]", step: "Circle v2 → v3"),
        Invalid(
            name: "skips a version", chain: TypeMigrations(typeName: "Circle", currentVersion: 3, steps: [step(1, 3)]),
            message: "the step skips a version: each step goes from one version to the next", path: "steps[0]",
            step: "Circle v1 → v3"),
        Invalid(
            name: "backwards", chain: TypeMigrations(typeName: "Circle", currentVersion: 3, steps: [step(3, 2)]),
            message: "the step goes backwards: each step goes from one version to the next", path: "steps[0]",
            step: "Circle v3 → v2"),
        Invalid(
            name: "beyond current",
            chain: TypeMigrations(typeName: "Circle", currentVersion: 2, steps: [step(1, 2), step(2, 3)]),
            message: "the step goes beyond the current version v2", path: "steps[1]", step: "Circle v2 → v3"),
        Invalid(
            name: "negative step", chain: TypeMigrations(typeName: "Circle", currentVersion: 0, steps: [step(-1, 0)]),
            message: "a version is negative", path: "steps[0]", step: "Circle v-1 → v0"),
        Invalid(
            name: "negative current", chain: TypeMigrations(typeName: "Circle", currentVersion: -1),
            message: "the current version v-1 is negative", path: ""),
        Invalid(
            name: "unversioned too old",
            chain: TypeMigrations(
                typeName: "Circle", currentVersion: 3, unversionedVersion: 0, steps: [step(1, 2), step(2, 3)]),
            message: "unversionedVersion v0 is older than the oldest version the steps start at (v1)", path: ""),
        Invalid(
            name: "unversioned too new",
            chain: TypeMigrations(typeName: "Circle", currentVersion: 1, unversionedVersion: 2),
            message: "unversionedVersion v2 is newer than the current version v1", path: ""),
        Invalid(
            name: "overflowing versions",
            chain: TypeMigrations(typeName: "Circle", currentVersion: Int.max, steps: [step(Int.max, Int.min)]),
            message: "a version is negative", path: "steps[0]",
            step: "Circle v9223372036854775807 → v-9223372036854775808"),
        Invalid(
            name: "empty name", chain: TypeMigrations(typeName: "", currentVersion: 1),
            message: "the type name is empty", path: ""),
    ]

    @Test("invalid chains are rejected with the exact problem", arguments: invalidChains)
    func invalidChain(_ invalid: Invalid) {
        let error = archiveError { try invalid.chain.validate() }
        #expect(error?.code == .invalidChain)
        #expect(error?.message == invalid.message)
        #expect(error?.path.description == invalid.path)
        #expect(error?.step == invalid.step)
        let catalogError = archiveError { _ = try MigrationCatalog(types: [invalid.chain]) }
        #expect(catalogError?.code == .invalidChain)
        #expect(catalogError?.message == invalid.message)
    }

    @Test("valid chains pass validation")
    func validChains() throws {
        try TypeMigrations(typeName: "Circle", currentVersion: 1).validate()
        try TypeMigrations(typeName: "Circle", currentVersion: 3, unversionedVersion: 3, steps: [Self.step(2, 3)])
            .validate()
        try TypeMigrations(
            typeName: "Circle", currentVersion: 2, unversionedVersion: 0, steps: [Self.step(0, 1), Self.step(1, 2)]
        )
        .validate()
        try DocumentMigrations(name: "people", versionPath: "metadata.version", currentVersion: 1).validate()
    }

    @Test("document chains are validated the same way, and their version path must name keys")
    func documentValidation() {
        let gap = DocumentMigrations(name: "people", currentVersion: 3, steps: [Self.step(1, 2), Self.step(3, 4)])
        let error = archiveError { try gap.validate() }
        #expect(error?.code == .invalidChain)
        #expect(error?.path.description == "steps[1]")
        #expect(error?.step == "document people v3 → v4")
        let path = DocumentMigrations(name: "people", versionPath: "versions[0]", currentVersion: 1)
        #expect(archiveError { try path.validate() }?.code == .invalidChain)
    }

    @Test("allNames collects the current name, aliases and every renamed-from name, also in scoped rules")
    func allNames() {
        let circle = TypeMigrations(
            typeName: "Circle", currentVersion: 3, aliases: ["MyApp.Circle"],
            steps: [
                Self.step(2, 3, [.renameType(from: "MyApp.Disc", to: "Circle")]),
                Self.step(1, 2, [.scoped("", [.renameType(from: "Round", to: "MyApp.Disc")])]),
            ])
        #expect(circle.allNames == ["Circle", "MyApp.Circle", "Round", "MyApp.Disc"])
        #expect(circle.oldestVersion == 1)
    }

    @Test("the catalog resolves every name and alias to its chain")
    func lookup() throws {
        let catalog = try MigrationCatalog(
            types: [
                TypeMigrations(
                    typeName: "Circle", currentVersion: 2, aliases: ["MyApp.Circle"],
                    steps: [Self.step(1, 2, [.renameType(from: "Round", to: "Circle")])]),
                TypeMigrations(typeName: "Point", currentVersion: 1),
            ],
            documents: [DocumentMigrations(name: "Sketch", currentVersion: 1)])
        #expect(catalog.migrations(forTypeName: "Round")?.typeName == "Circle")
        #expect(catalog.migrations(forTypeName: "MyApp.Circle")?.typeName == "Circle")
        #expect(catalog.migrations(forTypeName: "Point")?.typeName == "Point")
        #expect(catalog.migrations(forTypeName: "Square") == nil)
        #expect(catalog.document(named: "Sketch")?.currentVersion == 1)
        #expect(catalog.needsUpgrade(typeName: "Circle", version: 1))
        #expect(!catalog.needsUpgrade(typeName: "Circle", version: 2))
        #expect(catalog.needsUpgrade(typeName: "Round", version: 2))
        #expect(catalog.needsUpgrade(typeName: "Circle", version: nil))
        #expect(!catalog.needsUpgrade(typeName: "Square", version: 1))
        #expect(catalog.document(named: "Other") == nil)
        #expect(!catalog.isEmpty)
        #expect(MigrationCatalog.empty.isEmpty)
    }

    @Test("two types may not claim the same name or alias")
    func aliasCollisions() {
        let circle = TypeMigrations(typeName: "Circle", currentVersion: 1, aliases: ["Round"])
        let disc = TypeMigrations(
            typeName: "Disc", currentVersion: 2, steps: [Self.step(1, 2, [.renameType(from: "Round", to: "Disc")])])
        let error = archiveError { _ = try MigrationCatalog(types: [circle, disc]) }
        #expect(error?.code == .invalidChain)
        #expect(error?.message == "the name 'Round' is claimed by both Circle and Disc")
        let alias = TypeMigrations(typeName: "Oval", currentVersion: 1, aliases: ["Circle"])
        #expect(
            archiveError { _ = try MigrationCatalog(types: [circle, alias]) }?.message
                == "the name 'Circle' is claimed by both Circle and Oval")
        let twice = archiveError { _ = try MigrationCatalog(types: [circle, circle]) }
        #expect(twice?.message == "the type Circle is declared twice")
        let documents = archiveError {
            _ = try MigrationCatalog(
                types: [],
                documents: [
                    DocumentMigrations(name: "a", currentVersion: 1), DocumentMigrations(name: "a", currentVersion: 2),
                ])
        }
        #expect(documents?.code == .invalidChain)
    }

    @Test("merging catalogs keeps both sides and rejects shared names")
    func merging() throws {
        let left = try MigrationCatalog(types: [TypeMigrations(typeName: "Circle", currentVersion: 1)])
        let right = try MigrationCatalog(
            types: [TypeMigrations(typeName: "Point", currentVersion: 1, aliases: ["Pt"])],
            documents: [DocumentMigrations(name: "people", currentVersion: 1)])
        let merged = try left.merging(right)
        #expect(merged.migrations(forTypeName: "Pt")?.typeName == "Point")
        #expect(merged.migrations(forTypeName: "Circle") != nil)
        #expect(merged.document(named: "people") != nil)
        let clash = try MigrationCatalog(types: [TypeMigrations(typeName: "Pt", currentVersion: 1)])
        #expect(archiveError { _ = try right.merging(clash) }?.code == .invalidChain)
    }

    @Test("a step's inverse reverses its rules; an irreversible rule is named")
    func stepInverse() throws {
        let step = MigrationStep(
            from: 1, to: 2, name: "tidy", rules: [.rename("r", to: "radius"), .add("visible", default: true)])
        let inverse = try #require(step.inverse)
        #expect(inverse.from == 2)
        #expect(inverse.to == 1)
        #expect(inverse.rules.map(\.description) == ["remove(visible, restoring true)", "rename(radius → r)"])
        #expect(step.irreversibleRule == nil)
        #expect(step.displayName == "tidy")
        let lossy = MigrationStep(
            from: 1, to: 2, rules: [.rename("a", to: "b"), .scoped("items[*]", [.remove("thumbnail")])])
        #expect(lossy.inverse == nil)
        #expect(lossy.irreversibleRule?.description == "remove(thumbnail)")
        #expect(lossy.displayName == "v1 → v2")
    }
}
