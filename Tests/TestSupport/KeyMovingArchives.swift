import ArchiveFormats
import Foundation

/// The catalog the text-rewrite tests upgrade with, whose chains only move keys (and one that
/// converts a value, for the tree), and the tree path's answer to compare every rewrite with.
package enum KeyMovingArchives {
    /// Shape v1 {id, name, x, y, legacy?} → v2 renames name, drops legacy → v3 nests x and y
    /// into center → v4 adds visible, note, rank and label; `OldShape` objects are Shapes of
    /// version 1, as are Shapes without a version. Board v1 {user, shapes} → v2 renames user.
    /// Frame's chain converts a value (the tree's to run); Tag is current at version 1.
    package static let rules = """
        {"formatVersion": 1, "types": {
          "Shape": {"currentVersion": 4, "unversionedVersion": 1, "steps": [
            {"from": 1, "to": 2, "rules": [{"renameType": "OldShape", "to": "Shape"}, {"rename": "name", "to": "title"},
                                          {"remove": "legacy"}]},
            {"from": 2, "to": 3, "rules": [{"nest": ["x", "y"], "into": "center"}]},
            {"from": 3, "to": 4, "rules": [{"add": "visible", "default": true}, {"add": "note", "default": null},
                                          {"add": "rank", "default": 2}, {"add": "label", "default": "none"}]}]},
          "Board": {"currentVersion": 2, "steps": [{"from": 1, "to": 2, "rules": [{"rename": "user", "to": "owner"}]}]},
          "Frame": {"currentVersion": 2, "steps": [{"from": 1, "to": 2, "rules": [{"convert": "size", "using": "intToString"}]}]},
          "Tag": {"currentVersion": 1}}}
        """

    package static func catalog() throws -> MigrationCatalog {
        try MigrationCatalog(rulesFile: ArchiveFormat.json.read(Data(rules.utf8)), fileName: "rules.json")
    }

    /// The tree path: read, choose the document chain, migrate, write; the bytes it writes (also
    /// when nothing changed) and whether anything changed; `nil` when any of it throws.
    package static func treePath(_ data: Data, catalog: MigrationCatalog) -> (changed: Bool, output: Data)? {
        guard var document = try? ArchiveDocument(data: data),
            // A plain document no document chain applies to is an error (``DocumentChoice``).
            !DocumentChoice(for: document.tree, named: nil, in: catalog).isUnmatched,
            let report = try? MigrationPass(catalog: catalog).upgrade(&document.tree),
            let output = try? document.data()
        else { return nil }
        return (report.changedTree, output)
    }
}

