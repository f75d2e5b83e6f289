import Foundation
import Testing

@testable import ModelVersioning

// Values for the direct JSON encoder: what it writes must be byte for byte what the tree
// encoder and JSONWriter write, and what it cannot write the same way must go to the tree.

private struct StreamPoint: Codable {
    var x: Double
    var y: Double
}

private enum StreamKind: String, Codable {
    case circle, square
}

private struct StreamEmpty: Codable {}

private struct StreamBare: VersionedModel {
    static let archiveTypeName = "Bare"
}

/// Every primitive the coders know, optionals, nested arrays and a plain struct.
private struct StreamItem: VersionedModel {
    var id: Int
    var title: String
    var kind: StreamKind
    var center: StreamPoint
    var tags: [String]
    var weights: [Double]
    var counts: [Int]
    var note: String?
    var created: Date
    var blob: Data
    var link: URL
    var amount: Decimal
    var small: Int8
    var big: UInt64
    var ratio: Float
    var flag: Bool
    var grid: [[Int]]
    var gaps: [Int?]
    var extras = UnknownFields()

    static let archiveTypeName = "Item"
    static let modelVersion = 3

    static func sample(_ index: Int) -> StreamItem {
        StreamItem(
            id: index - 2, title: "Item \"\(index)\"\n\\ é ✓", kind: index % 2 == 0 ? .circle : .square,
            center: StreamPoint(x: Double(index) / 8, y: -0.0), tags: index % 3 == 0 ? [] : ["a", "b\u{1}"],
            weights: [1e-7, 0.1, 1e300, 12345.678], counts: [Int.min, 0, Int.max], note: index % 2 == 0 ? nil : "n",
            created: Date(timeIntervalSinceReferenceDate: Double(index) * 1000.5), blob: Data([0, 1, 2, UInt8(index)]),
            link: URL(string: "https://example.com/\(index)?q=1")!, amount: Decimal(string: "12.34")!, small: -128,
            big: UInt64.max, ratio: 0.1, flag: index % 2 == 1, grid: [[], [1, 2]], gaps: [nil, 3])
    }
}

/// Keys that need archive markup escaping, and a model property the model leaves out.
private struct StreamEscapes: VersionedModel {
    var dollar: Int
    var plain: String
    var skipped: [String: Int]

    static let archiveTypeName = "Escapes"
    static let encodingBehaviors: [String: EncodingBehavior] = ["skipped": .excluded]

    private enum CodingKeys: String, CodingKey {
        case dollar = "$dollar"
        case plain
        case skipped
    }
}

/// Writes its keys in an order that depends on the value, so the known key sequence changes.
private struct StreamShuffled: Codable {
    var first: Bool

    private enum CodingKeys: String, CodingKey {
        case a, b, c
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if first {
            try container.encode(1, forKey: .a)
            try container.encode(2, forKey: .b)
        } else {
            try container.encode(3, forKey: .b)
            try container.encode(4, forKey: .c)
            try container.encode(5, forKey: .a)
        }
    }

    init(first: Bool) {
        self.first = first
    }

    init(from decoder: any Decoder) throws {
        first = true
    }
}

private struct StreamLibrary: VersionedModel {
    var items: [StreamItem]
    var bare: StreamBare
    var empty: StreamEmpty
    var escapes: [StreamEscapes]
    var shuffled: [StreamShuffled]
    var nested: [StreamLibrary]

    static let archiveTypeName = "Library"
    static let modelVersion = 2

    static func sample(depth: Int = 1) -> StreamLibrary {
        StreamLibrary(
            items: (0..<4).map(StreamItem.sample), bare: StreamBare(), empty: StreamEmpty(),
            escapes: [
                StreamEscapes(dollar: 7, plain: "$not a key", skipped: ["x": 1]),
                StreamEscapes(dollar: 8, plain: "", skipped: [:]),
            ],
            shuffled: [StreamShuffled(first: true), StreamShuffled(first: false), StreamShuffled(first: true)],
            nested: depth > 0 ? [sample(depth: depth - 1)] : [])
    }
}

/// Polymorphic values of value-type models: each element is stamped with its own type.
private protocol StreamFigure: Codable {}

