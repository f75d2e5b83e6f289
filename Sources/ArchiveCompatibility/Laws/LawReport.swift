import Foundation
import ModelVersioning

/// Which law a generated object broke.
public enum MigrationLaw: String, Sendable, Hashable, CaseIterable {
    /// An archived object, upgraded to today and downgraded back, is the original.
    case upgradeThenDowngrade
    /// Today's object, downgraded to an older version that can hold it and upgraded again, is
    /// the original (except the keys the steps add with a default, which the older version
    /// lacks).
    case downgradeThenUpgrade
    /// An archived object upgrades, and decodes into today's type (without Swift types: matches
    /// today's snapshot).
    case decodesToday

    /// The law as a sentence's subject.
    public var sentence: String {
        switch self {
        case .upgradeThenDowngrade: return "upgrading then downgrading does not give the original"
        case .downgradeThenUpgrade: return "downgrading then upgrading does not give the original"
        case .decodesToday: return "the object does not upgrade and open as today's type"
        }
    }
}

/// A law broken by a generated object: where, how, and the smallest object found that breaks
/// it, with the seed that generates the original again.
public struct LawViolation: Sendable, Hashable {
    /// The law broken.
    public var law: MigrationLaw
    /// The chain's type.
    public var typeName: String
    /// The version the object was generated at (for ``MigrationLaw/downgradeThenUpgrade``,
    /// the version it was downgraded to).
    public var version: Int
    /// The step that breaks it (`Model v2 → v3 (app 2.0: tags, kind by name)`), when found.
    public var step: String?
    /// The rule that breaks it (`remove(para, restoring 1)`), when found.
    public var rule: String?
    /// What went wrong: differences from the original (`~ para: 0 → 1`), or the error.
    public var details: [String]
    /// The shrunk counterexample, as archived.
    public var counterexample: ArchiveValue
    /// Which generated object it was shrunk from (0-based).
    public var objectIndex: Int
    /// How many shrinking steps it took.
    public var shrinkSteps: Int
    /// The seed of the run that generated it.
    public var seed: UInt64

    /// The violation as report lines; `replay` is the command that runs the check again with
    /// the same seed.
    public func lines(replay: String?) -> [String] {
        var lines = [
            law.sentence + " for \(typeName) v\(version)" + (step.map { ", at \($0)" } ?? "")
                + (rule.map { ", rule \($0)" } ?? "") + ":"
        ]
        lines += details.prefix(12).map { "  " + $0 }
        if details.count > 12 { lines.append("  … \(details.count - 12) more") }
        lines.append(
            "counterexample (object \(objectIndex) of the run, shrunk in \(shrinkSteps) step\(shrinkSteps == 1 ? "" : "s")):"
        )
        lines.append("  " + Self.render(counterexample))
        if let replay { lines.append("replay: \(replay) --seed \(seed)") }
        return lines
    }

    /// Compact JSON with the archive markup (`{"$type":"Model","$version":2,…}`).
    static func render(_ value: ArchiveValue) -> String {
        guard let data = try? ArchiveFormat.json.write(value, options: ArchiveWritingOptions(prettyPrinted: false))
        else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The results of the law check: one per type and version.
public struct LawReport: Sendable, Hashable, CustomStringConvertible {
    /// How one type and version fared.
    public enum Outcome: Sendable, Hashable {
        /// Every generated object kept every law; the text says what was checked.
        case passed(String)
        /// Not checked, with the reason.
        case skipped(String)
        /// A generated object broke a law: which, where, and the smallest counterexample found.
        case failed(LawViolation)
        /// Not checked because no object can be generated without making a value a type cannot
        /// hold (an enum that lists no case): the line says which type and the fix. A failure:
        /// the check reports it before any law runs.
        case cannotGenerate(String)
    }

    /// One type and version: `Model v1 → v3` (an older version and its way to today), or
    /// `Model v3` (today's objects).
    public struct VersionResult: Sendable, Hashable {
        /// The chain's type.
        public var typeName: String
        /// The version the objects were generated at.
        public var version: Int
        /// Today's version of the type.
        public var currentVersion: Int
        /// How the version fared.
        public var outcome: Outcome
        /// The objects generated at this version.
        public var objects: Int
        /// The objects the laws ran on: those generated here, and today's taken down to this
        /// version and back.
        public var runs: Int
        /// The snapshot it was generated from, if any.
        public var snapshot: URL?

        /// `Model v1 → v3`, or `Model v3` for today's version.
        public var subject: String {
            version == currentVersion
                ? "\(typeName) v\(version)" : "\(typeName) v\(version) → v\(currentVersion)"
        }
    }

    /// One result per type and version.
    public var results: [VersionResult]
    /// The seed the objects were generated from.
    public var seed: UInt64
    /// Objects generated per type and version.
    public var objectsPerVersion: Int
    /// Wall-clock time of the check.
    public var seconds: Double

    /// Every object generated.
    public var objectCount: Int { results.map(\.objects).reduce(0, +) }

    /// Every run of an object through the laws.
    public var runCount: Int { results.map(\.runs).reduce(0, +) }

    /// The results that failed.
    public var failures: [VersionResult] {
        results.filter {
            switch $0.outcome {
            case .failed, .cannotGenerate: return true
            case .passed, .skipped: return false
            }
        }
    }

    /// `laws: 6 types, 15 versions, 100 generated objects per type and version (1500 in all, 2400 runs through the laws), seed 1, 2.10 s`.
    public var summary: String {
        let types = Set(results.map(\.typeName)).count
        let checked = results.filter {
            switch $0.outcome {
            case .skipped, .cannotGenerate: return false
            case .passed, .failed: return true
            }
        }.count
        return "laws: \(types) type\(types == 1 ? "" : "s"), \(checked) version\(checked == 1 ? "" : "s"), "
            + "\(objectsPerVersion) generated objects per type and version (\(objectCount) in all, \(runCount) runs "
            + "through the laws), seed \(seed), " + String(format: "%.2f s", seconds)
    }

    /// One line per type and version (`ok`, `skipped` or `FAILED`, with a violation's lines), then
    /// ``summary``.
    public var description: String {
        var lines: [String] = []
        for result in results {
            switch result.outcome {
            case .passed(let text): lines.append("ok        \(result.subject) — \(text)")
            case .skipped(let reason): lines.append("skipped   \(result.subject) — \(reason)")
            case .cannotGenerate(let reason): lines.append("FAILED    \(result.subject) — \(reason)")
            case .failed(let violation):
                lines.append("FAILED    \(result.subject)")
                lines += violation.lines(replay: nil).map { "          " + $0 }
            }
        }
        lines.append(summary)
        return lines.joined(separator: "\n")
    }
}
