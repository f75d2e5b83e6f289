import Foundation
import ModelVersioning
import Testing

/// A model at version 5 that keeps the keys it does not know.
struct Badge: VersionedModel, Equatable {
    var title: String
    var unknownFields = UnknownFields()
    static let modelVersion = 5

    init(title: String) {
        self.title = title
    }
}

@Suite("Version checks while decoding")
struct VersionCheckTests {
    let newer: ArchiveValue = .object(
        ArchiveObject(typeName: "Badge", version: 7, fields: ["title": "gold", "gradient": ["from": 1, "to": 2]]))

    @Test("an archive from a newer app is a distinct error naming both versions")
    func newerVersionError() throws {
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder().decode(Badge.self, fromTree: newer)
        }
        #expect(error.code == .newerVersion)
        #expect(error.message == "written by a newer version: Badge v7, this app knows v5")
        #expect(error.archivedVersion == 7)
    }

    @Test("an older object that was not migrated is a different error")
    func olderVersionError() throws {
        let older: ArchiveValue = .object(ArchiveObject(typeName: "Badge", version: 2, fields: ["title": "x"]))
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveDecoder().decode(Badge.self, fromTree: older)
        }
        #expect(error.code == .missingMigration)
        #expect(error.message.contains("Badge v2 was not migrated to v5"))
    }

    @Test("lenient mode decodes what it can and re-encoding keeps unknown keys and the newer version")
    func lenientRoundTrip() throws {
        var options = DecodingOptions()
        options.allowsNewerVersions = true
        var badge = try ArchiveDecoder(options: options).decode(Badge.self, fromTree: newer)
        #expect(badge.title == "gold")
        #expect(badge == Badge(title: "gold"), "UnknownFields never affects equality")
        badge.title = "platinum"
        let reencoded = try ArchiveEncoder().encodeValue(badge)
        let object = try #require(reencoded.objectValue)
        #expect(object.version == 7)
        #expect(object.fields == ["title": "platinum", "gradient": ["from": 1, "to": 2]])
        #expect(object.fields.keys == ["title", "gradient"])
    }

    @Test("at the current version unknown keys written by another app survive too")
    func currentVersionExtras() throws {
        let tree: ArchiveValue = .object(
            ArchiveObject(typeName: "Badge", version: 5, fields: ["title": "t", "note": "from a plug-in"]))
        let badge = try ArchiveDecoder().decode(Badge.self, fromTree: tree)
        #expect(try ArchiveEncoder().encodeValue(badge) == tree)
    }
}
