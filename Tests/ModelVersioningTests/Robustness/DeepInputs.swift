import Foundation
import ModelVersioning
import Testing

/// A model that nests itself once per level: the deepest recursion through user Codable code
/// the decoder and encoder meet (every object is one level of the tree).
final class Chain: VersionedModel {
    var label: Int
    var next: Chain?

    init(label: Int, next: Chain?) {
        self.label = label
        self.next = next
    }

    /// A chain of `length` objects, built without recursion.
    static func make(length: Int) -> Chain? {
        var head: Chain?
        for label in (0..<length).reversed() {
            head = Chain(label: label, next: head)
        }
        return head
    }
}

/// A model whose polymorphic children nest: an object, then an array, then an object… (two
/// levels of the tree per generation).
final class Family: VersionedModel {
    @Polymorphic var children: [any VersionedModel]

    init(children: [any VersionedModel]) {
        self.children = children
    }

    static let allowedTypes: [String: [any VersionedModel.Type]] = ["children": [Family.self]]

    /// Generations of single children whose tree nests `levels` deep (rounded down to even).
    static func make(levels: Int) -> Family {
        var family = Family(children: [])
        for _ in 1..<max(levels / 2, 1) {
            family = Family(children: [family])
        }
        return family
    }
}

/// Inputs nested `depth` levels deep for every recursive path, and the work each path does with
/// them: what `LimitsTests` runs on a 512 KiB stack.
struct DeepPath: Sendable, CustomTestStringConvertible {
    /// An input handed from the thread that builds it to the thread that uses it (never used by
    /// two threads at once, so `@unchecked Sendable` is sound).
    final class Input: @unchecked Sendable {
        var value: Any?

        init(_ value: Any?) {
            self.value = value
        }

        /// Takes the value out, so that it is released where the caller's frame ends.
        func take<T>(as type: T.Type) -> T {
            defer { value = nil }
            guard let typed = value as? T else { preconditionFailure("the input is a \(Swift.type(of: value))") }
            return typed
        }
    }

    /// The path's name, as the stack-depth probe names it.
    let name: String
    /// The levels one more step of the input adds (2 for inputs that nest an object and an array
    /// per step).
    let step: Int
    /// Builds the input of `depth` levels (on a large stack).
    let make: @Sendable (_ depth: Int) throws -> Input
    /// Does the work with the input, consuming it.
    let run: @Sendable (_ input: Input, _ limits: ArchiveLimits) throws -> Void

    var testDescription: String { name }

    init(
        _ name: String, step: Int = 1, make: @escaping @Sendable (Int) throws -> Input,
        run: @escaping @Sendable (Input, ArchiveLimits) throws -> Void
    ) {
        self.name = name
        self.step = step
        self.make = make
        self.run = run
    }

    /// Limits whose depth allows `depth` levels.
    static func limits(depth: Int) -> ArchiveLimits {
        var limits = ArchiveLimits.default
        limits.maxDepth = depth
        return limits
    }

    /// Limits that never stop a path for depth: for preparing inputs and for measuring how deep
    /// a path can go on a given stack.
    static let unlimited = limits(depth: 1 << 20)

    /// Writing options that never stop for depth.
    static func writing(depth: Int) -> ArchiveWritingOptions {
        ArchiveWritingOptions(prettyPrinted: false, limits: unlimited)
    }

