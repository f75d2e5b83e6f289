import Foundation
import Testing

@testable import ModelVersioning

// The coders make keyed containers through makers filed by key type (`KeyedContainerMakers`):
// a maker must never make containers for another key type, however many types a run meets.

/// A maker that remembers nothing but its key type, and counts the times it was closed.
private final class TestMaker<Key: CodingKey>: KeyedContainerMaker {
    private let closed: (() -> Void)?

    init(closed: (() -> Void)? = nil) {
        self.closed = closed
        super.init(keyType: ObjectIdentifier(Key.self))
    }

    override func close() { closed?() }
}

/// A key type per `Tag`: `MakerKey<Int>`, `MakerKey<[Int]>`, `MakerKey<[[Int]]>`, … are distinct.
private struct MakerKey<Tag>: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// One level of a nesting whose every level has its own key type (`Level<Level<Int>>.CodingKeys`
/// is not `Level<Int>.CodingKeys`).
private struct Level<Inner: Codable & Equatable>: Codable, Equatable {
    var depth: Int
    var name: String
    var inner: Inner
}

@Suite("Keyed container makers")
struct KeyedContainerMakerTests {
    /// Calls `body` with `count` distinct key types, built by nesting arrays in the tag.
    private func withKeyTypes<Tag>(
        _ count: Int, tag: Tag.Type, _ body: (any CodingKey.Type) -> Void
    ) {
        guard count > 0 else { return }
        body(MakerKey<Tag>.self)
        withKeyTypes(count - 1, tag: [Tag].self, body)
    }

    @Test("each key type gets its own maker, also past the table's 64 slots and after collisions")
    func makersByKeyType() {
        var keyTypes: [any CodingKey.Type] = []
        withKeyTypes(80, tag: Int.self) { keyTypes.append($0) }
        #expect(Set(keyTypes.map { ObjectIdentifier($0) }).count == 80)

        let makers = KeyedContainerMakers()
        var made = 0
        var closed = 0
        func look<Key: CodingKey>(_ type: Key.Type) -> KeyedContainerMaker {
            makers.maker(keyedBy: Key.self) {
                made += 1
                return TestMaker<Key>(closed: { closed += 1 })
            }
        }
        // Round robin over growing prefixes, then a random order: every answer is the key type's.
        var order: [Int] = []
        for prefix in [1, 2, 5, 32, 33, 64, 65, 80] { order += Array(0..<prefix) + Array((0..<prefix).reversed()) }
        var generator = SplitMix64(seed: 0x5EED_0101)
        order += (0..<2_000).map { _ in Int.random(in: 0..<80, using: &generator) }
        var wrong = 0
        for index in order {
            let maker = look(keyTypes[index])
            if maker.keyType != ObjectIdentifier(keyTypes[index]) { wrong += 1 }
        }
        #expect(wrong == 0)
        // A maker is made on a miss only: the first few lookups of one type make one.
        let repeated = (0..<50).map { _ in ObjectIdentifier(look(keyTypes[7])) }
        #expect(Set(repeated).count == 1)
        // None is dropped before the run ends (a container it made may be in use): one maker per
        // key type, however the types collide in the table; and the run's end closes each once.
        #expect(made == 80)
        #expect(closed == 0)
        makers.removeAll()
        #expect(closed == 80)
    }

    @Test("any two key types used in turn (a model's and its nested model's) keep their makers")
    func twoKeyTypesInTurn() {
        var keyTypes: [any CodingKey.Type] = []
        withKeyTypes(40, tag: Int.self) { keyTypes.append($0) }
        var remade: [String] = []
        for first in keyTypes.indices {
            for second in keyTypes.indices where second > first {
                let makers = KeyedContainerMakers()
                var made = 0
                func look<Key: CodingKey>(_ type: Key.Type) {
                    _ = makers.maker(keyedBy: Key.self) {
                        made += 1
                        return TestMaker<Key>()
                    }
                }
                for _ in 0..<4 {
                    look(keyTypes[first])
                    look(keyTypes[second])
                }
                if made != 2 { remade.append("\(first) and \(second): \(made) makers") }
            }
        }
        // A direct-mapped table of 32 slots gives some of these 780 pairs one slot.
        #expect(remade.isEmpty, "\(remade.prefix(5))")
    }

