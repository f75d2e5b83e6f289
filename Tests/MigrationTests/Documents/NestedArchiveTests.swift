import Foundation
import ModelVersioning
import TestSupport
import Testing

/// Archives kept as data values inside another document — keyed archives and JSON in a
/// UserDefaults domain, NSColor, NSFont and an app's own archives in a Terminal profile — are
/// found with their paths and formats, migrated by their own chains, and written back in their
/// own formats, leaving the rest of the outer document byte for byte as it was.
@Suite("Nested archives")
struct NestedArchiveTests {
    static let profile = "stores/Ocean.terminal"
    static let defaults = "stores/com.example.Sketch.plist"

    static func pass() throws -> MigrationPass {
        MigrationPass(catalog: try Fixture.rules("archives/rules.json"))
    }

    @Test("the archives in a Terminal-like profile and a UserDefaults domain are listed with paths and formats")
    func listing() throws {
        let profile = try ArchiveDocument(data: try Fixture.data(Self.profile))
        #expect(profile.format == .xmlPropertyList)
        let nested = try profile.nestedArchives()
        #expect(
            nested.map(\.path.description) == [
                "BackgroundColor", "CursorColor", "Font", "HighlightStyles[0]", "HighlightStyles[1]", "SelectionStyle",
                "TextColor",
            ])
        #expect(nested.allSatisfy { $0.document.format == .keyedArchive })
        #expect(nested[2].document.tree.objectValue?.typeName == "NSFont")
        #expect(nested[3].document.tree.objectValue?.typeName == "Style")
        #expect(nested[3].document.tree.objectValue?.version == 1)