private struct StreamDot: VersionedModel, StreamFigure {
    var size: Int
    static let archiveTypeName = "Dot"
}

private struct StreamLine: VersionedModel, StreamFigure {
    var from: StreamPoint
    var to: StreamPoint
    static let archiveTypeName = "Line"
    static let modelVersion = 2
}

private struct StreamSketch: VersionedModel {
    @Polymorphic var figures: [any StreamFigure]
    @Polymorphic var focus: (any StreamFigure)?
    @Polymorphic var main: any StreamFigure
    @Polymorphic var layers: [String: [any StreamFigure]] = [:]
    static let archiveTypeName = "Sketch"
}

/// Uses super encoders the way hand-written code can: one left unused, one used after its
/// container went on (the tree puts that value where the super encoder was asked for).
private struct StreamSuperUser: Codable {
    var late: Bool

    private enum CodingKeys: String, CodingKey {
        case unused, first, second
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        _ = container.superEncoder(forKey: .unused)
        let first = container.superEncoder(forKey: .first)
        if late {
            try container.encode(2, forKey: .second)
            try StreamPoint(x: 1, y: 1).encode(to: first)
        } else {
            try StreamPoint(x: 1, y: 1).encode(to: first)
            try container.encode(2, forKey: .second)
        }
    }

    init(late: Bool) {
        self.late = late
    }

    init(from decoder: any Decoder) throws {
        late = false
    }
}

/// Asks for its container again while a super encoder's value is open, then writes through
/// the super encoder (the tree keeps that value where the super encoder was asked for).
private struct StreamReentrant: Codable {
    var late: Bool

    private enum CodingKeys: String, CodingKey {
        case first, second
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let first = container.superEncoder(forKey: .first)
        var again = encoder.container(keyedBy: CodingKeys.self)
        try again.encode(2, forKey: .second)
        if late { try StreamPoint(x: 1, y: 1).encode(to: first) }
    }

    init(late: Bool) {
        self.late = late
    }

    init(from decoder: any Decoder) throws {
        late = false
    }
}

/// Holds an encoder past the `encode(to:)` it was given to.
private final class StreamEncoderHolder: @unchecked Sendable {
    var encoder: (any Encoder)?
}

/// Keeps its encoder; the next value writes through it after this one has finished (the tree
/// encoder's finished storage ignores that write).
private struct StreamStaleEncoder: Encodable {
    let holder: StreamEncoderHolder

    private enum CodingKeys: String, CodingKey {
        case kept, late, stale
    }

    private struct Keeper: Encodable {
        let holder: StreamEncoderHolder

        func encode(to encoder: any Encoder) throws {
            holder.encoder = encoder
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(1, forKey: .kept)
        }
    }

    private struct LateWriter: Encodable {
        let holder: StreamEncoderHolder

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(2, forKey: .late)
            if let kept = holder.encoder {
                var stale = kept.container(keyedBy: CodingKeys.self)
                try stale.encode(3, forKey: .stale)
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(Keeper(holder: holder))
        try container.encode(LateWriter(holder: holder))
    }
}

/// Writes many keys of its own (a key-value bag), optionally one of them twice far apart.
private struct StreamManyKeys: Encodable {
    var count: Int
    var repeatAt: Int?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for index in 0..<count {
            try container.encode(index, forKey: Key(stringValue: "k\(index)"))
        }
        if let repeatAt { try container.encode(-1, forKey: Key(stringValue: "k\(repeatAt)")) }
    }
}

/// Asks its unkeyed container for super encoders and writes through some of them.
private struct StreamElementWriter: Codable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try "a".encode(to: container.superEncoder())
        _ = container.superEncoder()
        try container.encode(3)
        var single = container.superEncoder().singleValueContainer()
        try single.encode([StreamPoint(x: 0, y: 0)])
    }

    init() {}

    init(from decoder: any Decoder) throws {}
}

// Values only the tree encoder writes.

private final class StreamOwner: VersionedModel {
    var name = "owner"
    var items: [StreamOwner] = []
    static let archiveTypeName = "Owner"
}

