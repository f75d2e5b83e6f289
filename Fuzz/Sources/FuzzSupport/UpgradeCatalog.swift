import Foundation
import ModelVersioning

// The catalog `fuzz-upgrade` upgrades with: chains whose steps only move keys (rename, remove,
// nest, add scalar defaults, rename the type, an unversioned version; `Kite`, whose name an archive
// may spell with U+212A KELVIN SIGN, canonically equal), beside one that converts a value and one
// already current, so that archives take both paths.

/// The rules file of ``upgradeCatalog``.
public let upgradeRules = """
    {"formatVersion": 1, "types": {
      "Shape": {"currentVersion": 4, "unversionedVersion": 1, "steps": [
        {"from": 1, "to": 2, "rules": [{"renameType": "OldShape", "to": "Shape"}, {"rename": "name", "to": "title"},
                                      {"remove": "legacy"}]},
        {"from": 2, "to": 3, "rules": [{"nest": ["x", "y"], "into": "center"}]},
        {"from": 3, "to": 4, "rules": [{"add": "visible", "default": true}, {"add": "note", "default": null},
                                      {"add": "rank", "default": 2.5}, {"add": "label", "default": "none"}]}]},
      "Board": {"currentVersion": 3, "steps": [
        {"from": 1, "to": 2, "rules": [{"rename": "user", "to": "owner"}]},
        {"from": 2, "to": 3, "rules": [{"nest": ["owner", "shapes"], "into": "content"},
                                      {"nest": ["content"], "into": "box"}]}]},
      "Frame": {"currentVersion": 2, "steps": [{"from": 1, "to": 2, "rules": [{"convert": "size", "using": "intToString"}]}]},
      "Kite": {"currentVersion": 2, "steps": [{"from": 1, "to": 2, "rules": [{"rename": "a", "to": "b"}]}]},
      "Tag": {"currentVersion": 1}}}
    """

/// The catalog `fuzz-upgrade` applies.
public let upgradeCatalog: MigrationCatalog = {
    do {
        return try MigrationCatalog(
            rulesFile: ArchiveFormat.json.read(Data(upgradeRules.utf8)), fileName: "upgrade.json")
    } catch {
        preconditionFailure("the fuzz catalog's rules are invalid: \(error)")
    }
}()
