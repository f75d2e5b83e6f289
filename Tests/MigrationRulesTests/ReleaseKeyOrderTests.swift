import MigrationRules
import Testing

/// A release's key orders (`AppRelease.keyOrders`, `"keys"` in a rules file): a downgrade to the
/// release writes each object's keys in the order the release wrote them.
@Suite("Release key orders")
struct ReleaseKeyOrderTests {
    /// Rect v1 `{x, y, w, h, style}` became Rectangle v2 `{origin: {x, y}, size: {width, height}, style}`;
    /// the inverse rules put `w` and `h` back in the other order.
    static func file(keys: ArchiveValue?) -> ArchiveValue {
        var rect: ArchiveDictionary = ["version": 1, "archivedAs": "Rect"]
        if let keys { rect["keys"] = keys }
        return [
            "formatVersion": 1,
            "releases": [
                ["name": "1.0", "types": ["Rectangle": .dictionary(rect)]],
                ["name": "2.0", "types": ["Rectangle": 2]],
            ],
            "types": [
                "Rectangle": [
                    "currentVersion": 2,
                    "steps": [
                        [
                            "from": 1,
                            "rules": [
                                ["renameType": "Rect", "to": "Rectangle"], ["nest": ["x", "y"], "into": "origin"],
                                ["move": "w", "to": "size.width"], ["move": "h", "to": "size.height"],
                            ],
                        ]
                    ],
                ]
            ],
        ]
    }

    static let rectangle = object(
        "Rectangle", 2,
        ["origin": ["x": 1, "y": 2], "size": ["width": 3, "height": 4], "style": "dashed", "extra": true])

    static func downgraded(keys: ArchiveValue?) throws -> [String] {
        let catalog = try MigrationCatalog(rulesFile: file(keys: keys), fileName: "rules.json")
        var tree = rectangle
        try MigrationPass(catalog: catalog).downgrade(&tree, toRelease: "1.0")
        guard case .object(let rect) = tree else { return [] }
        #expect(rect.typeName == "Rect" && rect.version == 1)
        return rect.fields.keys
    }

    @Test("without keys the inverse rules decide the order; with them the release's order comes back")
    func downgradeOrdersKeys() throws {
        #expect(try Self.downgraded(keys: nil) == ["x", "y", "h", "w", "style", "extra"])
        // Keys the release did not list (`extra`) follow the listed ones, as they were.
        #expect(try Self.downgraded(keys: ["x", "y", "w", "h", "style"]) == ["x", "y", "w", "h", "style", "extra"])
    }

    @Test("a dotted key orders a nested dictionary")
    func nestedOrder() throws {
        let catalog = try MigrationCatalog(
            rulesFile: [
                "formatVersion": 1,
                "releases": [
                    [
                        "name": "1.0",
                        "types": ["D": ["version": 1, "keys": ["title", "meta.created", "meta.author"]]],
                    ],
                    ["name": "2.0", "types": ["D": 2]],
                ],
                "types": [
                    "D": [
                        "currentVersion": 2,
                        "steps": [["from": 1, "rules": [["hoist": ["author", "created"], "from": "meta"]]]],
                    ]
                ],
            ], fileName: "rules.json")
        var tree = object("D", 2, ["title": "t", "author": "a", "created": "c"])
        try MigrationPass(catalog: catalog).downgrade(&tree, toRelease: "1.0")
        #expect(tree["meta"]?.dictionaryValue?.keys == ["created", "author"])
        #expect(tree.keyedEntries?.keys == ["title", "meta"])
    }

    @Test("keys are read from a rules file and written back")
    func rulesFileRoundTrip() throws {
        let catalog = try MigrationCatalog(rulesFile: Self.file(keys: ["x", "y", "w", "h", "style"]), fileName: "r")
        let release = try #require(catalog.releases?.release(named: "1.0"))
        #expect(release.keyOrders == ["Rectangle": ["x", "y", "w", "h", "style"]])
        let written = try catalog.rulesFile()
        #expect(
            written["releases"]?[0]?["types"]?["Rectangle"]
                == ["version": 1, "archivedAs": "Rect", "keys": ["x", "y", "w", "h", "style"]])
        #expect(try MigrationCatalog(rulesFile: written).releases == catalog.releases)
    }

    @Test(
        "keys that are not an order are located errors",
        arguments: [
            (
                ArchiveValue("x"), ArchiveError.Code.invalidRules,
                "'keys' is the array of keys the release wrote, in order; found"
            ),
            (["x", 1], .invalidRules, "a key is a string; found"),
            (["x", "y", "x"], .invalidChain, "release 1.0 lists the keys of Rectangle with 'x' twice"),
            (["x", "a..b"], .invalidChain, "release 1.0 lists the keys of Rectangle with an empty key in 'a..b'"),
        ] as [(ArchiveValue, ArchiveError.Code, String)])
    func invalidKeys(keys: ArchiveValue, code: ArchiveError.Code, message: String) throws {
        let error = try #require(
            archiveError { _ = try MigrationCatalog(rulesFile: Self.file(keys: keys), fileName: "rules.json") })
        #expect(error.code == code)
        #expect(error.message.contains(message), "\(error)")
        #expect(error.path.description.hasPrefix("releases[0].types.Rectangle.keys"), "\(error.path)")
    }
}
