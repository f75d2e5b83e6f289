import Foundation
import MigrationRules
import Testing

@Suite("Archive value tree")
struct ArchiveValueTests {
    @Test("integers keep their full 64-bit range and compare semantically")
    func integerRange() {
        #expect(ArchiveValue(UInt64.max) == .uint(UInt64.max))
        #expect(ArchiveValue(UInt64(5)) == .int(5))
        #expect(ArchiveValue.int(5) == .uint(5))
        #expect(ArchiveValue.int(-1) != .uint(UInt64.max))
        #expect(ArchiveValue.int(Int64.min).int64Value == Int64.min)
        #expect(ArchiveValue.uint(UInt64.max).int64Value == nil)
        #expect(ArchiveValue.int(1) != .double(1))
        #expect(Set<ArchiveValue>([.int(5), .uint(5)]).count == 1)
    }

    @Test("accessors read only their own kind")
    func accessors() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        #expect(ArchiveValue.date(date).dateValue == date)
        #expect(ArchiveValue.string("2023-11-14T22:13:20Z").dateValue == nil)
        #expect(ArchiveValue.double(1_700_000_000).dateValue == nil)
        #expect(ArchiveValue.data(Data([1, 2])).dataValue == Data([1, 2]))
        #expect(ArchiveValue.reference(3).referenceValue == 3)
        #expect(ArchiveValue.int(3).referenceValue == nil)
    }

    @Test("dictionaries keep key order but compare without it")
    func dictionaryOrder() {
        var a: ArchiveDictionary = ["x": 1, "y": 2]
        let b: ArchiveDictionary = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.keys == ["x", "y"])
        a.renameKey("x", to: "left")
        #expect(a.keys == ["left", "y"])
        a["z"] = 3
        a["y"] = nil
        #expect(a.keys == ["left", "z"])
        #expect(a.index(forKey: "z", startingAt: 1) == 1)
        #expect(a.index(forKey: "left", startingAt: 1) == 0)
    }

    @Test("keys are their exact Unicode scalars: canonically equivalent spellings are two keys")
    func canonicalKeys() {
        // KELVIN SIGN (3 UTF-8 bytes) is not "K" (1 byte); a precomposed "é" (2) is not "e" + U+0301 (3),
        // although Swift's `==` finds each pair equal.
        let d: ArchiveDictionary = ["a": 0, "\u{212A}": 1, "caf\u{E9}": 2]
        #expect(d.index(forKey: "K") == nil)
        #expect(d.index(forKey: "cafe\u{301}") == nil)
        #expect(d.index(forKey: "K", startingAt: 2) == nil)
        #expect(d.index(forKey: "cafe\u{301}", startingAt: 1) == nil)
        #expect(d["K"] == nil)
        #expect(d["\u{212A}"] == 1)
        #expect(d.index(forKey: "caf\u{E9}", startingAt: 1) == 2)
    }

    @Test("objects copy on write")
    func objectCopyOnWrite() {
        let original = ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 3])
        var copy = original
        copy.fields.renameKey("r", to: "radius")
        copy.version = 2
        #expect(original.fields.keys == ["r"])
        #expect(original.version == 1)
        #expect(copy.fields.keys == ["radius"])
        #expect(copy.description == "Circle v2")
    }

    @Test(
        "paths print and parse",
        arguments: ["shapes[3].center.x", "people[*].name", #"meta["odd key"].v"#, "a.*.b", "x"])
    func pathRoundTrip(text: String) throws {
        let path = try ArchivePath(parsing: text)
        #expect(path.description == text)
    }

    @Test("malformed paths are rejected with a located error", arguments: ["a..b", "a[", "a[x]", ".a", "a."])
    func malformedPath(text: String) {
        #expect(throws: ArchiveError.self) { try ArchivePath(parsing: text) }
        do {
            _ = try ArchivePath(parsing: text)
        } catch {
            #expect((error as? ArchiveError)?.code == .invalidPath)
        }
    }

    @Test("errors read as sentences")
    func errorDescription() {
        let error = ArchiveError(
            .migrationFailed, "key 'name' is missing", path: "shapes[3]", step: "Circle v1 → v2",
            rule: "rename(name → title)")
        #expect(error.description == "Circle v1 → v2, rule rename(name → title): key 'name' is missing at shapes[3]")
        var matched = false
        do { throw error } catch ArchiveError.Code.migrationFailed { matched = true } catch {}
        #expect(matched)
    }
}
