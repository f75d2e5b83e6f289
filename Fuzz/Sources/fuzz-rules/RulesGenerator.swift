import Foundation
import ModelVersioning

/// Builds a rules file (as the tree a JSON reader would give) from fuzz bytes: every choice —
/// which chains, which versions, which rule keywords, keys, converters and values — is read from
/// the next byte, so that most inputs are well-formed rules files with mutated content rather
/// than JSON syntax errors. Versions come from a pool with the extremes (`Int64.max`, 2³¹ − 1,
/// negative, unsigned, not integers) next to the small numbers real files use; keys, type names
/// and values from pools that match the archives `fuzz-rules` migrates.
struct RulesGenerator {
    private var bytes: [UInt8]
    private var index = 0

    /// The type names the trees hold, a few more, fuzz-registry names and junk.
    static let typeNames = [
        "Drawing", "Circle", "Rect", "Rectangle", "Style", "Model", "SketchApp.Rect", "RoundedRectangle", "Shape",
        "Person", "Legacy.Person", "Node", "Leaf", "Tagged", "", " ", "$type",
    ]
    /// Keys of the trees, key paths, scope paths and junk.
    static let keys = [
        "x", "y", "r", "radius", "center", "color", "stroke", "strokeWidth", "title", "meta", "author", "created",
        "shapes", "style", "name", "first_name", "last_name", "tags", "id", "w", "h", "size", "origin", "state",
        "people", "canvasColor", "focus", "models", "width", "height", "schema_version", "documentVersion", "a", "b",
        "", "$type", "meta.author", "size.width", "center.x",
    ]
    static let paths = [
        "", "people[*]", "shapes[*]", "shapes[0]", "meta", "*", "*.*", "[*]", "shapes[*].style", "a.b[3].c",
        "[\"x y\"]",
        "people[", "a..b", "shapes[-1]", "shapes[99999999999999999999]",
    ]
    static let versionValues: [ArchiveValue] = [
        0, 1, 2, 3, 4, 5, .int(2_147_483_646), .int(2_147_483_647), .int(2_147_483_648), .int(Int64.max - 1),
        .int(Int64.max), -1, .int(Int64.min), .uint(UInt64.max), 1.5, "2", .null,
    ]
    static let scalars: [ArchiveValue] = [
        .null, true, false, 0, 1, -1, .int(Int64.max), .int(Int64.min), .uint(UInt64.max), 0.5, -0.0, 1e308, "", "a",
        "todo", "done", "open", "closed", "#FFFFFF", "2020-01-02T03:04:05Z", "1999-12-31", "42", "true", "x y",
    ]
    static let converterNames = RulesFile.ConverterName.allCases.map(\.rawValue) + ["stringToInteger", ""]
    static let dateFormats: [ArchiveValue] = [
        "date", "iso8601", "secondsSince1970", "millisecondsSince1970", "secondsSinceReferenceDate",
        ["pattern": "yyyy-MM-dd"], ["pattern": "yyyy-MM-dd'T'HH:mm:ss.SSS"], ["pattern": "YYYY"], ["pattern": ""],
        "iso", 3,
    ]
    static let junkKeys = ["comment", "requried", "to", "from", "rules", "default", "map", "using", "with", ""]

    init(_ data: Data) {
        bytes = Array(data)
    }

    private mutating func next() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    private var exhausted: Bool { index >= bytes.count }

    private mutating func pick<T>(_ options: [T]) -> T {
        options[Int(next()) % options.count]
    }

    /// `true` about once in `n` times.
    private mutating func rarely(_ n: UInt8 = 8) -> Bool {
        next() % n == 0
    }

    /// A whole rules file.
    mutating func file() -> ArchiveValue {
        var top: ArchiveDictionary = [:]
        top["formatVersion"] = rarely(16) ? pick(Self.versionValues) : 1
        if !rarely(4) {
            var types: ArchiveDictionary = [:]
            for _ in 0..<Int(next() % 4) {
                types[pick(Self.typeNames)] = chain(document: false)
            }
            top["types"] = .dictionary(types)
        }
        switch next() % 4 {
        case 0: top["document"] = chain(document: true)
        case 1: top["documents"] = .array((0..<Int(next() % 3)).map { _ in chain(document: true) })
        default: break
        }
        if rarely(16) { top[pick(Self.junkKeys)] = "junk" }
        return .dictionary(top)
    }

    /// A version for a chain: mostly from the pool, sometimes `base + offset`.
    private mutating func version(_ base: Int64, _ offset: Int) -> ArchiveValue {
        rarely(12) ? pick(Self.versionValues) : .int(base &+ Int64(offset))
    }

    private mutating func chain(document: Bool) -> ArchiveValue {
        var chain: ArchiveDictionary = [:]
        let base: Int64 = pick([0, 0, 1, 1, 1, 2, 2_147_483_645, 2_147_483_646, Int64.max - 3, Int64.max - 1, -1])
        let count = Int(next() % 4)
        if document {
            chain["name"] = .string(pick(["Sketch", "people", "D", ""]))
            if !rarely(3) {
                chain["versionPath"] = .string(
                    pick(["documentVersion", "schema_version", "meta.version", "a[0]", "", "*"]))
            }
        } else if rarely(3) {
            chain["aliases"] = .array((0..<Int(next() % 3)).map { _ in .string(pick(Self.typeNames)) })
        }
        if !rarely(32) { chain["currentVersion"] = version(base, count) }
        if rarely(3) { chain["unversionedVersion"] = version(base, Int(next() % 5)) }
        var steps: [ArchiveValue] = []
        for step in 0..<count {
            var entries: ArchiveDictionary = [:]
            entries["from"] = version(base, step)
            switch next() % 4 {
            case 0: break  // `to` left to its default
            case 1: entries["to"] = version(base, step + (rarely() ? 2 : 1))
            default: entries["to"] = .int(base &+ Int64(step) &+ 1)
            }
            if rarely(4) { entries["name"] = .string(pick(["app 1.1", "", "split names"])) }
            entries["rules"] = .array(rules(depth: 0))
            if rarely(32) { entries[pick(Self.junkKeys)] = 0 }
            steps.append(.dictionary(entries))
        }
        if count > 1 && rarely(8) { steps.swapAt(0, count - 1) }
        if !steps.isEmpty || rarely() { chain["steps"] = .array(steps) }
        return .dictionary(chain)
    }