        let defaults = try ArchiveDocument(data: try Fixture.data(Self.defaults))
        #expect(defaults.format == .binaryPropertyList)
        let values = try defaults.nestedArchives()
        #expect(
            values.map(\.path.description) == ["DefaultStyle", "LastDrawing", "RecentColors[0]", "RecentColors[1]"])
        #expect(values.map(\.document.format) == [.keyedArchive, .json, .keyedArchive, .keyedArchive])
        // The PNG and the bytes that merely start with "{" are data like any other.
        #expect(!values.contains { $0.path == "ToolbarIcon" || $0.path == "Scratch" })
    }

    @Test(
        "migrateNestedArchives upgrades each nested archive by its own chains, in its own format, and nothing else",
        arguments: [profile, defaults])
    func migrateInSwift(fixture: String) throws {
        let original = try Fixture.data(fixture)
        var document = try ArchiveDocument(data: original)
        let pass = try Self.pass()
        let records = try document.migrateNestedArchives { tree in try pass.upgrade(&tree) }
        let changed = records.filter(\.changed).map(\.locationDescription)
        #expect(
            changed
                == (fixture == Self.profile
                    ? ["HighlightStyles[0]", "HighlightStyles[1]", "SelectionStyle"] : ["DefaultStyle", "LastDrawing"]))
        try Self.checkUpgraded(try document.data(), original: original)
        // A second pass finds nothing to do.
        var again = try ArchiveDocument(data: try document.data())
        #expect(try again.migrateNestedArchives { tree in try pass.upgrade(&tree) }.allSatisfy { !$0.changed })
    }

    /// Every nested Style is at v2 and the drawing equals its golden; putting each changed data
    /// value's original bytes back gives the original file, byte for byte.
    static func checkUpgraded(_ upgraded: Data, original: Data) throws {
        let before = try ArchiveDocument(data: original)
        var after = try ArchiveDocument(data: upgraded)
        #expect(after.format == before.format)
        for nested in try after.nestedArchives() {
            let tree = nested.document.tree
            switch tree.objectValue?.typeName {
            case "Style":
                #expect(tree.objectValue?.version == 2, "\(nested.path)")
                #expect(tree.objectValue?["stroke"]?.stringValue?.hasPrefix("#") == true)
                #expect(tree.objectValue?["width"] == 1.0)
            case "NSColor", "NSFont":
                #expect(
                    nested.document.tree
                        == (try before.nestedArchives().first { $0.path == nested.path })?.document.tree)
            default:
                let differences = ArchiveDiff.differences(
                    from: try Fixture.tree("archives/Sketch/expected/v1/kyoto-trip.json"), to: tree,
                    options: ArchiveDiff.Options(nullMeansAbsent: true))
                #expect(differences.isEmpty, "\(nested.path): \(differences)")
                #expect(nested.document.isPrettyPrinted == false, "the app's compact JSON stays compact")
            }
        }
        var restored = after.tree
        for nested in try before.nestedArchives() {
            restored = Self.replacing(nested.path, in: restored, with: Self.value(at: nested.path, in: before.tree))
        }
        after.tree = restored
        #expect(try after.data() == original, "the outer document is otherwise unchanged, byte for byte")
    }

    static func value(at path: ArchivePath, in tree: ArchiveValue) -> ArchiveValue {
        var value = tree
        for component in path.components {
            switch component {
            case .key(let key): value = value[key] ?? .null
            case .index(let index): value = value[index] ?? .null
            default: return .null
            }
        }
        return value
    }

    static func replacing(_ path: ArchivePath, in tree: ArchiveValue, with value: ArchiveValue) -> ArchiveValue {
        guard let first = path.components.first else { return value }
        let rest = ArchivePath(Array(path.components.dropFirst()))
        switch (tree, first) {
        case (.dictionary(var entries), .key(let key)):
            entries[key] = replacing(rest, in: entries[key] ?? .null, with: value)
            return .dictionary(entries)
        case (.array(var elements), .index(let index)):
            elements[index] = replacing(rest, in: elements[index], with: value)
            return .array(elements)
        default:
            return tree
        }
    }

    @Test("archive-migrate inspect lists the nested archives; upgrade --nested migrates them in place")
    func commandLine() throws {
        let scratch = try ScratchFolder()
        try scratch.copy(fixture: Self.profile, to: "Ocean.terminal")
        try scratch.copy(fixture: Self.defaults, to: "com.example.Sketch.plist")
        try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        let inspect = try ToolProcess.run(
            ["inspect", "com.example.Sketch.plist", "--rules", "rules.json"], in: scratch.url)
        #expect(inspect.status == 0)
        for line in [
            "nested archives: 4", "  DefaultStyle: keyed-archive (Style v1)",
            "  LastDrawing: json (Circle v1 ×2, Drawing v1, Model v1 ×2, Rect v1, Style v1 ×3)",
            "  RecentColors[0]: keyed-archive (NSColor unversioned)", "upgrade --nested would run: Style v1 → v2",
        ] {
            #expect(inspect.output.contains(line), "\(line) in:\n\(inspect.output)")
        }
        let json = try ToolProcess.run(
            ["inspect", "Ocean.terminal", "--rules", "rules.json", "--format", "json"], in: scratch.url)
        let listed = try #require(try ArchiveFormat.json.read(json.standardOutput)["nested"]?.arrayValue)
        #expect(listed.count == 7)
        #expect(listed.first?["path"] == "BackgroundColor" && listed.first?["format"] == "keyed-archive")

        // Without --nested the outer documents (plain, no chain of their own) are not archives to upgrade.
        let plain = try ToolProcess.run(
            ["upgrade", "Ocean.terminal", "--rules", "rules.json", "--in-place"], in: scratch.url)
        #expect(plain.status == 2)
        let run = try ToolProcess.run(
            [
                "upgrade", "Ocean.terminal", "com.example.Sketch.plist", "--nested", "--rules", "rules.json",
                "--in-place",
            ],
            in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("nested keyed-archive at SelectionStyle: Upgraded 1 object"))
        #expect(run.standardError.contains("nested json at LastDrawing: Upgraded document Sketch from v1 to v4"))
        try Self.checkUpgraded(try scratch.data("Ocean.terminal"), original: try Fixture.data(Self.profile))
        try Self.checkUpgraded(try scratch.data("com.example.Sketch.plist"), original: try Fixture.data(Self.defaults))
        let again = try ToolProcess.run(
            ["upgrade", "Ocean.terminal", "--nested", "--rules", "rules.json", "--in-place", "--dry-run"],
            in: scratch.url)
        #expect(again.status == 0, "nothing left to migrate: \(again.standardError)")
    }

    @Test("a data value that starts like a property list but does not read is an error at its path")
    func damagedNestedArchive() throws {
        let tree: ArchiveValue = ["name": "x", "colors": [.data(Data("bplist00 broken".utf8))]]
        let document = try ArchiveDocument(
            data: try ArchiveFormat.xmlPropertyList.write(tree, options: .init(markup: .plain)))
        #expect {
            try document.nestedArchives()
        } throws: { error in
            (error as? ArchiveError)?.path == "colors[0]" && (error as? ArchiveError)?.code == .malformedInput
        }
    }

    @Test("archives nested in nested archives are migrated innermost first, within the depth limit")
    func nestedTwice() throws {
        let style = ArchiveValue.object(ArchiveObject(typeName: "Style", version: 1, fields: ["color": "#123456"]))
        let inner = try ArchiveFormat.keyedArchive.write(style)
        let middle = try ArchiveFormat.binaryPropertyList.write(["style": .data(inner)], options: .init(markup: .plain))
        let outer = try ArchiveFormat.xmlPropertyList.write(["wrapped": .data(middle)], options: .init(markup: .plain))
        var document = try ArchiveDocument(data: outer)
        let pass = try Self.pass()
        let records = try document.migrateNestedArchives { tree in try pass.upgrade(&tree) }
        #expect(records.map(\.locationDescription) == ["wrapped", "wrapped » style"])
        #expect(records.map(\.changed) == [true, true])
        let listed = try ArchiveDocument(data: try document.data()).nestedArchives()
        #expect(listed.first?.nested.first?.document.tree.objectValue?.version == 2)

        var limits = ArchiveLimits()
        limits.maxDepth = 2
        #expect {
            try ArchiveDocument(data: outer).nestedArchives(options: ArchiveReadingOptions(limits: limits))
        } throws: { error in
            (error as? ArchiveError)?.limit == .depth
        }
    }

    // MARK: Fan-out

    @Test("a nested archive shared from several places is listed and migrated at each, read once, and counted at each")
    func sharedNestedArchives() throws {
        let style = ArchiveValue.object(ArchiveObject(typeName: "Style", version: 1, fields: ["color": "#123456"]))
        let inner = try ArchiveFormat.keyedArchive.write(style)
        var middle = BinaryPlistBuilder()
        let sharedStyle = middle.add(.bytes(inner))
        let styles = middle.add(.array([sharedStyle, sharedStyle, sharedStyle]))
        let middleBytes = middle.data(top: styles)
        var outer = BinaryPlistBuilder()
        let sharedMiddle = outer.add(.bytes(middleBytes))
        let middles = outer.add(.array([sharedMiddle, sharedMiddle]))
        let outerBytes = outer.data(top: middles)

        let listed = try ArchiveDocument(data: outerBytes).nestedArchives()
        #expect(listed.map(\.path.description) == ["[0]", "[1]"])
        #expect(listed.allSatisfy { $0.nested.map(\.path.description) == ["[0]", "[1]", "[2]"] })
        var limits = ArchiveLimits()
        limits.maxNestedArchives = 7
        let refused = try #require(throws: ArchiveError.self) {
            try ArchiveDocument(data: outerBytes).nestedArchives(options: ArchiveReadingOptions(limits: limits))
        }
        #expect(refused.limit == .nestedArchives && refused.path.description == "[1]", "\(refused)")

        var document = try ArchiveDocument(data: outerBytes)
        let pass = try Self.pass()
        let records = try document.migrateNestedArchives { tree in try pass.upgrade(&tree) }
        #expect(
            records.map(\.locationDescription) == [
                "[0]", "[0] » [0]", "[0] » [1]", "[0] » [2]", "[1]", "[1] » [0]", "[1] » [1]", "[1] » [2]",
            ])
        #expect(records.allSatisfy { $0.changed })
        let after = try ArchiveDocument(data: try document.data()).nestedArchives()
        #expect(after.count == 2)
        #expect(after.flatMap(\.nested).map { $0.document.tree.objectValue?.version } == Array(repeating: 2, count: 6))
        var again = try ArchiveDocument(data: outerBytes)
        #expect(throws: ArchiveError.self) {
            try again.migrateNestedArchives(options: ArchiveReadingOptions(limits: limits)) { tree in
                try pass.upgrade(&tree)
            }
        }
    }

    /// A binary property list whose array holds `fanOut` references to one shared data value
    /// holding the next level, `levels` deep: a kilobyte that nests `fanOut ^ levels` archives.
    static func fanOut(levels: Int, fanOut: Int = 10) -> Data {
        var inner = BinaryPlistBuilder()
        inner.add(.string("leaf"))
        var bytes = inner.data()
        for _ in 0..<levels {
            var level = BinaryPlistBuilder()
            let shared = level.add(.bytes(bytes))
            let array = level.add(.array([Int](repeating: shared, count: fanOut)))
            bytes = level.data(top: array)
        }
        return bytes
    }

    @Test(
        "a kilobyte whose shared data values nest a million archives is refused at maxNestedArchives, in the library and the tool"
    )
    func fanOutIsBounded() throws {
        let bomb = Self.fanOut(levels: 6)
        #expect(bomb.count < 2_000)
        let document = try ArchiveDocument(data: bomb)
        let error = try #require(throws: ArchiveError.self) { try document.nestedArchives() }
        #expect(error.code == .limitExceeded && error.limit == .nestedArchives, "\(error)")
        #expect(error.message.contains("more than 10000 archives nested"), "\(error)")
        var migrated = document
        let migrateError = try #require(throws: ArchiveError.self) {
            try migrated.migrateNestedArchives { tree in try Self.pass().upgrade(&tree) }
        }
        #expect(migrateError.limit == .nestedArchives)
        #expect(migrated.tree == document.tree)
        // Three levels (1,000 archives) are read; untrusted limits stop them too.
        let small = try ArchiveDocument(data: Self.fanOut(levels: 3))
        #expect(try small.nestedArchives().count == 10)
        var untrusted = ArchiveReadingOptions()
        untrusted.limits = .untrusted
        untrusted.limits.maxNestedArchives = 100
        #expect(throws: ArchiveError.self) { try small.nestedArchives(options: untrusted) }

        let scratch = try ScratchFolder()
        try bomb.write(to: scratch.url.appendingPathComponent("bomb.plist"))
        _ = try scratch.copy(fixture: "archives/rules.json", to: "rules.json")
        // inspect reports what it cannot list beside the rest, and succeeds.
        let inspect = try ToolProcess.run(["inspect", "bomb.plist"], in: scratch.url)
        #expect(inspect.status == 0, "\(inspect.standardError)")
        #expect(
            inspect.output.contains("nested archives: ") && inspect.output.contains("more than 10000 archives nested"),
            "\(inspect.output)")
        #expect(inspect.standardOutput.count < 10_000)
        let upgrade = try ToolProcess.run(
            ["upgrade", "bomb.plist", "--nested", "--in-place", "--rules", "rules.json"], in: scratch.url)
        #expect(upgrade.status == 2, "\(upgrade.standardError)")
        #expect(upgrade.standardError.contains("more than 10000 archives nested"), "\(upgrade.standardError)")
        #expect(try scratch.data("bomb.plist") == bomb)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == [
                "bomb.plist", "rules.json",
            ])
    }
}
