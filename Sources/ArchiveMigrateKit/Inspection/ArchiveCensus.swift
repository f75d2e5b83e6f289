import Foundation
import ModelVersioning

/// The census of a store's archives: how many there are of each format, document version and
/// type version, what an upgrade with the given rules would change, and which fail — what
/// `archive-migrate inspect --ndjson` and `inspect --sqlite` print, as a value.
///
/// Censuses of parts of a store merge into the census of the whole (``merging(_:)``), so a job
/// that reads a store in pieces — Spark partitions, SQLite shards — takes one census per piece
/// and reduces them, in any grouping:
///
/// ```swift
/// let parts = try partFiles.map { try ArchiveCensus(json: Data(contentsOf: $0)) }
/// let whole = try ArchiveCensus.merged(parts)
/// print(whole.text)    // the histogram, as `inspect` prints it
/// ```
///
/// `archive-migrate inspect --merge A.json --merge B.json` does the same with the files
/// `inspect --format json` wrote.
public struct ArchiveCensus: Sendable, Equatable {
    /// What the store's archives are: lines of NDJSON, or rows of a table.
    public enum Items: String, Sendable {
        case lines
        case rows

        /// What an item without an archive is called: a blank line, a NULL value.
        var emptyName: String { self == .lines ? "blank" : "NULL" }
    }

    /// Objects of one type version, and the archives that hold at least one.
    public struct TypeCount: Sendable, Equatable {
        /// Objects of the type version, in every archive.
        public var objects: Int
        /// Archives holding at least one.
        public var archives: Int

        /// A count.
        public init(objects: Int, archives: Int) {
            self.objects = objects
            self.archives = archives
        }
    }

    /// An archive that failed to read or to upgrade.
    public struct Failure: Sendable, Equatable {
        /// The archive, as its store names it (`line 17`, `id 42`).
        public var name: String
        /// The error's code (``ArchiveError/Code``'s raw value).
        public var code: String
        /// The error, as the tool prints it.
        public var message: String

        /// A failure.
        public init(name: String, code: String, message: String) {
            self.name = name
            self.code = code
            self.message = message
        }
    }

    /// Failures listed by name (the first in the store's order); the rest are counted.
    public static let listedFailures = 20

    /// What the archives are.
    public var items: Items
    /// The stores the census was taken of, each once, in the order they were merged.
    public var sources: [String]
    /// Items read, empty ones included.
    public var count = 0
    /// Items without an archive (blank lines, NULL values).
    public var empty = 0
    /// Archives per format (`json`, `keyed-archive`, …).
    public var formats: [String: Int] = [:]
    /// Archives per document version (`Sketch v2`, `(no envelope)`).
    public var documents: [String: Int] = [:]
    /// Objects and archives per type version (`Circle v1`).
    public var types: [String: TypeCount] = [:]
    /// Objects an upgrade would migrate per step (`Circle v1 → v3`, `document Sketch v1 → v4`);
    /// `nil` when the census was taken without rules.
    public var upgrade: [String: Int]?
    /// Archives an upgrade would change.
    public var wouldChange = 0
    /// Archives that failed to read or upgrade.
    public var failed = 0
    /// Failures per error code.
    public var failureCodes: [String: Int] = [:]
    /// The first ``listedFailures`` failures.
    public var failures: [Failure] = []

    /// An empty census of `source`; `withRules` when it counts what an upgrade would change.
    public init(items: Items, source: String, withRules: Bool) {
        self.items = items
        self.sources = [source]
        self.upgrade = withRules ? [:] : nil
    }

    // MARK: Merging

    /// The census of both stores: every count added, per key; the sources and the listed
    /// failures of `self` then those of `other` (each source once, at most ``listedFailures``
    /// failures).
    ///
    /// The operation is associative — `a.merging(b).merging(c) == a.merging(b.merging(c))` —
    /// so censuses of a store's parts reduce to the census of the whole in any grouping, and it
    /// is commutative in everything but the order of ``sources`` and ``failures``: merged in
    /// the store's order, the parts list the same failures as the whole.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidValue`` for censuses of
    ///   lines and of rows, or one taken with rules and one without.
    public func merging(_ other: ArchiveCensus) throws -> ArchiveCensus {
        var merged = self
        var seen = Set(sources)
        try merged.merge(other, seenSources: &seen)
        return merged
    }

    /// The censuses merged in order (``merging(_:)``); `nil` for none. In time linear in what
    /// they hold, however many there are (thousands of shards each name a source of their own).
    ///
    /// - Throws: What ``merging(_:)`` throws.
    public static func merged<Censuses: Sequence<ArchiveCensus>>(_ censuses: Censuses) throws -> ArchiveCensus? {
        var parts = censuses.makeIterator()
        guard var result = parts.next() else { return nil }
        var seen = Set(result.sources)
        while let census = parts.next() { try result.merge(census, seenSources: &seen) }
        return result
    }

