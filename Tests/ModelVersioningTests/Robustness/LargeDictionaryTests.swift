import Foundation
import MigrationRules
import Testing

@testable import ModelVersioning

/// What an `ArchiveDictionary` should hold: entries in order, keys identified by their exact
/// scalars.
private struct ReferenceDictionary {
    var keys: [String] = []
    var values: [ExactString: ArchiveValue] = [:]

    func position(of key: String) -> Int? {
        keys.firstIndex { $0.hasSameScalars(as: key) }
    }

    mutating func set(_ value: ArchiveValue?, forKey key: String) {
        if let value {
            if values.updateValue(value, forKey: ExactString(key)) == nil { keys.append(key) }
        } else if let position = position(of: key) {
            keys.remove(at: position)
            values[ExactString(key)] = nil
        }
    }

    mutating func insert(_ value: ArchiveValue, forKey key: String, at position: Int) {
        set(nil, forKey: key)
        keys.insert(key, at: max(0, min(position, keys.count)))
        values[ExactString(key)] = value
    }

    mutating func rename(_ old: String, to new: String) -> Bool {
        guard var position = position(of: old) else { return false }
        if old.hasSameScalars(as: new) { return true }
        if let existing = self.position(of: new) {
            keys.remove(at: existing)
            if existing < position { position -= 1 }
        }
        let value = values.removeValue(forKey: ExactString(old))
        keys[position] = new
        values[ExactString(new)] = value
        return true
    }
}

/// Checks `dictionary` against `reference`: the same entries in the same order, every key found
/// where it is (from the start and from every hint), an absent key not found, and an index that
/// agrees with the entries.
private func expectSame(
    _ dictionary: ArchiveDictionary, _ reference: ReferenceDictionary, absent: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(dictionary.keyIndexIsConsistent, sourceLocation: sourceLocation)
    guard dictionary.count == reference.keys.count else {
        Issue.record("\(dictionary.count) entries, expected \(reference.keys.count)", sourceLocation: sourceLocation)
        return
    }
    #expect(
        dictionary.keys.map { Array($0.utf8) } == reference.keys.map { Array($0.utf8) },
        sourceLocation: sourceLocation)
    for (position, key) in reference.keys.enumerated() {
        #expect(dictionary.index(forKey: key) == position, sourceLocation: sourceLocation)
        #expect(dictionary.value(at: position) == reference.values[ExactString(key)], sourceLocation: sourceLocation)
        let hint = (position * 7) % (reference.keys.count + 1)
        #expect(dictionary.index(forKey: key, startingAt: hint) == position, sourceLocation: sourceLocation)
    }
    for key in absent where reference.position(of: key) == nil {
        #expect(dictionary.index(forKey: key) == nil, sourceLocation: sourceLocation)
    }
}

/// Keys that include pairs differing only by normalization, so that a look-up by canonical
/// equivalence would find the wrong one.
private func keyPool(_ count: Int) -> [String] {
    (0..<count).map { index in
        switch index % 4 {
        case 0: return "k\(index / 4)"
        case 1: return "caf\u{E9}\(index / 4)"
        case 2: return "cafe\u{301}\(index / 4)"
        default: return index % 8 == 3 ? "\u{212B}\(index / 4)" : "\u{C5}\(index / 4)"
        }
    }
}