/// A class model with a subclass: the subclass writes its superclass's keys through a super
/// encoder of the model's container.
private class StreamBase: VersionedModel {
    var base = 1
    static let archiveTypeName = "Base"

    init() {}

    required init(from decoder: any Decoder) throws {}

    private enum CodingKeys: String, CodingKey { case base }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(base, forKey: .base)
    }
}

private final class StreamDerived: StreamBase {
    var derived = 2

    private enum CodingKeys: String, CodingKey { case derived }

    override init() { super.init() }

    required init(from decoder: any Decoder) throws { try super.init(from: decoder) }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(derived, forKey: .derived)
        try super.encode(to: container.superEncoder())
    }
}

private struct StreamWithDictionary: Codable {
    var counts: [String: Int]
}

/// Writes the coding path it is encoded at (each key as `stringValue|intValue`).
private struct StreamPathWriter: Codable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoder.codingPath.map { "\($0.stringValue)|\($0.intValue.map(String.init) ?? "-")" })
    }

    init() {}

    init(from decoder: any Decoder) throws {}
}

/// Coding paths through keys, array positions and nested arrays.
private struct StreamPaths: Codable {
    var one = StreamPathWriter()
    var list = [StreamPathWriter(), StreamPathWriter()]
    var nested = [[StreamPathWriter()], [StreamPathWriter(), StreamPathWriter()]]
    var optional: StreamPathWriter? = StreamPathWriter()
}

/// Dictionaries with `String` keys in a model, nested, empty, with keys that need escaping.
private struct StreamAtlas: VersionedModel {
    var places: [String: StreamPoint]
    var nested: [String: [String: [Int]]]
    var empty: [String: Bool]
    var paths: [String: StreamPathWriter]
    var optional: [String: String?]
    static let archiveTypeName = "Atlas"
}

private struct StreamWithIntKeys: Codable {
    var byNumber: [Int: String]
}

private struct StreamWithSet: Codable {
    var names: Set<String>
}

/// Sets of every scalar kind, sorted as the tree sorts them.
private struct StreamSets: Codable {
    var strings: Set<String> = ["b", "a", "B", "é", "10", "9"]
    var numbers: Set<Int> = [10, -3, 2, Int.max]
    var doubles: Set<Double> = [2.5, -0.0, 1e300, 0.1]
    var flags: Set<Bool> = [true, false]
    var dates: Set<Date> = [Date(timeIntervalSinceReferenceDate: 5), Date(timeIntervalSinceReferenceDate: -5)]
    var small: Set<Int8> = [-128, 127, 0]
    var large: Set<UInt> = [UInt.max, 1]
    var links: Set<URL> = [URL(string: "https://b.example")!, URL(string: "https://a.example")!]
    var empty: Set<String> = []
}

private struct StreamHashablePoint: Codable, Hashable {
    var x: Int
}

/// Writes `value` under one key twice (the tree keeps the first position and the last value).
private struct StreamRepeater: Codable {
    private enum CodingKeys: String, CodingKey {
        case value, other
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(1, forKey: .value)
        try container.encode(2, forKey: .other)
        try container.encode(3, forKey: .value)
    }

    init() {}

    init(from decoder: any Decoder) throws {}
}

/// Synthesized Codable for associated values uses nested containers.
private enum StreamShape: Codable {
    case circle(radius: Double)
}

private struct StreamPolymorphicKind: Codable {
    var shapes: [StreamShape]
}

/// A value that writes to its container after a nested value finished: allowed, and streamed.
private struct StreamInterleaved: Codable {
    private enum CodingKeys: String, CodingKey {
        case before, inner, after, last
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("b", forKey: .before)
        try container.encode(StreamPoint(x: 1, y: 2), forKey: .inner)
        try container.encode("a", forKey: .after)
        // Asking again gives the same container.
        var again = encoder.container(keyedBy: CodingKeys.self)
        try again.encode("again", forKey: .last)
    }

    init() {}

    init(from decoder: any Decoder) throws {}
}

