import ArchiveCompatibility
import Foundation
import ModelVersioning
import TestSupport
import Testing

/// A board's notes: v1 archived `{title, text}`; v2 renamed `text` to `body`; v3 added `color`,
/// but its step forgot to supply it — the bug these tests must explain.
private struct StickyNote: VersionedModel {
    var title: String
    var body: String
    var color: String

    static let archiveTypeName = "StickyNote"
    static let modelVersion = 3
    static let migrationSteps = [
        MigrationStep(from: 1, to: 2, name: "text is now body", rules: [.rename("text", to: "body")]),
        MigrationStep(from: 2, to: 3, rules: []),
    ]
}

/// v1 kept the notes under `items`; v2 calls them `notes`.
private struct NoteBoard: VersionedModel {
    var notes: [StickyNote]

    static let archiveTypeName = "Board"
    static let modelVersion = 2
    static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.rename("items", to: "notes")])]
}

@Suite("Errors after an upgrade")
struct ErrorHistoryTests {
    static let archive = Data(
        #"""
        {"$archive": 1, "root": {"$type": "Board", "$version": 1, "items": [
          {"$type": "StickyNote", "$version": 2, "title": "ok", "body": "b", "color": "red"},
          {"$type": "StickyNote", "$version": 1, "title": "milk", "text": "2 l"}
        ]}}
        """#.utf8)

    static let registry: ModelRegistry = {
        do { return try ModelRegistry([NoteBoard.self, StickyNote.self]) } catch { preconditionFailure("\(error)") }
    }()

    @Test("a decoding error after an upgrade names the archived type, version and path, and the steps that ran")
    func decodeErrorKeepsHistory() throws {
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: Self.registry).decode(NoteBoard.self, from: Self.archive)
        }
        let history = try #require(error?.history)
        #expect(error?.code == .keyNotFound)
        #expect(error?.path.description == "notes[1].color")
        #expect(history.archivedTypeName == "StickyNote")
        #expect(history.archivedVersion == 1)
        #expect(history.archivedPath?.description == "items[1]")
        #expect(history.migratedPath.description == "notes[1]")
        #expect(history.version == 3)
        #expect(history.steps == ["text is now body", "v2 → v3"])
        // The archived version is the one in the archive, not today's.
        #expect(error?.archivedVersion == 1)
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(
            text
                == #"StickyNote v1 → v3 (archived at items[1], now at notes[1]; steps "text is now body", "v2 → v3"): "#
                + "key 'color' is missing at notes[1].color")
    }

    @Test("the report variants explain too; an error in an object that was not upgraded has no history")
    func reportVariants() throws {
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: Self.registry).decodeWithReport(NoteBoard.self, from: Self.archive)
        }
        #expect(error?.history?.archivedPath?.description == "items[1]")

        let current = Data(
            #"{"$archive": 1, "root": {"$type": "Board", "$version": 2, "notes": [{"$type": "StickyNote", "$version": 3, "title": "t", "body": "b"}]}}"#
                .utf8)
        let plain = #expect(throws: ArchiveError.self) {
            try ArchiveDecoder(registry: Self.registry).decode(NoteBoard.self, from: current)
        }
        #expect(plain?.code == .keyNotFound)
        #expect(plain?.history == nil)
        #expect(plain?.archivedVersion == 3)
    }

    @Test("a fixture that fails to decode after its upgrade says what it was archived as and the steps that ran")
    func fixtureFailureKeepsHistory() throws {
        let folder = try ScratchFolder()
        try folder.write(String(decoding: Self.archive, as: UTF8.self), to: "boards/v1/groceries.json")
        let suite = FixtureSuite(directory: folder.url, registry: Self.registry, recordsGoldens: false)
        let report = try suite.run()
        let failure = try #require(report.failures.first)
        guard case .failed(let lines) = failure.outcome else {
            Issue.record("expected a failure, got \(failure.outcome)")
            return
        }
        let message = lines.joined(separator: "\n")
        #expect(message.contains("StickyNote v1 → v3 (archived at items[1], now at notes[1]"), "\(message)")
        #expect(message.contains(#""v2 → v3""#), "\(message)")
        #expect(message.contains("notes[1].color"), "\(message)")
    }
}
