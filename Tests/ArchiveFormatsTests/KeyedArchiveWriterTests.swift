import Foundation
import TestSupport
import Testing

@testable import ArchiveFormats

/// Writing NSKeyedArchiver archives: what the file holds (checked on its plain property list) and
/// that our reader reads every archive our writer writes back to an identical tree.
@Suite("Keyed archives: writing")
struct KeyedArchiveWriterTests {
    // MARK: - Helpers

    static func write(_ tree: ArchiveValue, _ options: KeyedArchiveOptions = .default) throws -> Data {
        try ArchiveFormat.keyedArchive.write(tree, options: ArchiveWritingOptions(keyedArchive: options))
    }

    // MARK: - What the archive holds

    @Test("values: inline strings and numbers stored once, dates, arrays, dictionaries, NSNull")
    func valuesOnDisk() throws {
        let tree: ArchiveValue = [
            "when": .date(Date(timeIntervalSinceReferenceDate: 12.5)), "list": ["x", "x", 7, 7, 7.0, true, nil],
            "bytes": .data(Data([1, 2, 3])), "big": .uint(.max), "small": .int(.min), "nothing": nil,
        ]
        let data = try Self.write(tree)
        let (objects, top) = try KeyedArchiveFixtures.table(data)
        #expect(objects[0] == "$null")
        #expect(top.keys == ["root"])
        let root = try KeyedArchiveFixtures.entry(top["root"], in: objects)
        let rootClass = try KeyedArchiveFixtures.entry(root["$class"], in: objects)
        #expect(rootClass == ["$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]])
        let keys = try #require(root["NS.keys"]?.arrayValue).map { try KeyedArchiveFixtures.entry($0, in: objects) }
        #expect(keys == ["when", "list", "bytes", "big", "small", "nothing"])
        let values = try #require(root["NS.objects"]?.arrayValue)

        let date = try KeyedArchiveFixtures.entry(values[0], in: objects)
        #expect(date["NS.time"] == .double(12.5))
        #expect(try KeyedArchiveFixtures.entry(date["$class"], in: objects)["$classname"] == "NSDate")

        let list = try #require(try KeyedArchiveFixtures.entry(values[1], in: objects)["NS.objects"]?.arrayValue)
        #expect(list.count == 7)
        #expect(list[0] == list[1])  // equal strings share one entry
        #expect(list[2] == list[3])  // equal integers too
        #expect(list[3] != list[4] && list[3] != list[5])  // but 7, 7.0 and true stay distinct
        #expect(try KeyedArchiveFixtures.entry(list[4], in: objects) == .double(7))
        // nil cannot sit in an NSArray: null is an NSNull there.
        let null = try KeyedArchiveFixtures.entry(list[6], in: objects)
        #expect(try KeyedArchiveFixtures.entry(null["$class"], in: objects)["$classname"] == "NSNull")

        #expect(try KeyedArchiveFixtures.entry(values[2], in: objects) == .data(Data([1, 2, 3])))
        #expect(try KeyedArchiveFixtures.entry(values[3], in: objects) == .uint(.max))
        #expect(try KeyedArchiveFixtures.entry(values[4], in: objects) == .int(.min))
        let nothing = try KeyedArchiveFixtures.entry(values[5], in: objects)
        #expect(try KeyedArchiveFixtures.entry(nothing["$class"], in: objects)["$classname"] == "NSNull")

        #expect(try KeyedArchiveFixtures.read(data) == tree)
    }

