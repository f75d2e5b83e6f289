import Foundation
import ModelVersioning

// The migration catalog `fuzz-migrate` runs arbitrary trees through: every rule kind (rename,
// add, remove, convert with built-in and custom converters, move with key and index paths,
// nest, hoist, wrapInArray, takeFirst, split and merge by separator and by closures, renameType,
// scoped with `[*]` and `*` wildcards, transform), aliases, unversioned objects and a document
// chain; both directions.

/// The type names the catalog knows (current names and old ones), for the tree generator.
public let fuzzTypeNames = ["Shape", "OldShape", "Group", "Person", "Legacy.Person", "Stamp", "Unknown"]

/// The catalog `fuzz-migrate` applies.
public let fuzzCatalog: MigrationCatalog = {
    let doubler = ValueConverter.custom(
        name: "double",
        forward: { value in
            guard let number = value.int64Value else {
                throw ArchiveError(.migrationFailed, "expected an integer, found \(value)")
            }
            return .int(number &* 2)
        },
        inverse: { value in .int((value.int64Value ?? 0) / 2) })
    let shape = TypeMigrations(
        typeName: "Shape", currentVersion: 5, aliases: ["Legacy.Shape"], unversionedVersion: 1,
        steps: [
            MigrationStep(
                from: 1, to: 2, name: "v2",
                rules: [
                    .renameType(from: "OldShape", to: "Shape"), .rename("r", to: "radius"),
                    .nest(["x", "y"], into: "center"), .add("visible", default: true),
                    .convert("radius", .intToDouble),
                ]),
            MigrationStep(
                from: 2, to: 3, name: "v3",
                rules: [
                    .move("center.x", to: "position.0"), .move("tags[0]", to: "firstTag"), .wrapInArray("note"),
                    .convert("kind", .map(["c": "circle", "s": "square"], default: "other")),
                    .convert("created", .date(format: .iso8601)),
                ]),
            MigrationStep(
                from: 3, to: 4, name: "v4",
                rules: [
                    .takeFirst("note"), .split("label", into: ["first", "last"], separator: " "),
                    .merge(["a", "b"], into: "ab", separator: "-"),
                    .hoist(["width", "height"], from: "size"),
                    .convert("stamps", .wrapElements(inKey: "value", with: ["unit": "pt"])),
                ]),
            MigrationStep(
                from: 4, to: 5, name: "v5",
                rules: [
                    .scoped("children[*]", [.rename("n", to: "name"), .add("depth", default: 0)]),
                    .scoped("meta.*", [.remove("junk", restoring: "x"), .convert("count", doubler)]),
                    .scoped("", [.rename("visible", to: "shown")]),
                    .split(
                        "pair", into: ["left", "right"],
                        using: { value in
                            guard case .array(let elements) = value, elements.count == 2 else {
                                throw ArchiveError(.migrationFailed, "expected a pair")
                            }
                            return elements
                        }, inverse: { parts in .array(parts) }),
                    .merge(
                        ["lo", "hi"], into: "range", using: { parts in .array(parts) },
                        inverse: { value in
                            guard case .array(let elements) = value, elements.count == 2 else {
                                throw ArchiveError(.migrationFailed, "expected a range")
                            }
                            return elements
                        }),
                    .transform(
                        "touch",
                        { target in
                            if target.fields["touched"] != nil { target.fields["touched"] = .bool(true) }
                        }, inverse: { target in target.fields["touched"] = nil }),
                ]),
        ])
    let group = TypeMigrations(
        typeName: "Group", currentVersion: 3,
        steps: [
            MigrationStep(
                from: 1, to: 2,
                rules: [
                    .scoped("items[*].*", [.rename("old", to: "new")]), .convert("ids", .unwrapElements(key: "id")),
                    .convert("count", .stringToInt), .convert("ratio", .stringToDouble),
                    .convert("on", .stringToBool),
                ]),
            MigrationStep(
                from: 2, to: 3,
                rules: [
                    .move("items", to: "content.items"), .convert("stamp", .date(format: .secondsSince1970)),
                    .convert("title", .intToString), .remove("scratch"),
                ]),
        ])
    let person = TypeMigrations(
        typeName: "Person", currentVersion: 2, aliases: ["Legacy.Person"],
        steps: [
            MigrationStep(
                from: 1, to: 2,
                rules: [
                    .rename("name", to: "fullName", required: true),
                    .convert("born", .date(format: .pattern("yyyy-MM-dd"))),
                ])
        ])
    let stamp = TypeMigrations(typeName: "Stamp", currentVersion: 1)
    let document = DocumentMigrations(
        name: "FuzzDocument", versionPath: "meta.version", currentVersion: 3, unversionedVersion: 1,
        steps: [
            MigrationStep(
                from: 1, to: 2,
                rules: [
                    .scoped("people[*]", [.split("name", into: ["first_name", "last_name"], separator: " ")]),
                    .renameType(from: "Doc", to: "Document"),
                ]),
            MigrationStep(
                from: 2, to: 3,
                rules: [
                    .scoped("people[*]", [.add("birthday", default: nil)]), .nest(["a", "b"], into: "pair"),
                    .move("root.shapes", to: "shapes"),
                ]),
        ])
    do {
        return try MigrationCatalog(types: [shape, group, person, stamp], documents: [document])
    } catch {
        preconditionFailure("the fuzz catalog is consistent: \(error)")
    }
}()

