import Foundation
import Testing

@testable import ModelVersioning

// Old JSON archives whose chains only move keys are upgraded while the direct decoder reads
// them (DirectMigration): the values must be the migration pass's, and whatever moving keys
// cannot do must go to the pass, with its value or error. The layouts a catalog makes for such
// chains are tested on their own in MigrationRulesTests (KeyMovingLayoutTests).

private struct MovPoint: Codable, Equatable {
    var x: Double
    var y: Double
}

/// v1 {id, name, x, y, legacy?} → v2 renames name, drops legacy → v3 nests x, y into center and
/// adds visible, rank (an integer read as a Double) and note (null).
private struct MovShape: VersionedModel, Equatable {
    var id: Int
    var title: String
    var center: MovPoint
    var visible: Bool
    var rank: Double
    var note: String?

    static let archiveTypeName = "MovShape"
    static let archiveTypeAliases = ["OldShape"]
    static let modelVersion = 3
    static let unversionedVersion: Int? = 1
    static let migrationSteps = [
        MigrationStep(from: 1, to: 2, rules: [.rename("name", to: "title"), .remove("legacy")]),
        MigrationStep(
            from: 2, to: 3,
            rules: [
                .nest(["x", "y"], into: "center"), .add("visible", default: true), .add("rank", default: 2),
                .add("note", default: .null),
            ]),
    ]
}

/// v1 {user, shapes} → v2 renames user to owner.
private struct MovBoard: VersionedModel, Equatable {
    var owner: String
    var shapes: [MovShape]

    static let archiveTypeName = "MovBoard"
    static let modelVersion = 2
    static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.rename("user", to: "owner")])]
}

/// Reads an added Boolean as a string and the made dictionary as an array: both errors.
private struct MovMisread: VersionedModel {
    var visible: String
    var center: [Double]

    static let archiveTypeName = "MovMisread"
    static let modelVersion = 2
    static let migrationSteps = [
        MigrationStep(from: 1, to: 2, rules: [.nest(["x", "y"], into: "center"), .add("visible", default: true)])
    ]
}

/// A chain that converts a value: the pass's to run.
private struct MovConverted: VersionedModel, Equatable {
    var size: String

    static let archiveTypeName = "MovConverted"
    static let modelVersion = 2
    static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.convert("size", .intToString)])]
}

/// v1 {value, kids} → v2 nests kids into box: every level of the upgraded tree is deeper than
/// the text's.
private struct MovTree: VersionedModel, Equatable {
    struct Box: Codable, Equatable {
        var kids: [MovTree]
    }

    var value: Int
    var box: Box?

    static let archiveTypeName = "MovTree"
    static let modelVersion = 2
    static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.nest(["kids"], into: "box")])]
}

@Suite("Direct migration (chains that only move keys)")
struct DirectMigrationTests {
    let registry = try! ModelRegistry([
        MovShape.self, MovBoard.self, MovMisread.self, MovConverted.self, MovTree.self,
    ])
    var decoder: ArchiveDecoder { ArchiveDecoder(registry: registry) }

    private func json(_ text: String) -> Data { Data(text.utf8) }