    @Test("objects: class entries shared, NSObject closing an empty chain, keys escaped, nil as UID 0, versions")
    func objectsOnDisk() throws {
        let tree: ArchiveValue = [
            .object(ArchiveObject(typeName: "Circle", version: 2, fields: ["radius": 1.5, "$class": "mine", "$0": 1])),
            .object(
                ArchiveObject(
                    typeName: "Circle", version: 2,
                    fields: ["radius": 2, "label": nil, "tags": ["a"], "$$x": true])),
            .object(
                ArchiveObject(typeName: "MyApp.Square", version: nil, superclassNames: ["MyApp.Shape", "NSObject"])),
        ]
        let data = try Self.write(tree)
        let (objects, top) = try KeyedArchiveFixtures.table(data)
        let elements = try #require(try KeyedArchiveFixtures.entry(top["root"], in: objects)["NS.objects"]?.arrayValue)
        let first = try KeyedArchiveFixtures.entry(elements[0], in: objects)
        let second = try KeyedArchiveFixtures.entry(elements[1], in: objects)
        let third = try KeyedArchiveFixtures.entry(elements[2], in: objects)
        #expect(first["$class"] == second["$class"])
        #expect(
            try KeyedArchiveFixtures.entry(first["$class"], in: objects) == [
                "$classname": "Circle", "$classes": ["Circle", "NSObject"],
            ])
        #expect(
            try KeyedArchiveFixtures.entry(third["$class"], in: objects) == [
                "$classname": "MyApp.Square", "$classes": ["MyApp.Square", "MyApp.Shape", "NSObject"],
            ])
        // Numbers and Booleans inline (as encodeDouble:forKey: writes them), a string as a UID; a
        // key starting with `$` gets one more, except the generated key `$0`.
        #expect(first["radius"] == 1.5)
        #expect(try KeyedArchiveFixtures.entry(first["$$class"], in: objects) == "mine")
        #expect(first["$0"] == 1)
        #expect(second["$$$x"] == true)
        #expect(second["label"] == .reference(ArchiveObjectID(0)))
        // The version under MTLModelVersion, as an NSNumber object; none for an object without.
        #expect(try KeyedArchiveFixtures.entry(second["MTLModelVersion"], in: objects) == 2)
        #expect(third["MTLModelVersion"] == nil)
        #expect(KeyedArchiveFixtures.difference(try KeyedArchiveFixtures.read(data), tree) == nil)

        // Without versions, the objects hold exactly their fields; keys are unescaped on reading.
        let unversioned = try Self.write(tree, KeyedArchiveOptions(writesModelVersion: false))
        let (plainObjects, plainTop) = try KeyedArchiveFixtures.table(unversioned)
        let plainElements = try #require(
            try KeyedArchiveFixtures.entry(plainTop["root"], in: plainObjects)["NS.objects"]?.arrayValue)
        #expect(try KeyedArchiveFixtures.entry(plainElements[1], in: plainObjects)["MTLModelVersion"] == nil)
        let expected: ArchiveValue = [
            .object(
                ArchiveObject(typeName: "Circle", version: nil, fields: ["radius": 1.5, "$class": "mine", "$0": 1])),
            .object(
                ArchiveObject(
                    typeName: "Circle", version: nil, fields: ["radius": 2, "label": nil, "tags": ["a"], "$$x": true])),
            .object(
                ArchiveObject(typeName: "MyApp.Square", version: nil, superclassNames: ["MyApp.Shape", "NSObject"])),
        ]
        #expect(KeyedArchiveFixtures.difference(try KeyedArchiveFixtures.read(unversioned), expected) == nil)
    }

    @Test("Mantle: the version under MTLModelVersion and numbers as NSNumber objects")
    func mantleOnDisk() throws {
        let model: ArchiveValue = .object(
            ArchiveObject(typeName: "MTLTestModel", version: 1, fields: ["name": "foobar", "count": 5, "flag": true]))
        let data = try Self.write(model, .mantle)
        let (objects, top) = try KeyedArchiveFixtures.table(data)
        let entry = try KeyedArchiveFixtures.entry(top["root"], in: objects)
        #expect(try KeyedArchiveFixtures.entry(entry["MTLModelVersion"], in: objects) == 1)
        #expect(try KeyedArchiveFixtures.entry(entry["count"], in: objects) == 5)
        #expect(try KeyedArchiveFixtures.entry(entry["flag"], in: objects) == true)
        #expect(KeyedArchiveFixtures.difference(try KeyedArchiveFixtures.read(data), Self.inMantleForm(model)) == nil)

        // The same tree as a Mantle-written archive of ours reads: the generated fixture.
        let fixture = try KeyedArchiveFixtures.read("mantle/mtl-test-model-v1.plist")
        let mantle = try KeyedArchiveFixtures.read(try Self.write(fixture, .mantle))
        #expect(KeyedArchiveFixtures.difference(mantle, fixture) == nil)
        #expect(mantle.objectValue?.version == 1)
    }

    @Test("the string \"$null\" is archived as an NSString, because a \"$null\" entry means nil")
    func nullString() throws {
        let tree: ArchiveValue = ["$null": "$null", "list": ["$null", nil]]
        let data = try Self.write(tree)
        let (objects, _) = try KeyedArchiveFixtures.table(data)
        #expect(objects.dropFirst().allSatisfy { $0 != "$null" })
        #expect(KeyedArchiveFixtures.difference(try KeyedArchiveFixtures.read(data), tree) == nil)
        #expect(try KeyedArchiveFixtures.read(try Self.write("$null")) == "$null")
    }

    @Test("root key: written under the option's key and read back with it")
    func rootKeyOption() throws {
        let data = try Self.write(["a": 1], KeyedArchiveOptions(rootKey: "foundItems"))
        #expect(try KeyedArchiveFixtures.table(data).top.keys == ["foundItems"])
        #expect(throws: ArchiveError.self) { try KeyedArchiveFixtures.read(data) }
        let options = ArchiveReadingOptions(keyedArchive: KeyedArchiveOptions(rootKey: "foundItems"))
        #expect(try ArchiveFormat.keyedArchive.read(data, options: options) == ["a": 1])
    }

    // MARK: - Mantle's form

    /// `tree` as an archive in Mantle's form reads back: every object of an app's class without
    /// its null fields, and with `MTLModel`, `NSObject` as its chain when it had none.
    static func inMantleForm(_ value: ArchiveValue) -> ArchiveValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(inMantleForm))
        case .dictionary(let entries):
            var copy = ArchiveDictionary()
            for (key, element) in entries { copy.appendUnchecked(inMantleForm(element), forKey: key) }
            return .dictionary(copy)
        case .object(var object) where !object.typeName.hasPrefix("NS"):
            var fields = ArchiveDictionary()
            for (key, element) in object.fields where !element.isNull {
                fields.appendUnchecked(inMantleForm(element), forKey: key)
            }
            object.fields = fields
            if object.superclassNames.isEmpty { object.superclassNames = ["MTLModel", "NSObject"] }
            return .object(object)
        case .object(var object):
            var fields = ArchiveDictionary()
            for (key, element) in object.fields { fields.appendUnchecked(inMantleForm(element), forKey: key) }
            object.fields = fields
            return .object(object)
        default:
            return value
        }
    }

    @Test("Mantle's form: MTLTestModel is archived entry for entry as Mantle archives it")
    func mantleMatchesFixture() throws {
        let fixture = try Fixture.data("nskeyedarchiver/mantle/mtl-test-model-v1.plist")
        let model: ArchiveValue = .object(
            ArchiveObject(
                typeName: "MTLTestModel", version: 1,
                fields: ["name": "foobar", "count": 5, "nestedName": "bar", "nickname": nil]))
        let ours = try Self.write(model, KeyedArchiveOptions(mantleModels: .classes(["MTLTestModel"])))
        let (objects, top) = try KeyedArchiveFixtures.table(ours)
        let (expectedObjects, expectedTop) = try KeyedArchiveFixtures.table(fixture)
        #expect(objects == expectedObjects, "\(objects)")
        #expect(top == expectedTop)
        // What that means: MTLModelVersion first, as an NSNumber object; every number an object;
        // no key for the nil property; MTLModel in the class chain.
        let entry = try KeyedArchiveFixtures.entry(top["root"], in: objects)
        #expect(entry.dictionaryValue?.keys == ["$class", "MTLModelVersion", "name", "count", "nestedName"])
        #expect(try KeyedArchiveFixtures.entry(entry["MTLModelVersion"], in: objects) == 1)
        #expect(try KeyedArchiveFixtures.entry(entry["count"], in: objects) == 5)
        #expect(
            try KeyedArchiveFixtures.entry(entry["$class"], in: objects) == [
                "$classname": "MTLTestModel", "$classes": ["MTLTestModel", "MTLModel", "NSObject"],
            ])
        // Any other class stays in NSCoding's form.
        let other = try Self.write(model, KeyedArchiveOptions(mantleModels: .classes(["SomethingElse"])))
        let plain = try KeyedArchiveFixtures.table(other)
        let otherEntry = try KeyedArchiveFixtures.entry(plain.top["root"], in: plain.objects)
        #expect(otherEntry["count"] == 5 && otherEntry["nickname"] == .reference(ArchiveObjectID(0)))
        #expect(otherEntry.dictionaryValue?.keys.last == "MTLModelVersion")
    }

    @Test("Mantle's form per class: only the classes named, and every class read from a Mantle archive")
    func mantlePerClass() throws {
        let tree: ArchiveValue = [
            .object(ArchiveObject(typeName: "Profile", version: 3, fields: ["age": 40, "note": nil])),
            .object(ArchiveObject(typeName: "Plain", version: 1, fields: ["age": 40, "note": nil])),
            .object(
                ArchiveObject(
                    typeName: "FromMantle", version: 2, superclassNames: ["MTLModel", "NSObject"],
                    fields: ["flag": true, "note": nil])),
        ]
        let data = try Self.write(tree, KeyedArchiveOptions(mantleModels: .classes(["Profile"])))
        let (objects, top) = try KeyedArchiveFixtures.table(data)
        let elements = try #require(try KeyedArchiveFixtures.entry(top["root"], in: objects)["NS.objects"]?.arrayValue)
        let profile = try KeyedArchiveFixtures.entry(elements[0], in: objects)
        let plain = try KeyedArchiveFixtures.entry(elements[1], in: objects)
        let fromMantle = try KeyedArchiveFixtures.entry(elements[2], in: objects)
        #expect(try KeyedArchiveFixtures.entry(profile["age"], in: objects) == 40 && profile["note"] == nil)
        #expect(plain["age"] == 40 && plain["note"] == .reference(ArchiveObjectID(0)))
        #expect(try KeyedArchiveFixtures.entry(fromMantle["flag"], in: objects) == true && fromMantle["note"] == nil)
        #expect(try KeyedArchiveFixtures.entry(fromMantle["MTLModelVersion"], in: objects) == 2)
        #expect(
            KeyedArchiveFixtures.difference(
                try KeyedArchiveFixtures.read(data),
                [
                    Self.inMantleForm(tree[0]!), tree[1]!, Self.inMantleForm(tree[2]!),
                ]) == nil)
        // Foundation's own classes are never written as Mantle models.
        let all = try Self.write(
            .object(ArchiveObject(typeName: "NSValue", version: nil, fields: ["NS.special": 7])), .mantle)
        let value = try KeyedArchiveFixtures.entry(
            try KeyedArchiveFixtures.table(all).top["root"], in: try KeyedArchiveFixtures.table(all).objects)
        #expect(value["NS.special"] == 7)
    }

    @Test("random rich trees in Mantle's form read back without null fields and with MTLModel")
    func mantleRandomRoundTrips() throws {
        var generator = RichTreeGenerator(seed: 0x4D54_4C, withVersions: true)
        for round in 0..<300 {
            let tree = generator.tree()
            let again = try KeyedArchiveFixtures.read(try Self.write(tree, .mantle))
            if let difference = KeyedArchiveFixtures.difference(again, Self.inMantleForm(tree)) {
                Issue.record("round \(round): \(difference)")
                return
            }
        }
    }

    // MARK: - Envelopes

    @Test("without writesEnvelope the archive holds the root object alone and reads back as it")
    func rootOnly() throws {
        let envelope = ArchiveEnvelope(root: ["a": 1], document: "Doc", documentVersion: 3).tree
        let data = try Self.write(envelope, KeyedArchiveOptions(writesEnvelope: false))
        #expect(try KeyedArchiveFixtures.table(data).top.keys == ["root"])
        #expect(try KeyedArchiveFixtures.read(data) == ["a": 1])
    }

    @Test("written plainly, an envelope is a dictionary like any other")
    func plainEnvelope() throws {
        let envelope = ArchiveEnvelope(root: ["a": 1], document: "Doc", documentVersion: 3).tree
        let data = try ArchiveFormat.keyedArchive.write(envelope, options: ArchiveWritingOptions(markup: .plain))
        let (objects, top) = try KeyedArchiveFixtures.table(data)
        #expect(top.keys == ["root"])
        #expect(try KeyedArchiveFixtures.entry(top["root"], in: objects)["NS.keys"]?.arrayValue?.count == 4)
        #expect(try KeyedArchiveFixtures.read(data) == envelope)
        // Read plainly, an archive with the envelope in $top gives its root alone.
        let kept = try Self.write(envelope)
        #expect(try ArchiveFormat.keyedArchive.read(kept, options: ArchiveReadingOptions(markup: .plain)) == ["a": 1])
    }

    @Test("an envelope with a key of its own, or one that is no envelope, is refused with the place")
    func badEnvelopes() throws {
        let extra: ArchiveValue = ["$archive": 1, "root": 1, "note": "x"]
        let error = try #require(throws: ArchiveError.self) { try Self.write(extra) }
        #expect(error.code == .invalidValue && error.path == [.key("note")], "\(error)")
        let rootless: ArchiveValue = ["$archive": 1]
        #expect(throws: ArchiveError.self) { try Self.write(rootless) }
        // Errors inside the root name the place in the tree that was given.
        let dangling = ArchiveEnvelope(root: [.reference(ArchiveObjectID(9))]).tree
        let inside = try #require(throws: ArchiveError.self) { try Self.write(dangling) }
        #expect(inside.code == .unresolvedReference && inside.path == [.key("root"), .index(0)], "\(inside)")
    }

    // MARK: - Identity

    @Test("an object whose reference comes first is written once; reading puts it first")
    func referenceFirst() throws {
        let shared = ArchiveObject(typeName: "Node", version: nil, id: ArchiveObjectID(1), fields: ["name": "n"])
        let tree: ArchiveValue = ["a": .reference(ArchiveObjectID(1)), "b": .object(shared)]
        let data = try Self.write(tree)
        let (objects, _) = try KeyedArchiveFixtures.table(data)
        #expect(objects.filter { $0["name"] != nil }.count == 1)
        #expect(
            KeyedArchiveFixtures.difference(
                try KeyedArchiveFixtures.read(data), ["a": .object(shared), "b": .reference(ArchiveObjectID(1))]) == nil
        )
    }

    @Test("identities far apart are numbered densely; the graph stays the same")
    func sparseIdentities() throws {
        let tree: ArchiveValue = [
            .object(
                ArchiveObject(
                    typeName: "A", version: nil, id: ArchiveObjectID(1_000_000),
                    fields: ["me": .reference(ArchiveObjectID(1_000_000))])),
            .reference(ArchiveObjectID(1_000_000)),
        ]
        let data = try Self.write(tree)
        #expect(try KeyedArchiveFixtures.table(data).objects.count < 10)
        let read = try KeyedArchiveFixtures.read(data)
        let id = try #require(read[0]?.objectValue?.id)
        #expect(read[0]?["me"] == .reference(id) && read[1] == .reference(id))
    }

    struct Refusal: Sendable, CustomStringConvertible {
        let description: String
        let tree: ArchiveValue
        let code: ArchiveError.Code
        let path: ArchivePath
    }

    static let refusals: [Refusal] = [
        Refusal(
            description: "a reference to no object", tree: [.reference(ArchiveObjectID(4))], code: .unresolvedReference,
            path: [.index(0)]),
        Refusal(
            description: "two objects with one identity",
            tree: [
                "x": .object(ArchiveObject(typeName: "A", version: nil, id: 1)),
                "y": .object(ArchiveObject(typeName: "B", version: nil, id: 1)),
            ], code: .invalidValue, path: [.key("y")]),
        Refusal(
            description: "a field named MTLModelVersion",
            tree: .object(ArchiveObject(typeName: "A", version: 1, fields: ["MTLModelVersion": 1])),
            code: .invalidValue,
            path: [.key("MTLModelVersion")]),
        Refusal(
            description: "an infinite date", tree: ["d": .date(Date(timeIntervalSinceReferenceDate: .infinity))],
            code: .invalidValue, path: [.key("d")]),
    ]

    @Test("invalid trees are refused with the code and place", arguments: refusals)
    func refused(_ refusal: Refusal) throws {
        let error = try #require(throws: ArchiveError.self) { try Self.write(refusal.tree) }
        #expect(error.code == refusal.code, "\(error)")
        #expect(error.path == refusal.path, "\(error)")
    }

    @Test("nesting deeper than the limit is refused")
    func depth() throws {
        var tree: ArchiveValue = 1
        for _ in 0..<20 { tree = [tree] }
        var limits = ArchiveLimits()
        limits.maxDepth = 10
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveFormat.keyedArchive.write(tree, options: ArchiveWritingOptions(limits: limits))
        }
        #expect(error.limit == .depth)
        limits.maxDepth = 21
        #expect(
            try KeyedArchiveFixtures.read(
                try ArchiveFormat.keyedArchive.write(tree, options: ArchiveWritingOptions(limits: limits)))
                == tree)
    }

    // MARK: - Round trips

    @Test("every fixture read, written and read again gives the identical tree, identities included")
    func fixturesRoundTrip() throws {
        let root = KeyedArchiveFixtures.root
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        var count = 0
        while let path = enumerator.nextObject() as? String {
            guard !path.hasSuffix(".md"), !path.hasSuffix(".py"),
                (try? root.appendingPathComponent(path).resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile
                    == true,
                let tree = try? KeyedArchiveFixtures.read(path)  // the must-fail ones are left out
            else { continue }
            for options in [
                KeyedArchiveOptions(writesModelVersion: true), KeyedArchiveOptions(writesNumbersAsObjects: true),
            ] {
                let again = try KeyedArchiveFixtures.read(try Self.write(tree, options))
                #expect(
                    KeyedArchiveFixtures.difference(again, tree) == nil,
                    "\(path): \(KeyedArchiveFixtures.difference(again, tree) ?? "")")
            }
            let mantle = try KeyedArchiveFixtures.read(try Self.write(tree, .mantle))
            #expect(
                KeyedArchiveFixtures.difference(mantle, Self.inMantleForm(tree)) == nil,
                "\(path): \(KeyedArchiveFixtures.difference(mantle, Self.inMantleForm(tree)) ?? "")")
            count += 1
        }
        #expect(count > 95)
    }

    @Test(
        "random rich trees read back identical: shared objects, cycles, non-ASCII keys, extreme numbers",
        arguments: [
            ("default", KeyedArchiveOptions.default, true),
            ("numbers as objects", KeyedArchiveOptions(writesNumbersAsObjects: true), true),
            (
                "no versions, numbers as objects",
                KeyedArchiveOptions(writesModelVersion: false, writesNumbersAsObjects: true), false
            ),
        ])
    func randomRoundTrips(_ name: String, _ options: KeyedArchiveOptions, _ withVersions: Bool) throws {
        var generator = RichTreeGenerator(seed: 0x6B65_7965_64, withVersions: withVersions)
        var sawReference = false
        var sawCycle = false
        for round in 0..<400 {
            let tree = generator.tree()
            sawReference = sawReference || generator.referenceCount > 0
            sawCycle = sawCycle || generator.cycleCount > 0
            let data = try Self.write(tree, options)
            let again = try KeyedArchiveFixtures.read(data)
            if let difference = KeyedArchiveFixtures.difference(again, tree) {
                Issue.record("\(name) round \(round): \(difference)")
                return
            }
        }
        #expect(sawReference && sawCycle)
    }

    @Test("a large array of dictionaries reads back identical")
    func largeArchive() throws {
        var items: [ArchiveValue] = []
        for index in 0..<3000 {
            let center: ArchiveValue = ["x": .double(Double(index) * 1.5), "y": .double(-Double(index))]
            var item = ArchiveDictionary()
            item.appendUnchecked(.int(Int64(index)), forKey: "id")
            item.appendUnchecked(.string("Shape \(index)"), forKey: "title")
            item.appendUnchecked(index % 2 == 0 ? "circle" : "square", forKey: "kind")
            item.appendUnchecked(center, forKey: "center")
            item.appendUnchecked(.double(Double(index % 100) + 0.5), forKey: "radius")
            item.appendUnchecked(["a", "b"], forKey: "tags")
            item.appendUnchecked(.bool(index % 3 == 0), forKey: "visible")
            items.append(.dictionary(item))
        }
        let shapes = ArchiveValue.array(items)
        #expect(KeyedArchiveFixtures.difference(try KeyedArchiveFixtures.read(try Self.write(shapes)), shapes) == nil)
    }
}