    /// Adds `other` to this census (``merging(_:)``); `seenSources` holds this census's sources.
    private mutating func merge(_ other: ArchiveCensus, seenSources: inout Set<String>) throws {
        guard items == other.items else {
            throw ArchiveError(
                .invalidValue, "a census of \(items.rawValue) cannot be merged with a census of \(other.items.rawValue)"
            )
        }
        guard (upgrade == nil) == (other.upgrade == nil) else {
            throw ArchiveError(
                .invalidValue,
                "a census taken with rules cannot be merged with one taken without: what an upgrade would change "
                    + "is known for only one of them")
        }
        for source in other.sources where seenSources.insert(source).inserted { sources.append(source) }
        count += other.count
        empty += other.empty
        formats.merge(other.formats, uniquingKeysWith: +)
        documents.merge(other.documents, uniquingKeysWith: +)
        types.merge(other.types) {
            TypeCount(objects: $0.objects + $1.objects, archives: $0.archives + $1.archives)
        }
        if let theirs = other.upgrade { upgrade?.merge(theirs, uniquingKeysWith: +) }
        wouldChange += other.wouldChange
        failed += other.failed
        failureCodes.merge(other.failureCodes, uniquingKeysWith: +)
        failures.append(contentsOf: other.failures.prefix(Self.listedFailures - failures.count))
    }

    /// The status `inspect` exits with: 3 when an archive was written by a newer version, else
    /// 1 when any failed, else 0.
    public var exitStatus: Int32 {
        if failureCodes[ArchiveError.Code.newerVersion.rawValue, default: 0] > 0 { return 3 }
        return failed > 0 ? 1 : 0
    }

    mutating func addFailure(name: String, error: ArchiveError) {
        failed += 1
        failureCodes[error.code.rawValue, default: 0] += 1
        if failures.count < Self.listedFailures {
            failures.append(Failure(name: name, code: error.code.rawValue, message: error.description))
        }
    }

    // MARK: JSON

