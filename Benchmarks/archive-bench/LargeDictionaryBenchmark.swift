import Foundation
import ModelVersioning

/// Objects with very many keys: the diff of two such objects, and migration steps whose rules
/// take every key (one `add`, `move` or `remove` rule per key; one `nest`, `hoist` or `merge`
/// rule of all of them), in time per key at each size. Linear work gives the same time per key
/// at every size; a key look-up that scans its dictionary, or a removal that moves every entry
/// after it, would make it grow with the size.
enum LargeDictionaryBenchmark {
    /// The cases, by the name their rows and JSON keys use. The last two are the standard
    /// library's `Dictionary` with the same keys, hashed the same way (`ExactString`), doing the
    /// core of the two cases above them: what this machine's memory makes of a hash table's
    /// random reads and fresh memory at each size, beside which to read ours.
    static let cases = [
        "diff", "diff, keys shuffled", "add rules", "nest rule", "hoist rule", "move rules", "remove rules",
        "merge rule", "Swift Dictionary look-ups, keys shuffled", "Swift Dictionary inserts",
    ]

    /// Nanoseconds per key, per case and size.
    ///
    /// The sizes of a case are timed in turns (rounds of about 20 ms per size, for at least half
    /// a second per size): this machine has slow spells lasting seconds (a run of a size timed
    /// alone once came out 60% slower than the same size a minute later), and a spell that falls
    /// on one size alone would read as time per key growing, or shrinking, with the size. In turns,
    /// a spell slows every size alike, and each size's median leaves it out.
    static func run(
        sizes: [Int], cases: [String] = cases, runs: Int, progress: (String) -> Void
    ) throws -> [String: [Int: Double]] {
        var perKey: [String: [Int: Double]] = [:]
        for name in cases {
            progress("large dictionaries, \(name), \(sizes.map(String.init).joined(separator: ", ")) keys")
            var bodies: [() throws -> Void] = []
            for size in sizes {
                switch name {
                case "diff": bodies.append(try diff(keys: size, shuffled: false))
                case "diff, keys shuffled": bodies.append(try diff(keys: size, shuffled: true))
                case "add rules": bodies.append(try addRules(keys: size))
                case "nest rule", "hoist rule", "move rules", "remove rules", "merge rule":
                    bodies.append(try keyRules(name, keys: size))
                case "Swift Dictionary look-ups, keys shuffled": bodies.append(standardLookUps(keys: size))
                default: bodies.append(standardInserts(keys: size))
                }
            }
            let seconds = try medians(runs: runs, bodies)
            for (size, median) in zip(sizes, seconds) {
                perKey[name, default: [:]][size] = median / Double(size) * 1e9
            }
        }
        return perKey
    }

    /// The median time of each body, timed in turns: after one run of each to warm up (and to
    /// find how many runs make about 20 ms), rounds of that many runs of each body in turn, until
    /// every body has had `runs` runs and half a second.
    private static func medians(runs: Int, _ bodies: [() throws -> Void]) throws -> [Double] {
        let roundSeconds = 0.02
        var repeats: [Int] = []
        for body in bodies {
            let first = try Timing.seconds(body)
            repeats.append(max(1, min(1_000, Int(roundSeconds / max(first, 1e-6)))))
        }
        var samples = [[Double]](repeating: [], count: bodies.count)
        var spent = [Double](repeating: 0, count: bodies.count)
        while zip(samples, spent).contains(where: { $0.count < runs || $1 < 0.5 }) {
            for (index, body) in bodies.enumerated() {
                for _ in 0..<repeats[index] {
                    let time = try Timing.seconds(body)
                    samples[index].append(time)
                    spent[index] += time
                }
            }
        }
        return samples.map { $0.sorted()[$0.count / 2] }
    }

    /// Two objects of `keys` keys, every hundredth value changed in the second: two versions of
    /// one object, whose keys stay in their order, or (`shuffled`) the second with its keys in
    /// random order, where every look-up goes through the index to a random place in memory.
    private static func diff(keys count: Int, shuffled: Bool) throws -> () throws -> Void {
        var generator = SystemRandomNumberGenerator()
        let keys = (0..<count).map { "field\($0)" }
        let old = ArchiveDictionary(keys.enumerated().map { ($0.element, ArchiveValue.int(Int64($0.offset))) })
        let order = shuffled ? Array(keys.enumerated()).shuffled(using: &generator) : Array(keys.enumerated())
        let new = ArchiveDictionary(
            order.map { offset, key in
                (key, ArchiveValue.int(Int64(offset % 100 == 0 ? -offset - 1 : offset)))
            })
        let expected = (count + 99) / 100
        var options = ArchiveDiff.Options()
        options.limit = count
        return {
            let differences = ArchiveDiff.differences(from: .dictionary(old), to: .dictionary(new), options: options)
            guard differences.count == expected else { throw BenchmarkFailure("diff found \(differences.count)") }
        }
    }

