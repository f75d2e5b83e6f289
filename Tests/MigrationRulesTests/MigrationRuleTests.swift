import Foundation
import MigrationRules
import Testing

@Suite("Migration rules")
struct MigrationRuleTests {
    /// A rule, a container before and after it; the inverse must give `before` back.
    struct Case: CustomStringConvertible, Sendable {
        var rule: MigrationRule
        var before: ArchiveDictionary
        var after: ArchiveDictionary
        /// The key order after the rule, when it matters.
        var keysAfter: [String]? = nil
        /// Whether the inverse restores the key order too (an added key goes at the end).
        var restoresOrder = true
        var description: String { rule.description }
    }

    static let reversibleCases: [Case] = [
        Case(
            rule: .rename("name", to: "title"), before: ["id": 1, "name": "x"], after: ["id": 1, "title": "x"],
            keysAfter: ["id", "title"]),
        Case(rule: .rename("name", to: "title"), before: ["id": 1], after: ["id": 1]),
        Case(
            rule: .add("mark_as_favorite", default: false), before: ["id": 1],
            after: ["id": 1, "mark_as_favorite": false]),
        Case(
            rule: .remove("legacy", restoring: 0), before: ["legacy": 0, "y": 1], after: ["y": 1], restoresOrder: false),
        Case(rule: .convert("count", .stringToInt), before: ["count": "42"], after: ["count": 42]),
        Case(rule: .convert("count", .stringToInt), before: ["other": 1], after: ["other": 1]),
        Case(rule: .convert("count", .stringToInt), before: ["count": nil], after: ["count": nil]),
        Case(
            rule: .move("x", to: "center.x"), before: ["id": 1, "x": 10, "y": 20],
            after: ["id": 1, "center": ["x": 10], "y": 20], keysAfter: ["id", "center", "y"]),
        Case(
            rule: .move("a.b.c", to: "d"), before: ["a": ["b": ["c": 1]], "z": 0], after: ["d": 1, "z": 0],
            keysAfter: ["d", "z"]),
        Case(rule: .move("a.b", to: "a.c"), before: ["a": ["b": 1, "k": 2]], after: ["a": ["k": 2, "c": 1]]),
        Case(
            rule: .nest(["x", "y"], into: "center"), before: ["id": 1, "x": 10, "y": 20, "r": 5],
            after: ["id": 1, "center": ["x": 10, "y": 20], "r": 5], keysAfter: ["id", "center", "r"]),
        Case(
            rule: .hoist(["x", "y"], from: "center"), before: ["center": ["x": 10, "y": 20], "r": 5],
            after: ["x": 10, "y": 20, "r": 5], keysAfter: ["x", "y", "r"]),
        Case(
            rule: .hoist(["x"], from: "center"), before: ["center": ["x": 10, "z": 0]],
            after: ["x": 10, "center": ["z": 0]]),
        Case(rule: .wrapInArray("tag"), before: ["tag": "a"], after: ["tag": ["a"]]),
        Case(rule: .wrapInArray("tag"), before: ["tag": nil], after: ["tag": nil]),
        Case(rule: .takeFirst("tags"), before: ["tags": ["a"], "n": 1], after: ["tags": "a", "n": 1]),
        Case(rule: .hoist(["x"], from: "center"), before: ["r": 1], after: ["r": 1]),
        Case(
            rule: .merge(
                ["first", "last"], into: "name", using: { parts in .array(parts) }, inverse: { $0.arrayValue ?? [] }),
            before: ["first": "A", "last": "B"], after: ["name": ["A", "B"]]),
        Case(
            rule: .split("name", into: ["first_name", "last_name"], separator: " "),
            before: ["id": "4E96", "name": "Fred Weasley", "age": 20],
            after: ["id": "4E96", "first_name": "Fred", "last_name": "Weasley", "age": 20],
            keysAfter: ["id", "first_name", "last_name", "age"]),
        Case(
            rule: .split("name", into: ["first_name", "last_name"], separator: " "),
            before: ["name": "Cher"], after: ["first_name": "Cher", "last_name": ""]),
        Case(
            rule: .split("name", into: ["first", "rest"], separator: ", "),
            before: ["name": "A, B, C"], after: ["first": "A", "rest": "B, C"]),
        Case(
            rule: .merge(["first_name", "last_name"], into: "name", separator: " "),
            before: ["first_name": "Fred", "last_name": "Weasley", "id": 1], after: ["name": "Fred Weasley", "id": 1],
            keysAfter: ["name", "id"]),
        Case(
            rule: .scoped("people[*]", [.split("name", into: ["first_name", "last_name"], separator: " ")]),
            before: ["people": [["name": "Fred Weasley"], ["name": "George Weasley"]]],
            after: [
                "people": [
                    ["first_name": "Fred", "last_name": "Weasley"], ["first_name": "George", "last_name": "Weasley"],
                ]
            ]),
        Case(
            rule: .scoped("settings.*", [.rename("on", to: "enabled"), .add("v", default: 1)]),
            before: ["settings": ["a": ["on": true], "b": ["on": false]]],
            after: ["settings": ["a": ["enabled": true, "v": 1], "b": ["enabled": false, "v": 1]]]),
        Case(rule: .scoped("missing.deeper[*]", [.add("x", default: 1)]), before: ["a": 1], after: ["a": 1]),
        Case(rule: .scoped("", [.rename("a", to: "b")]), before: ["a": 1], after: ["b": 1]),
        Case(
            rule: .convert("ids", .wrapElements(inKey: "id", with: ["type": "arrow"])), before: ["ids": ["x", "y"]],
            after: ["ids": [["type": "arrow", "id": "x"], ["type": "arrow", "id": "y"]]]),
    ]