    /// `depth` nested arrays, the innermost holding one number.
    static func nestedArrays(_ depth: Int) -> ArchiveValue {
        var value: ArchiveValue = 1
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    /// `depth` nested objects of type `Level` v1, each with a field `a` and its `child`.
    static func nestedObjects(_ depth: Int, typeName: String = "Level") -> ArchiveValue {
        var value: ArchiveValue = .null
        for _ in 0..<depth {
            value = .object(ArchiveObject(typeName: typeName, version: 1, fields: ["a": 1, "child": value]))
        }
        return value
    }

    /// The catalog the migration paths run: `Level` v1 → v2 renames `a` to `b`.
    static let levelCatalog: MigrationCatalog = {
        do {
            return try MigrationCatalog(types: [
                TypeMigrations(
                    typeName: "Level", currentVersion: 2,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.rename("a", to: "b")])])
            ])
        } catch {
            preconditionFailure("the level catalog is valid: \(error)")
        }
    }()

    static let chainRegistry: ModelRegistry = {
        do {
            return try ModelRegistry([Chain.self, Family.self])
        } catch {
            preconditionFailure("the chain registry is valid: \(error)")
        }
    }()

    /// A reader path: the text or bytes of `depth` nested arrays read by `format`.
    static func reading(_ name: String, _ format: ArchiveFormat, bytes: @escaping @Sendable (Int) throws -> Data)
        -> DeepPath
    {
        DeepPath(name, make: { Input(try bytes($0)) }) { input, limits in
            _ = try format.read(input.take(as: Data.self), options: ArchiveReadingOptions(limits: limits))
        }
    }

    /// A writer path: `depth` nested arrays (objects for keyed archives) written by `format`.
    static func writing(_ name: String, _ format: ArchiveFormat, tree: @escaping @Sendable (Int) -> ArchiveValue)
        -> DeepPath
    {
        DeepPath(name, make: { Input(tree($0)) }) { input, limits in
            _ = try format.write(
                input.take(as: ArchiveValue.self), options: ArchiveWritingOptions(prettyPrinted: false, limits: limits))
        }
    }

    /// Every recursive path of the library.
    static let all: [DeepPath] = [
        reading("JSON reader", .json) {
            Data((String(repeating: "[", count: $0) + String(repeating: "]", count: $0)).utf8)
        },
        reading("XML property-list reader", .xmlPropertyList) {
            try ArchiveFormat.xmlPropertyList.write(nestedArrays($0), options: writing(depth: $0))
        },
        reading("binary property-list reader", .binaryPropertyList) {
            try ArchiveFormat.binaryPropertyList.write(nestedArrays($0), options: writing(depth: $0))
        },
        reading("OpenStep property-list reader", .xmlPropertyList) {
            Data((String(repeating: "(", count: $0) + String(repeating: ")", count: $0)).utf8)
        },
        reading("XML property-list reader, archive markup", .xmlPropertyList) {
            try ArchiveFormat.xmlPropertyList.write(nestedObjects($0), options: writing(depth: $0))
        },
        reading("binary property-list reader, archive markup", .binaryPropertyList) {
            try ArchiveFormat.binaryPropertyList.write(nestedObjects($0), options: writing(depth: $0))
        },
        reading("JSON reader, archive markup", .json) {
            try ArchiveFormat.json.write(nestedObjects($0), options: writing(depth: $0))
        },
        reading("keyed-archive reader, objects", .keyedArchive) {
            try ArchiveFormat.keyedArchive.write(nestedObjects($0), options: writing(depth: $0))
        },
        reading("keyed-archive reader, arrays", .keyedArchive) {
            try ArchiveFormat.keyedArchive.write(nestedArrays($0), options: writing(depth: $0))
        },
        DeepPath("dropping a tree", make: { Input(nestedArrays($0)) }) { input, _ in
            _ = input.take(as: ArchiveValue.self)
        },
        DeepPath("migration pass, upgrade", make: { Input(nestedObjects($0)) }) { input, limits in
            var tree = input.take(as: ArchiveValue.self)
            try MigrationPass(catalog: levelCatalog, options: MigrationOptions(limits: limits)).upgrade(&tree)
        },
        DeepPath(
            "migration pass, downgrade",
            make: { depth in
                var tree = nestedObjects(depth)
                try MigrationPass(catalog: levelCatalog, options: MigrationOptions(limits: unlimited))
                    .upgrade(&tree)
                return Input(tree)
            }
        ) { input, limits in
            var tree = input.take(as: ArchiveValue.self)
            try MigrationPass(catalog: levelCatalog, options: MigrationOptions(limits: limits))
                .downgrade(&tree, to: DowngradeTarget(typeVersions: ["Level": 1]))
        },
        DeepPath(
            "decoder, recursive model",
            make: { depth in
                Input(try ArchiveEncoder(writingOptions: writing(depth: depth)).encodeValue(Chain.make(length: depth)))
            }
        ) { input, limits in
            var options = DecodingOptions()
            options.limits = limits
            _ = try ArchiveDecoder(registry: chainRegistry, options: options).decode(
                Chain.self, fromTree: input.take(as: ArchiveValue.self))
        },
        DeepPath(
            "decoder, polymorphic children", step: 2,
            make: { depth in
                Input(try ArchiveEncoder(writingOptions: writing(depth: depth)).encodeValue(Family.make(levels: depth)))
            }
        ) { input, limits in
            var options = DecodingOptions()
            options.limits = limits
            _ = try ArchiveDecoder(registry: chainRegistry, options: options).decode(
                Family.self, fromTree: input.take(as: ArchiveValue.self))
        },
        DeepPath(
            "decoder, a reference before its object",
            make: { depth in
                // `[ref #1, chain]` whose innermost object is #1: the reference comes first, so the
                // decoder looks for its definition through the whole tree.
                var chain = try ArchiveEncoder(writingOptions: writing(depth: depth)).encodeValue(
                    Chain.make(length: depth - 1))
                try chain.identifyInnermostChain()
                return Input(ArchiveValue.array([.reference(1), chain]))
            }
        ) { input, limits in
            var options = DecodingOptions()
            options.limits = limits
            _ = try ArchiveDecoder(registry: chainRegistry, options: options).decode(
                [Chain].self, fromTree: input.take(as: ArchiveValue.self))
        },
        DeepPath("encoder, recursive model", make: { Input(Chain.make(length: $0)) }) { input, limits in
            var options = ArchiveWritingOptions()
            options.limits = limits
            _ = try ArchiveEncoder(writingOptions: options).encodeValue(input.take(as: Chain.self))
        },
        DeepPath("encoder, polymorphic children", step: 2, make: { Input(Family.make(levels: $0)) }) { input, limits in
            var options = ArchiveWritingOptions()
            options.limits = limits
            _ = try ArchiveEncoder(writingOptions: options).encodeValue(input.take(as: Family.self))
        },
        writing("JSON writer", .json, tree: nestedArrays),
        writing("XML property-list writer", .xmlPropertyList, tree: nestedArrays),
        writing("binary property-list writer", .binaryPropertyList, tree: nestedArrays),
        writing("keyed-archive writer", .keyedArchive, tree: { nestedObjects($0) }),
    ]
}

extension ArchiveValue {
    /// Gives the innermost object of a chain of `next` fields the identity #1.
    mutating func identifyInnermostChain() throws {
        guard var object = objectValue else { throw ArchiveError(.typeMismatch, "not a chain") }
        if object.fields["next"]?.objectValue != nil {
            var next = object.fields["next"] ?? .null
            self = .null
            try next.identifyInnermostChain()
            object.fields["next"] = next
        } else {
            object.id = 1
        }
        self = .object(object)
    }
}
