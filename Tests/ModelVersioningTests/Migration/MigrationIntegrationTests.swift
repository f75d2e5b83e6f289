import Foundation
import ModelVersioning
import Testing

/// A disc whose archived shape changed three times, and whose type was renamed twice:
/// v1 "Round" {x, y, r, color} → v2 "MyApp.Disc" {center {x, y}, r, color} →
/// v3 "Disc" {center, radius, color} → v4 {center, radius, fill: palette name}.
struct Disc: VersionedModel, Equatable {
    var center: Vector
    var radius: Double
    var fill: String

    static let modelVersion = 4
    static let migrationSteps = [
        MigrationStep(
            from: 1, to: 2, rules: [.renameType(from: "Round", to: "MyApp.Disc"), .nest(["x", "y"], into: "center")]),
        MigrationStep(
            from: 2, to: 3, rules: [.renameType(from: "MyApp.Disc", to: "Disc"), .rename("r", to: "radius")]),
        MigrationStep(
            from: 3, to: 4,
            rules: [
                .rename("color", to: "fill"),
                .convert("fill", .map(["#f00": "red", "#0f0": "green", "#00f": "blue"])),
            ]),
    ]
}

struct Vector: Codable, Equatable {
    var x: Double
    var y: Double
}

/// A caption whose text was split into title and subtitle by a typed step.
struct Caption: VersionedModel, Equatable {
    var title: String
    var subtitle: String

    static let modelVersion = 2
    static let migrationSteps = [
        MigrationStep(
            from: 1, to: 2,
            rules: [
                .typed(
                    "split text at the first line break", from: CaptionV1.self, to: CaptionV2.self,
                    { old in
                        let lines = old.text.split(separator: "\n", maxSplits: 1).map(String.init)
                        return CaptionV2(title: lines.first ?? "", subtitle: lines.count > 1 ? lines[1] : "")
                    },
                    inverse: { new in
                        CaptionV1(text: new.subtitle.isEmpty ? new.title : new.title + "\n" + new.subtitle)
                    })
            ])
    ]
}

/// Frozen shapes of the typed step (never the current model).
struct CaptionV1: Codable, Sendable {
    var text: String
}

struct CaptionV2: Codable, Sendable {
    var title: String
    var subtitle: String
}

protocol Mark: VersionedModel {}

extension Disc: Mark {}

extension Caption: Mark {}

/// A board at v2 holding marks of several types.
struct Board: VersionedModel {
    var name: String
    @Polymorphic var marks: [any Mark]
    var pinned: Disc?

    static let modelVersion = 2
    static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.rename("title", to: "name")])]
    static let allowedTypes: [String: [any VersionedModel.Type]] = ["marks": [Disc.self, Caption.self]]
}