    /// The census as `inspect --format json` prints it:
    ///
    /// ```json
    /// {"source": "archives.ndjson", "sources": ["archives.ndjson"], "lines": 1000000, "empty": 0,
    ///  "formats": {"json": 999996}, "documents": {"Sketch v1": 250000, …},
    ///  "types": {"Circle v1": {"objects": 500000, "lines": 250000}, …},
    ///  "failed": 4, "failureCodes": {"malformedInput": 4}, "failures": [{"name": "line 17", "code": …, "error": …}],
    ///  "wouldChange": 749996, "upgrade": {"Circle v1 → v3": 500000, …}}
    /// ```
    ///
    /// `source` names the sources joined by `, `; `wouldChange` and `upgrade` are there when the
    /// census was taken with rules.
    public var json: ArchiveValue {
        func dictionary(_ counts: [String: Int]) -> ArchiveValue {
            .dictionary(ArchiveDictionary(counts.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) }))
        }
        var typeEntries = ArchiveDictionary()
        for (type, counts) in types.sorted(by: { $0.key < $1.key }) {
            typeEntries[type] = ["objects": .int(Int64(counts.objects)), items.rawValue: .int(Int64(counts.archives))]
        }
        var result = ArchiveDictionary()
        result["source"] = .string(sources.joined(separator: ", "))
        result["sources"] = .array(sources.map { .string($0) })
        result[items.rawValue] = .int(Int64(count))
        result["empty"] = .int(Int64(empty))
        result["formats"] = dictionary(formats)
        result["documents"] = dictionary(documents)
        result["types"] = .dictionary(typeEntries)
        result["failed"] = .int(Int64(failed))
        result["failureCodes"] = dictionary(failureCodes)
        result["failures"] = .array(
            failures.map { ["name": .string($0.name), "code": .string($0.code), "error": .string($0.message)] })
        if let upgrade {
            result["wouldChange"] = .int(Int64(wouldChange))
            result["upgrade"] = dictionary(upgrade)
        }
        return .dictionary(result)
    }

    /// Reads a census `inspect --format json` printed (``json``).
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidValue`` naming the key
    ///   that is missing or of the wrong kind.
    public init(json tree: ArchiveValue) throws {
        func invalid(_ message: String, _ key: String) -> ArchiveError {
            ArchiveError(.invalidValue, "not a census: \(message)", path: [.key(key)])
        }
        guard case .dictionary(let top) = tree else {
            throw ArchiveError(.invalidValue, "not a census: expected an object")
        }
        func number(_ key: String, in entries: ArchiveDictionary = top, at path: String? = nil) throws -> Int {
            guard let value = entries[key]?.intValue, value >= 0 else {
                throw invalid("'\(key)' must be a count", path ?? key)
            }
            return value
        }
        func counts(_ key: String) throws -> [String: Int] {
            guard case .dictionary(let entries)? = top[key] else { throw invalid("'\(key)' must be an object", key) }
            var result: [String: Int] = [:]
            for (name, _) in entries { result[name] = try number(name, in: entries, at: "\(key).\(name)") }
            return result
        }
        if top["lines"] != nil {
            items = .lines
        } else if top["rows"] != nil {
            items = .rows
        } else {
            throw invalid("it counts neither 'lines' nor 'rows'", "lines")
        }
        if case .array(let names)? = top["sources"] {
            sources = try names.map { name in
                guard let text = name.stringValue else { throw invalid("'sources' must list names", "sources") }
                return text
            }
        } else if let source = top["source"]?.stringValue {
            sources = [source]
        } else {
            throw invalid("'source' is missing", "source")
        }
        count = try number(items.rawValue)
        empty = try number("empty")
        formats = try counts("formats")
        documents = try counts("documents")
        guard case .dictionary(let typeEntries)? = top["types"] else {
            throw invalid("'types' must be an object", "types")
        }
        for (name, value) in typeEntries {
            guard case .dictionary(let entry) = value else {
                throw invalid("'types.\(name)' must be an object", "types")
            }
            types[name] = TypeCount(
                objects: try number("objects", in: entry, at: "types.\(name).objects"),
                archives: try number(items.rawValue, in: entry, at: "types.\(name).\(items.rawValue)"))
        }
        failed = try number("failed")
        failureCodes = top["failureCodes"] == nil ? [:] : try counts("failureCodes")
        guard case .array(let listed)? = top["failures"] else { throw invalid("'failures' must be a list", "failures") }
        failures = try listed.map { value in
            guard let name = value["name"]?.stringValue, let code = value["code"]?.stringValue,
                let message = value["error"]?.stringValue
            else { throw invalid("each failure has a 'name', a 'code' and an 'error'", "failures") }
            return Failure(name: name, code: code, message: message)
        }
        if top["upgrade"] != nil {
            upgrade = try counts("upgrade")
            wouldChange = try number("wouldChange")
        }
    }

    /// Reads a census from the bytes `inspect --format json` printed.
    ///
    /// - Throws: What reading JSON throws, and what ``init(json:)-(ArchiveValue)`` throws.
    public init(json data: Data) throws {
        try self.init(json: ArchiveFormat.json.read(data, options: ArchiveReadingOptions(markup: .plain)))
    }

    // MARK: Text

    /// The census as `inspect` prints it for people.
    public var text: String {
        /// `1 row`, `1,200 rows`.
        func counted(_ number: Int, _ plural: String) -> String {
            ArchiveBatch.Progress.grouped(number) + " " + (number == 1 ? String(plural.dropLast()) : plural)
        }
        let grouped = ArchiveBatch.Progress.grouped
        let noun = items.rawValue
        var lines = [
            "\(sources.joined(separator: ", ")): \(counted(count, noun))"
                + (empty > 0 ? " (\(grouped(empty)) \(items.emptyName))" : "")
        ]
        func table(_ title: String, _ rows: [(String, String)]) {
            guard !rows.isEmpty else { return }
            lines.append(title)
            let width = rows.map(\.0.count).max() ?? 0
            for (name, value) in rows {
                lines.append("  " + name + ":" + String(repeating: " ", count: width - name.count + 1) + value)
            }
        }
        table("formats:", formats.sorted { $0.key < $1.key }.map { ($0.key, grouped($0.value)) })
        table("documents:", documents.sorted { $0.key < $1.key }.map { ($0.key, counted($0.value, noun)) })
        table(
            "types:",
            types.sorted { $0.key < $1.key }.map {
                ($0.key, counted($0.value.objects, "objects") + " in " + counted($0.value.archives, noun))
            })
        if let upgrade {
            if upgrade.isEmpty {
                lines.append("upgrade: nothing to migrate")
            } else {
                lines.append("upgrade would change \(counted(wouldChange, noun)):")
                for (step, objects) in upgrade.sorted(by: { $0.key < $1.key }) {
                    lines.append("  \(step): \(grouped(objects))")
                }
            }
        }
        if failed > 0 {
            lines.append("\(counted(failed, noun)) failed:")
            for failure in failures {
                lines.append("  \(failure.name): \(failure.message)")
            }
            if failed > failures.count { lines.append("  … and \(grouped(failed - failures.count)) more") }
        }
        return lines.joined(separator: "\n")
    }
}