    @Test("each rule gives the expected container and its inverse gives the original back", arguments: reversibleCases)
    func forwardAndBackward(_ testCase: Case) throws {
        let migrated = try applying(testCase.rule, to: testCase.before)
        #expect(migrated == testCase.after)
        if let keys = testCase.keysAfter {
            #expect(migrated.keys == keys)
        }
        let inverse = try #require(testCase.rule.inverse)
        let restored = try applying(inverse, to: migrated)
        #expect(restored == testCase.before)
        if testCase.restoresOrder {
            #expect(restored.keys == testCase.before.keys)
        }
    }

    @Test("isReversible says whether a rule has an inverse")
    func isReversible() {
        for testCase in Self.reversibleCases {
            #expect(testCase.rule.isReversible, "\(testCase.rule)")
        }
        #expect(!MigrationRule.remove("thumbnail").isReversible)
        #expect(!MigrationRule.scoped("shapes[*]", [.rename("a", to: "b"), .remove("c")]).isReversible)
        #expect(MigrationRule.scoped("shapes[*]", [.rename("a", to: "b"), .remove("c", restoring: 0)]).isReversible)
    }

    @Test("rules that lose information have no inverse")
    func irreversibleRules() {
        #expect(MigrationRule.remove("thumbnail").inverse == nil)
        #expect(MigrationRule.convert("x", .map(["a": 1, "b": 1])).inverse == nil)
        #expect(MigrationRule.convert("x", .map(["a": 1], default: 0)).inverse == nil)
        #expect(MigrationRule.convert("x", .custom(name: "f", forward: { $0 })).inverse == nil)
        #expect(MigrationRule.transform("f", { _ in }).inverse == nil)
        #expect(MigrationRule.split("n", into: ["a", "b"], using: { _ in ["", ""] }).inverse == nil)
        #expect(MigrationRule.merge(["a", "b"], into: "n", using: { _ in "" }).inverse == nil)
        #expect(MigrationRule.scoped("a[*]", [.rename("x", to: "y"), .remove("z")]).inverse == nil)
        #expect(MigrationRule.convert("x", .unwrapElements(key: "id")).inverse == nil)
    }