@Suite("Migrations while decoding")
struct MigrationIntegrationTests {
    let registry: ModelRegistry = {
        do {
            return try ModelRegistry([Board.self, Disc.self, Caption.self, Badge.self])
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    /// An archive as version 1 of the app wrote it, with a v1 disc (as "Round"), a v2 disc (as
    /// "MyApp.Disc"), a v3 disc and a v1 caption.
    let mixedArchive = #"""
        {
          "$archive": 1,
          "root": {
            "$type": "Board", "$version": 1, "title": "sketch",
            "marks": [
              {"$type": "Round", "$version": 1, "x": 1, "y": 2, "r": 3, "color": "#f00"},
              {"$type": "MyApp.Disc", "$version": 2, "center": {"x": 4, "y": 5}, "r": 6, "color": "#0f0"},
              {"$type": "Disc", "$version": 3, "center": {"x": 7, "y": 8}, "radius": 9, "color": "#00f"},
              {"$type": "Caption", "$version": 1, "text": "Hello\nworld"}
            ],
            "pinned": {"$type": "Round", "$version": 1, "x": 0, "y": 0, "r": 1, "color": "#00f"}
          }
        }
        """#

    @Test("a 4-step chain, nested objects at different versions and a type renamed twice open in today's types")
    func mixedVersions() throws {
        let decoder = ArchiveDecoder(registry: registry)
        let (board, report) = try decoder.decodeWithReport(Board.self, from: Data(mixedArchive.utf8))
        #expect(board.name == "sketch")
        #expect(board.marks.count == 4)
        #expect(board.marks[0] as? Disc == Disc(center: Vector(x: 1, y: 2), radius: 3, fill: "red"))
        #expect(board.marks[1] as? Disc == Disc(center: Vector(x: 4, y: 5), radius: 6, fill: "green"))
        #expect(board.marks[2] as? Disc == Disc(center: Vector(x: 7, y: 8), radius: 9, fill: "blue"))
        #expect(board.marks[3] as? Caption == Caption(title: "Hello", subtitle: "world"))
        #expect(board.pinned == Disc(center: Vector(x: 0, y: 0), radius: 1, fill: "blue"))

        let migrated = report.entries.map { "\($0.path) \($0.archivedTypeName) v\($0.fromVersion) → v\($0.toVersion)" }
        #expect(
            migrated == [
                " Board v1 → v2", "marks[0] Round v1 → v4", "marks[1] MyApp.Disc v2 → v4", "marks[2] Disc v3 → v4",
                "marks[3] Caption v1 → v2", "pinned Round v1 → v4",
            ])
    }

    @Test("a failing rule is reported with type, archived version, step, rule and path")
    func locatedMigrationError() throws {
        let broken = mixedArchive.replacingOccurrences(of: ##""color": "#0f0""##, with: ##""color": "#123""##)
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: registry).decode(Board.self, from: Data(broken.utf8))
        }
        #expect(error.code == .migrationFailed)
        #expect(error.typeName == "MyApp.Disc")
        #expect(error.archivedVersion == 2)
        #expect(error.step == "Disc v3 → v4")
        #expect(error.rule?.hasPrefix("convert(fill") == true)
        #expect(error.path == "marks[1].fill")
    }

    @Test("downgrading today's archive with the same chains gives what version 1 of the app wrote")
    func downgradeRoundTrip() throws {
        let board = try ArchiveDecoder(registry: registry).decode(Board.self, from: Data(mixedArchive.utf8))
        var tree = try ArchiveEncoder().encodeTree(board)
        try MigrationPass(catalog: registry.catalog).downgrade(
            &tree, to: DowngradeTarget(typeVersions: ["Board": 1, "Disc": 1, "Caption": 1]))
        let marks = try #require(tree["root"]?["marks"]?.arrayValue)
        #expect(
            marks[0]
                == .object(
                    ArchiveObject(
                        typeName: "Round", version: 1, fields: ["x": 1.0, "y": 2.0, "r": 3.0, "color": "#f00"])))
        #expect(marks[3] == .object(ArchiveObject(typeName: "Caption", version: 1, fields: ["text": "Hello\nworld"])))
        #expect(tree["root"]?["title"] == "sketch")
    }

    @Test("chains are validated when the registry is built")
    func chainValidation() {
        #expect(throws: ArchiveError.self) { try ModelRegistry([Gappy.self]) }
        do {
            _ = try ModelRegistry([Gappy.self])
        } catch let error as ArchiveError {
            #expect(error.code == .invalidChain)
            #expect(error.typeName == "Gappy")
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(throws: ArchiveError.self) { try ModelRegistry([ShortChain.self]) }
        #expect(throws: ArchiveError.self) { try ModelRegistry([Disc.self, Impostor.self]) }
    }

    @Test("a rules file supplies the chain of a registered type that declares none")
    func rulesForSwiftType() throws {
        let rules = try MigrationCatalog(rulesFile: [
            "formatVersion": 1,
            "types": [
                "Plain": ["currentVersion": 2, "steps": [["from": 1, "rules": [["rename": "n", "to": "name"]]]]]
            ],
        ])
        let registry = try ModelRegistry([Plain.self], rules: rules)
        let plain = try ArchiveDecoder(registry: registry).decode(
            Plain.self, fromTree: .object(ArchiveObject(typeName: "Plain", version: 1, fields: ["n": "x"])))
        #expect(plain.name == "x")
        let wrongVersion = try MigrationCatalog(rulesFile: [
            "formatVersion": 1, "types": ["Plain": ["currentVersion": 3, "steps": []]],
        ])
        #expect(throws: ArchiveError.self) { try ModelRegistry([Plain.self], rules: wrongVersion) }
    }

    @Test("an archive from a newer app fails distinctly; lenient mode round-trips its unknown keys through JSON")
    func newerArchives() throws {
        let json = #"{"$archive": 1, "root": {"$type": "Badge", "$version": 7, "title": "gold", "shine": 0.5}}"#
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: registry).decode(Badge.self, from: Data(json.utf8))
        }
        #expect(error.code == .newerVersion)
        #expect(error.message == "written by a newer version: Badge v7, this app knows v5")

        var options = DecodingOptions()
        options.allowsNewerVersions = true
        let badge = try ArchiveDecoder(registry: registry, options: options).decode(Badge.self, from: Data(json.utf8))
        #expect(badge.title == "gold")
        let written = try ArchiveEncoder().encode(badge)
        let reread = try ArchiveFormat.json.read(written)
        #expect(
            reread["root"]
                == .object(ArchiveObject(typeName: "Badge", version: 7, fields: ["title": "gold", "shine": 0.5])))
    }
}

struct Gappy: VersionedModel {
    var a: Int
    static let modelVersion = 3
    static let migrationSteps = [MigrationStep(from: 2, to: 3, rules: []), MigrationStep(from: 0, to: 1, rules: [])]
}

struct ShortChain: VersionedModel {
    var a: Int
    static let modelVersion = 3
    static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [])]
}

/// Claims an old name of Disc.
struct Impostor: VersionedModel {
    var a: Int
    static let archiveTypeAliases = ["Round"]
}

struct Plain: VersionedModel {
    var name: String
    static let modelVersion = 2
}