@Suite("Direct JSON encoder")
struct DirectEncoderTests {
    /// Writing options the encoder is compared under.
    static let optionSets: [ArchiveWritingOptions] = [
        ArchiveWritingOptions(),
        ArchiveWritingOptions(prettyPrinted: false),
        ArchiveWritingOptions(prettyPrinted: true, markup: .plain),
        ArchiveWritingOptions(prettyPrinted: false, markup: .plain),
    ]

    /// Encodes `value` under every option set, with and without a document name: the streamed
    /// bytes (when it streams) and `encode(_:)`'s result equal the tree writer's. Returns how
    /// many runs streamed.
    @discardableResult
    private func compare<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var streamed = 0
        for options in Self.optionSets {
            for document in [nil, "Sketch"] as [String?] {
                var encoder = ArchiveEncoder(writingOptions: options)
                encoder.document = document
                encoder.documentVersion = document == nil ? nil : 3
                let tree = Result { try encoder.format.write(try encoder.encodeTree(value), options: options) }
                let direct = DirectJSONEncoder.encode(value, with: encoder)
                let viaEncode = Result { try encoder.encode(value) }
                switch (tree, viaEncode) {
                case (.success(let expected), .success(let actual)):
                    #expect(
                        String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
                        sourceLocation: sourceLocation)
                    if let direct {
                        streamed += 1
                        #expect(direct == expected, sourceLocation: sourceLocation)
                    }
                case (.failure(let expected), .failure(let actual)):
                    #expect("\(actual)" == "\(expected)", sourceLocation: sourceLocation)
                    #expect(
                        direct == nil, "a value the tree cannot write does not stream", sourceLocation: sourceLocation)
                default:
                    Issue.record("tree: \(tree), encode(_:): \(viaEncode)", sourceLocation: sourceLocation)
                }
            }
        }
        return streamed
    }

    @Test("models, plain structs, enums, optionals, arrays and every primitive stream with the tree's bytes")
    func sameBytes() {
        let runs = Self.optionSets.count * 2
        #expect(compare(StreamLibrary.sample(depth: 2)) == runs)
        #expect(compare([StreamItem.sample(1), StreamItem.sample(2)]) == runs)
        #expect(compare(StreamInterleaved()) == runs)
        #expect(compare(StreamEmpty()) == runs)
        #expect(compare(StreamBare()) == runs)
        #expect(compare(["a", "b"]) == runs)
        #expect(compare([[1.5, -0.0]]) == runs)
        #expect(compare(42) == runs)
        #expect(compare(Optional<Int>.none) == runs)
        #expect(compare(StreamKind.square) == runs)
        #expect(compare(ArchiveValue.string("tree node")) == runs)
        let line = StreamLine(from: StreamPoint(x: 0, y: 1), to: StreamPoint(x: 2, y: 3))
        #expect(compare(StreamSketch(figures: [StreamDot(size: 1), line], focus: nil, main: line)) == runs)
        #expect(compare(StreamSketch(figures: [], focus: StreamDot(size: 2), main: StreamDot(size: 3))) == runs)
        let layered = StreamSketch(
            figures: [line], focus: nil, main: line, layers: ["top": [StreamDot(size: 4)], "bottom": [], "mid": [line]])
        #expect(compare(layered) == runs)
        #expect(compare(StreamElementWriter()) == runs)
        #expect(compare(StreamSuperUser(late: false)) == runs)
        #expect(compare(StreamReentrant(late: false)) == runs)
        #expect(compare(StreamWithSet(names: ["z", "y", "x"])) == runs)
        #expect(compare(StreamSets()) == runs)
        #expect(compare([StreamManyKeys(count: 3000), StreamManyKeys(count: 20)]) == runs)
        #expect(compare([StreamSets(), StreamSets()]) == runs)
        let owner = StreamOwner()
        owner.items = [StreamOwner(), StreamOwner()]
        #expect(compare(owner) == runs, "class instances written once keep no identity")
        #expect(compare([StreamOwner(), owner]) == runs)
        #expect(compare(StreamWithDictionary(counts: ["b": 2, "a": 1, "c": 3, "B": 4, "10": 5, "9": 6])) == runs)
        let atlas = StreamAtlas(
            places: [
                "zürich": StreamPoint(x: 1, y: 2), "$home": StreamPoint(x: 0, y: 0), "a\"b\n": StreamPoint(x: 3, y: 4),
            ],
            nested: ["outer": ["b": [2], "a": []], "": [:]], empty: [:],
            paths: ["7": StreamPathWriter(), "seven": StreamPathWriter(), "-1": StreamPathWriter()],
            optional: ["none": nil, "some": "value"])
        #expect(compare(atlas) == runs)
        #expect(compare([atlas, atlas]) == runs)
        #expect(compare(StreamPaths()) == runs, "coding paths through keys and array positions")
        #expect(compare([StreamPaths()]) == runs)
    }

    @Test("values that need the whole tree are written by the tree encoder, with the same bytes")
    func treeOnly() throws {
        let shared = StreamOwner()
        #expect(compare([shared, shared]) == 0, "a shared instance gets an identity and a reference")
        let parent = StreamOwner()
        parent.items = [StreamOwner(), shared, StreamOwner()]
        shared.items = [StreamOwner()]
        #expect(compare([parent, shared]) == 0, "a shared instance gets an identity and a reference")
        let cycle = StreamOwner()
        cycle.items = [cycle]
        #expect(compare(cycle) == 0, "a cycle is the tree encoder's error")
        #expect(compare(StreamDerived()) == 0, "a model's super encoder applies the model's behaviours")
        #expect(compare(StreamWithIntKeys(byNumber: [10: "ten", 2: "two"])) == 0, "integer keys sort as strings")
        #expect(compare(Set([StreamHashablePoint(x: 2), StreamHashablePoint(x: 1)])) == 0, "sets of structs")
        #expect(compare(StreamRepeater()) == 0, "a repeated key keeps its first position")
        #expect(compare(StreamPolymorphicKind(shapes: [.circle(radius: 2)])) == 0, "nested containers")
        #expect(compare(StreamSuperUser(late: true)) == 0, "a super encoder used after its container went on")
        #expect(compare(StreamReentrant(late: true)) == 0, "a super encoder used after its encoder went on")
        #expect(compare(StreamManyKeys(count: 100, repeatAt: 80)) == 0, "a key written twice among many")
        #expect(compare(StreamManyKeys(count: 10, repeatAt: 3)) == 0, "a key written twice among few")
        #expect(compare(StreamStaleEncoder(holder: StreamEncoderHolder())) == 0, "an encoder kept past its value")
        #expect(compare(ArchiveValue.array([1, 2])) == 0, "tree nodes with children")
        var lenient = DecodingOptions()
        lenient.allowsNewerVersions = true
        let archived = try ArchiveEncoder().encodeValue(StreamItem.sample(1)).addingField("future", 1)
        let decoded = try ArchiveDecoder(options: lenient).decode(StreamItem.self, fromTree: archived)
        #expect(!decoded.extras.isEmpty)
        #expect(compare(decoded) == 0, "archived extras are merged into the fields")
    }

    @Test("errors and limits are the tree encoder's")
    func errors() {
        // Plain JSON has no NaN: both fail alike; archive markup streams the tagged value.
        #expect(compare([Double.nan, .infinity]) == Self.optionSets.count)
        var deep: [[[[Int]]]] = [[[[1]]]]
        deep.append([])
        var limits = ArchiveLimits.default
        limits.maxDepth = 3
        let options = ArchiveWritingOptions(limits: limits)
        let encoder = ArchiveEncoder(writingOptions: options)
        #expect(DirectJSONEncoder.encode(deep, with: encoder) == nil)
        let error = #expect(throws: ArchiveError.self) { try encoder.encode(deep) }
        #expect(error?.code == .limitExceeded)
        let treeError = #expect(throws: ArchiveError.self) {
            try encoder.format.write(try encoder.encodeTree(deep), options: options)
        }
        #expect("\(String(describing: error))" == "\(String(describing: treeError))")
    }
}

extension ArchiveValue {
    /// The same object with one more field.
    fileprivate func addingField(_ key: String, _ value: ArchiveValue) -> ArchiveValue {
        guard case .object(var object) = self else { return self }
        object.fields[key] = value
        return .object(object)
    }
}