@Suite("Large dictionaries")
struct LargeDictionaryTests {
    @Test("random edits agree with a reference, growing past the index threshold and shrinking below it")
    func randomEdits() {
        var random = SplitMix64(seed: 0x5EED_0001)
        let pool = keyPool(400)
        var dictionary = ArchiveDictionary()
        var reference = ReferenceDictionary()
        var snapshots: [(ArchiveDictionary, ReferenceDictionary)] = []
        // Grow to about 150 keys, shrink to a handful, grow again, shrink again.
        let targets = [150, 4, 120, 10, 60]
        var step = 0
        for (phase, target) in targets.enumerated() {
            var rounds = 0
            while (reference.keys.count < target) == phase.isMultiple(of: 2) && rounds < 2_000 {
                rounds += 1
                step += 1
                let growing = reference.keys.count < target
                let key = pool[Int.random(in: 0..<pool.count, using: &random)]
                let value = ArchiveValue.int(Int64(step))
                switch Int.random(in: 0..<10, using: &random) {
                case 0...3:
                    if growing {
                        dictionary[key] = value
                        reference.set(value, forKey: key)
                    } else if let victim = reference.keys.randomElement(using: &random) {
                        dictionary[victim] = nil
                        reference.set(nil, forKey: victim)
                    }
                case 4:
                    let existing = reference.keys.randomElement(using: &random) ?? key
                    #expect(dictionary.removeValue(forKey: existing) == reference.values[ExactString(existing)])
                    reference.set(nil, forKey: existing)
                case 5, 6:
                    let position = Int.random(in: 0...reference.keys.count + 1, using: &random)
                    dictionary.insert(value, forKey: key, at: position)
                    reference.insert(value, forKey: key, at: position)
                    if !growing, let victim = reference.keys.randomElement(using: &random) {
                        dictionary[victim] = nil
                        reference.set(nil, forKey: victim)
                    }
                case 7, 8:
                    let old = reference.keys.randomElement(using: &random) ?? key
                    #expect(dictionary.renameKey(old, to: key) == reference.rename(old, to: key))
                default:
                    if step.isMultiple(of: 2) {
                        // What an `add` rule does: append unless present, in one probe when indexed.
                        let absent = reference.position(of: key) == nil
                        #expect(dictionary.appendIfAbsent(value, forKey: key) == absent)
                        if absent { reference.set(value, forKey: key) }
                    } else if reference.position(of: key) == nil {
                        dictionary.appendUnchecked(value, forKey: key)
                        reference.set(value, forKey: key)
                    } else {
                        dictionary.updateValue(value, forKey: key)
                        reference.set(value, forKey: key)
                    }
                }
                if step % 97 == 0 { snapshots.append((dictionary, reference)) }
                if step % 13 == 0 { expectSame(dictionary, reference, absent: pool) }
            }
            expectSame(dictionary, reference, absent: pool)
        }
        // Copies taken along the way were never changed by the edits that followed.
        #expect(!snapshots.isEmpty)
        for (copy, expected) in snapshots {
            expectSame(copy, expected, absent: pool)
        }
    }

    @Test("equality, hashing and repeated keys do not depend on order, whatever the size", arguments: [10, 33, 1_000])
    func equalityAndHashing(count: Int) {
        var random = SplitMix64(seed: UInt64(count))
        let pool = keyPool(count)
        let forward = ArchiveDictionary(pool.enumerated().map { ($0.element, .int(Int64($0.offset))) })
        let shuffled = ArchiveDictionary(
            pool.enumerated().shuffled(using: &random).map { ($0.element, .int(Int64($0.offset))) })
        #expect(forward.count == count)
        #expect(forward == shuffled)
        #expect(forward.hashValue == shuffled.hashValue)
        var changed = shuffled
        changed[pool[count / 2]] = .int(-1)
        #expect(forward != changed)
        #expect(forward.firstDuplicateKey() == nil)
        let repeated = ArchiveDictionary(
            uniqueStoredEntries: (pool + [pool[count / 3]]).map { ArchiveDictionary.Entry(key: $0, value: .null) })
        #expect(repeated.firstDuplicateKey().map { Array($0.utf8) } == Array(pool[count / 3].utf8))
        #expect(repeated.index(forKey: pool[count / 3]) == count / 3)
        #expect(repeated.keyIndexIsConsistent)
    }

    @Test("a dictionary with a repeated key keeps finding the first, through every edit")
    func repeatedKeys() {
        var dictionary = ArchiveDictionary(
            uniqueStoredEntries: (keyPool(50) + ["k3", "k3"]).map { ArchiveDictionary.Entry(key: $0, value: .null) })
        #expect(dictionary.firstDuplicateKey() == "k3")
        #expect(dictionary.index(forKey: "k3") == 12)
        dictionary.appendUnchecked(1, forKey: "k3")
        #expect(dictionary.keyIndexIsConsistent)
        dictionary.removeValue(forKey: "k3")
        #expect(dictionary.index(forKey: "k3") == 49)
        #expect(dictionary.keyIndexIsConsistent)
        let renamed = dictionary.renameKey("k3", to: "k4")
        #expect(renamed)
        #expect(dictionary.keyIndexIsConsistent)
    }