/// Random trees in the reader's canonical form: every identity is used by a later reference
/// (in depth-first order) or none, and references point only to objects met earlier, including
/// the objects around them (cycles).
struct RichTreeGenerator {
    var random: SplitMix64
    let withVersions: Bool
    private var nextID = 1
    private var defined: [Int] = []
    private var open: Set<Int> = []
    private var referenced: Set<Int> = []
    private(set) var referenceCount = 0
    private(set) var cycleCount = 0

    init(seed: UInt64, withVersions: Bool) {
        random = SplitMix64(seed: seed)
        self.withVersions = withVersions
    }

    static let strings: [String] = [
        "", "plain", "$null", "$class", "$$x", "Åbenraa", "日本語のテキスト", "🎉 party", "e\u{301}", "é", "nul\u{0}byte",
        "line\nbreak", String(repeating: "long ", count: 40),
    ]
    static let keys: [String] = ["a", "b", "$null", "$key", "$$key", "", "ключ", "🎉", "NS.keys", "$0", "$12", "é"]
    static let fieldKeys: [String] = [
        "name", "$class", "$weird", "$$double", "$0", "$7", "ключ", "", "NS.objects", "x",
    ]
    static let typeNames: [String] = ["Circle", "MyApp.Model", "Ünïcode", "crap.Foo"]
    static let chains: [[String]] = [[], ["Shape"], ["Base", "NSObject"], ["A", "B"]]

