import Foundation
import ModelVersioning

/// Objects with very many keys: the diff of two such objects and a migration step with one
/// `add` rule per key, in time per key at each size. Linear work gives the same time per key
/// at every size; a key look-up that scans its dictionary would make it grow with the size.
enum LargeDictionaryBenchmark {
    /// The cases, by the name their rows and JSON keys use.
    static let cases = ["diff", "diff, keys shuffled", "add rules"]

    /// Nanoseconds per key, per case and size.
    static func run(
        sizes: [Int], cases: [String] = cases, runs: Int, progress: (String) -> Void
    ) throws -> [String: [Int: Double]] {
        var perKey: [String: [Int: Double]] = [:]
        for size in sizes {
            progress("large dictionaries, \(size) keys")
            for name in cases {
                let body =
                    switch name {
                    case "diff": try diff(keys: size, shuffled: false)
                    case "diff, keys shuffled": try diff(keys: size, shuffled: true)
                    default: try addRules(keys: size)
                    }
                perKey[name, default: [:]][size] = try median(runs: runs, body) / Double(size) * 1e9
            }
        }
        return perKey
    }

    /// The median of `runs` timed runs of `body`, after one to warm up.
    private static func median(runs: Int, _ body: () throws -> Void) rethrows -> Double {
        try body()
        var samples: [Double] = []
        for _ in 0..<runs { samples.append(try Timing.seconds(body)) }
        return samples.sorted()[samples.count / 2]
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

/// A benchmark case that did not compute what it should have.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