    @Test("rules edit indexed dictionaries consistently")
    func rulesOnIndexedDictionaries() throws {
        let keys = (0..<80).map { "f\($0)" }
        var fields = ArchiveDictionary(keys.map { ($0, ArchiveValue.string($0)) })
        fields["f1"] = []
        let rules: [MigrationRule] = [
            .rename("f3", to: "g3"), .remove("f10"), .add("new", default: 1), .nest(["f20", "f5", "f70"], into: "box"),
            .hoist(["f20"], from: "box"), .split("f30", into: ["a", "b"], separator: "3"),
            .merge(["f40", "f60"], into: "joined", separator: "+"), .move("f50", to: "deep.inner"),
            .takeFirst("f1"), .rename("f79", to: "caf\u{E9}"), .rename("f78", to: "cafe\u{301}"),
        ]
        var target = MigrationTarget(fields: fields)
        for rule in rules {
            try rule.apply(to: &target)
            #expect(target.fields.keyIndexIsConsistent, "\(rule)")
            for (position, key) in target.fields.keys.enumerated() {
                #expect(target.fields.index(forKey: key) == position, "\(rule): \(key)")
            }
        }
        #expect(target.fields["g3"] == "f3")
        #expect(target.fields["f10"] == nil)
        #expect(target.fields["box"]?["f5"] == "f5")
        #expect(target.fields["f20"] == "f20")
        #expect(target.fields["a"] == "f" && target.fields["b"] == "0")
        #expect(target.fields["joined"] == "f40+f60")
        #expect(target.fields["deep"]?["inner"] == "f50")
        #expect(target.fields["caf\u{E9}"] == "f79" && target.fields["cafe\u{301}"] == "f78")
        // Shrinking below the threshold drops the index and keeps every entry.
        for key in target.fields.keys.dropFirst(3) { try MigrationRule.remove(key).apply(to: &target) }
        #expect(target.fields.count == 3 && target.fields.keyIndexIsConsistent)
    }

