import MigrationRules
import Testing

/// The layouts the direct JSON decoder upgrades old objects with while it reads them: a catalog
/// lays out, from an object's keys alone, the fields of today's version for chains that only move
/// keys (`DirectMigrationTests` runs them on archives).
@Suite("Key-moving layouts of a catalog")
struct KeyMovingLayoutTests {
    /// MovShape v1 {id, name, x, y, legacy?} → v2 renames name, drops legacy → v3 nests x, y into
    /// center and adds visible, rank and note (null); archived as OldShape too. MovConverted's chain
    /// converts a value.
    static let catalog: MigrationCatalog = {
        do {
            return try MigrationCatalog(types: [
                TypeMigrations(
                    typeName: "MovShape", currentVersion: 3, aliases: ["OldShape"], unversionedVersion: 1,
                    steps: [
                        MigrationStep(from: 1, to: 2, rules: [.rename("name", to: "title"), .remove("legacy")]),
                        MigrationStep(
                            from: 2, to: 3,
                            rules: [
                                .nest(["x", "y"], into: "center"), .add("visible", default: true),
                                .add("rank", default: 2), .add("note", default: .null),
                            ]),
                    ]),
                TypeMigrations(
                    typeName: "MovConverted", currentVersion: 2,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.convert("size", .intToString)])]),
            ])
        } catch {
            Issue.record(error)
            return .empty
        }
    }()

    @Test("the catalog lays out key-moving chains from keys alone, and nothing else")
    func layouts() throws {
        let catalog = Self.catalog
        #expect(catalog.upgradeMovesKeysOnly(typeName: "MovShape", version: 1))
        #expect(catalog.upgradeMovesKeysOnly(typeName: "MovShape", version: nil))
        #expect(catalog.upgradeMovesKeysOnly(typeName: "OldShape", version: 2))
        #expect(!catalog.upgradeMovesKeysOnly(typeName: "MovShape", version: 4))
        #expect(!catalog.upgradeMovesKeysOnly(typeName: "MovShape", version: 0))
        #expect(!catalog.upgradeMovesKeysOnly(typeName: "MovConverted", version: 1))
        #expect(!catalog.upgradeMovesKeysOnly(typeName: "Unknown", version: 1))
        let upgrade = try #require(
            catalog.keyMovingUpgrade(typeName: "OldShape", version: 1, keys: ["legacy", "x", "id", "name", "y"]))
        #expect(upgrade.typeName == "MovShape")
        #expect(upgrade.version == 3)
        #expect(upgrade.fields.entries.map(\.key) == ["center", "id", "title", "visible", "rank", "note"])
        #expect(upgrade.fields.droppedFields(of: 5) == [0])
        guard case .dictionary(let center) = upgrade.fields.entries[0].source else {
            Issue.record("center is not a made dictionary")
            return
        }
        #expect(center.entries.map(\.key) == ["x", "y"])
        guard case .field(1) = center.entries[0].source, case .field(4) = center.entries[1].source,
            case .field(3) = upgrade.fields.entries[2].source,
            case .constant(.bool(true)) = upgrade.fields.entries[3].source
        else {
            Issue.record("unexpected sources")
            return
        }
        // A clash, a repeated key and a converting chain have no layout.
        #expect(catalog.keyMovingUpgrade(typeName: "MovShape", version: 1, keys: ["name", "title"]) == nil)
        #expect(catalog.keyMovingUpgrade(typeName: "MovShape", version: 1, keys: ["id", "id"]) == nil)
        #expect(catalog.keyMovingUpgrade(typeName: "MovConverted", version: 1, keys: ["size"]) == nil)
    }
}