    /// A step of `keys` `add` rules run by the migration pass on one object.
    private static func addRules(keys count: Int) throws -> () throws -> Void {
        let rules = (0..<count).map { MigrationRule.add("field\($0)", default: .int(Int64($0))) }
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(typeName: "Wide", currentVersion: 2, steps: [MigrationStep(from: 1, to: 2, rules: rules)])
        ])
        let pass = MigrationPass(catalog: catalog, options: MigrationOptions(recordsSteps: false))
        return {
            var tree = ArchiveValue.object(ArchiveObject(typeName: "Wide", version: 1, fields: ["id": 1]))
            try pass.upgrade(&tree)
            guard tree.objectValue?.fields.count == count + 1 else { throw BenchmarkFailure("add rules") }
        }
    }
}

extension LargeDictionaryBenchmark {
    /// A step whose rules take every key of an object of `count` keys (`field0`, …) besides its
    /// `id`, run by the migration pass:
    /// - `nest rule`: one `nest` of them all into `group`;
    /// - `hoist rule`: one `hoist` of them all out of `group`, where they are;
    /// - `move rules`: a `move` of each into `group` (`field0` → `group.field0`);
    /// - `remove rules`: a `remove` of each, in the object's order (the first is the costliest
    ///   to take out of an array, one at a time);
    /// - `merge rule`: one `merge` of them all into one string.
    /// Each run migrates a fresh copy of the object (copying it is part of the time).
    fileprivate static func keyRules(_ name: String, keys count: Int) throws -> () throws -> Void {
        let keys = (0..<count).map { "field\($0)" }
        var flat = ArchiveDictionary(minimumCapacity: count + 1)
        flat.appendUnchecked(.int(1), forKey: "id")
        for (offset, key) in keys.enumerated() {
            flat.appendUnchecked(name == "merge rule" ? .string("v\(offset)") : .int(Int64(offset)), forKey: key)
        }
        var fields = flat
        let rules: [MigrationRule]
        let expected: (ArchiveDictionary) -> Bool
        switch name {
        case "nest rule":
            rules = [.nest(keys, into: "group")]
            expected = { $0.count == 2 && $0["group"]?.keyedEntries?.count == count }
        case "hoist rule":
            fields = ["id": 1, "group": .dictionary(ArchiveDictionary(flat.dropFirst()))]
            rules = [.hoist(keys, from: "group")]
            expected = { $0.count == count + 1 && $0["group"] == nil }
        case "move rules":
            rules = keys.map { .move(ArchivePath([.key($0)]), to: ArchivePath([.key("group"), .key($0)])) }
            expected = { $0.count == 2 && $0["group"]?.keyedEntries?.count == count }
        case "remove rules":
            rules = keys.map { .remove($0) }
            expected = { $0.count == 1 }
        default:
            rules = [.merge(keys, into: "all", separator: " ")]
            expected = { $0.count == 2 && $0["all"]?.stringValue?.hasPrefix("v0 v1 ") == true }
        }
        let catalog = try MigrationCatalog(types: [
            TypeMigrations(typeName: "Wide", currentVersion: 2, steps: [MigrationStep(from: 1, to: 2, rules: rules)])
        ])
        let pass = MigrationPass(catalog: catalog, options: MigrationOptions(recordsSteps: false))
        let object = ArchiveValue.object(ArchiveObject(typeName: "Wide", version: 1, fields: fields))
        return {
            var tree = object
            try pass.upgrade(&tree)
            guard let result = tree.objectValue?.fields, expected(result) else { throw BenchmarkFailure(name) }
        }
    }

    /// Looks up every key of a `Dictionary` of `count` keys, in random order.
    fileprivate static func standardLookUps(keys count: Int) -> () throws -> Void {
        var generator = SystemRandomNumberGenerator()
        let keys = (0..<count).map { ExactString("field\($0)") }
        var table = [ExactString: ArchiveValue](minimumCapacity: count)
        for (offset, key) in keys.enumerated() { table[key] = .int(Int64(offset)) }
        let order = keys.shuffled(using: &generator)
        return {
            var found = 0
            for key in order where table[key] != nil { found += 1 }
            guard found == count else { throw BenchmarkFailure("look-ups found \(found)") }
        }
    }

    /// Inserts `count` keys into a new `Dictionary` sized for them.
    fileprivate static func standardInserts(keys count: Int) -> () throws -> Void {
        let keys = (0..<count).map { ExactString("field\($0)") }
        return {
            var table = [ExactString: ArchiveValue](minimumCapacity: count)
            for (offset, key) in keys.enumerated() { table[key] = .int(Int64(offset)) }
            guard table.count == count else { throw BenchmarkFailure("inserts") }
        }
    }
}

/// A benchmark case that did not compute what it should have.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