    @Test("a step with many add rules adds every key once, in order")
    func manyAddRules() throws {
        let count = 20_000
        // Every other key differs from the one before only by normalization.
        let keys = (0..<count).map { $0.isMultiple(of: 2) ? "caf\u{E9}\($0 / 2)" : "cafe\u{301}\($0 / 2)" }
        let rules = (keys + keys.prefix(10)).enumerated().map {
            MigrationRule.add($0.element, default: .int(Int64($0.offset)))
        }
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(typeName: "Wide", currentVersion: 2, steps: [MigrationStep(from: 1, to: 2, rules: rules)])
        ])
        var tree = ArchiveValue.object(ArchiveObject(typeName: "Wide", version: 1, fields: [keys[7]: "kept"]))
        _ = try MigrationPass(catalog: catalog).upgrade(&tree)
        guard case .object(let object) = tree else {
            Issue.record("expected an object")
            return
        }
        #expect(object.version == 2)
        #expect(object.fields.count == count)
        #expect(object.fields[keys[7]] == "kept")
        #expect(object.fields[keys[8]] == 8)
        #expect(object.fields.keys.dropFirst().first.map { Array($0.utf8) } == Array(keys[0].utf8))
        #expect(object.fields.keyIndexIsConsistent)
    }

    @Test("a run of add rules appends exactly what one add after another would, at every size and with repeated keys")
    func batchedAddsMatchOneAtATime() {
        var random = SplitMix64(seed: 0xADD5)
        let pool = keyPool(600)
        for trial in 0..<60 {
            // A dictionary of 0 to 80 entries (some with a key repeated, as a reader builds before
            // rejecting it), then a run of 2 to 300 adds, some of keys it has or repeats.
            let existing = Int(random.next() % 81)
            var entries: [ArchiveDictionary.Element] = (0..<existing).map { (pool[$0], .int(Int64($0))) }
            if trial % 5 == 0 && existing > 2 { entries.append((pool[1], "repeat")) }
            let dictionary = ArchiveDictionary(uniqueEntries: entries)
            let added: [(key: String, value: ArchiveValue)] = (0..<Int(2 + random.next() % 299)).map { _ in
                (pool[Int(random.next() % UInt64(pool.count))], .int(Int64(random.next() % 1000)))
            }
            var oneByOne = dictionary
            for (key, value) in added { oneByOne.appendIfAbsent(value, forKey: key) }
            var batched = dictionary
            var valuesRead = 0
            batched.appendIfAbsent(
                count: added.count + 1, key: { $0 < added.count ? added[$0].key : nil },
                value: {
                    valuesRead += 1
                    return added[$0].value
                })
            #expect(batched.keys.map { Array($0.utf8) } == oneByOne.keys.map { Array($0.utf8) }, "trial \(trial)")
            #expect(batched.values.elementsEqual(oneByOne.values), "trial \(trial)")
            #expect(batched.keyIndexIsConsistent, "trial \(trial)")
            #expect(valuesRead == batched.count - dictionary.count, "values are read for added keys only")
            #expect(dictionary.count == entries.count, "the original is not changed (trial \(trial))")
        }
    }

    @Test(
        "the diff of large objects equals a reference diff: random edits, any key order, keys in other storage",
        arguments: [(40, 300, 40), (4_096, 6_000, 12)])
    func largeDiffMatchesReference(smallest: Int, spread: Int, trials: Int) {
        var random = SplitMix64(seed: 0xD1FF2)
        let shortPool = keyPool(smallest + spread + 20)
        // Keys of more than 15 UTF-8 bytes live in storage of their own: the second object's
        // copies have the same scalars in other storage, so they are told equal by their
        // scalars, never by their bits.
        let longPool = shortPool.map { $0 + " and more than fifteen bytes" }
        for trial in 0..<trials {
            let storedApart = trial % 4 >= 2
            let pool = storedApart ? longPool : shortPool
            let count = smallest + Int(random.next() % UInt64(spread))
            let old = ArchiveDictionary(
                pool.prefix(count).enumerated().map { offset, key in
                    (key, offset % 9 == 0 ? ["inner": .int(Int64(offset))] : .int(Int64(offset)))
                })
            // Values changed (some to or from containers), keys removed and added, then an order
            // that keeps runs of keys in place or shuffles them all.
            var edited: [ArchiveDictionary.Element] = old.map { key, value in
                (storedApart ? String(decoding: Array(key.utf8), as: UTF8.self) : key, value)
            }.filter { _ in random.next() % 10 != 0 }
            for index in edited.indices where random.next() % 7 == 0 {
                edited[index].value = random.next() % 2 == 0 ? .string("changed") : ["inner": "changed"]
            }
            edited += pool[count..<(count + Int(random.next() % 20))].map { ($0, .bool(true)) }
            if trial % 2 == 0 {
                edited.shuffle(using: &random)
            } else if edited.count > 10 {
                edited.swapAt(3, edited.count - 2)
            }
            let new = ArchiveDictionary(uniqueEntries: edited)
            var options = ArchiveDiff.Options()
            options.limit = 10_000
            let differences = ArchiveDiff.differences(from: .dictionary(old), to: .dictionary(new), options: options)
            // The reference: `old`'s keys in order (changed, nested or removed), then `new`'s others.
            var expected: [(ArchivePath, ArchiveDifference.Kind)] = []
            for (key, value) in old {
                guard let other = new[key] else {
                    expected.append(([.key(key)], .removed))
                    continue
                }
                if case .dictionary = value, case .dictionary = other {
                    if value != other { expected.append(([.key(key), .key("inner")], .changed)) }
                } else if value != other {
                    expected.append(([.key(key)], .changed))
                }
            }
            for (key, _) in new where old[key] == nil { expected.append(([.key(key)], .added)) }
            #expect(differences.map(\.path) == expected.map(\.0), "trial \(trial)")
            #expect(differences.map(\.kind) == expected.map(\.1), "trial \(trial)")
            // A limit keeps the first differences.
            options.limit = max(1, expected.count / 2)
            let first = ArchiveDiff.differences(from: .dictionary(old), to: .dictionary(new), options: options)
            #expect(first.map(\.path) == Array(differences.prefix(options.limit)).map(\.path), "trial \(trial)")
        }
    }

    @Test("the diff of large objects finds every change, whatever the key order")
    func largeDiff() {
        var random = SplitMix64(seed: 0xD1FF)
        let count = 20_000
        let keys = keyPool(count)
        let old = ArchiveDictionary(keys.enumerated().map { ($0.element, .int(Int64($0.offset))) })
        var new = ArchiveDictionary(
            keys.enumerated().shuffled(using: &random).map { ($0.element, .int(Int64($0.offset))) })
        new[keys[11]] = "changed"
        new[keys[12]] = nil
        new["added"] = true
        let differences = ArchiveDiff.differences(from: .dictionary(old), to: .dictionary(new))
        #expect(differences.map(\.kind) == [.changed, .removed, .added])
        #expect(differences.map(\.path) == [[.key(keys[11])], [.key(keys[12])], [.key("added")]])
        #expect(ArchiveDiff.differences(from: .dictionary(old), to: .dictionary(old)).isEmpty)
    }

    @Test("readers reject a repeated key in a large object and keep keys that differ only by normalization")
    func largeObjectsInReaders() throws {
        let keys = keyPool(200)
        let text = "{" + keys.enumerated().map { "\"\($0.element)\":\($0.offset)" }.joined(separator: ",") + "}"
        let tree = try ArchiveFormat.json.read(Data(text.utf8))
        #expect(tree.keyedEntries?.count == 200)
        #expect(tree.keyedEntries?.keyIndexIsConsistent == true)
        let repeated = String(text.dropLast()) + ",\"cafe\u{301}7\":0}"
        let error = try #require(throws: ArchiveError.self) { try ArchiveFormat.json.read(Data(repeated.utf8)) }
        #expect(error.code == .malformedInput)
        #expect(error.message.contains("'cafe\u{301}7'"))
        for format in [ArchiveFormat.xmlPropertyList, .binaryPropertyList, .keyedArchive] {
            #expect(try format.read(try format.write(tree)) == tree, "\(format)")
        }
    }
}