/// JSON archives of the test catalog's types as text, spelled every way the reader accepts:
/// numbers in every form (`1.50`, `1e2`, `-0`, beyond 64 bits), strings with escapes and raw
/// UTF-8, compact, spaced, pretty-printed or tab-indented, keys in any order with the markup
/// anywhere in nested objects; now and then something only the tree handles.
package struct ArchiveTextGenerator {
    private var random: SplitMix64
    private var style = 0
    /// Compact or spaced only (an NDJSON line).
    private let singleLine: Bool

    package init(seed: UInt64, singleLine: Bool = false) {
        random = SplitMix64(seed: seed)
        self.singleLine = singleLine
    }

    private mutating func pick(_ count: Int) -> Int {
        Int(random.next() % UInt64(count))
    }

    private mutating func chance(_ percent: Int) -> Bool {
        pick(100) < percent
    }

    package mutating func document() -> String {
        style = pick(singleLine ? 2 : 4)
        var text: String
        switch pick(10) {
        case 0...5: text = shape(level: 0)
        case 6...8: text = board(level: 0)
        default:
            text = object(
                type: ["Frame", "Tag", "Mystery"][pick(3)], version: "1", fields: fields(2, level: 0), level: 0)
        }
        if style == 2 && chance(70) { text += "\n" }
        return text
    }

    // MARK: Objects

    private mutating func shape(level: Int) -> String {
        let version = pick(6)  // 0: none, 5: newer than the chain
        var fields: [(String, String)] = [("id", number())]
        switch version {
        case 0, 1:
            fields += [("name", string()), ("x", number()), ("y", number())]
            if chance(30) { fields.append(("legacy", value(level: level + 1))) }
        case 2:
            fields += [("title", string()), ("x", number()), ("y", number())]
        case 3:
            fields += [
                ("title", string()), ("center", dictionary([("x", number()), ("y", number())], level: level + 1)),
            ]
        default:
            fields += [
                ("title", string()), ("center", dictionary([("x", number()), ("y", number())], level: level + 1)),
                ("visible", "true"), ("note", "null"), ("rank", "2"), ("label", string()),
            ]
        }
        if chance(25) { fields.append(("tags", array(level: level + 1))) }
        if chance(5) { fields.append(fields[pick(fields.count)]) }  // a repeated key
        fields = shuffledAfterFirst(fields)
        let name = version == 1 && chance(30) ? "OldShape" : "Shape"
        return object(type: name, version: version == 0 ? nil : String(version), fields: fields, level: level)
    }

    private mutating func board(level: Int) -> String {
        let version = 1 + pick(2)
        var shapes: [String] = []
        for _ in 0..<pick(4) where level < 6 { shapes.append(shape(level: level + 2)) }
        let fields = [
            (version == 1 ? "user" : "owner", chance(90) ? string() : value(level: level + 1)),
            ("shapes", join(shapes, level: level + 1, open: "[", close: "]")),
        ]
        return object(type: "Board", version: String(version), fields: fields, level: level)
    }

    private mutating func fields(_ count: Int, level: Int) -> [(String, String)] {
        (0..<count).map { index in ("f\(index)", value(level: level + 1)) }
    }

    /// An object: at the top `$type` first (as archives are written); inside, the markup
    /// anywhere among the fields.
    private mutating func object(type: String, version: String?, fields: [(String, String)], level: Int) -> String {
        var members = fields.map { (quote($0.0), $0.1) }
        var markup = [(quote("$type"), quote(type))]
        if let version { markup.append((quote("$version"), version)) }
        if level == 0 || chance(50) {
            members.insert(contentsOf: markup, at: 0)
        } else {
            for entry in markup { members.insert(entry, at: pick(members.count + 1)) }
        }
        return join(members.map { "\($0.0)\(colon)\($0.1)" }, level: level, open: "{", close: "}")
    }

    private mutating func dictionary(_ fields: [(String, String)], level: Int) -> String {
        join(fields.map { "\(quote($0.0))\(colon)\($0.1)" }, level: level, open: "{", close: "}")
    }

    private mutating func shuffledAfterFirst(_ fields: [(String, String)]) -> [(String, String)] {
        guard chance(30) else { return fields }
        var shuffled = fields
        shuffled.shuffle(using: &random)
        return shuffled
    }

    // MARK: Values

    private mutating func value(level: Int) -> String {
        guard level < 8 else { return number() }
        switch pick(20) {
        case 0...4: return number()
        case 5...8: return string()
        case 9: return ["true", "false", "null"][pick(3)]
        case 10...11: return array(level: level)
        case 12...13:
            var keys = ["a", "b", "k", "é", "long key with spaces"]
            if chance(10) { keys.append(["$x", #"a\u0062"#, "$ref"][pick(3)]) }
            let count = pick(4)
            return dictionary((0..<count).map { _ in (keys[pick(keys.count)], value(level: level + 1)) }, level: level)
        case 14: return shape(level: level)
        case 15: return object(type: "Tag", version: "1", fields: [("name", string())], level: level)
        case 16:
            return object(
                type: "Mystery", version: chance(50) ? "3" : nil, fields: fields(pick(3), level: level), level: level)
        case 17 where chance(20): return object(type: "Frame", version: "1", fields: [("size", number())], level: level)
        case 18 where chance(10): return #"{"$date":"2001-01-01T00:00:00Z"}"#
        case 19 where chance(10): return "[1,"  // broken text
        default: return string()
        }
    }

    private mutating func array(level: Int) -> String {
        join((0..<pick(4)).map { _ in value(level: level + 1) }, level: level, open: "[", close: "]")
    }

    private static let numbers = [
        "0", "7", "-12", "42", "123456789012345678", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616", "-0",
        "1.5", "1.50", "0.25", "-0.0", "0.0", "1e2", "1E+2", "2.5e-3", "1e-7", "0.00001", "0.0001",
        "123456789.123456789", "3.141592653589793", "1e308", "5e-324", "100000000000000000000.0", "0.1",
        "12345678901234567890", "1e15", "999999999999999.9", "4503599627370496.5", "-1.25e-10",
    ]

    private mutating func number() -> String {
        Self.numbers[pick(Self.numbers.count)]
    }

    private static let strings = [
        #""plain""#, #""""#, #""caf\u00e9""#, #""line\nbreak""#, #""quote \" and \\""#, #""é raw""#,
        #""\ud83d\ude00""#, #""slash \/""#, #""$dollar""#, #""tab\t and \b\f\r""#, #""\u0000""#, #""🙂 raw""#,
        #""a long string that goes on for more than sixteen bytes""#,
    ]

    private mutating func string() -> String {
        Self.strings[pick(Self.strings.count)]
    }

    // MARK: Layout

    private func quote(_ key: String) -> String {
        "\"\(key)\""
    }

    private var colon: String { style == 0 ? ":" : ": " }

    /// `open`, the items separated as the style says, `close`.
    private func join(_ items: [String], level: Int, open: String, close: String) -> String {
        guard !items.isEmpty else { return open + close }
        switch style {
        case 0: return open + items.joined(separator: ",") + close
        case 1: return open + items.joined(separator: ", ") + close
        default:
            let unit = style == 2 ? "  " : "\t"
            let inner = String(repeating: unit, count: level + 1)
            let outer = String(repeating: unit, count: level)
            return open + "\n" + items.map { inner + $0 }.joined(separator: ",\n") + "\n" + outer + close
        }
    }
}
