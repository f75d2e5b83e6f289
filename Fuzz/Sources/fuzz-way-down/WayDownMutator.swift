import Foundation
import ModelVersioning

/// Mutates the tree of a carried way down (an envelope's `wayDown`) or of what one kept for the
/// way back (a `$wayBack` field) from fuzz bytes: each mutation walks from the top to a node
/// chosen byte by byte and replaces it, removes it, or adds beside it — rule keywords, versions
/// at the extremes, type names the readers do and do not register, fallbacks that point back,
/// steps out of order, references and anchors. Most inputs therefore stay well-formed enough to
/// reach past the parser into the migration pass.
struct WayDownMutator {
    private var bytes: [UInt8]
    private var index = 0

    static let typeNames = [
        "Drawing", "Circle", "Rect", "Rectangle", "RoundedRectangle", "Style", "Model", "SketchApp.Rect", "Memo", "",
    ]
    static let keys = [
        "from", "to", "as", "steps", "rules", "name", "fallback", "type", "version", "release", "document", "types",
        "digest", "formatVersion", "comment", "fields", "absent", "base", "references", "anchor", "radius", "r",
        "focus", "tags", "meta", "author", "x", "y", "super", "cornerRadius", "", "$wayBack",
    ]
    static let scalars: [ArchiveValue] = [
        .null, true, false, 0, 1, 2, 3, 4, 5, -1, .int(2_147_483_647), .int(Int64.max), .int(Int64.min),
        .uint(UInt64.max), 1.5, "", "1.1", "1.0", "Sketch", "sha256:", "drawing", "photo", "#FFFFFF",
        .reference(1), .reference(99),
    ]
    static let rules: [ArchiveValue] = [
        ["rename": "radius", "to": "r"], ["rename": "r", "to": "radius", "required": true],
        ["add": "focus", "default": .reference(1)], ["add": "x", "default": ["y": ["z": 1]]],
        ["remove": "tags", "restoring": []], ["remove": "focus"],
        ["convert": "kind", "map": [["photo", 0], ["drawing", 1]]], ["convert": "kind", "using": "stringToInt"],
        ["convert": "created", "using": "date", "from": "date", "to": "iso8601"],
        ["convert": "ids", "using": "unwrapElements", "key": "id"],
        ["move": "size.width", "to": "w"], ["nest": ["x", "y"], "into": "center"],
        ["hoist": ["author", "created"], "from": "meta"], ["wrapInArray": "tags"], ["takeFirst": "shapes"],
        ["split": "title", "into": ["a", "b"], "separator": " "],
        ["merge": ["a", "b"], "into": "t", "separator": "-"],
        ["renameType": "Rectangle", "to": "Rect"], ["renameType": "Circle", "to": "Memo"],
        ["renameType": "Rect", "to": "Rectangle"], ["scope": "shapes[*]", "rules": [["remove": "style"]]],
        ["scope": "*", "rules": [["add": "q", "default": 1]]], ["frobnicate": "x"], [:],
    ]

    init(_ data: Data) {
        bytes = Array(data)
    }

    private mutating func next() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    var exhausted: Bool { index >= bytes.count }

    private mutating func pick<T>(_ options: [T]) -> T {
        options[Int(next()) % options.count]
    }

    /// A byte, for the harness's own choices.
    mutating func choice() -> UInt8 { next() }

    /// Applies one to four mutations to `value`.
    mutating func mutate(_ value: inout ArchiveValue) {
        for _ in 0...(next() % 4) where !exhausted {
            mutateOnce(&value, depth: 0)
        }
    }

    private mutating func mutateOnce(_ value: inout ArchiveValue, depth: Int) {
        let descend = depth < 12 && next() % 4 != 0
        switch value {
        case .dictionary(var entries) where descend && !entries.isEmpty:
            let position = Int(next()) % entries.count
            var child = entries.value(at: position)
            mutateOnce(&child, depth: depth + 1)
            let key = entries[position].key
            entries[key] = child
            value = .dictionary(entries)
        case .array(var elements) where descend && !elements.isEmpty:
            let position = Int(next()) % elements.count
            mutateOnce(&elements[position], depth: depth + 1)
            value = .array(elements)
        case .object(var object) where descend && !object.fields.isEmpty:
            var fields = object.fields
            let position = Int(next()) % fields.count
            var child = fields.value(at: position)
            mutateOnce(&child, depth: depth + 1)
            fields[fields[position].key] = child
            object.fields = fields
            value = .object(object)
        default:
            replace(&value)
        }
    }

    private mutating func replace(_ value: inout ArchiveValue) {
        switch next() % 10 {
        case 0: value = pick(Self.scalars)
        case 1: value = pick(Self.rules)
        case 2:
            if case .dictionary(var entries) = value, !entries.isEmpty {
                entries.removeValue(forKey: entries[Int(next()) % entries.count].key)
                value = .dictionary(entries)
            }
        case 3:
            if case .dictionary(var entries) = value {
                entries[pick(Self.keys)] = pick(Self.scalars)
                value = .dictionary(entries)
            }
        case 4:
            if case .array(var elements) = value, !elements.isEmpty {
                elements.append(elements[Int(next()) % elements.count])
                value = .array(elements)
            }
        case 5:
            if case .array(var elements) = value {
                elements.reverse()
                value = .array(elements)
            }
        case 6: value = .string(pick(Self.typeNames))
        case 7:
            value = [
                "from": pick(Self.scalars), "to": pick(Self.scalars),
                "steps": [["from": pick(Self.scalars), "to": pick(Self.scalars), "rules": [pick(Self.rules)]]],
                "fallback": ["type": .string(pick(Self.typeNames)), "version": pick(Self.scalars), "rules": []],
            ]
        case 8:
            value = [
                "type": .string(pick(Self.typeNames)), "version": pick(Self.scalars),
                "fields": .dictionary([pick(Self.keys): pick(Self.scalars)]),
                "base": .dictionary([pick(Self.keys): pick(Self.scalars)]),
                "references": [
                    [.string(pick(["focus", "focus[0]", "x.y", "[*]", "", "tags[2]"])), pick(Self.scalars)]
                ],
                "anchor": pick(Self.scalars),
            ]
        default:
            var nested = pick(Self.scalars)
            for _ in 0..<Int(next() % 80) { nested = next() % 2 == 0 ? ["x": nested] : [nested] }
            value = nested
        }
    }
}
