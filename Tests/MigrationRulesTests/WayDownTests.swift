import Foundation
import MigrationRules
import Testing

/// A small app with two releases: 1.0 (`Board` v1, `Note` v2, no `Sticker`) and 2.0, today
/// (`Board` v2 adds a conditional `focus` reference, `Note` v3 adds `tags`, `Sticker` v1 is new
/// and was a plain `Note` for 1.0).
enum BoardApp {
    static let board = TypeMigrations(
        typeName: "Board", currentVersion: 2,
        steps: [MigrationStep(from: 1, to: 2, name: "app 2.0: focus", rules: [.add("focus", default: nil)])])
    static let note = TypeMigrations(
        typeName: "Note", currentVersion: 3, aliases: ["App.Note"],
        steps: [
            MigrationStep(from: 1, to: 2, name: "app 1.0: body", rules: [.rename("text", to: "body")]),
            MigrationStep(from: 2, to: 3, name: "app 2.0: tags", rules: [.add("tags", default: [])]),
        ])
    static let sticker = TypeMigrations(
        typeName: "Sticker", currentVersion: 1,
        downgradeFallback: DowngradeFallback(
            becoming: "Note", version: 3, rules: [.remove("radius"), .add("tags", default: [])]))
    static let document = DocumentMigrations(
        name: "Board", currentVersion: 2, steps: [MigrationStep(from: 1, to: 2, name: "app 2.0", rules: [])])
    static let releases = ReleaseManifest(
        document: "Board",
        releases: [
            AppRelease("1.0", documentVersion: 1, types: ["Board": 1, "Note": 2, "Sticker": .absent]),
            AppRelease("2.0", documentVersion: 2, types: ["Board": 2, "Note": 3, "Sticker": 1]),
        ])

    /// Today's catalog.
    static func today() throws -> MigrationCatalog {
        try MigrationCatalog(types: [board, note, sticker], documents: [document], releases: releases)
    }

    /// What app 1.0 knew: its own chains, no later step, no `Sticker`.
    static func firstRelease() throws -> MigrationCatalog {
        try MigrationCatalog(
            types: [
                TypeMigrations(typeName: "Board", currentVersion: 1),
                TypeMigrations(
                    typeName: "Note", currentVersion: 2, aliases: ["App.Note"],
                    steps: [MigrationStep(from: 1, to: 2, rules: [.rename("text", to: "body")])]),
            ],
            documents: [DocumentMigrations(name: "Board", currentVersion: 1)])
    }

    /// An archive today's app wrote: a focused note with tags, a note without, a sticker.
    static let archive: ArchiveValue = [
        "$archive": 1, "document": "Board", "documentVersion": 2,
        "root": object(
            "Board", 2,
            [
                "title": "Plans",
                "notes": [
                    object("Note", 3, ["body": "milk", "tags": ["shop"]], id: 1),
                    object("Note", 3, ["body": "bread", "tags": []]),
                    object("Sticker", 1, ["body": "★", "radius": 4.5]),
                ],
                "focus": .reference(1),
            ]),
    ]

    /// `archive` with its way down to `release`.
    static func archive(readableBy release: String) throws -> ArchiveValue {
        var tree = archive
        try today().writeWayDown(toRelease: release, into: &tree)
        return tree
    }
}

@Suite("Way down: carried steps to older releases")
struct WayDownTests {
    // MARK: The digest

