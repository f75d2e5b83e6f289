import Foundation
import ModelVersioning

/// The one rule every fuzz target checks: a call into the library returns a value or throws an
/// `ArchiveError`. Anything else (another error type) stops the fuzzer with a crash, as a trap,
/// an overflow or a sanitizer report inside the library would.
///
/// The precondition lives here, in the harness, never in the library.
public enum FuzzCheck {
    /// Runs `body`; returns its value, or `nil` when it threw an `ArchiveError`.
    @inline(never)
    public static func valueOrArchiveError<T>(_ what: StaticString, _ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch is ArchiveError {
            return nil
        } catch {
            preconditionFailure("\(what) threw \(type(of: error)), not an ArchiveError: \(error)")
        }
    }

    /// The limits every target reads, migrates and decodes with: the defaults, except the two
    /// that bound the total work of one input. At their defaults (10,000,000 values, 1,000,000
    /// expanded references) a 3 KB reference bomb legitimately builds a million values, and
    /// writing and reading those back takes longer than libFuzzer's 1 s timeout under
    /// AddressSanitizer (ten times slower than a release build); `LimitsTests` checks those
    /// defaults. A 16 KB input holds a few thousand values of its own, so 200,000 values and
    /// 20,000 expanded references leave every path reachable. Depth, string, data and collection
    /// limits stay at their defaults.
    public static let limits: ArchiveLimits = {
        var limits = ArchiveLimits.default
        limits.maxObjectCount = 200_000
        limits.maxReferencesExpanded = 20_000
        return limits
    }()

    /// Writes `tree` in every format and reads each result back: a writer returns bytes or an
    /// `ArchiveError`, and what it wrote reads back as a value or an `ArchiveError`.
    public static func roundTrip(_ tree: ArchiveValue, formats: [ArchiveFormat] = ArchiveFormat.allCases) {
        for format in formats {
            let written = valueOrArchiveError("writing") {
                try format.write(tree, options: ArchiveWritingOptions(prettyPrinted: false, limits: limits))
            }
            if let written {
                _ = valueOrArchiveError("reading back") {
                    try format.read(written, options: ArchiveReadingOptions(limits: limits))
                }
            }
        }
    }

    /// Encodes `value` as JSON with `encode(_:)` (which writes straight from the values when it
    /// can) and through the tree (`encodeTree(_:)` written by the JSON writer), pretty and
    /// compact, with archive and plain markup: the two give the same bytes, or fail alike.
    public static func sameJSON<T: Encodable>(_ value: T, registry: ModelRegistry) {
        let optionSets = [
            ArchiveWritingOptions(limits: limits),
            ArchiveWritingOptions(prettyPrinted: false, markup: .plain, limits: limits),
        ]
        for options in optionSets {
            let encoder = ArchiveEncoder(format: .json, writingOptions: options, registry: registry)
            let direct = valueOrArchiveError("encode(_:)") { try encoder.encode(value) }
            let tree = valueOrArchiveError("encodeTree(_:) written") {
                try ArchiveFormat.json.write(try encoder.encodeTree(value), options: options)
            }
            precondition(direct == tree, "encode(_:) and the tree writer disagree on \(T.self)")
        }
    }

    /// Decodes `data` as a `T` with `decode(_:from:)` (which reads current JSON archives
    /// straight from the bytes when it can) and through the tree (`decode(_:fromTree:)` of what
    /// the reader builds): both give the same value (compared as the trees they encode to) or
    /// both fail. Returns the value.
    @discardableResult
    public static func sameDecoding<T: Codable>(
        _ type: T.Type, from data: Data, with decoder: ArchiveDecoder, registry: ModelRegistry
    ) -> T? {
        let direct = valueOrArchiveError("decode(_:from:)") { try decoder.decode(T.self, from: data) }
        let tree = valueOrArchiveError("decode(_:fromTree:)") {
            let (tree, _) = try ArchiveFormat.read(data, options: ArchiveReadingOptions(limits: decoder.options.limits))
            return try decoder.decode(T.self, fromTree: tree)
        }
        precondition((direct == nil) == (tree == nil), "decode(_:from:) and the tree decoder disagree on \(T.self)")
        if let direct, let tree {
            let encoder = ArchiveEncoder(registry: registry)
            let first = valueOrArchiveError("encodeTree of the direct value") { try encoder.encodeTree(direct) }
            let second = valueOrArchiveError("encodeTree of the tree's value") { try encoder.encodeTree(tree) }
            precondition(first == second, "decode(_:from:) and the tree decoder decode different \(T.self) values")
        }
        return direct
    }

    /// Writes the named seeds into the directory in `FUZZ_WRITE_SEEDS`, if set, and exits: how
    /// `Fuzz/make-corpora.sh` asks a target for the inputs it cannot find among the fixtures.
    public static func writeSeedsIfAsked(_ seeds: () throws -> [(name: String, data: Data)]) {
        guard let directory = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] else { return }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let made = try seeds()
            for seed in made {
                try seed.data.write(to: URL(fileURLWithPath: directory).appendingPathComponent(seed.name))
            }
            print("wrote \(made.count) seeds to \(directory)")
            exit(0)
        } catch {
            print("could not write seeds: \(error)")
            exit(1)
        }
    }
}