    /// Nests `value` `levels` more times, then round-trips it through the direct coders and
    /// through the tree coders.
    private func roundTrip<Inner: Codable & Equatable>(_ value: Inner, levels: Int) throws -> Int {
        guard levels == 0 else {
            return try roundTrip(Level(depth: levels, name: "level \(levels)", inner: value), levels: levels - 1)
        }
        let encoder = ArchiveEncoder(writingOptions: ArchiveWritingOptions(prettyPrinted: false))
        let data = try #require(DirectJSONEncoder.encode(value, with: encoder))
        #expect(data == (try encoder.format.write(try encoder.encodeTree(value), options: encoder.writingOptions)))
        let decoded = try #require(DirectJSONDecoder.decode(Inner.self, from: data, with: ArchiveDecoder()))
        #expect(decoded == value)
        #expect(try ArchiveDecoder().decode(Inner.self, fromTree: try ArchiveFormat.read(data).0) == value)
        return data.count
    }

    @Test("a run with 40 key types, one per level, round-trips through the direct and the tree coders")
    func manyKeyTypesInOneRun() throws {
        let size = try roundTrip(7, levels: 40)
        #expect(size > 40 * 30)
    }
}

// MARK: - Spare boxes

/// What the models below saw: the box of each keyed container they were given.
private final class BoxLog: @unchecked Sendable {
    var boxes: [ObjectIdentifier] = []
    /// Containers a model keeps past its `encode(to:)` or `init(from:)`.
    var kept: [KeyedEncodingContainer<Boxed.CodingKeys>] = []
    var keptForReading: [KeyedDecodingContainer<ReadBoxed.CodingKeys>] = []
}

/// Records its container's box, keeps the container when `keeps` is set, and writes through the
/// last container kept when `writesLate` is.
private struct Boxed: Encodable {
    var name: String
    var keeps = false
    var writesLate = false
    let log: BoxLog

    enum CodingKeys: String, CodingKey {
        case name
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        log.boxes.append(ObjectIdentifier(unsafeBitCast(container, to: AnyObject.self)))
        try container.encode(name, forKey: .name)
        if writesLate, var late = log.kept.last { try late.encode("late", forKey: .name) }
        if keeps { log.kept.append(container) }
    }
}

/// Reads its name, records its container's box in the log its decoder's `userInfo` holds under
/// `BoxLog.key`, and keeps the container when it is named "keeps"; "reads late" reads the
/// name again through the last container kept.
private struct ReadBoxed: Decodable {
    var name: String
    var late: String?

    enum CodingKeys: String, CodingKey {
        case name
    }

    init(from decoder: any Decoder) throws {
        let log = try #require(decoder.userInfo[BoxLog.key] as? BoxLog)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        log.boxes.append(ObjectIdentifier(unsafeBitCast(container, to: AnyObject.self)))
        name = try container.decode(String.self, forKey: .name)
        if name == "reads late", let kept = log.keptForReading.last {
            late = try kept.decode(String.self, forKey: .name)
        }
        if name.hasPrefix("keeps") { log.keptForReading.append(container) }
    }
}

extension BoxLog {
    static let key = CodingUserInfoKey(rawValue: "boxLog")!
}

/// A value that leaves a trace of the run: every run reads the encoder's `userInfo`.
private final class RunToken: Sendable {}

extension KeyedContainerMakerTests {
    /// The boxes `values`' containers came in, encoded by the direct encoder and by the tree
    /// encoder, with the bytes each wrote.
    private func boxes(_ values: [Boxed], log: BoxLog) throws -> (direct: [ObjectIdentifier], tree: [ObjectIdentifier])
    {
        let encoder = ArchiveEncoder(writingOptions: ArchiveWritingOptions(prettyPrinted: false))
        log.boxes = []
        let data = try #require(DirectJSONEncoder.encode(values, with: encoder))
        let direct = log.boxes
        log.boxes = []
        let tree = try encoder.encodeTree(values)
        #expect(data == (try encoder.format.write(tree, options: encoder.writingOptions)))
        return (direct, log.boxes)
    }

    @Test("a model's container goes into the box of the one before once nothing holds it, never while something does")
    func spareBoxes() throws {
        let log = BoxLog()
        let free = try boxes((0..<4).map { Boxed(name: "free \($0)", log: log) }, log: log)
        #expect(free.direct.count == 4 && Set(free.direct).count == 1, "one box for four containers in turn")
        #expect(free.tree.count == 4 && Set(free.tree).count == 1)

        // Each keeps its container: each container needs a box of its own, and the ones kept
        // still write where they wrote (the bytes are compared with the tree's above).
        let kept = try boxes((0..<4).map { Boxed(name: "kept \($0)", keeps: true, log: log) }, log: log)
        #expect(Set(kept.direct).count == 4)
        #expect(Set(kept.tree).count == 4)
        #expect(log.kept.count == 8)
        log.kept = []

        // A container written after its value's `encode(to:)` ends the direct run, and the tree
        // encoder ignores the write: it cannot land in the container that took its place.
        let late = [
            Boxed(name: "keeps", keeps: true, log: log), Boxed(name: "writes late", writesLate: true, log: log),
        ]
        let encoder = ArchiveEncoder()
        #expect(DirectJSONEncoder.encode(late, with: encoder) == nil)
        log.kept = []
        let written = String(decoding: try encoder.encode(late), as: UTF8.self)
        #expect(!written.contains(#""late""#))
        #expect(written.contains("writes late"))
        log.kept = []
    }