    @Test("SHA-256 fed in pieces of any size gives the digest of the whole message")
    func sha256InPieces() {
        var generator = SplitMix64(seed: 11)
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1_000, 10_007] {
            let message = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var hash = SHA256()
            var start = 0
            while start < length {
                let end = min(length, start + Int(generator.next() % 150))
                hash.update(Array(message[start..<end]))
                start = end
            }
            #expect(SHA256.hexadecimal(hash.finalize()) == SHA256.hexDigest(of: message), "\(length) bytes")
        }
    }

    @Test("SHA-256 gives the FIPS 180-4 test vectors, and the digest is that of the canonical bytes")
    func sha256() throws {
        #expect(
            SHA256.hexDigest(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hexDigest(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hexDigest(of: [UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // An empty dictionary is 0A and a count of zero in eight bytes.
        #expect(WayDown.digest(ofTree: [:]) == "sha256:" + SHA256.hexDigest(of: [0x0A, 0, 0, 0, 0, 0, 0, 0, 0]))
        // A string is 06, its UTF-8 length in eight bytes, its bytes.
        #expect(
            WayDown.digest(ofTree: ["a": "é"])
                == "sha256:"
                + SHA256.hexDigest(
                    of: [0x0A] + [0, 0, 0, 0, 0, 0, 0, 1] + [0x06, 0, 0, 0, 0, 0, 0, 0, 1, 0x61] + [
                        0x06, 0, 0, 0, 0, 0, 0, 0, 2, 0xC3, 0xA9,
                    ]))
    }

    @Test("the digest does not depend on key order or on how an integer is stored")
    func canonicalBytes() throws {
        let a: ArchiveValue = ["x": 1, "y": ["b": 2.5, "a": "é"], "z": .uint(7)]
        let b: ArchiveValue = ["z": 7, "x": 1, "y": ["a": "é", "b": 2.5]]
        #expect(WayDown.digest(ofTree: a) == WayDown.digest(ofTree: b))
        #expect(WayDown.digest(ofTree: ["x": 1]) != WayDown.digest(ofTree: ["x": 1.0]))
        #expect(WayDown.digest(ofTree: ["x": 1, "digest": "anything"]) == WayDown.digest(ofTree: ["x": 1]))
    }

    // MARK: Writing

    @Test("the way down holds the inverse steps of every chain newer than the release, as data")
    func writing() throws {
        let tree = try BoardApp.archive(readableBy: "1.0")
        let carried = try #require(tree["wayDown"])
        let wayDown = try WayDown(tree: carried)
        #expect(wayDown.release == "1.0")
        #expect(
            wayDown.summary
                == "to release 1.0: document Board v2 → v1, Board v2 → v1, Note v3 → v2, Sticker v1 → Note v3")
        #expect(
            carried["types"]?["Board"]
                == [
                    "from": 2, "to": 1,
                    "steps": [
                        [
                            "from": 2, "to": 1, "name": "app 2.0: focus",
                            "rules": [["remove": "focus", "restoring": nil]],
                        ]
                    ],
                ])
        #expect(carried["digest"]?.stringValue == (try wayDown.digest))
        // Before the root, so that a reader meets it first.
        #expect(tree.keyedEntries?.keys == ["$archive", "document", "documentVersion", "wayDown", "root"])
        // Nothing newer than the release: no way down.
        #expect(try BoardApp.archive(readableBy: "2.0")["wayDown"] == nil)
    }

    @Test("writing for a release across a closure step fails naming the step, unless it declares a data-only inverse")
    func closureSteps() throws {
        func catalog(_ step: MigrationStep) throws -> MigrationCatalog {
            try MigrationCatalog(
                types: [TypeMigrations(typeName: "Note", currentVersion: 2, steps: [step])],
                releases: ReleaseManifest(
                    releases: [AppRelease("1.0", types: ["Note": 1]), AppRelease("2.0", types: ["Note": 2])]))
        }
        let upper: MigrationRule = .transform(
            "uppercase",
            { target in target.fields["body"] = target.fields["body"]?.stringValue.map { .string($0.uppercased()) } },
            inverse: { _ in })
        var tree: ArchiveValue = ["$archive": 1, "root": object("Note", 2, ["body": "MILK"])]
        let error = archiveError {
            try catalog(MigrationStep(from: 1, to: 2, name: "shout", rules: [upper]))
                .writeWayDown(toRelease: "1.0", into: &tree)
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.step == "Note v1 → v2 (shout)")
        #expect(error?.rule == "transform(inverse(uppercase))")
        #expect(error?.message.contains("inverseRules") == true)
        let declared = MigrationStep(
            from: 1, to: 2, name: "shout", rules: [upper], inverseRules: [.add("shouted", default: true)])
        try catalog(declared).writeWayDown(toRelease: "1.0", into: &tree)
        let wayDown = try WayDown(tree: try #require(tree["wayDown"]))
        #expect(wayDown.types.first?.steps.first?.rules.map(\.description) == ["add(shouted = true)"])
        // An irreversible step is what a downgrade says it is.
        let irreversible = archiveError {
            try catalog(MigrationStep(from: 1, to: 2, rules: [.remove("x")])).writeWayDown(
                toRelease: "1.0", into: &tree)
        }
        #expect(irreversible?.code == .irreversibleStep)
        #expect(irreversible?.rule == "remove(x)")
    }

    @Test("a type the release did not have needs a fallback")
    func absentTypeWithoutFallback() throws {
        var sticker = BoardApp.sticker
        sticker.downgradeFallback = nil
        let catalog = try MigrationCatalog(
            types: [BoardApp.board, BoardApp.note, sticker], documents: [BoardApp.document],
            releases: BoardApp.releases)
        var tree = BoardApp.archive
        let error = archiveError { try catalog.writeWayDown(toRelease: "1.0", into: &tree) }
        #expect(error?.code == .notInRelease)
        #expect(error?.typeName == "Sticker")
    }

    // MARK: Reading it in an older app

    @Test(
        "an older catalog runs the carried steps, keeps what its versions cannot hold, and the newer one gets it back")
    func roundTrip() throws {
        var tree = try BoardApp.archive(readableBy: "1.0")
        let report = try MigrationPass(catalog: try BoardApp.firstRelease()).upgrade(&tree)
        let carried = try #require(report.wayDownRun)
        #expect(carried.release == "1.0")
        #expect(carried.keptCount == 3)
        #expect(tree["wayDown"] == nil)
        #expect(tree["documentVersion"] == 1)
        let root = try #require(tree["root"])
        #expect(root["title"] == "Plans")
        #expect(root["focus"] == nil)
        #expect(root["$wayBack"]?["fields"] == ["focus": nil])
        #expect(root["$wayBack"]?["references"] == [["focus", 1]])
        let notes = try #require(root["notes"])
        #expect(notes[0]?["body"] == "milk")
        #expect(notes[0]?["tags"] == nil)
        #expect(notes[0]?["$wayBack"]?["fields"] == ["tags": ["shop"]])
        #expect(notes[0]?["$wayBack"]?["anchor"] == 1)
        #expect(notes[1]?["$wayBack"] == nil)  // nothing lost: its tags were the default
        guard case .object(let sticker)? = notes[2] else { throw Failure("no sticker") }
        #expect(sticker.typeName == "Note")
        #expect(sticker.version == 2)
        #expect(sticker.fields["$wayBack"]?["type"] == "Sticker")
        #expect(sticker.fields["$wayBack"]?["fields"] == ["radius": 4.5])
        #expect(report.description.contains("Ran the steps the archive carries down to release 1.0"))

        // App 1.0 edits the title and the note, and writes identities afresh (no `$id`).
        var edited = tree
        Self.edit(&edited)

        let back = try MigrationPass(catalog: try BoardApp.today()).upgrade(&edited)
        #expect(back.restoredCount == 3)
        let newRoot = try #require(edited["root"])
        #expect(newRoot["title"] == "Plans for Sunday")
        guard case .reference(let focus)? = newRoot["focus"], case .object(let first)? = newRoot["notes"]?[0] else {
            throw Failure("the focus is not a reference to the first note")
        }
        #expect(first.id == focus)
        #expect(first.fields == ["body": "oat milk", "tags": ["shop"]])
        #expect(newRoot["notes"]?[1] == object("Note", 3, ["body": "bread", "tags": []]))
        #expect(newRoot["notes"]?[2] == object("Sticker", 1, ["body": "★", "radius": 4.5]))
        #expect(edited["documentVersion"] == 2)
    }

    /// What app 1.0 does to the tree it read: a new title, a new body for the first note, and
    /// identities dropped (nothing it knows refers to the note any more).
    static func edit(_ tree: inout ArchiveValue) {
        guard case .dictionary(var envelope) = tree, case .object(var root)? = envelope["root"],
            case .array(var notes)? = root.fields["notes"], case .object(var first) = notes[0]
        else { return }
        root.fields["title"] = "Plans for Sunday"
        first.fields["body"] = "oat milk"
        first.id = nil
        notes[0] = .object(first)
        root.fields["notes"] = .array(notes)
        envelope["root"] = .object(root)
        tree = .dictionary(envelope)
    }

    @Test("where the older app changed a kept field, its edit wins")
    func editsWin() throws {
        var tree = try BoardApp.archive(readableBy: "1.0")
        try MigrationPass(catalog: try BoardApp.firstRelease()).upgrade(&tree)
        // App 1.0 had its own `tags` field after all (say, a plug-in wrote one): its value wins.
        guard case .dictionary(var envelope) = tree, case .object(var root)? = envelope["root"],
            case .array(var notes)? = root.fields["notes"], case .object(var first) = notes[0]
        else { throw Failure("unexpected tree") }
        first.fields["tags"] = ["errand"]
        notes[0] = .object(first)
        root.fields["notes"] = .array(notes)
        envelope["root"] = .object(root)
        tree = .dictionary(envelope)
        try MigrationPass(catalog: try BoardApp.today()).upgrade(&tree)
        #expect(tree["root"]?["notes"]?[0]?["tags"] == ["errand"])
    }

    @Test("a reader as new as the archive ignores the way down and leaves it in place")
    func currentReader() throws {
        var tree = try BoardApp.archive(readableBy: "1.0")
        let before = tree
        let report = try MigrationPass(catalog: try BoardApp.today()).upgrade(&tree)
        #expect(report.wayDownRun == nil)
        #expect(tree == before)
    }

    @Test("a reader older than the release gets the usual newerVersion error")
    func olderThanTheRelease() throws {
        var tree = try BoardApp.archive(readableBy: "1.0")
        let older = try MigrationCatalog(
            types: [
                TypeMigrations(typeName: "Board", currentVersion: 1),
                TypeMigrations(typeName: "Note", currentVersion: 1),
            ],
            documents: [DocumentMigrations(name: "Board", currentVersion: 0, steps: [])])
        let error = archiveError { try MigrationPass(catalog: older).upgrade(&tree) }
        #expect(error?.code == .newerVersion)
    }

    @Test("an object the carried steps do not reach is the usual newerVersion error")
    func beyondTheCarriedSteps() throws {
        var tree = try BoardApp.archive(readableBy: "1.0")
        Self.setRoot(&tree) { root in
            root.fields["extra"] = object("Note", 9, ["body": "from the future"])
        }
        let error = archiveError { try MigrationPass(catalog: try BoardApp.firstRelease()).upgrade(&tree) }
        #expect(error?.code == .newerVersion)
        #expect(error?.path == "extra")
    }

    static func setRoot(_ tree: inout ArchiveValue, _ body: (inout ArchiveObject) -> Void) {
        guard case .dictionary(var envelope) = tree, case .object(var root)? = envelope["root"] else { return }
        body(&root)
        envelope["root"] = .object(root)
        tree = .dictionary(envelope)
    }

    // MARK: Hostile way downs

    /// `tree` with its way down edited by `body` and sealed with a correct digest.
    static func tampered(_ body: (inout ArchiveDictionary) -> Void, sealing: Bool = true) throws -> ArchiveValue {
        var tree = try BoardApp.archive(readableBy: "1.0")
        guard case .dictionary(var envelope) = tree, case .dictionary(var wayDown)? = envelope["wayDown"] else {
            throw Failure("no way down")
        }
        body(&wayDown)
        if sealing, let digest = WayDown.digest(ofTree: .dictionary(wayDown)) { wayDown["digest"] = .string(digest) }
        envelope["wayDown"] = .dictionary(wayDown)
        tree = .dictionary(envelope)
        return tree
    }

    /// The error an app 1.0 catalog's upgrade of `tree` throws.
    static func olderAppError(_ tree: ArchiveValue) throws -> ArchiveError? {
        var tree = tree
        let catalog = try BoardApp.firstRelease()
        return archiveError { try MigrationPass(catalog: catalog).upgrade(&tree) }
    }

    /// Edits the rules of the first step of the `type` chain.
    static func editRules(_ wayDown: inout ArchiveDictionary, type: String, _ body: (inout [ArchiveValue]) -> Void) {
        guard case .dictionary(var types)? = wayDown["types"], case .dictionary(var chain)? = types[type],
            case .array(var steps)? = chain["steps"], case .dictionary(var step) = steps[0],
            case .array(var rules)? = step["rules"]
        else { return }
        body(&rules)
        step["rules"] = .array(rules)
        steps[0] = .dictionary(step)
        chain["steps"] = .array(steps)
        types[type] = .dictionary(chain)
        wayDown["types"] = .dictionary(types)
    }

    @Test("an unknown rule keyword is an invalidWayDown error at its path")
    func unknownKeyword() throws {
        let tree = try Self.tampered { wayDown in
            Self.editRules(&wayDown, type: "Note") { $0 = [["frobnicate": "tags"]] }
        }
        let error = try Self.olderAppError(tree)
        #expect(error?.code == .invalidWayDown)
        #expect(error?.path == "wayDown.types.Note.steps[0].rules[0].frobnicate")
        #expect(error?.message.contains("unknown rule 'frobnicate'") == true)
    }

    @Test("a wrong digest is an invalidWayDown error at the digest")
    func wrongDigest() throws {
        let tree = try Self.tampered(
            { wayDown in Self.editRules(&wayDown, type: "Note") { $0 = [["remove": "body"]] } }, sealing: false)
        let error = try Self.olderAppError(tree)
        #expect(error?.code == .invalidWayDown)
        #expect(error?.path == "wayDown.digest")
        #expect(error?.message.contains("does not match") == true)
    }

    @Test("fallbacks that go round in a circle are an invalidWayDown error")
    func cycle() throws {
        let tree = try Self.tampered { wayDown in
            guard case .dictionary(var types)? = wayDown["types"] else { return }
            types["Note"] = [
                "from": 3, "to": 3, "steps": [], "fallback": ["type": "Sticker", "version": 1, "rules": []],
            ]
            wayDown["types"] = .dictionary(types)
        }
        let error = try Self.olderAppError(tree)
        #expect(error?.code == .invalidWayDown)
        #expect(error?.message.contains("circle") == true)
        #expect(error?.path.description.hasPrefix("wayDown.types.") == true)
        // Read alone, the way down is checked as the pass compiles it.
        let read = archiveError { _ = try WayDown(tree: tree["wayDown"] ?? .null) }
        #expect(
            read?.code == .invalidWayDown && read?.message.contains("circle") == true, "\(String(describing: read))")
    }

    @Test("a step that does not end at the next version down (skipping the reader's) is an invalidWayDown error")
    func stepSkipsTheReadersVersion() throws {
        let tree = try Self.tampered { wayDown in
            guard case .dictionary(var types)? = wayDown["types"] else { return }
            types["Note"] = [
                "from": 3, "to": 1, "steps": [["from": 3, "to": 1, "rules": []], ["from": 2, "to": 1, "rules": []]],
            ]
            wayDown["types"] = .dictionary(types)
        }
        let error = try Self.olderAppError(tree)
        #expect(error?.code == .invalidWayDown)
        #expect(error?.path == "wayDown.types.Note.steps[0].to")
        #expect(error?.message.contains("does not end at v2") == true)
    }

    @Test("a rename onto a type the reader does not register is an invalidWayDown error")
    func renameOntoUnregisteredType() throws {
        let tree = try Self.tampered { wayDown in
            Self.editRules(&wayDown, type: "Note") { $0.append(["renameType": "Note", "to": "Memo"]) }
        }
        let error = try Self.olderAppError(tree)
        #expect(error?.code == .invalidWayDown)
        #expect(error?.path == "wayDown.types.Note")
        #expect(error?.message.contains("Memo v2, which this app does not register") == true)
    }

    @Test("a way down beyond the limits is a limitExceeded error; one of a newer format is ignored")
    func limitsAndFormats() throws {
        let deep = try Self.tampered { wayDown in
            var value: ArchiveValue = 1
            for _ in 0..<100 { value = ["x": value] }
            Self.editRules(&wayDown, type: "Note") { $0 = [["add": "deep", "default": value]] }
        }
        #expect(try Self.olderAppError(deep)?.code == .limitExceeded)
        let newer = try Self.tampered { wayDown in wayDown["formatVersion"] = 2 }
        #expect(try Self.olderAppError(newer)?.code == .newerVersion)
    }

    @Test("a way down for another document, or a malformed kept value, is an invalidWayDown error")
    func otherDocumentAndKeptValues() throws {
        let other = try Self.tampered { wayDown in
            guard case .dictionary(var document)? = wayDown["document"] else { return }
            document["name"] = "Sketch"
            wayDown["document"] = .dictionary(document)
        }
        #expect(try Self.olderAppError(other)?.code == .invalidWayDown)

        var tree = try BoardApp.archive(readableBy: "1.0")
        try MigrationPass(catalog: try BoardApp.firstRelease()).upgrade(&tree)
        Self.setRoot(&tree) { root in root.fields["$wayBack"] = ["type": "Board", "version": "two"] }
        let catalog = try BoardApp.today()
        let error = archiveError { try MigrationPass(catalog: catalog).upgrade(&tree) }
        #expect(error?.code == .invalidWayDown)
        #expect(error?.path == "$wayBack.version")
    }

    @Test("a kept reference names its kept field by the field's exact scalars, not a canonically equal spelling")
    func keptReferenceKeysAreExact() throws {
        var tree = try BoardApp.archive(readableBy: "1.0")
        try MigrationPass(catalog: try BoardApp.firstRelease()).upgrade(&tree)
        // "café" kept in its composed spelling; the reference names the decomposed one.
        Self.setRoot(&tree) { root in
            root.fields["$wayBack"] = [
                "type": "Board", "version": 2, "fields": ["caf\u{E9}": 1], "references": [["cafe\u{301}", 1]],
            ]
        }
        let error = archiveError { try MigrationPass(catalog: try BoardApp.today()).upgrade(&tree) }
        #expect(error?.code == .invalidWayDown)
        #expect(error?.path == "$wayBack.references")
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
