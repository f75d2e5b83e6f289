import MigrationRules
import Testing

/// Rules over many keys take time linear in them: `nest`, `hoist` and `merge` edit their
/// container in one pass, and a run of `move` and `remove` rules on a large object runs on a
/// linked list of its entries. These tests pin what they do (order included) to what the rules
/// do one key at a time; `archive-bench --many-keys` shows the time.
@Suite("Rules over many keys")
struct KeyListRuleTests {
    /// Whether `a` and `b` are equal with their keys in the same order (`==` ignores order).
    static func sameInOrder(_ a: ArchiveValue, _ b: ArchiveValue) -> Bool {
        switch (a, b) {
        case (.dictionary(let x), .dictionary(let y)):
            return x.keys == y.keys && zip(x.values, y.values).allSatisfy { sameInOrder($0, $1) }
        case (.object(let x), .object(let y)):
            return x.typeName == y.typeName && x.version == y.version
                && sameInOrder(.dictionary(x.fields), .dictionary(y.fields))
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameInOrder($0, $1) }
        default:
            return a == b
        }
    }

    @Test("merge removes a part named twice once, and nothing after it")
    func mergeOfARepeatedPart() throws {
        let merged = try applying(.merge(["a", "a"], into: "n", separator: " "), to: ["a": "x", "b": "y", "c": "z"])
        #expect(Self.sameInOrder(.dictionary(merged), ["n": "x x", "b": "y", "c": "z"]))
    }

    @Test("nest puts a new container where the first key listed was, and moves a key listed twice once")
    func nestPlacesItsContainer() throws {
        let nest = MigrationRule.nest(["y", "x", "y", "box"], into: "box")
        let fields: ArchiveDictionary = ["x": 1, "id": 7, "y": 2, "r": 3]
        #expect(
            Self.sameInOrder(.dictionary(try applying(nest, to: fields)), ["id": 7, "box": ["y": 2, "x": 1], "r": 3]))
        // A null container goes; the new one takes the first listed key's place.
        let withNull: ArchiveDictionary = ["box": nil, "x": 1, "y": 2]
        #expect(Self.sameInOrder(.dictionary(try applying(nest, to: withNull)), ["box": ["y": 2, "x": 1]]))
        // An existing object takes the keys at the end of its fields.
        let withObject: ArchiveDictionary = ["x": 1, "box": object("Box", 1, ["w": 0]), "y": 2]
        #expect(
            Self.sameInOrder(
                .dictionary(try applying(nest, to: withObject)), ["box": object("Box", 1, ["w": 0, "y": 2, "x": 1])]))
        let clash = archiveError { _ = try applying(nest, to: ["x": 1, "box": ["x": 0]]) }
        #expect(clash?.message == "the key 'box.x' already exists")
    }

    @Test("hoist puts the keys in front of their container, in the order listed, and removes an emptied dictionary")
    func hoistPlacesItsKeys() throws {
        let hoist = MigrationRule.hoist(["y", "x", "y"], from: "box")
        let fields: ArchiveDictionary = ["id": 7, "box": ["x": 1, "z": 0, "y": 2], "r": 3]
        #expect(
            Self.sameInOrder(
                .dictionary(try applying(hoist, to: fields)), ["id": 7, "y": 2, "x": 1, "box": ["z": 0], "r": 3]))
        #expect(Self.sameInOrder(.dictionary(try applying(hoist, to: ["box": ["x": 1, "y": 2]])), ["y": 2, "x": 1]))
        let kept = try applying(hoist, to: ["box": object("Box", 1, ["x": 1])])
        #expect(Self.sameInOrder(.dictionary(kept), ["x": 1, "box": object("Box", 1)]))
        let clash = archiveError { _ = try applying(hoist, to: ["box": ["x": 1, "y": 2], "x": 0]) }
        #expect(clash?.message == "the key 'x' already exists")
    }

    @Test("a nest of 100,000 keys and a hoist of them back give the object as it was; a merge of as many joins them")
    func manyKeysThereAndBack() throws {
        let keys = (0..<100_000).map { "field\($0)" }
        var fields = ArchiveDictionary(keys.enumerated().map { ($1, .int(Int64($0))) })
        fields["id"] = 1
        let nested = try applying(.nest(keys, into: "group"), to: fields)
        #expect(nested.keys == ["group", "id"])
        #expect(nested["group"]?.keyedEntries?.keys == keys)
        let back = try applying(.hoist(keys, from: "group"), to: nested)
        #expect(Self.sameInOrder(.dictionary(back), .dictionary(fields)))
        let texts = ArchiveDictionary(keys.map { ($0, ArchiveValue.string("v")) })
        let merged = try applying(.merge(keys, into: "all", separator: ","), to: texts)
        #expect(merged.keys == ["all"])
        #expect(merged["all"]?.stringValue?.utf8.count == 2 * keys.count - 1)
    }

    @Test(
        "a large dictionary finds a list of keys (in order, shuffled, absent, repeated) where a look-up of each does",
        arguments: 0..<20)
    func positionsOfKeys(seed: Int) {
        var generator = Generator(state: UInt64(seed) &* 104_729 &+ 1)
        let count = [5, 40, 3_000][seed % 3]
        var entries = (0..<count).map { ArchiveDictionary.Entry(key: "k\($0)", value: .int(Int64($0))) }
        if seed % 4 == 3 {
            // A repeated key, as a reader builds a dictionary before rejecting it.
            entries.append(ArchiveDictionary.Entry(key: "k\(generator.next(count))", value: nil))
        }
        let dictionary = ArchiveDictionary(uniqueStoredEntries: entries)
        var keys = (0..<count).map { "k\($0)" }
        for position in keys.indices where generator.next(5) == 0 {
            keys[position] = generator.next(2) == 0 ? "absent\(position)" : keys[generator.next(count)]
        }
        if seed % 2 == 1 {
            for position in keys.indices.reversed() { keys.swapAt(position, generator.next(position + 1)) }
        }
        let expected = keys.map { dictionary.index(forKey: $0) ?? -1 }
        #expect(dictionary.positions(ofKeys: keys) == expected)
    }

    @Test("nest, hoist and merge of many keys listed in any order, some absent or twice, do what they do on a few")
    func manyKeysInAnyOrder() throws {
        var generator = Generator(state: 31)
        let names = (0..<5_000).map { "f\($0)" }
        var fields = ArchiveDictionary(names.enumerated().map { ($1, .string("v\($0)")) })
        fields.insert(.dictionary(["inner": 1]), forKey: "box", at: 2_500)
        var listed = names.filter { _ in generator.next(3) != 0 }
        for position in listed.indices.reversed() { listed.swapAt(position, generator.next(position + 1)) }
        listed.insert("missing", at: 10)
        listed.append(listed[20])
        var present: [String] = []
        for key in listed where fields[key] != nil && !present.contains(key) { present.append(key) }
        let presentSet = Set(present)

        // Into a new container, in the place of the first key listed.
        let nested = try applying(.nest(listed, into: "group"), to: fields)
        let first = try #require(fields.keys.firstIndex(of: present[0]))
        var expectedKeys = fields.keys.enumerated().filter { !presentSet.contains($1) || $0 == first }.map(\.1)
        expectedKeys[expectedKeys.firstIndex(of: present[0]) ?? 0] = "group"
        #expect(nested.keys == expectedKeys)
        #expect(nested["group"]?.keyedEntries?.keys == present)
        #expect(present.allSatisfy { nested["group"]?.keyedEntries?[$0] == fields[$0] })

        // Into an existing one, at its end; and back out, in front of it.
        let boxed = try applying(.nest(listed, into: "box"), to: fields)
        #expect(boxed["box"]?.keyedEntries?.keys == ["inner"] + present)
        let hoisted = try applying(.hoist(listed, from: "box"), to: boxed)
        let box = try #require(hoisted.keys.firstIndex(of: "box"))
        #expect(Array(hoisted.keys[box - present.count..<box]) == present)
        #expect(hoisted["box"]?.keyedEntries?.keys == ["inner"])
        #expect(Set(hoisted.keys) == Set(fields.keys))

        // A hoist whose key is already outside is refused, naming the first such key listed.
        var crowded = boxed
        crowded[present[7]] = 0
        crowded[present[5]] = 0
        let clash = archiveError { _ = try applying(.hoist(listed, from: "box"), to: crowded) }
        #expect(clash?.message == "the key '\(present[5])' already exists")

        // A merge joins the parts in the order listed, a part listed twice twice.
        let merged = try applying(.merge(listed, into: "all", separator: " "), to: fields)
        let texts = listed.compactMap { fields[$0]?.stringValue }
        #expect(merged["all"]?.stringValue == texts.joined(separator: " "))
        #expect(merged.count == fields.count - present.count + 1)
    }

    // MARK: Runs of move and remove rules

    /// A deterministic generator for the comparison below.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    static let names = ["a", "b", "c", "d", "e", "f", "g", "h"]

    /// A value for a key: mostly numbers, sometimes a dictionary or an object of a few of the
    /// same names, a null, or a string.
    static func value(_ generator: inout Generator, depth: Int) -> ArchiveValue {
        switch generator.next(depth > 1 ? 4 : 8) {
        case 0: return nil
        case 1: return "s"
        case 4, 5:
            var entries = ArchiveDictionary()
            for _ in 0..<generator.next(4) {
                entries[names[generator.next(names.count)]] = value(&generator, depth: depth + 1)
            }
            return .dictionary(entries)
        case 6:
            var fields = ArchiveDictionary()
            for _ in 0..<generator.next(3) {
                fields[names[generator.next(names.count)]] = value(&generator, depth: depth + 1)
            }
            return object("O", 1, fields)
        default: return .int(Int64(generator.next(100)))
        }
    }

    static func path(_ generator: inout Generator) -> ArchivePath {
        ArchivePath((0...generator.next(3)).map { _ in .key(names[generator.next(names.count)]) })
    }

    @Test(
        "a run of move and remove rules on a large object does what they do one at a time, order and errors included",
        arguments: 0..<200)
    func runsOnALargeObject(seed: Int) throws {
        var generator = Generator(state: UInt64(seed) &* 7_919)
        var fields = ArchiveDictionary()
        // More than 32 entries, so that the pass runs them on a list; the short names above
        // are among them, so that rules meet each other's keys.
        for index in 0..<40 { fields["k\(index)"] = .int(Int64(index)) }
        for name in Self.names where generator.next(3) != 0 {
            fields.insert(Self.value(&generator, depth: 0), forKey: name, at: generator.next(fields.count + 1))
        }
        let rules: [MigrationRule] = (0..<(2 + generator.next(30))).map { _ in
            generator.next(4) == 0
                ? .remove(Self.names[generator.next(Self.names.count)])
                : .move(Self.path(&generator), to: Self.path(&generator))
        }

        var oneByOne = MigrationTarget(fields: fields)
        let expectedError = archiveError { for rule in rules { try rule.apply(to: &oneByOne) } }

        let catalog = try MigrationCatalog(types: [
            TypeMigrations(typeName: "T", currentVersion: 2, steps: [MigrationStep(from: 1, to: 2, rules: rules)])
        ])
        var tree = object("T", 1, fields)
        let error = archiveError { try MigrationPass(catalog: catalog).upgrade(&tree) }
        #expect(error?.message == expectedError?.message, "\(rules)")
        #expect(error?.path == expectedError?.path, "\(rules)")
        #expect(error?.rule == expectedError?.rule, "\(rules)")
        if expectedError == nil {
            let result = try #require(tree.objectValue?.fields)
            #expect(Self.sameInOrder(.dictionary(result), .dictionary(oneByOne.fields)), "\(rules)")
        }
    }
}
