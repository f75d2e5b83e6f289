@_spi(Coders) import ArchiveFormats
import Foundation
import Testing

@testable import ModelVersioning

// Archives for the direct JSON decoder: what it decodes straight from the bytes must equal
// what the tree decoder decodes, and what it cannot decode the same way must go to the tree
// (with the tree's value or error).

private struct DecPoint: Codable, Equatable {
    var x: Double
    var y: Double
}

private enum DecKind: String, Codable {
    case circle, square
}

private enum DecLevel: Int, Codable {
    case low = 1
    case high = 2
}

/// Every primitive the direct decoder reads itself, optionals, nested arrays, a plain
/// struct, raw-value enums.
private struct DecItem: VersionedModel, Equatable {
    var id: Int
    var title: String
    var kind: DecKind
    var level: DecLevel
    var center: DecPoint
    var tags: [String]
    var weights: [Double]
    var counts: [Int]
    var note: String?
    var small: Int8
    var medium: Int32
    var big: UInt64
    var unsigned: UInt16
    var ratio: Float
    var flag: Bool
    var grid: [[Int]]
    var gaps: [Int?]
    var points: [DecPoint]
    var table: [String: Int]

    static let archiveTypeName = "DecItem"
    static let modelVersion = 3

    static func sample(_ index: Int) -> DecItem {
        DecItem(
            id: index - 2, title: "Item \"\(index)\"\n\\ é ✓ \u{1F600}", kind: index % 2 == 0 ? .circle : .square,
            level: index % 2 == 0 ? .low : .high, center: DecPoint(x: Double(index) / 8, y: -0.0),
            tags: index % 3 == 0 ? [] : ["a", "b\u{1}"], weights: [1e-7, 0.1, 1e300, 12345.678, 3],
            counts: [Int.min, 0, Int.max], note: index % 2 == 0 ? nil : "n", small: -128, medium: Int32.max,
            big: UInt64.max, unsigned: 65535, ratio: 0.1, flag: index % 2 == 1, grid: [[], [1, 2]], gaps: [nil, 3],
            points: [DecPoint(x: 1, y: 2)], table: ["b": 2, "a": index, "": 5])
    }
}

/// A model with an excluded property and a property whose model type is allow-listed.
private struct DecHolder: VersionedModel, Equatable {
    var name: String
    var cache: Int?
    var item: DecItem

    static let archiveTypeName = "DecHolder"
    static let encodingBehaviors: [String: EncodingBehavior] = ["cache": .excluded]
    static let allowedTypes: [String: [any VersionedModel.Type]] = ["item": [DecItem.self]]
}

/// Reads through nested containers, an unkeyed container and `decodeIfPresent`, by hand.
private struct DecManual: Codable, Equatable {
    var first: Int
    var rest: [String]
    var inner: Double
    var missing: Int?

    private enum CodingKeys: String, CodingKey {
        case first, rest, box, missing
    }

    private enum BoxKeys: String, CodingKey {
        case inner
    }

    init(first: Int, rest: [String], inner: Double, missing: Int?) {
        self.first = first
        self.rest = rest
        self.inner = inner
        self.missing = missing
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        first = try container.decode(Int.self, forKey: .first)
        var list = try container.nestedUnkeyedContainer(forKey: .rest)
        var rest: [String] = []
        while !list.isAtEnd {
            if try list.decodeNil() { continue }
            rest.append(try list.decode(String.self))
        }
        self.rest = rest
        inner = try container.nestedContainer(keyedBy: BoxKeys.self, forKey: .box).decode(Double.self, forKey: .inner)
        missing = try container.decodeIfPresent(Int.self, forKey: .missing)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(first, forKey: .first)
        var list = container.nestedUnkeyedContainer(forKey: .rest)
        try list.encodeNil()
        for element in rest { try list.encode(element) }
        var box = container.nestedContainer(keyedBy: BoxKeys.self, forKey: .box)
        try box.encode(inner, forKey: .inner)
        try container.encodeIfPresent(missing, forKey: .missing)
    }
}

/// A model that swallows errors with `try?`, and reads a date (which the direct decoder
/// leaves to the tree): the result must still be the tree's.
private struct DecForgiving: VersionedModel, Equatable {
    var count: Int
    var when: Date?

    static let archiveTypeName = "DecForgiving"