    @Test("inverse rules describe themselves")
    func inverseDescriptions() throws {
        #expect(MigrationRule.rename("r", to: "radius").inverse?.description == "rename(radius → r)")
        #expect(MigrationRule.add("a", default: false).inverse?.description == "remove(a, restoring false)")
        #expect(MigrationRule.nest(["x", "y"], into: "c").inverse?.description == "hoist(c → x, y)")
        #expect(MigrationRule.wrapInArray("t").inverse?.description == "takeFirst(t)")
        #expect(MigrationRule.merge(["a", "b"], into: "n", separator: " ").inverse?.description == "split(n → a, b)")
        #expect(
            MigrationRule.scoped("p[*]", [.rename("a", to: "b"), .add("c", default: 1)]).inverse?.description
                == "scoped(p[*]: remove(c, restoring 1); rename(b → a))")
        #expect(MigrationRule.convert("n", .stringToInt).inverse?.description == "convert(n: intToString)")
    }

    @Test("descriptions read as the rule's intent")
    func descriptions() {
        #expect(MigrationRule.rename("name", to: "title").description == "rename(name → title)")
        #expect(MigrationRule.add("mark_as_favorite", default: false).description == "add(mark_as_favorite = false)")
        #expect(MigrationRule.add("birthday", default: nil).description == "add(birthday = null)")
        #expect(MigrationRule.add("tags", default: ["a", 1]).description == #"add(tags = ["a", 1])"#)
        #expect(
            MigrationRule.scoped("people[*]", [.split("name", into: ["first_name", "last_name"], separator: " ")])
                .description == "scoped(people[*]: split(name → first_name, last_name))")
        #expect(MigrationRule.move("x", to: "center.x").description == "move(x → center.x)")
        #expect(MigrationRule.renameType(from: "Round", to: "Circle").description == "renameType(Round → Circle)")
        #expect(MigrationRule.convert("d", .date(format: .iso8601)).description == "convert(d: date(iso8601))")
        #expect(MigrationRule.transform("fix", { _ in }).description == "transform(fix)")
        #expect(MigrationRule.remove("x").description == "remove(x)")
    }

    // MARK: Failures

    @Test("a required rename of a missing key fails with the rule and the container's path")
    func requiredRename() {
        var target = MigrationTarget(fields: ["title": 1], path: "shapes[3]")
        let error = archiveError { try MigrationRule.rename("name", to: "title", required: true).apply(to: &target) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message == "key 'name' is missing")
        #expect(error?.rule == "rename(name → title, required)")
        #expect(error?.path.description == "shapes[3]")
    }

    @Test("renaming or moving onto an existing key fails")
    func collisions() {
        #expect(
            archiveError { _ = try applying(.rename("a", to: "b"), to: ["a": 1, "b": 2]) }?.code == .migrationFailed)
        #expect(
            archiveError { _ = try applying(.move("a", to: "b.c"), to: ["a": 1, "b": ["c": 2]]) }?.code
                == .migrationFailed)
        #expect(
            archiveError {
                _ = try applying(.split("n", into: ["a", "b"], separator: " "), to: ["n": "x y", "b": 0])
            }?
            .code == .migrationFailed)
        #expect(
            archiveError { _ = try applying(.merge(["a", "b"], into: "n", separator: " "), to: ["a": "x", "n": 0]) }?
                .code == .migrationFailed)
    }

    @Test("a move through a value that is not keyed fails at that value")
    func moveThroughScalar() {
        let error = archiveError { _ = try applying(.move("x", to: "center.x"), to: ["x": 1, "center": "middle"]) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.path.description == "center")
        #expect(error?.rule == "move(x → center.x)")
        let wildcard = archiveError { _ = try applying(.move("a[*]", to: "b"), to: ["a": [1]]) }
        #expect(wildcard?.code == .migrationFailed)
    }

    @Test("takeFirst keeps the first element, removes an empty array and rejects scalars")
    func takeFirst() throws {
        #expect(try applying(.takeFirst("tags"), to: ["tags": ["a", "b"]]) == ["tags": "a"])
        #expect(try applying(.takeFirst("tags"), to: ["tags": [], "x": 1]) == ["x": 1])
        #expect(try applying(.takeFirst("tags"), to: ["tags": nil]) == ["tags": nil])
        let error = archiveError { _ = try applying(.takeFirst("tags"), to: ["tags": "a"]) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.path.description == "tags")
        #expect(error?.message == #"expected an array, found string "a""#)
    }

    @Test("split rejects non-strings and empty separators; null gives null parts")
    func splitEdges() throws {
        let split = MigrationRule.split("name", into: ["first", "last"], separator: " ")
        #expect(try applying(split, to: ["name": nil]) == ["first": nil, "last": nil])
        let error = archiveError { _ = try applying(split, to: ["name": 42]) }
        #expect(error?.message == "expected a string, found int 42")
        #expect(error?.path.description == "name")
        let empty = MigrationRule.split("name", into: ["a", "b"], separator: "")
        #expect(archiveError { _ = try applying(empty, to: ["name": "x"]) }?.code == .migrationFailed)
    }

    @Test("merge skips absent and empty parts and leaves containers without parts alone")
    func mergeEdges() throws {
        let merge = MigrationRule.merge(["first", "middle", "last"], into: "name", separator: " ")
        #expect(
            try applying(merge, to: ["first": "Fred", "middle": "", "last": "Weasley"]) == ["name": "Fred Weasley"])
        #expect(try applying(merge, to: ["last": "Weasley"]) == ["name": "Weasley"])
        #expect(try applying(merge, to: ["id": 1]) == ["id": 1])
        #expect(try applying(merge, to: ["first": nil]) == ["name": nil])
    }

    @Test("closure split and merge run both ways when both closures are given")
    func closureSplitMerge() throws {
        let rule = MigrationRule.split(
            "size", into: ["width", "height"],
            using: { value in
                guard let pair = value.arrayValue, pair.count == 2 else {
                    throw ValueConverter.kindError(value, expected: "an array of two numbers")
                }
                return pair
            }, inverse: { parts in .array(parts) })
        let before: ArchiveDictionary = ["size": [640, 480]]
        let after = try applying(rule, to: before)
        #expect(after == ["width": 640, "height": 480])
        #expect(try applying(try #require(rule.inverse), to: after) == before)
        let error = archiveError { _ = try applying(rule, to: ["size": "big"]) }
        #expect(error?.message == #"expected an array of two numbers, found string "big""#)
        let wrongCount = MigrationRule.split("a", into: ["b", "c"], using: { _ in [1] })
        #expect(archiveError { _ = try applying(wrongCount, to: ["a": 1]) }?.code == .migrationFailed)
    }

    @Test("renameType changes an object's type and is refused on a plain dictionary")
    func renameType() throws {
        var value = object("Round", 1, ["r": 1])
        try MigrationRule.renameType(from: "Round", to: "Circle").apply(to: &value)
        #expect(value.objectValue?.typeName == "Circle")
        try #require(MigrationRule.renameType(from: "Round", to: "Circle").inverse).apply(to: &value)
        #expect(value.objectValue?.typeName == "Round")
        #expect(value.objectValue?.fields == ["r": 1])
        let error = archiveError { _ = try applying(.renameType(from: "A", to: "B"), to: ["x": 1]) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.rule == "renameType(A → B)")
    }

    @Test("scoped rules reach objects and name the innermost failing rule with the full path")
    func scopedFailure() {
        let rule = MigrationRule.scoped("people[*]", [.convert("age", .stringToInt)])
        var target = MigrationTarget(
            fields: ["people": [["age": "3"], object("Person", 1, ["age": "x"])]], path: "root")
        let error = archiveError { try rule.apply(to: &target) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.path.description == "root.people[1].age")
        #expect(error?.rule == "convert(age: stringToInt)")
    }

    @Test("transform closures run both ways; their errors are placed under the container's path")
    func transform() throws {
        let rule = MigrationRule.transform(
            "celsiusToKelvin",
            { target in
                guard let celsius = target.fields["t"]?.doubleValue else {
                    throw ArchiveError(.migrationFailed, "no temperature", path: "t")
                }
                target.fields["t"] = .double(celsius + 273.0)
            },
            inverse: { target in
                target.fields["t"] = .double((target.fields["t"]?.doubleValue ?? 0) - 273.0)
            })
        #expect(try applying(rule, to: ["t": 20.0]) == ["t": 293.0])
        #expect(try applying(try #require(rule.inverse), to: ["t": 293.0]) == ["t": 20.0])
        var target = MigrationTarget(fields: ["t": "hot"], path: "readings[2]")
        let error = archiveError { try rule.apply(to: &target) }
        #expect(error?.path.description == "readings[2].t")
        #expect(error?.rule == "transform(celsiusToKelvin)")

        struct Oops: Error {}
        let failing = MigrationRule.transform("oops", { _ in throw Oops() })
        var other = MigrationTarget(fields: [:], path: "x")
        let wrapped = archiveError { try failing.apply(to: &other) }
        #expect(wrapped?.code == .migrationFailed)
        #expect(wrapped?.underlyingError is Oops)
        #expect(wrapped?.path.description == "x")
    }

    @Test("applying a rule to a value that is not keyed fails")
    func applyToScalar() {
        var value: ArchiveValue = [1, 2]
        #expect(archiveError { try MigrationRule.add("a", default: 1).apply(to: &value) }?.code == .migrationFailed)
    }
}