    @Test("a run lets go of everything it held when it ends, spare containers included")
    func runsEnd() throws {
        try expectReleased("the encoder's") { key, token in
            var encoder = ArchiveEncoder()
            encoder.userInfo[key] = token
            let log = BoxLog()
            let values = (0..<3).map { Boxed(name: "\($0)", log: log) }
            _ = try #require(DirectJSONEncoder.encode(values, with: encoder))
            _ = try encoder.encodeTree(values)
            _ = try encoder.encode(values)
        }
    }

    /// Runs `body` with a token it puts into its coders' `userInfo` and holds nowhere else, and
    /// expects the token freed once `body` has returned: no run still holds its coder.
    private func expectReleased(
        _ userInfo: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (CodingUserInfoKey, RunToken) throws -> Void
    ) throws {
        let key = try #require(CodingUserInfoKey(rawValue: "token"))
        weak var weakToken: RunToken?
        do {
            let token = RunToken()
            weakToken = token
            try body(key, token)
        }
        #expect(weakToken == nil, "a run still holds \(userInfo) userInfo", sourceLocation: sourceLocation)
    }

    /// The boxes the containers of `names` came in, decoded by the direct decoder and by the
    /// tree decoder, with the names each read.
    private func readBoxes(_ names: [String]) throws -> (
        direct: [ObjectIdentifier], tree: [ObjectIdentifier], values: [ReadBoxed]
    ) {
        let log = BoxLog()
        var options = DecodingOptions()
        options.userInfo[BoxLog.key] = log
        let decoder = ArchiveDecoder(options: options)
        let data = try ArchiveEncoder().encode(names.map { ["name": $0] })
        let direct = try #require(DirectJSONDecoder.decode([ReadBoxed].self, from: data, with: decoder))
        let directBoxes = log.boxes
        log.boxes = []
        log.keptForReading = []
        let tree = try decoder.decode([ReadBoxed].self, fromTree: try ArchiveFormat.read(data).0)
        #expect(tree.map(\.name) == direct.map(\.name))
        #expect(tree.map(\.late) == direct.map(\.late))
        return (directBoxes, log.boxes, direct)
    }

    @Test(
        "a model's decoding container goes into the box of the one before once nothing holds it, never while something does"
    )
    func spareDecodingBoxes() throws {
        let free = try readBoxes((0..<4).map { "free \($0)" })
        #expect(free.direct.count == 4 && Set(free.direct).count == 1, "one box for four containers in turn")
        #expect(free.tree.count == 4 && Set(free.tree).count == 1)
        #expect(free.values.map(\.name) == (0..<4).map { "free \($0)" })

        let kept = try readBoxes((0..<4).map { "keeps \($0)" })
        #expect(Set(kept.direct).count == 4)
        #expect(Set(kept.tree).count == 4)

        // A container kept past its value's `init(from:)` still reads its own object.
        let late = try readBoxes(["keeps", "reads late", "other"])
        #expect(late.values.map(\.late) == [nil, "keeps", nil])
        #expect(late.values.map(\.name) == ["keeps", "reads late", "other"])
    }

    @Test("a decoding run lets go of everything it held when it ends, spare containers included")
    func decodingRunsEnd() throws {
        let data = try ArchiveEncoder().encode((0..<3).map { ["name": "\($0)"] })
        try expectReleased("the decoder's") { key, token in
            var options = DecodingOptions()
            options.userInfo[key] = token
            options.userInfo[BoxLog.key] = BoxLog()
            let decoder = ArchiveDecoder(options: options)
            _ = try #require(DirectJSONDecoder.decode([ReadBoxed].self, from: data, with: decoder))
            _ = try decoder.decode([ReadBoxed].self, fromTree: try ArchiveFormat.read(data).0)
            _ = try decoder.decode([ReadBoxed].self, from: data)
        }
    }
}