    private enum CodingKeys: String, CodingKey {
        case count, when
    }

    init(count: Int, when: Date?) {
        self.count = count
        self.when = when
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = (try? container.decode(Int.self, forKey: .count)) ?? -1
        when = try? container.decode(Date.self, forKey: .when)
    }
}

/// An allow list that leaves out the property's own type.
private struct DecStrict: VersionedModel, Equatable {
    var item: DecCount
    static let archiveTypeName = "DecStrict"
    static let allowedTypes: [String: [any VersionedModel.Type]] = ["item": [DecForgiving.self]]
}

private struct DecCount: VersionedModel, Equatable {
    var count: Int
    static let archiveTypeName = "DecCount"
}

/// A model whose last step renames `a` to `b`: at v2, an object holding `a` and no `b` has the
/// layout of v1, which the migration pass refuses.
private struct DecRenamed: VersionedModel, Equatable {
    var b: Int?
    static let archiveTypeName = "DecRenamed"
    static let modelVersion = 2
    static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.rename("a", to: "b")])]
}

/// A key spelled with KELVIN SIGN, which is `"K"` as a Swift string.
private struct DecKelvin: Codable, Equatable {
    var kelvin: Int?

    private enum CodingKeys: String, CodingKey {
        case kelvin = "\u{212A}"
    }
}

/// Where `DecKeeper` leaves its container, to be used after decoding returned.
private final class DecKeeperBox: @unchecked Sendable {
    var container: KeyedDecodingContainer<DecKeeper.CodingKeys>?
    var decoder: (any Decoder)?
    static let key = CodingUserInfoKey(rawValue: "keeper")!
}

/// Keeps its decoder and container past `init(from:)`, which a model should not do.
private struct DecKeeper: VersionedModel {
    var count: Int
    static let archiveTypeName = "DecKeeper"

    enum CodingKeys: String, CodingKey {
        case count
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = try container.decode(Int.self, forKey: .count)
        let box = decoder.userInfo[DecKeeperBox.key] as? DecKeeperBox
        box?.container = container
        box?.decoder = decoder
    }
}

/// Keeps each element's container until the next element, which reads it again: what an object
/// a kept container holds must not be handed to the next object read.
private final class DecHoarderBox: @unchecked Sendable {
    var kept: KeyedDecodingContainer<DecHoarder.CodingKeys>?
    var rereads: [Int] = []
    /// The decoder, not kept alive by this: it must go when the decode and the kept container do.
    weak var decoder: AnyObject?
    static let key = CodingUserInfoKey(rawValue: "hoarder")!
}

private struct DecHoarder: VersionedModel, Equatable {
    var count: Int
    var extra: [Int]?
    static let archiveTypeName = "DecHoarder"

    enum CodingKeys: String, CodingKey {
        case count, extra
    }

    init(count: Int, extra: [Int]?) {
        self.count = count
        self.extra = extra
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = try container.decode(Int.self, forKey: .count)
        extra = try container.decodeIfPresent([Int].self, forKey: .extra)
        guard let box = decoder.userInfo[DecHoarderBox.key] as? DecHoarderBox else { return }
        box.decoder = decoder as AnyObject
        if let kept = box.kept { box.rereads.append(try kept.decode(Int.self, forKey: .count)) }
        box.kept = count % 3 == 0 ? nil : container
    }
}

private struct DecHoard: VersionedModel, Equatable {
    var items: [DecHoarder]
    static let archiveTypeName = "DecHoard"
}

/// Every container a ``DecCollected`` asked for, kept past its `init(from:)`.
private final class DecCollectorBox: @unchecked Sendable {
    var kept: [(count: Int, container: KeyedDecodingContainer<DecCollected.CodingKeys>)] = []
    /// What the collection read again from every kept container, after all its items.
    var rereads: [Int] = []
    /// The decoder, not kept alive by this: it must go when the run ends, kept containers or not.
    weak var decoder: AnyObject?
    static let key = CodingUserInfoKey(rawValue: "collector")!
}

/// Keeps its container for good (the maker then makes a new box for each item, and lays the
/// held ones aside to be closed when the run ends).
private struct DecCollected: VersionedModel, Equatable {
    var count: Int
    static let archiveTypeName = "DecCollected"