/// Builds an arbitrary tree from bytes: every kind of value, objects of the catalog's types at
/// any version (or none), references, and nesting as deep as the bytes ask (up to 300 levels,
/// beyond `ArchiveLimits.maxDepth`'s default of 256 only when the limit is lowered).
public struct TreeGenerator {
    private var bytes: [UInt8]
    private var index = 0
    private let keys = [
        "r", "radius", "x", "y", "center", "tags", "note", "kind", "created", "label", "a", "b", "size", "width",
        "height", "stamps", "children", "meta", "junk", "count", "pair", "lo", "hi", "touched", "items", "old", "ids",
        "ratio", "on", "stamp", "title", "scratch", "name", "born", "people", "root", "shapes", "version", "value",
        "$type", "*", "",
    ]
    private let strings = [
        "c", "s", "Ada Lovelace", "2020-01-02T03:04:05Z", "1999-12-31", "42", "-7", "2.5", "true", "no", "x y z",
        "", "\u{0}", "🎉", "nan",
    ]
    /// How many values `value(depth:)` has built.
    public private(set) var nodes = 0

    /// A generator that takes its choices from `data`.
    public init(_ data: Data) {
        bytes = Array(data)
    }

    private mutating func next() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func pick<T>(_ options: [T]) -> T {
        options[Int(next()) % options.count]
    }

    /// The next value; `depth` stops the generator's own recursion at 300 levels.
    public mutating func value(depth: Int = 0) -> ArchiveValue {
        nodes += 1
        let selector = next()
        guard depth < 300, index < bytes.count else { return .null }
        switch selector % 16 {
        case 0: return .null
        case 1: return .bool(next() & 1 == 1)
        case 2: return .int(Int64(Int8(bitPattern: next())) &* Int64(next()))
        case 3: return .int(Int64.min &+ Int64(next()))
        case 4: return .uint(UInt64.max &- UInt64(next()))
        case 5: return .double([0.5, -1e308, .nan, .infinity, 0x1p-1063, 3][Int(next()) % 6])
        case 6: return .string(pick(strings))
        case 7: return .data(Data(repeating: next(), count: Int(next() % 8)))
        case 8: return .date(Date(timeIntervalSinceReferenceDate: Double(Int8(bitPattern: next())) * 1e9))
        case 9: return .reference(ArchiveObjectID(Int(next() % 8)))
        case 10, 11:
            var elements: [ArchiveValue] = []
            for _ in 0..<Int(next() % 5) { elements.append(value(depth: depth + 1)) }
            return .array(elements)
        case 12, 13:
            var entries = ArchiveDictionary()
            for _ in 0..<Int(next() % 6) { entries[pick(keys)] = value(depth: depth + 1) }
            return .dictionary(entries)
        default:
            var fields = ArchiveDictionary()
            for _ in 0..<Int(next() % 6) { fields[pick(keys)] = value(depth: depth + 1) }
            let version = next()
            let id = next()
            return .object(
                ArchiveObject(
                    typeName: pick(fuzzTypeNames), version: version % 8 == 7 ? nil : Int(version % 8),
                    id: id % 4 == 0 ? ArchiveObjectID(Int(id / 4)) : nil, fields: fields))
        }
    }
}