    private mutating func rules(depth: Int) -> [ArchiveValue] {
        (0..<Int(next() % 4)).map { _ in rule(depth: depth) }
    }

    private mutating func keyList() -> ArchiveValue {
        .array((0..<Int(next() % 4)).map { _ in .string(pick(Self.keys)) })
    }

    private mutating func value(depth: Int = 0) -> ArchiveValue {
        guard depth < 4 else { return pick(Self.scalars) }
        switch next() % 8 {
        case 0: return .array((0..<Int(next() % 3)).map { _ in value(depth: depth + 1) })
        case 1:
            var entries: ArchiveDictionary = [:]
            for _ in 0..<Int(next() % 3) { entries[pick(Self.keys)] = value(depth: depth + 1) }
            return .dictionary(entries)
        default: return pick(Self.scalars)
        }
    }

    private mutating func rule(depth: Int) -> ArchiveValue {
        var rule: ArchiveDictionary = [:]
        let keywords = RulesFile.RuleKeyword.allCases
        let choice = Int(next()) % (keywords.count + 1)
        guard choice < keywords.count else {
            // Something that is not a rule.
            return pick([.string("rename a"), [:], ["renme": "a", "to": "b"], ["rename": "a", "remove": "b"], .null])
        }
        let keyword = keywords[choice]
        let key = keyword.rawValue
        switch keyword {
        case .rename:
            rule[key] = .string(pick(Self.keys))
            rule["to"] = .string(pick(Self.keys))
            if rarely(3) { rule["required"] = .bool(next() & 1 == 1) }
        case .add:
            rule[key] = .string(pick(Self.keys))
            if !rarely(16) { rule["default"] = value() }
        case .remove:
            rule[key] = .string(pick(Self.keys))
            if rarely(3) { rule["restoring"] = value() }
        case .convert:
            rule[key] = .string(pick(Self.keys))
            converter(into: &rule)
        case .move:
            rule[key] = .string(pick(Self.keys))
            rule["to"] = .string(pick(Self.keys))
        case .nest:
            rule[key] = keyList()
            rule["into"] = .string(pick(Self.keys))
        case .hoist:
            rule[key] = keyList()
            rule["from"] = .string(pick(Self.keys))
        case .wrapInArray, .takeFirst:
            rule[key] = .string(pick(Self.keys))
        case .split:
            rule[key] = .string(pick(Self.keys))
            rule["into"] = keyList()
            rule["separator"] = .string(pick([" ", ",", "", "x y"]))
        case .merge:
            rule[key] = keyList()
            rule["into"] = .string(pick(Self.keys))
            rule["separator"] = .string(pick([" ", ",", ""]))
        case .renameType:
            rule[key] = .string(pick(Self.typeNames))
            rule["to"] = .string(pick(Self.typeNames))
        case .scope:
            rule[key] = .string(pick(Self.paths))
            // Deep enough, now and then, for the rules file to exceed `ArchiveLimits.untrusted`.
            rule["rules"] = depth < 20 && !exhausted ? .array(rules(depth: depth + 1)) : []
        }
        if rarely(24) { rule[pick(Self.junkKeys)] = pick(Self.scalars) }
        if rarely(24) { rule[key] = pick(Self.scalars) }
        return .dictionary(rule)
    }

    private mutating func converter(into rule: inout ArchiveDictionary) {
        let name = pick(Self.converterNames)
        if name == RulesFile.ConverterName.map.rawValue {
            // Values from a small pool, so that two old values often map to one new value.
            let pool: [ArchiveValue] = ["todo", "done", "open", "closed", 1, 2, .null, 1.5, ["type": "round"]]
            if next() & 1 == 0 {
                rule["map"] = .array((0..<Int(next() % 5)).map { _ in [pick(pool), pick(pool)] })
            } else {
                var entries: ArchiveDictionary = [:]
                for _ in 0..<Int(next() % 5) { entries[pick(["open", "closed", "a", ""])] = pick(pool) }
                rule["map"] = .dictionary(entries)
            }
            if rarely(3) { rule["default"] = pick(pool) }
            if rarely(8) { rule["using"] = "map" }
            return
        }
        rule["using"] = .string(name)
        switch RulesFile.ConverterName(rawValue: name) {
        case .date?:
            rule["from"] = pick(Self.dateFormats)
            rule["to"] = pick(Self.dateFormats)
        case .wrapElements?:
            rule["inKey"] = .string(pick(Self.keys))
            if !rarely(3) { rule["with"] = ["type": "arrow"] }
        case .unwrapElements?:
            rule["key"] = .string(pick(Self.keys))
            if !rarely(3) { rule["with"] = ["type": "arrow"] }
        default:
            break
        }
    }
}