    private func throughTree<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        try decoder.decode(T.self, fromTree: try ArchiveFormat.read(data).0)
    }

    private func streamed<T: Decodable>(_ type: T.Type, _ data: Data) -> T? {
        DirectJSONDecoder.decode(T.self, from: data, with: decoder)
    }

    /// A v1 shape's JSON; `legacy` is dropped by the chain.
    private func shape(_ id: Int, legacy: String = #"{"a":[1,{"b":null}]}"#) -> String {
        #"{"$type":"MovShape","$version":1,"id":\#(id),"name":"S\#(id)","x":\#(id).5,"y":-\#(id),"legacy":\#(legacy)}"#
    }

    @Test("old objects are upgraded as they are read, to what the migration pass gives")
    func upgradesWhileReading() throws {
        // Every version of the chain, unversioned and alias-named objects, keys in any order, and
        // the board itself one version behind.
        let shapes = [
            shape(1), shape(2, legacy: "[[]]"),
            #"{"$type":"MovShape","$version":2,"y":4,"title":"T3","x":3,"id":3}"#,
            #"{"$type":"MovShape","$version":3,"id":4,"title":"T4","center":{"x":1,"y":2},"visible":false,"rank":1.5,"note":"n"}"#,
            #"{"$type":"MovShape","id":5,"name":"U5","x":0,"y":0}"#,
            #"{"$type":"OldShape","$version":1,"id":6,"name":"A6","x":6,"y":6}"#,
            shape(7),
        ]
        let text =
            #"{"$archive":1,"root":{"$type":"MovBoard","$version":1,"user":"ann","shapes":["#
            + shapes.joined(separator: ",") + "]}}"
        let data = json(text)
        let direct = try #require(streamed(MovBoard.self, data))
        #expect(direct == (try throughTree(MovBoard.self, data)))
        #expect(direct.owner == "ann")
        #expect(direct.shapes.map(\.title) == ["S1", "S2", "T3", "T4", "U5", "A6", "S7"])
        #expect(
            direct.shapes[0]
                == MovShape(id: 1, title: "S1", center: MovPoint(x: 1.5, y: -1), visible: true, rank: 2, note: nil))
        #expect(
            direct.shapes[3]
                == MovShape(id: 4, title: "T4", center: MovPoint(x: 1, y: 2), visible: false, rank: 1.5, note: "n"))
        #expect(try decoder.decode(MovBoard.self, from: data) == direct)
        // A top-level old object, pretty-printed.
        let single = try ArchiveFormat.json.write(
            try ArchiveFormat.read(json(shape(9))).0, options: ArchiveWritingOptions(prettyPrinted: true))
        #expect(streamed(MovShape.self, single) == (try throughTree(MovShape.self, single)))
    }

    @Test("what moving keys cannot do goes to the migration pass, with its value or error")
    func handsOverToThePass() throws {
        // The renamed key already exists: the pass's error, with the step and the path.
        let clash = json(
            #"{"$type":"MovBoard","$version":2,"owner":"o","shapes":[{"$type":"MovShape","$version":1,"id":1,"name":"a","title":"b","x":1,"y":2}]}"#
        )
        #expect(streamed(MovBoard.self, clash) == nil)
        let error = try #require(throws: ArchiveError.self) { try decoder.decode(MovBoard.self, from: clash) }
        #expect(error.code == .migrationFailed)
        #expect(error.typeName == "MovShape")
        #expect(error.path.description.contains("shapes[0]"))

        // The container to nest into is a number.
        let taken = json(#"{"$type":"MovShape","$version":2,"id":1,"title":"t","x":1,"y":2,"center":3}"#)
        #expect(streamed(MovShape.self, taken) == nil)
        #expect(throws: ArchiveError.self) { try decoder.decode(MovShape.self, from: taken) }

        // A chain that converts values runs in the pass.
        let converted = json(#"{"$type":"MovConverted","$version":1,"size":12}"#)
        #expect(streamed(MovConverted.self, converted) == nil)
        #expect(try decoder.decode(MovConverted.self, from: converted) == MovConverted(size: "12"))

        // An added value or a made dictionary read as the wrong type: the tree decoder's error.
        let misread = json(#"{"$type":"MovMisread","$version":1,"x":1,"y":2}"#)
        #expect(streamed(MovMisread.self, misread) == nil)
        let mismatch = try #require(throws: ArchiveError.self) { try decoder.decode(MovMisread.self, from: misread) }
        #expect(mismatch.code == .typeMismatch)

        // A newer object among old ones: the pass reports it.
        let newer = json(
            #"{"$type":"MovBoard","$version":1,"user":"u","shapes":[\#(shape(1)),{"$type":"MovShape","$version":7}]}"#)
        #expect(streamed(MovBoard.self, newer) == nil)
        #expect(
            try #require(throws: ArchiveError.self) { try decoder.decode(MovBoard.self, from: newer) }.code
                == .newerVersion)
    }

    @Test("dropped values count as read; what the structural pass cannot judge still hands over")
    func droppedValues() throws {
        // Containers under a dropped key are never read, yet the archive streams.
        let plain = json(shape(1, legacy: #"[{"a":[[]]},{"b":{}}]"#))
        #expect(try #require(streamed(MovShape.self, plain)) == (try throughTree(MovShape.self, plain)))

        // A dropped key holds a newer object: the structural pass stops at it, and the migration
        // pass drops it before it would walk into it, so the archive decodes through the tree.
        let dropped = json(shape(1, legacy: #"{"$type":"MovBoard","$version":9}"#))
        #expect(streamed(MovShape.self, dropped) == nil)
        #expect(try decoder.decode(MovShape.self, from: dropped).title == "S1")

        // Dropped containers hold repeated keys the reader rejects: no value on either path.
        let repeated = json(shape(1, legacy: #"{"a":1,"a":2}"#))
        #expect(streamed(MovShape.self, repeated) == nil)
        #expect(throws: ArchiveError.self) { try decoder.decode(MovShape.self, from: repeated) }
    }

    @Test("many different key sets per type: each laid out once, beyond the limit the pass runs")
    func manyLayouts() throws {
        func board(_ count: Int) -> Data {
            let shapes = (0..<count).map { index in
                #"{"$type":"MovShape","$version":1,"id":\#(index),"name":"n","x":1,"y":2,"extra\#(index)":0}"#
            }
            return json(
                #"{"$type":"MovBoard","$version":2,"owner":"o","shapes":["# + shapes.joined(separator: ",") + "]}")
        }
        let few = board(DirectMigration.maximumCount)
        #expect(streamed(MovBoard.self, few) == (try throughTree(MovBoard.self, few)))
        let many = board(DirectMigration.maximumCount + 1)
        #expect(streamed(MovBoard.self, many) == nil)
        #expect(try decoder.decode(MovBoard.self, from: many).shapes.count == DirectMigration.maximumCount + 1)
    }

    @Test("upgrades that nest values deeper than the depth limit go to the pass, with its error")
    func depthAfterUpgrading() throws {
        var options = DecodingOptions()
        options.limits.maxDepth = 15
        let decoder = ArchiveDecoder(registry: registry, options: options)
        func tree(levels: Int, currentLeaf: Bool = false) -> Data {
            var text =
                currentLeaf
                ? #"{"$type":"MovTree","$version":2,"value":\#(levels - 1)}"#
                : #"{"$type":"MovTree","$version":1,"value":\#(levels - 1),"kids":[]}"#
            for level in (0..<(levels - 1)).reversed() {
                text = #"{"$type":"MovTree","$version":1,"value":\#(level),"kids":["# + text + "]}"
            }
            return json(text)
        }
        // Objects at depths 0, 3, 6, 9 and 12 once upgraded (0, 2, 4, 6, 8 in the text): within
        // the limit.
        let fits = tree(levels: 5)
        let value = try #require(DirectJSONDecoder.decode(MovTree.self, from: fits, with: decoder))
        #expect(value == (try decoder.decode(MovTree.self, fromTree: try ArchiveFormat.read(fits).0)))
        #expect(value.box?.kids[0].box?.kids[0].box?.kids[0].box?.kids[0].value == 4)
        // One more level is at depth 15 once upgraded, 10 in the text: the pass's limit error.
        let deep = tree(levels: 6)
        #expect(DirectJSONDecoder.decode(MovTree.self, from: deep, with: decoder) == nil)
        let error = try #require(throws: ArchiveError.self) { try decoder.decode(MovTree.self, from: deep) }
        #expect(error.code == .limitExceeded)
        // The same with a current leaf of scalars: it needs no upgrade, but its parents' upgrades
        // move it down to depth 15.
        let moved = tree(levels: 6, currentLeaf: true)
        #expect(DirectJSONDecoder.decode(MovTree.self, from: moved, with: decoder) == nil)
        let movedError = try #require(throws: ArchiveError.self) { try decoder.decode(MovTree.self, from: moved) }
        #expect(movedError.code == .limitExceeded)
    }

    @Test("random old objects: what streams equals the migration pass's value, and some stream")
    func randomObjects() throws {
        var generator = SplitMix64(seed: 0x5EED_0101)
        let members: [String: [String]] = [
            "id": ["1", "-7"], "name": [#""n""#, #""é""#], "title": [#""t""#], "x": ["1.5", "0"], "y": ["-2", "3e2"],
            "legacy": ["[]", #"{"a":{"b":[1]}}"#, "null"], "center": [#"{"x":1,"y":2}"#, "null", "4"],
            "visible": ["true", "false"], "rank": ["2.5", "7"], "note": [#""n""#, "null"], "extra": ["0", "[1]"],
        ]
        var streamedCount = 0
        for _ in 0..<400 {
            let version = Int.random(in: 1...3, using: &generator)
            // Mostly the keys each version has, sometimes clashing or missing ones.
            let rare: Set<String> = ["title", "center", "legacy", "extra", "visible", "rank", "note"]
            let keys = members.keys.filter { key in
                Double.random(in: 0..<1, using: &generator) < (rare.contains(key) ? 0.25 : 0.9)
            }.shuffled(using: &generator)
            let fields = keys.map { key in #""\#(key)":\#(members[key]!.randomElement(using: &generator)!)"# }
            let object = (#"{"$type":"MovShape","$version":\#(version)"# + fields.map { "," + $0 }.joined()) + "}"
            let data = json(#"{"$type":"MovBoard","$version":2,"owner":"o","shapes":[\#(object),\#(object)]}"#)
            let tree = try? throughTree(MovBoard.self, data)
            if let direct = streamed(MovBoard.self, data) {
                streamedCount += 1
                #expect(direct == tree, "\(object)")
            }
            #expect((try? decoder.decode(MovBoard.self, from: data)) == tree, "\(object)")
        }
        // Objects whose keys the model and the chain agree on stream: about one in seven.
        #expect(streamedCount > 10)
    }
}
