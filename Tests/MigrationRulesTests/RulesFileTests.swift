import Foundation
import MigrationRules
import Testing

@Suite("Rules files")
struct RulesFileTests {
    /// A rules file with one type `T` whose single step v1 → v2 has `rules`.
    static func file(rules: [ArchiveValue]) -> ArchiveValue {
        [
            "formatVersion": 1,
            "types": ["T": ["currentVersion": 2, "steps": [["from": 1, "to": 2, "rules": .array(rules)]]]],
        ]
    }

    static func descriptions(of rules: [ArchiveValue]) throws -> [String] {
        let catalog = try MigrationCatalog(rulesFile: file(rules: rules), fileName: "rules.json")
        return catalog.migrations(forTypeName: "T")?.steps.first?.rules.map(\.description) ?? []
    }

    /// A rule spelling and the rule it must give.
    struct Spelling: CustomStringConvertible, Sendable {
        var rule: ArchiveValue
        var expected: String
        var description: String { expected }
    }

    static let spellings: [Spelling] = [
        Spelling(rule: ["rename": "r", "to": "radius"], expected: "rename(r → radius)"),
        Spelling(rule: ["rename": "r", "to": "radius", "required": true], expected: "rename(r → radius, required)"),
        Spelling(rule: ["add": "visible", "default": true], expected: "add(visible = true)"),
        Spelling(rule: ["add": "birthday", "default": nil], expected: "add(birthday = null)"),
        Spelling(rule: ["remove": "thumbnail"], expected: "remove(thumbnail)"),
        Spelling(rule: ["remove": "flag", "restoring": 0], expected: "remove(flag, restoring 0)"),
        Spelling(rule: ["convert": "n", "using": "stringToInt"], expected: "convert(n: stringToInt)"),
        Spelling(rule: ["convert": "n", "using": "intToString"], expected: "convert(n: intToString)"),
        Spelling(rule: ["convert": "n", "using": "stringToDouble"], expected: "convert(n: stringToDouble)"),
        Spelling(rule: ["convert": "n", "using": "doubleToString"], expected: "convert(n: doubleToString)"),
        Spelling(rule: ["convert": "n", "using": "stringToBool"], expected: "convert(n: stringToBool)"),
        Spelling(rule: ["convert": "n", "using": "boolToString"], expected: "convert(n: boolToString)"),
        Spelling(rule: ["convert": "n", "using": "intToDouble"], expected: "convert(n: intToDouble)"),
        Spelling(rule: ["convert": "n", "using": "doubleToInt"], expected: "convert(n: doubleToInt)"),
        Spelling(rule: ["convert": "n", "using": "doubleToFloat"], expected: "convert(n: doubleToFloat)"),
        Spelling(
            rule: ["convert": "d", "using": "date", "from": "iso8601", "to": "date"],
            expected: "convert(d: date(iso8601))"),
        Spelling(
            rule: ["convert": "d", "using": "date", "from": "secondsSince1970", "to": "date"],
            expected: "convert(d: date(secondsSince1970))"),
        Spelling(
            rule: ["convert": "d", "using": "date", "from": "secondsSinceReferenceDate", "to": "date"],
            expected: "convert(d: date(secondsSinceReferenceDate))"),
        Spelling(
            rule: ["convert": "d", "using": "date", "from": "date", "to": "millisecondsSince1970"],
            expected: "convert(d: dateToString(millisecondsSince1970))"),
        Spelling(
            rule: ["convert": "d", "using": "date", "from": ["pattern": "yyyy-MM-dd"], "to": "date"],
            expected: "convert(d: date(pattern(yyyy-MM-dd)))"),
        Spelling(
            rule: ["convert": "state", "map": [["open", "todo"], ["closed", "done"]]],
            expected: #"convert(state: map("closed" → "done", "open" → "todo"))"#),
        Spelling(
            rule: ["convert": "state", "map": ["open": "todo"], "default": "todo"],
            expected: #"convert(state: map("open" → "todo", default → "todo"))"#),
        Spelling(
            rule: ["convert": "state", "using": "map", "map": [[1, "one"]]],
            expected: #"convert(state: map(1 → "one"))"#),
        Spelling(
            rule: ["convert": "ids", "using": "wrapElements", "inKey": "id", "with": ["type": "arrow"]],
            expected: #"convert(ids: wrapElements(id with {"type": "arrow"}))"#),
        Spelling(
            rule: ["convert": "ids", "using": "unwrapElements", "key": "id"],
            expected: "convert(ids: unwrapElements(id))"),
        Spelling(rule: ["move": "x", "to": "center.x"], expected: "move(x → center.x)"),
        Spelling(rule: ["nest": ["x", "y"], "into": "center"], expected: "nest(x, y → center)"),
        Spelling(rule: ["hoist": ["x", "y"], "from": "center"], expected: "hoist(center → x, y)"),
        Spelling(rule: ["wrapInArray": "tag"], expected: "wrapInArray(tag)"),
        Spelling(rule: ["takeFirst": "tags"], expected: "takeFirst(tags)"),
        Spelling(
            rule: ["split": "name", "into": ["first_name", "last_name"], "separator": " "],
            expected: "split(name → first_name, last_name)"),
        Spelling(
            rule: ["merge": ["first_name", "last_name"], "into": "name", "separator": " "],
            expected: "merge(first_name, last_name → name)"),
        Spelling(rule: ["renameType": "Round", "to": "Circle"], expected: "renameType(Round → Circle)"),
        Spelling(
            rule: ["scope": "people[*]", "rules": [["rename": "a", "to": "b"], ["add": "c", "default": 1]]],
            expected: "scoped(people[*]: rename(a → b); add(c = 1))"),
        Spelling(rule: ["rename": "a", "to": "b", "comment": "why we did this"], expected: "rename(a → b)"),
    ]

    @Test("every rule and converter spelling reads into its rule", arguments: spellings)
    func spelling(_ spelling: Spelling) throws {
        #expect(try Self.descriptions(of: [spelling.rule]) == [spelling.expected])
    }

    @Test("rules read from a file behave like rules built in code")
    func behaviour() throws {
        let catalog = try MigrationCatalog(
            rulesFile: Self.file(rules: [
                ["convert": "state", "map": [["open", "todo"], ["closed", "done"]]],
                ["convert": "created", "using": "date", "from": ["pattern": "yyyy-MM-dd"], "to": "date"],
                ["nest": ["x", "y"], "into": "center"],
            ]))
        var tree = object("T", 1, ["state": "closed", "created": "2026-11-30", "x": 1, "y": 2])
        try MigrationPass(catalog: catalog).upgrade(&tree)
        // 2026-11-30T00:00:00Z is 1795996800 s after 1970 (Python's datetime).
        #expect(
            tree
                == object(
                    "T", 2,
                    [
                        "state": "done", "created": .date(Date(timeIntervalSince1970: 1_795_996_800)),
                        "center": ["x": 1, "y": 2],
                    ]
                ))
        try MigrationPass(catalog: catalog).downgrade(&tree, to: DowngradeTarget(typeVersions: ["T": 1]))
        #expect(tree == object("T", 1, ["state": "closed", "created": "2026-11-30", "x": 1, "y": 2]))
    }

    // MARK: Whole files

    /// The zorn/VersionedFilesDemo migrations as a rules file, with a type chain beside them.
    static let peopleFile: ArchiveValue = [
        "formatVersion": 1,
        "comment": "zorn/VersionedFilesDemo: v1 → v2 splits the name, v2 → v3 adds birthday and favourite",
        "document": [
            "name": "people", "versionPath": "schema_version", "currentVersion": 3, "unversionedVersion": 1,
            "steps": [
                [
                    "from": 1, "to": 2, "name": "split names",
                    "rules": [
                        [
                            "scope": "people[*]",
                            "rules": [["split": "name", "into": ["first_name", "last_name"], "separator": " "]],
                        ]
                    ],
                ],
                [
                    "from": 2,
                    "rules": [
                        [
                            "scope": "people[*]",
                            "rules": [
                                ["add": "birthday", "default": nil], ["add": "mark_as_favorite", "default": false],
                            ],
                        ]
                    ],
                ],
            ],
        ],
        "types": [
            "Circle": [
                "currentVersion": 3, "aliases": ["MyApp.Circle"], "unversionedVersion": 1,
                "steps": [
                    ["from": 1, "to": 2, "rules": [["rename": "r", "to": "radius"]]],
                    ["from": 2, "to": 3, "rules": [["renameType": "Disc", "to": "Circle"]]],
                ],
            ]
        ],
    ]

    @Test("a whole rules file gives the document and type chains it spells")
    func wholeFile() throws {
        let catalog = try MigrationCatalog(rulesFile: Self.peopleFile, fileName: "people.json")
        let people = try #require(catalog.document(named: "people"))
        #expect(people.versionPath == "schema_version")
        #expect(people.currentVersion == 3)
        #expect(people.unversionedVersion == 1)
        #expect(people.steps.map(\.to) == [2, 3])
        #expect(people.steps.first?.name == "split names")
        let circle = try #require(catalog.migrations(forTypeName: "MyApp.Circle"))
        #expect(circle.typeName == "Circle")
        #expect(circle.allNames == ["Circle", "MyApp.Circle", "Disc"])
        #expect(catalog.migrations(forTypeName: "Disc")?.typeName == "Circle")

        var tree: ArchiveValue = [
            "people": [
                ["id": "4E966EDD-893C-4F96-973A-949411B50149", "name": "Fred Weasley"],
                ["id": "4545A339-A09F-4AEE-BE46-1C4FCF6466AA", "name": "George Weasley"],
            ],
            "schema_version": 1,
        ]
        let report = try MigrationPass(catalog: catalog).upgrade(&tree, document: "people")
        #expect(
            tree == [
                "people": [
                    [
                        "id": "4E966EDD-893C-4F96-973A-949411B50149", "first_name": "Fred", "last_name": "Weasley",
                        "birthday": nil, "mark_as_favorite": false,
                    ],
                    [
                        "id": "4545A339-A09F-4AEE-BE46-1C4FCF6466AA", "first_name": "George", "last_name": "Weasley",
                        "birthday": nil, "mark_as_favorite": false,
                    ],
                ],
                "schema_version": 3,
            ])
        #expect(report.description == "Upgraded document people from v1 to v3 (split names, v2 → v3).")
    }

    /// A document chain `d` with `plain` set to `value`.
    static func plainDocument(_ value: ArchiveValue) -> ArchiveValue {
        [
            "formatVersion": 1,
            "document": ["name": "d", "versionPath": "meta.version", "currentVersion": 1, "plain": value],
        ]
    }

    static let plainStyles: [(ArchiveValue, DocumentStyle)] = [
        (true, .plain),
        (false, .archive),
        ([:], .plain(DocumentConventions(dates: .iso8601, data: .base64))),
        (["dates": "millisecondsSince1970"], .plain(DocumentConventions(dates: .millisecondsSince1970))),
        (["dates": "secondsSince1970", "data": "base64"], .plain(DocumentConventions(dates: .secondsSince1970))),
        (
            ["dates": ["pattern": "yyyy-MM-dd"], "comment": "days"],
            .plain(DocumentConventions(dates: .pattern("yyyy-MM-dd")))
        ),
    ]

    @Test("a document chain declares a plain document and its spellings of dates and data", arguments: plainStyles)
    func plainStyle(_ value: ArchiveValue, _ style: DocumentStyle) throws {
        let catalog = try MigrationCatalog(rulesFile: Self.plainDocument(value), fileName: "rules.json")
        #expect(catalog.document(named: "d")?.style == style)
    }

    @Test("a document chain without 'plain' is an archive")
    func archiveStyleByDefault() throws {
        let catalog = try MigrationCatalog(rulesFile: Self.peopleFile, fileName: "people.json")
        #expect(catalog.document(named: "people")?.style == .archive)
    }

    static let formats =
        #""iso8601", "millisecondsSince1970", "secondsSince1970", "secondsSinceReferenceDate" or {"pattern": "yyyy-MM-dd"}"#

    static let brokenPlainStyles: [(ArchiveValue, String, String)] = [
        (
            "yes", "document.plain",
            #"'plain' must be true, false or the document's conventions such as {"dates": "iso8601", "data": "base64"}; "#
                + #"found string "yes""#
        ),
        (["dates": "unix"], "document.plain.dates", "unknown date format 'unix'; the formats are " + formats),
        (["dates": "date"], "document.plain.dates", "unknown date format 'date'; the formats are " + formats),
        (["data": "hex"], "document.plain.data", #"unknown data spelling 'hex'; the spellings are "base64""#),
        (
            ["date": "iso8601"], "document.plain.date",
            #"unknown key 'date' in the conventions of a plain document, spelled {"dates": "iso8601", "data": "base64"}; "#
                + "the keys are 'dates', 'data' (and 'comment')"
        ),
        (
            ["dates": ["pattern": "yyyy-QQ"]], "document.plain.dates.pattern",
            "date pattern 'yyyy-QQ' has 'QQ'; the fields are yyyy, MM, dd, HH, mm, ss and SSS, and literal letters go "
                + "in single quotes"
        ),
    ]

    @Test("a broken 'plain' fails at its path, naming the spellings", arguments: brokenPlainStyles)
    func brokenPlainStyle(_ value: ArchiveValue, _ path: String, _ message: String) {
        let error = archiveError {
            _ = try MigrationCatalog(rulesFile: Self.plainDocument(value), fileName: "rules.json")
        }
        #expect(error?.code == .invalidRules)
        #expect(error?.path.description == path)
        #expect(error?.message == message)
    }

    @Test("the excalidraw v1 library fields become roundness and boundElements, legacy keys deleted")
    func excalidraw() throws {
        // Upstream's loader: strokeSharpness "sharp" → roundness null, "round" → {type: …};
        // boundElementIds ids → boundElements [{type: "arrow", id}] (Fixtures/versioned-json/README.md).
        let catalog = try MigrationCatalog(rulesFile: [
            "formatVersion": 1,
            "documents": [
                [
                    "name": "excalidrawlib", "versionPath": "version", "currentVersion": 2,
                    "steps": [
                        [
                            "from": 1,
                            "rules": [
                                [
                                    "scope": "library[*][*]",
                                    "rules": [
                                        ["rename": "strokeSharpness", "to": "roundness"],
                                        [
                                            "convert": "roundness",
                                            "map": [["sharp", nil], ["round", ["type": "round"]]],
                                        ],
                                        ["rename": "boundElementIds", "to": "boundElements"],
                                        [
                                            "convert": "boundElements", "using": "wrapElements", "inKey": "id",
                                            "with": ["type": "arrow"],
                                        ],
                                    ],
                                ]
                            ],
                        ]
                    ],
                ]
            ],
        ])
        // Transcribed (shortened) from fixture_library.v1.excalidrawlib, plus a second element.
        var tree: ArchiveValue = [
            "type": "excalidrawlib", "version": 1,
            "library": [
                [
                    ["type": "rectangle", "version": 38, "id": "A", "strokeSharpness": "sharp", "boundElementIds": []],
                    ["type": "ellipse", "version": 2, "id": "B", "strokeSharpness": "round", "boundElementIds": ["x"]],
                ]
            ],
        ]
        try MigrationPass(catalog: catalog).upgrade(&tree, document: "excalidrawlib")
        #expect(
            tree == [
                "type": "excalidrawlib", "version": 2,
                "library": [
                    [
                        ["type": "rectangle", "version": 38, "id": "A", "roundness": nil, "boundElements": []],
                        [
                            "type": "ellipse", "version": 2, "id": "B", "roundness": ["type": "round"],
                            "boundElements": [["type": "arrow", "id": "x"]],
                        ],
                    ]
                ],
            ])
    }

    // MARK: Broken files

    /// A broken rules file and the exact error it must give.
    struct Broken: CustomStringConvertible, Sendable {
        var name: String
        var file: ArchiveValue
        var code: ArchiveError.Code = .invalidRules
        var path: String
        var message: String
        var description: String { name }
    }

    static let rulePath = "types.T.steps[0].rules[0]"

    static let broken: [Broken] = [
        Broken(
            name: "unknown rule", file: file(rules: [["renam": "a", "to": "b"]]), path: rulePath + ".renam",
            message:
                "unknown rule 'renam'; the rules are rename, add, remove, convert, move, nest, hoist, wrapInArray, "
                + "takeFirst, split, merge, renameType, scope"),
        Broken(
            name: "missing key", file: file(rules: [["rename": "a"]]), path: rulePath + ".to",
            message: "'to' is missing (the new key)"),
        Broken(
            name: "wrong type", file: file(rules: [["rename": 3, "to": "b"]]), path: rulePath + ".rename",
            message: "'rename' must be a string (a key); found int 3"),
        Broken(
            name: "bad scope path", file: file(rules: [["scope": "people[", "rules": []]]), path: rulePath + ".scope",
            message: "invalid path 'people[': unterminated '[' at character 8"),
        Broken(
            name: "move path with a wildcard", file: file(rules: [["move": "a[*]", "to": "b"]]),
            path: rulePath + ".move",
            message: "'a[*]' must be one or more keys such as \"center.x\" (no indices or wildcards)"),
        Broken(
            name: "typo'd key", file: file(rules: [["rename": "a", "to": "b", "requried": true]]),
            path: rulePath + ".requried",
            message:
                #"unknown key 'requried' in a rename rule, spelled {"rename": "old", "to": "new", "required": false}; "#
                + "the keys are 'rename', 'to', 'required' (and 'comment')"),
        Broken(
            name: "two keywords", file: file(rules: [["rename": "a", "to": "b", "remove": "c"]]), path: rulePath,
            message: "a rule has exactly one rule keyword, and this one has 'rename' and 'remove'"),
        Broken(
            name: "rule not an object", file: file(rules: ["rename a"]), path: rulePath,
            message: #"a rule is an object such as {"rename": "old", "to": "new"}; found string "rename a""#),
        Broken(
            name: "unknown converter", file: file(rules: [["convert": "a", "using": "stringToInteger"]]),
            path: rulePath + ".using",
            message:
                "unknown converter 'stringToInteger'; the converters are stringToInt, intToString, stringToDouble, "
                + "doubleToString, stringToBool, boolToString, intToDouble, doubleToInt, doubleToFloat, date, wrapElements, "
                + "unwrapElements, map"),
        Broken(
            name: "converter without using", file: file(rules: [["convert": "a"]]), path: rulePath + ".using",
            message:
                "a convert rule needs 'using' (one of stringToInt, intToString, stringToDouble, doubleToString, "
                + "stringToBool, boolToString, intToDouble, doubleToInt, doubleToFloat, date, wrapElements, unwrapElements, map) or 'map'"
        ),
        Broken(
            name: "key a converter does not take",
            file: file(rules: [["convert": "n", "using": "stringToInt", "with": [:]]]), path: rulePath + ".with",
            message:
                "unknown key 'with' in a convert rule using stringToInt; the keys are 'convert', 'using' (and 'comment')"
        ),
        Broken(
            name: "unknown date format",
            file: file(rules: [["convert": "d", "using": "date", "from": "iso", "to": "date"]]),
            path: rulePath + ".from",
            message:
                #"unknown date format 'iso'; the formats are "date", "iso8601", "millisecondsSince1970", "#
                + #""secondsSince1970", "secondsSinceReferenceDate" or {"pattern": "yyyy-MM-dd"}"#),
        Broken(
            name: "date between two formats",
            file: file(rules: [["convert": "d", "using": "date", "from": "iso8601", "to": "secondsSince1970"]]),
            path: rulePath + ".from",
            message:
                #"a date conversion goes between "date" and a format: {"using": "date", "from": "iso8601", "to": "date"} "#
                + "or the reverse"),
        Broken(
            name: "bad date pattern",
            file: file(rules: [["convert": "d", "using": "date", "from": ["pattern": "YYYY"], "to": "date"]]),
            path: rulePath + ".from.pattern",
            message:
                "date pattern 'YYYY' has 'YYYY'; the fields are yyyy, MM, dd, HH, mm, ss and SSS, and literal letters go "
                + "in single quotes"),
        Broken(
            name: "map entry not a pair", file: file(rules: [["convert": "s", "map": [["a"]]]]),
            path: rulePath + ".map[0]",
            message: "each entry of a map is a pair [old, new]; found array [1 element]"),
        Broken(
            name: "map key twice", file: file(rules: [["convert": "s", "map": [["a", "b"], ["a", "c"]]]]),
            path: rulePath + ".map[1]", message: #"the map has "a" twice"#),
        Broken(
            name: "empty separator", file: file(rules: [["split": "n", "into": ["a", "b"], "separator": ""]]),
            path: rulePath + ".separator", message: "'separator' is empty"),
        Broken(
            name: "split into a repeated key",
            file: file(rules: [["split": "n", "into": ["a", "a"], "separator": " "]]),
            path: rulePath + ".into[1]", message: "'a' is listed twice"),
        Broken(
            name: "add without default", file: file(rules: [["add": "n"]]), path: rulePath + ".default",
            message: #"an add rule needs a 'default': {"add": "key", "default": false}"#),
        Broken(
            name: "no formatVersion", file: ["types": [:]], path: "formatVersion",
            message: #"the rules file has no 'formatVersion'; start it with "formatVersion": 1"#),
        Broken(
            name: "newer formatVersion", file: ["formatVersion": 2], path: "formatVersion",
            message: "formatVersion 2 is not supported; this library reads formatVersion 1"),
        Broken(
            name: "top-level typo", file: ["formatVersion": 1, "type": [:]], path: "type",
            message:
                #"unknown key 'type' in a rules file, spelled {"formatVersion": 1, "types": {…}, "documents": […]}; "#
                + "the keys are 'formatVersion', 'document', 'documents', 'types', 'releases', 'releasesDocument' (and 'comment')"
        ),
        Broken(
            name: "not an object", file: [1, 2], path: "",
            message:
                #"a rules file is an object such as {"formatVersion": 1, "types": {…}, "documents": […]}; found array [2 elements]"#
        ),
        Broken(
            name: "types not an object", file: ["formatVersion": 1, "types": []], path: "types",
            message:
                #"'types' must be an object from type names to chains, such as {"Circle": {"currentVersion": 2, "steps": […]}}; "#
                + "found array [0 elements]"),
        Broken(
            name: "typo in a type", file: ["formatVersion": 1, "types": ["T": ["currentVersion": 1, "step": []]]],
            path: "types.T.step",
            message:
                #"unknown key 'step' in the chain of type T, spelled {"currentVersion": 2, "aliases": […], "#
                + #""unversionedVersion": 1, "steps": […]}; the keys are 'currentVersion', 'aliases', "#
                + "'unversionedVersion', 'steps', 'downgradeFallback' (and 'comment')"),
        Broken(
            name: "missing currentVersion", file: ["formatVersion": 1, "types": ["T": [:]]],
            path: "types.T.currentVersion", message: "'currentVersion' is missing (the version the app writes today)"),
        Broken(
            name: "string version", file: ["formatVersion": 1, "types": ["T": ["currentVersion": "2"]]],
            path: "types.T.currentVersion", message: #"'currentVersion' must be an integer; found string "2""#),
        Broken(
            name: "step without from",
            file: ["formatVersion": 1, "types": ["T": ["currentVersion": 2, "steps": [["rules": []]]]]],
            path: "types.T.steps[0].from", message: "'from' is missing (the version the step starts at)"),
        Broken(
            name: "rules not a list",
            file: ["formatVersion": 1, "types": ["T": ["currentVersion": 2, "steps": [["from": 1, "rules": [:]]]]]],
            path: "types.T.steps[0].rules", message: "'rules' must be a list of rules; found dictionary {0 entries}"),
        Broken(
            name: "alias not a string",
            file: ["formatVersion": 1, "types": ["MyApp.Circle": ["currentVersion": 1, "aliases": ["A", 2]]]],
            path: #"types["MyApp.Circle"].aliases[1]"#,
            message: "'aliases' must be a list of type names; element 1 is int 2"),
        Broken(
            name: "document without name", file: ["formatVersion": 1, "document": ["currentVersion": 1]],
            path: "document.name", message: "a document chain needs a 'name'"),
        Broken(
            name: "document version path with an index",
            file: ["formatVersion": 1, "documents": [["name": "a", "currentVersion": 1, "versionPath": "v[0]"]]],
            path: "documents[0].versionPath",
            message: "'v[0]' must be one or more keys such as \"center.x\" (no indices or wildcards)"),
        Broken(
            name: "chain with a gap",
            file: [
                "formatVersion": 1,
                "types": [
                    "T": [
                        "currentVersion": 4, "steps": [["from": 1, "rules": []], ["from": 3, "to": 4, "rules": []]],
                    ]
                ],
            ],
            code: .invalidChain, path: "types.T.steps[1]", message: "the chain has a gap: no step from v2 to v3"),
        Broken(
            name: "step skipping a version",
            file: [
                "formatVersion": 1,
                "types": ["T": ["currentVersion": 3, "steps": [["from": 1, "to": 3, "rules": []]]]],
            ],
            code: .invalidChain, path: "types.T.steps[0]",
            message: "the step skips a version: each step goes from one version to the next"),
        Broken(
            name: "document chain ending early",
            file: [
                "formatVersion": 1,
                "documents": [["name": "d", "currentVersion": 3, "steps": [["from": 1, "rules": []]]]],
            ],
            code: .invalidChain, path: "documents[0].steps[0]",
            message: "document 'd': the last step ends at v2 but the current version is v3"),
        Broken(
            name: "alias claimed by two types",
            file: [
                "formatVersion": 1,
                "types": [
                    "A": ["currentVersion": 1, "aliases": ["Shape"]], "B": ["currentVersion": 1, "aliases": ["Shape"]],
                ],
            ],
            code: .invalidChain, path: "types.B", message: "the name 'Shape' is claimed by both A and B"),
    ]

    @Test("broken rules files fail with the exact code, path and message", arguments: broken)
    func brokenFile(_ broken: Broken) {
        let error = archiveError { _ = try MigrationCatalog(rulesFile: broken.file, fileName: "rules.json") }
        #expect(error?.code == broken.code)
        #expect(error?.path.description == broken.path)
        #expect(error?.message == broken.message)
        #expect(error?.location?.file == "rules.json")
    }

    @Test("the error reads as a sentence with the path and the file")
    func errorDescription() {
        let error = archiveError {
            _ = try MigrationCatalog(rulesFile: Self.file(rules: [["rename": "a"]]), fileName: "rules.json")
        }
        #expect(
            error?.description == "'to' is missing (the new key) at types.T.steps[0].rules[0].to (of rules.json)")
    }

    @Test("the public lists name every rule keyword and converter")
    func publicLists() {
        #expect(RulesFile.formatVersion == 1)
        #expect(RulesFile.RuleKeyword.allCases.count == 13)
        #expect(RulesFile.ConverterName.allCases.contains(.date))
    }
}