    enum CodingKeys: String, CodingKey {
        case count
    }

    init(count: Int) {
        self.count = count
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = try container.decode(Int.self, forKey: .count)
        (decoder.userInfo[DecCollectorBox.key] as? DecCollectorBox)?.kept.append((count, container))
    }
}

/// Reads its items, then every container they kept, still in the run.
private struct DecCollection: VersionedModel, Equatable {
    var items: [DecCollected]
    var next: [DecCollection]
    var name: String
    static let archiveTypeName = "DecCollection"

    enum CodingKeys: String, CodingKey {
        case items, next, name
    }

    init(items: [DecCollected], next: [DecCollection], name: String) {
        self.items = items
        self.next = next
        self.name = name
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decode([DecCollected].self, forKey: .items)
        // The same type nested: its container is asked for while this one is in use, and this
        // one reads on afterwards.
        next = try container.decode([DecCollection].self, forKey: .next)
        name = try container.decode(String.self, forKey: .name)
        guard let box = decoder.userInfo[DecCollectorBox.key] as? DecCollectorBox else { return }
        box.decoder = decoder as AnyObject
        box.rereads = try box.kept.map { try $0.container.decode(Int.self, forKey: .count) }
    }
}

private struct DecLibrary: VersionedModel, Equatable {
    var items: [DecItem]
    var holders: [String: DecHolder]
    var manual: [DecManual]
    var empty: [DecPoint]
    var nested: [DecLibrary]

    static let archiveTypeName = "DecLibrary"
    static let modelVersion = 2
    static let migrationSteps: [MigrationStep] = [
        MigrationStep(from: 1, to: 2, rules: [.add("empty", default: .array([]))])
    ]

    static func sample(depth: Int = 1) -> DecLibrary {
        DecLibrary(
            items: (0..<4).map(DecItem.sample),
            holders: ["one": DecHolder(name: "h", cache: nil, item: .sample(7))],
            manual: [DecManual(first: 1, rest: ["x", "y"], inner: 2.5, missing: nil)], empty: [],
            nested: depth > 0 ? [sample(depth: depth - 1)] : [])
    }
}

@Suite("Direct JSON decoding")
struct DirectDecoderTests {
    let registry = try! ModelRegistry([
        DecItem.self, DecHolder.self, DecLibrary.self, DecForgiving.self, DecCount.self, DecStrict.self,
    ])
    var decoder: ArchiveDecoder { ArchiveDecoder(registry: registry) }

    private func bytes<T: Encodable>(_ value: T, pretty: Bool) throws -> Data {
        try ArchiveEncoder(writingOptions: ArchiveWritingOptions(prettyPrinted: pretty), registry: registry)
            .encode(value)
    }