    mutating func tree() -> ArchiveValue {
        nextID = 1
        defined = []
        open = []
        referenced = []
        referenceCount = 0
        cycleCount = 0
        var root = value(depth: 0, allowsReference: false)
        Self.removeUnusedIdentities(&root, keeping: referenced)
        return root
    }

    private mutating func pick<T>(_ values: [T]) -> T {
        values[Int(random.next() % UInt64(values.count))]
    }

    private mutating func count(_ maximum: Int) -> Int {
        Int(random.next() % UInt64(maximum + 1))
    }

    private mutating func value(depth: Int, allowsReference: Bool = true) -> ArchiveValue {
        let choice = Int(random.next() % (depth >= 5 ? 9 : 14))
        switch choice {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .int(pick([0, 1, -1, .min, .max, Int64(bitPattern: random.next())]))
        case 3: return ArchiveValue(pick([UInt64.max, UInt64(Int64.max) + 1, random.next()]))
        case 4:
            let bits = Double(bitPattern: random.next())
            let choices: [Double] = [
                0.1, -0.0, .nan, .infinity, -.infinity, 1e300, .leastNonzeroMagnitude, bits.isFinite ? bits : 2.5,
            ]
            return .double(pick(choices))
        case 5: return .string(pick(Self.strings))
        case 6: return .data(Data((0..<count(20)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case 7:
            let seconds = Double(Int64(bitPattern: random.next() % 4_000_000_000)) + Double(random.next() % 1000) / 1000
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 8:
            guard allowsReference, !defined.isEmpty else { return .string("no reference yet") }
            let id = pick(defined)
            referenced.insert(id)
            referenceCount += 1
            if open.contains(id) { cycleCount += 1 }
            return .reference(ArchiveObjectID(id))
        case 9, 10:
            return .array((0..<count(4)).map { _ in value(depth: depth + 1) })
        case 11:
            var dictionary = ArchiveDictionary()
            for _ in 0..<count(4) {
                let key = pick(Self.keys)
                // "é" and "e\u{301}" are one key to Swift: keep one of each.
                guard dictionary.index(forKey: key) == nil else { continue }
                dictionary.appendUnchecked(value(depth: depth + 1), forKey: key)
            }
            return .dictionary(dictionary)
        default:
            let id = nextID
            nextID += 1
            defined.append(id)
            open.insert(id)
            var fields = ArchiveDictionary()
            for _ in 0..<count(4) {
                let key = pick(Self.fieldKeys)
                guard fields.index(forKey: key) == nil else { continue }
                fields.appendUnchecked(value(depth: depth + 1), forKey: key)
            }
            open.remove(id)
            return .object(
                ArchiveObject(
                    typeName: pick(Self.typeNames), version: withVersions && random.next() % 4 != 0 ? count(9) : nil,
                    id: ArchiveObjectID(id), superclassNames: pick(Self.chains), fields: fields))
        }
    }

    /// Drops the identities no reference uses (the reader writes none for them).
    static func removeUnusedIdentities(_ value: inout ArchiveValue, keeping referenced: Set<Int>) {
        switch value {
        case .array(let elements):
            value = .array(
                elements.map { element in
                    var element = element
                    removeUnusedIdentities(&element, keeping: referenced)
                    return element
                })
        case .dictionary(let dictionary):
            var copy = ArchiveDictionary()
            for (key, element) in dictionary {
                var element = element
                removeUnusedIdentities(&element, keeping: referenced)
                copy.appendUnchecked(element, forKey: key)
            }
            value = .dictionary(copy)
        case .object(var object):
            if let id = object.id, !referenced.contains(id.rawValue) { object.id = nil }
            var fields = object.fields
            removeUnusedIdentities(&fields, keeping: referenced)
            object.fields = fields
            value = .object(object)
        default:
            break
        }
    }

    private static func removeUnusedIdentities(_ fields: inout ArchiveDictionary, keeping referenced: Set<Int>) {
        var value = ArchiveValue.dictionary(fields)
        removeUnusedIdentities(&value, keeping: referenced)
        fields = value.dictionaryValue ?? fields
    }
}
