import ArchiveFormats
import Foundation
import TestSupport
import Testing

/// The real-shaped property lists of `Fixtures/plist/terminal` and `Fixtures/plist/preferences`
/// hold what their READMEs say, in AppKit's layouts, and our readers find it.
@Suite("Real-shaped property lists: a Terminal profile and an app's preferences")
struct RealShapedPropertyListTests {
    static let profile = "plist/terminal/Harbor.terminal"
    static let preferences = "plist/preferences/com.example.Harbor.plist"

    @Test("the Terminal profile keeps its colours and font as keyed archives in data values, in AppKit's layouts")
    func terminalProfile() throws {
        let document = try ArchiveDocument(data: try Fixture.data(Self.profile))
        #expect(document.format == .xmlPropertyList && document.markup == .plain)
        #expect(document.tree["name"] == "Harbor" && document.tree["type"] == "Window Settings")
        #expect(document.tree["FontWidthSpacing"] == .double(1.004032258064516))
        let nested = try document.nestedArchives()
        #expect(
            nested.map(\.path.description) == ["BackgroundColor", "CursorColor", "Font", "SelectionColor", "TextColor"])
        #expect(nested.allSatisfy { $0.document.format == .keyedArchive })
        func root(_ key: String) throws -> ArchiveObject {
            try #require(nested.first { $0.path == [.key(key)] }?.document.tree.objectValue, "\(key)")
        }

        // sRGB since macOS 10.13: components as text, the calibrated colour as text ending in NUL,
        // and the colour space as an object with its AppKit id (7) and its ICC profile.
        let background = try root("BackgroundColor")
        #expect(background.typeName == "NSColor")
        #expect(background.fields.keys == ["NSComponents", "NSRGB", "NSColorSpace", "NSCustomColorSpace"])
        #expect(background.fields["NSComponents"] == .data(Data("0.1176470588 0.1333333333 0.1607843137 1".utf8)))
        #expect(background.fields["NSRGB"]?.dataValue?.last == 0)
        #expect(background.fields["NSColorSpace"] == 1)
        let srgb = try #require(background.fields["NSCustomColorSpace"]?.objectValue)
        #expect(srgb.typeName == "NSColorSpace")
        #expect(srgb.fields["NSID"] == 7)
        let icc = try #require(srgb.fields["NSICC"]?.dataValue)
        #expect(icc.count > 128 && icc[36..<40] == Data("acsp".utf8))

        // A custom colour space: its ICC profile alone, no AppKit id.
        let text = try root("TextColor")
        let custom = try #require(text.fields["NSCustomColorSpace"]?.objectValue)
        #expect(custom.fields["NSID"] == nil)
        #expect(custom.fields["NSICC"]?.dataValue?[36..<40] == Data("acsp".utf8))

        #expect(try root("CursorColor").fields == ["NSWhite": .data(Data("0.75".utf8) + [0]), "NSColorSpace": 3])
        #expect(try root("SelectionColor").fields["NSColorSpace"] == 2)
        let font = try root("Font")
        #expect(font.typeName == "NSFont")
        #expect(font.fields == ["NSSize": 13.0, "NSfFlags": 16, "NSName": "SFMono-Regular"])
    }

    @Test("the preferences hold dates (one with a fraction of a second, as NSDate() gives) and archives in data")
    func preferences() throws {
        let document = try ArchiveDocument(data: try Fixture.data(Self.preferences))
        #expect(document.format == .binaryPropertyList && document.markup == .plain)
        #expect(document.tree["SULastCheckTime"]?.dateValue?.timeIntervalSinceReferenceDate == 730_981_351.123456)
        #expect(document.tree["FirstLaunchDate"]?.dateValue == ISO8601Date.date(from: "2019-11-05T08:00:00Z"))
        #expect(document.tree["SnoozeUntil"]?.dateValue == ISO8601Date.date(from: "4001-01-01T00:00:00Z"))
        let nested = try document.nestedArchives()
        #expect(nested.map(\.path.description) == ["HighlightColor", "SyncState"])
        let sync = try #require(nested.last?.document.tree)
        #expect(sync["server"] == "sync.example.com")
        #expect(sync["lastSync"]?.dateValue?.timeIntervalSinceReferenceDate == 730_943_998.5)
    }
}