    /// The value through the tree: the reader's tree decoded by the tree decoder.
    private func throughTree<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        try decoder.decode(T.self, fromTree: try ArchiveFormat.read(data).0)
    }

    /// The value straight from the bytes, or `nil` when the direct decoder hands over.
    private func streamed<T: Decodable>(_ type: T.Type, _ data: Data) -> T? {
        DirectJSONDecoder.decode(T.self, from: data, with: decoder)
    }

    private func json(_ text: String) -> Data { Data(text.utf8) }

    @Test("current archives decode straight from the bytes to what the tree decoder gives")
    func currentArchives() throws {
        let library = DecLibrary.sample(depth: 2)
        for pretty in [true, false] {
            let data = try bytes(library, pretty: pretty)
            let direct = try #require(streamed(DecLibrary.self, data))
            #expect(direct == library)
            #expect(try throughTree(DecLibrary.self, data) == library)
            #expect(try decoder.decode(DecLibrary.self, from: data) == library)
            let items = try bytes(library.items, pretty: pretty)
            #expect(streamed([DecItem].self, items) == library.items)
            let table = try bytes(library.holders, pretty: pretty)
            #expect(streamed([String: DecHolder].self, table) == library.holders)
        }
    }

    @Test("an object at the current version with the keys of the version before is refused as by the tree, not decoded")
    func currentVersionWithOldKeys() throws {
        let decoder = ArchiveDecoder(registry: try ModelRegistry([DecRenamed.self]))
        let old = json(#"{"$type":"DecRenamed","$version":2,"a":1}"#)
        // Decoded straight from the bytes, `b` would silently be nil.
        #expect(DirectJSONDecoder.decode(DecRenamed.self, from: old, with: decoder) == nil)
        let error = try #require(throws: ArchiveError.self) { try decoder.decode(DecRenamed.self, from: old) }
        #expect(error.code == .missingMigration && error.archivedVersion == 2, "\(error)")
        #expect(error.message.contains("holds 'a' and no 'b'"), "\(error)")
        // The current layout still streams.
        let current = json(#"{"$type":"DecRenamed","$version":2,"b":1}"#)
        #expect(DirectJSONDecoder.decode(DecRenamed.self, from: current, with: decoder) == DecRenamed(b: 1))
    }

    @Test("an envelope of a document at its chain's current version streams; an older one migrates")
    func documents() throws {
        let registry = try ModelRegistry(
            [DecItem.self, DecHolder.self],
            documents: [
                DocumentMigrations(
                    name: "Lib", currentVersion: 2,
                    steps: [MigrationStep(from: 1, to: 2, rules: [.rename("old", to: "unused")])])
            ])
        let decoder = ArchiveDecoder(registry: registry)
        let holder = DecHolder(name: "h", cache: nil, item: .sample(1))
        var encoder = ArchiveEncoder(registry: registry)
        encoder.document = "Lib"
        encoder.documentVersion = 2
        let current = try encoder.encode(holder)
        #expect(DirectJSONDecoder.decode(DecHolder.self, from: current, with: decoder) == holder)
        encoder.documentVersion = 1
        let old = try encoder.encode(holder)
        #expect(DirectJSONDecoder.decode(DecHolder.self, from: old, with: decoder) == nil)
        #expect(try decoder.decode(DecHolder.self, from: old) == holder)
    }

    @Test("objects that need migrating, newer versions and unknown markup go to the tree")
    func handsOverWhatNeedsTheTree() throws {
        // An old library: migrated by the tree path.
        let old = json(
            #"{"$archive":1,"root":{"$type":"DecLibrary","$version":1,"items":[],"holders":{},"manual":[],"nested":[]}}"#
        )
        #expect(streamed(DecLibrary.self, old) == nil)
        #expect(try decoder.decode(DecLibrary.self, from: old).empty == [])

        // A newer version: the tree decoder's error, path and version.
        let newer = json(#"{"$archive":1,"root":{"$type":"DecForgiving","$version":5,"count":1}}"#)
        #expect(streamed(DecForgiving.self, newer) == nil)
        let error = try #require(throws: ArchiveError.self) { try decoder.decode(DecForgiving.self, from: newer) }
        #expect(error.code == .newerVersion)
        #expect(error.archivedVersion == 5)

        // An object the model never reads still stops the pass when it is newer.
        let hidden = json(
            #"{"$archive":1,"root":{"$type":"DecForgiving","$version":1,"count":1,"extra":{"$type":"DecLibrary","$version":9}}}"#
        )
        #expect(streamed(DecForgiving.self, hidden) == nil)
        #expect(throws: ArchiveError.self) { try decoder.decode(DecForgiving.self, from: hidden) }

        // A container no model reads might hold what the reader rejects (here a repeated key).
        let unread = json(#"{"$type":"DecCount","$version":1,"count":1,"extra":{"a":1,"a":2}}"#)
        #expect(streamed(DecCount.self, unread) == nil)
        #expect(throws: ArchiveError.self) { try decoder.decode(DecCount.self, from: unread) }

        // Without a version, an object of a type with a chain is the pass's to judge, even when its
        // type name is spelled with an escape the structural pass does not read.
        let unversioned = json(#"{"$type":"DecC\u006Funt","count":1}"#)
        #expect(streamed(DecCount.self, unversioned) == nil)
        #expect(throws: ArchiveError.self) { try decoder.decode(DecCount.self, from: unversioned) }

        // A model the registry does not know: its version is still checked.
        let unregistered = ArchiveDecoder()
        let later = json(#"{"$type":"DecCount","$version":2,"count":1}"#)
        #expect(DirectJSONDecoder.decode(DecCount.self, from: later, with: unregistered) == nil)
        let stale = try #require(throws: ArchiveError.self) { try unregistered.decode(DecCount.self, from: later) }
        #expect(stale.code == .newerVersion)

        // Dates, identities, escaped keys and plain JSON decode through the tree, with its values.
        let dated = json(#"{"$type":"DecForgiving","$version":1,"count":2,"when":{"$date":"2026-11-30T05:14:25Z"}}"#)
        #expect(streamed(DecForgiving.self, dated) == nil)
        #expect(try decoder.decode(DecForgiving.self, from: dated).when != nil)
        let escaped = json(#"{"$type":"DecForgiving","$version":1,"c\u006Funt":3}"#)
        #expect(streamed(DecForgiving.self, escaped) == nil)
        #expect(try decoder.decode(DecForgiving.self, from: escaped).count == 3)
        let plain = json(#"{"count":4}"#)
        #expect(streamed(DecForgiving.self, plain) == nil)
        #expect(try decoder.decode(DecForgiving.self, from: plain).count == 4)
    }

    @Test("a model key that is not ASCII finds only the archived key with its exact scalars, on both paths")
    func nonASCIIModelKeys() throws {
        // The archived key "K" is not the model's KELVIN SIGN key (Swift's `==` finds them equal):
        // through the tree and straight from the bytes alike, the property is absent.
        let plain = json(#"{"$archive":1,"root":{"K":7}}"#)
        #expect(try decoder.decode(DecKelvin.self, fromTree: try ArchiveFormat.read(plain).0) == DecKelvin(kelvin: nil))
        #expect(streamed(DecKelvin.self, plain) == DecKelvin(kelvin: nil))
        #expect(try decoder.decode(DecKelvin.self, from: plain) == DecKelvin(kelvin: nil))
    }

    @Test("an error a model swallows with try? still sends the archive to the tree decoder")
    func swallowedErrors() throws {
        // `count` is a string: the model's `try?` turns the mismatch into -1 on both paths.
        let mismatch = json(#"{"$type":"DecForgiving","$version":1,"count":"seven"}"#)
        #expect(streamed(DecForgiving.self, mismatch) == nil)
        #expect(try decoder.decode(DecForgiving.self, from: mismatch) == DecForgiving(count: -1, when: nil))
        // A date the direct decoder cannot read: the model's `try?` would have made it nil.
        let dated = json(#"{"$type":"DecForgiving","$version":1,"count":1,"when":{"$date":0}}"#)
        #expect(
            try decoder.decode(DecForgiving.self, from: dated)
                == DecForgiving(count: 1, when: Date(timeIntervalSinceReferenceDate: 0)))
    }

    @Test("numbers convert exactly as in the tree decoder, or fail alike")
    func numbers() throws {
        for (text, expected) in [("1.0", 1), ("-0", 0), ("1e2", 100), ("-12", -12)] {
            let data = json(#"{"$type":"DecCount","$version":1,"count":\#(text)}"#)
            #expect(streamed(DecCount.self, data)?.count == expected, "\(text)")
            #expect(try throughTree(DecCount.self, data).count == expected, "\(text)")
        }
        for text in ["1.5", "1e300", "18446744073709551616", "true", "\"1\"", "null"] {
            let data = json(#"{"$type":"DecCount","$version":1,"count":\#(text)}"#)
            #expect(streamed(DecCount.self, data) == nil, "\(text)")
            let tree = try #require(throws: ArchiveError.self) { try throughTree(DecCount.self, data) }
            let direct = try #require(throws: ArchiveError.self) { try decoder.decode(DecCount.self, from: data) }
            #expect(direct.code == tree.code, "\(text)")
            #expect(direct.path == tree.path, "\(text)")
            #expect(direct.message == tree.message, "\(text)")
        }
    }

    @Test("malformed text and limits fail with the reader's error, never a streamed value")
    func malformed() throws {
        let cases = [
            #"{"$type":"DecCount","$version":1,"count":1,"count":2}"#,  // a repeated key
            #"{"$type":"DecCount","$version":1,"count":1,"x":"\ud800"}"#,  // an unpaired surrogate
            #"{"$type":"DecCount","$version":1,"count":1,"x":[1,]}"#,  // a trailing comma
            #"{"$type":"DecCount","$version":1,"count":01}"#,  // a leading zero
            #"{"$type":"DecCount","$version":1,"count":1} x"#,  // text after the value
            #"{"$type":"DecCount","$version":1,"count":1,"x":"a\#u{1}"}"#,  // a raw control character
            #"{"$type":"","count":1}"#,  // an empty type name
            #"{"$type":"DecCount","$version":-1,"count":1}"#,
        ]
        for text in cases {
            let data = json(text)
            #expect(streamed(DecCount.self, data) == nil, "\(text)")
            #expect(throws: ArchiveError.self, "\(text)") { try decoder.decode(DecCount.self, from: data) }
        }
        // A repeat among many keys, and among keys that share length, first and last byte.
        let many = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        for text in [
            #"{"$type":"DecCount","$version":1,"count":1,\#(many),"k7":0}"#,
            #"{"$type":"DecCount","$version":1,"count":1,"axb":1,"ayb":2,"axb":3}"#,
        ] {
            #expect(streamed(DecCount.self, json(text)) == nil, "\(text)")
            #expect(throws: ArchiveError.self, "\(text)") { try decoder.decode(DecCount.self, from: json(text)) }
        }
        for text in [
            #"{"$type":"DecCount","$version":1,"count":1,"axb":1,"ayb":2,"axc":3}"#,
            #"{"$type":"DecCount","$version":1,"count":1,\#(many)}"#,
        ] {
            #expect(streamed(DecCount.self, json(text)) == DecCount(count: 1), "\(text)")
        }
        var invalid = Data(#"{"$type":"DecCount","$version":1,"count":1,"x":"#.utf8)
        invalid.append(contentsOf: [0xC0, 0xAF, UInt8(ascii: "\""), UInt8(ascii: "}")])
        #expect(streamed(DecCount.self, invalid) == nil)
        #expect(throws: ArchiveError.self) { try decoder.decode(DecCount.self, from: invalid) }

        var options = DecodingOptions()
        options.limits.maxDepth = 4
        let shallow = ArchiveDecoder(registry: registry, options: options)
        let deep = json(#"{"$type":"DecCount","$version":1,"count":1,"x":[[[[1]]]]}"#)
        #expect(DirectJSONDecoder.decode(DecCount.self, from: deep, with: shallow) == nil)
        let error = try #require(throws: ArchiveError.self) { try shallow.decode(DecCount.self, from: deep) }
        #expect(error.code == .limitExceeded)
    }

    @Test("key comparison by words agrees with byte-by-byte comparison at every length and position")
    func keyComparison() {
        var generator = SplitMix64(seed: 0x5EED_0101)
        for length in 0...40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Exact-size copies, so that a read past either run would be caught by sanitizers.
            let first = UnsafeMutablePointer<UInt8>.allocate(capacity: max(length, 1))
            let second = UnsafeMutablePointer<UInt8>.allocate(capacity: max(length, 1))
            defer {
                first.deallocate()
                second.deallocate()
            }
            first.initialize(from: bytes, count: length)
            second.initialize(from: bytes, count: length)
            #expect(JSONText.equal(first, second, length: length), "length \(length)")
            for position in 0..<length {
                second[position] ^= 0x01
                #expect(!JSONText.equal(first, second, length: length), "length \(length), at \(position)")
                second[position] ^= 0x81
                #expect(!JSONText.equal(first, second, length: length), "length \(length), at \(position)")
                second[position] ^= 0x80
            }
        }
        #expect(JSONText.equal(UnsafePointer(bitPattern: 1)!, nil, length: 0))
        let one: [UInt8] = [7]
        one.withUnsafeBufferPointer { #expect(!JSONText.equal($0.baseAddress!, nil, length: 1)) }
    }

    @Test("an object's repeated key is found at any position, for few keys, some and many")
    func repeatedKeys() {
        var generator = SplitMix64(seed: 0x5EED_0102)
        // Keys from a small set, so that lengths and first and last bytes often agree.
        let names =
            ["a", "b", "ab", "ba", "abc", "acb", "tags", "y", "x", "center", "radius", "kind", "visible"]
            + (0..<20).map { "key\($0)" }
        for _ in 0..<3_000 {
            let count = Int.random(in: 2...24, using: &generator)
            let keys = (0..<count).map { _ in names.randomElement(using: &generator)! }
            let text = Array(keys.joined().utf8)
            text.withUnsafeBufferPointer { buffer in
                let object = DirectObject.make(capacity: count, keys: buffer.baseAddress!)
                var start = 0
                for key in keys {
                    object.append(
                        keyStart: start, keyLength: key.utf8.count,
                        value: DirectJSONDecoder.ValueRef(offset: 0, ordinal: -1))
                    start += key.utf8.count
                }
                #expect(object.hasDuplicateKey() == (Set(keys).count != count), "\(keys)")
            }
        }
    }

    @Test("the short-string cache returns the string of exactly the bytes asked for, and keeps repeated ones")
    func shortStringCache() {
        var generator = SplitMix64(seed: 0x5EED_0103)
        // Short strings of ASCII and multi-byte scalars, some differing only in their last byte.
        var pool: [String] = ["a", "b", "tag1", "tag2", "circle", "square", "12345678", "12345679", "é", "日本"]
        // More strings than slots that differ only after their first 8 bytes, and more that
        // differ only in them: some must share a slot, and only the whole bytes tell them apart.
        pool += (0..<100).map { "abcdefgh\($0 / 10)\($0 % 10)" }
        pool += (0..<100).map { "\($0 / 10)\($0 % 10)abcdefghij" }
        while pool.count < 300 {
            var string = ""
            while string.utf8.count < Int.random(in: 1...15, using: &generator) {
                let scalar = Unicode.Scalar(UInt32.random(in: 0x20...0x7F, using: &generator))!
                string.unicodeScalars.append(Int.random(in: 0..<8, using: &generator) == 0 ? "ß" : scalar)
            }
            if string.utf8.count <= ShortStringCache.maxLength { pool.append(string) }
        }
        var cache = ShortStringCache()
        var made = 0
        func read(_ string: String) -> String {
            // The bytes, then padding: the cache reads 16 bytes from the start.
            let bytes = Array(string.utf8) + Array(repeating: UInt8(ascii: "\""), count: 16)
            return bytes.withUnsafeBufferPointer { buffer in
                cache.string(at: buffer.baseAddress!, length: string.utf8.count) {
                    made += 1
                    return String(decoding: buffer.prefix(string.utf8.count), as: UTF8.self)
                }
            }
        }
        for _ in 0..<20_000 {
            let string = pool.randomElement(using: &generator)!
            #expect(read(string) == string)
        }
        // A string read often enough is kept even when others share its slot.
        for string in ["circle", "square", "tag1"] {
            for _ in 0..<4 { _ = read(string) }
            made = 0
            #expect(read(string) == string)
            #expect(made == 0, "\(string) was made again")
        }
    }

    @Test("a container kept past the decode reads nothing: the bytes were only borrowed")
    func keptContainers() throws {
        let box = DecKeeperBox()
        var options = DecodingOptions()
        options.userInfo[DecKeeperBox.key] = box
        let decoder = ArchiveDecoder(registry: try ModelRegistry([DecKeeper.self]), options: options)
        var data: Data? = Data(#"{"$type":"DecKeeper","$version":1,"count":5}"#.utf8)
        #expect(DirectJSONDecoder.decode(DecKeeper.self, from: data!, with: decoder)?.count == 5)
        data = nil
        let container = try #require(box.container)
        #expect(!container.contains(.count))
        #expect(container.allKeys.isEmpty)
        #expect(throws: (any Error).self) { try container.decode(Int.self, forKey: .count) }
        #expect(throws: (any Error).self) { try box.decoder?.container(keyedBy: DecKeeper.CodingKeys.self) }
        #expect(throws: (any Error).self) { try box.decoder?.singleValueContainer().decode(Int.self) }
    }

    @Test("objects are reused only when nothing holds them: a container kept across elements still reads its own")
    func recycledObjects() throws {
        let hoard = DecHoard(items: (0..<60).map { DecHoarder(count: $0, extra: $0 % 2 == 0 ? [$0] : nil) })
        let data = try ArchiveEncoder().encode(hoard)
        let box = DecHoarderBox()
        var options = DecodingOptions()
        options.userInfo[DecHoarderBox.key] = box
        let decoder = ArchiveDecoder(registry: try ModelRegistry([DecHoard.self, DecHoarder.self]), options: options)
        let streamed = try #require(DirectJSONDecoder.decode(DecHoard.self, from: data, with: decoder))
        #expect(streamed == hoard)
        // Each element kept its container unless its count is a multiple of 3; the next one read
        // it again and must have found that element's count.
        let expected = (0..<59).filter { $0 % 3 != 0 }
        #expect(box.rereads == expected)
        // The last element kept its container. The run closed it when it ended: it holds
        // nothing (the decoder is gone already: no cycle through the spare objects or the
        // containers models kept) and reads nothing.
        #expect(box.kept != nil)
        #expect(box.decoder == nil)
        #expect(throws: (any Error).self) { try box.kept?.decode(Int.self, forKey: .count) }
        #expect(box.kept?.contains(.count) == false)
    }

    @Test("the run lets go of its spare objects: nothing keeps the decoder alive after it")
    func sparesReleased() throws {
        // Two elements that keep nothing: the second's container goes into the first's box, and
        // the first's object, which served the decoder, is left in the pool when the run ends.
        let hoard = DecHoard(items: [DecHoarder(count: 0, extra: nil), DecHoarder(count: 3, extra: [1])])
        let data = try ArchiveEncoder().encode(hoard)
        let box = DecHoarderBox()
        var options = DecodingOptions()
        options.userInfo[DecHoarderBox.key] = box
        let decoder = ArchiveDecoder(registry: try ModelRegistry([DecHoard.self, DecHoarder.self]), options: options)
        #expect(DirectJSONDecoder.decode(DecHoard.self, from: data, with: decoder) == hoard)
        #expect(box.kept == nil)
        #expect(box.decoder == nil)
    }

    @Test("containers a model keeps read their own object for the whole run, and nothing after it")
    func keptForGood() throws {
        // 200 kept containers: the held boxes are laid aside and swept many times over, and the
        // collections nest 30 deep, each asking for its container while its parent's is in use.
        var collection = DecCollection(items: (0..<200).map(DecCollected.init), next: [], name: "innermost")
        for depth in 1...20 {
            collection = DecCollection(
                items: [DecCollected(count: 1000 + depth)], next: [collection], name: "level \(depth)")
        }
        let data = try ArchiveEncoder().encode(collection)
        let box = DecCollectorBox()
        var options = DecodingOptions()
        options.userInfo[DecCollectorBox.key] = box
        let decoder = ArchiveDecoder(
            registry: try ModelRegistry([DecCollection.self, DecCollected.self]), options: options)
        let streamed = try #require(DirectJSONDecoder.decode(DecCollection.self, from: data, with: decoder))
        #expect(streamed == collection)
        // The outermost collection read last: every container kept in the run read its own count.
        #expect(box.kept.count == 220)
        #expect(box.rereads == box.kept.map(\.count))
        // After the run, every one of them was closed, and nothing they held is left: the
        // decoder is gone, though the containers are still held here.
        for (_, container) in box.kept {
            #expect(throws: (any Error).self) { try container.decode(Int.self, forKey: .count) }
        }
        #expect(box.decoder == nil)
    }

    @Test("excluded keys read as absent; an allow-listed model key decodes its type")
    func behavioursAndAllowLists() throws {
        let holder = DecHolder(name: "h", cache: 3, item: .sample(1))
        let data = try bytes(holder, pretty: false)
        let decoded = try #require(streamed(DecHolder.self, data))
        #expect(decoded.cache == nil)  // excluded: never written, read as absent
        #expect(decoded.item == holder.item)

        // An excluded key in the archive (written by an older app) still reads as absent.
        let item = String(decoding: try bytes(DecItem.sample(2), pretty: false), as: UTF8.self)
        let root = item[item.range(of: #""root":"#)!.upperBound..<item.index(before: item.endIndex)]
        let cached = json(#"{"$type":"DecHolder","$version":1,"name":"h","cache":3,"item":\#(root)}"#)
        #expect(try #require(streamed(DecHolder.self, cached)).cache == nil)
        #expect(try throughTree(DecHolder.self, cached).cache == nil)

        // An allow list without the archived type: the tree decoder's disallowedType.
        let strict = json(#"{"$type":"DecStrict","$version":1,"item":{"$type":"DecCount","$version":1,"count":1}}"#)
        #expect(streamed(DecStrict.self, strict) == nil)
        let error = try #require(throws: ArchiveError.self) { try decoder.decode(DecStrict.self, from: strict) }
        #expect(error.code == .disallowedType)
    }
}
