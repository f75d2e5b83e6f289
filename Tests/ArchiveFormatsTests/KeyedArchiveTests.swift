import Foundation
import TestSupport
import Testing

@testable import ArchiveFormats

/// Reading NSKeyedArchiver archives that others wrote: every fixture of `Fixtures/nskeyedarchiver`
/// with the values its README gives, every must-fail archive rejected with its code, and the
/// hostile archives of `hostile/` (see `hostile/generate.py`).
@Suite("Keyed archives: reading")
struct KeyedArchiveTests {
    // MARK: - Helpers

    /// The path, relative to `KeyedArchiveFixtures.root`, of a must-fail archive kept in `Fixtures/malformed`
    /// (one copy for this suite and `MalformedCorpusTests`).
    static func malformed(_ path: String) -> String {
        "../malformed/" + path
    }

    /// An error's code and path for comparisons.
    static func failure(_ body: () throws -> ArchiveValue) -> (ArchiveError.Code, String)? {
        do {
            _ = try body()
            return nil
        } catch let error as ArchiveError {
            return (error.code, error.path.description)
        } catch {
            return (ArchiveError.Code(rawValue: "not an ArchiveError: \(error)"), "")
        }
    }

    static func date(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    // MARK: - kiler129/NSKeyedUnarchiver

    /// Each case exists as `.bin.plist` and `.xml.plist` with the same content.
    static let kilerEncodings = ["bin", "xml"]

    @Test("kiler129: null, empty objects and a single property", arguments: kilerEncodings)
    func kilerObjects(_ encoding: String) throws {
        #expect(try KeyedArchiveFixtures.read("kiler129-php/ArchivedData/null.\(encoding).plist") == .null)

        let empty = try KeyedArchiveFixtures.object(
            KeyedArchiveFixtures.read("kiler129-php/ArchivedData/emptyObject.\(encoding).plist"))
        #expect(empty.typeName == "TestDummy")
        #expect(empty.superclassNames.isEmpty)  // a class entry with only $classname
        #expect(empty.fields.isEmpty && empty.version == nil && empty.id == nil)

        let extended = try KeyedArchiveFixtures.object(
            KeyedArchiveFixtures.read("kiler129-php/ArchivedData/emptyObjectExtended.\(encoding).plist"))
        #expect(extended.typeName == "TestDummyExtended")
        #expect(extended.superclassNames == ["generate_reference_data.TestDummy", "NSObject"])

        let single = try KeyedArchiveFixtures.object(
            KeyedArchiveFixtures.read("kiler129-php/ArchivedData/objectWithSingleProp.\(encoding).plist"))
        #expect(single.typeName == "TestDummy")
        #expect(single.fields == ["foo": "bar"])
    }

    @Test("kiler129: scalar types, collections and misc types", arguments: kilerEncodings)
    func kilerValues(_ encoding: String) throws {
        let scalars = try KeyedArchiveFixtures.object(
            KeyedArchiveFixtures.read("kiler129-php/ArchivedData/scalarTypes.\(encoding).plist"))
        #expect(
            scalars.fields == [
                "typeBool": true, "typeInt": 42, "typeFloat": 3.14, "typeString": "foo bar",
                "data": .data(Data("foobar".utf8)),
            ])

        let collections = try KeyedArchiveFixtures.object(
            KeyedArchiveFixtures.read("kiler129-php/ArchivedData/collections.\(encoding).plist"))
        #expect(collections["arrayOfStrings"] == ["foo", "bar", "baz"])
        #expect(collections["arrayOfInts"] == [1, 2, 3])
        #expect(collections["dictionary"] == ["foo": "bar", "baz": "aaa"])
        // An NSSet has no order: compare as a set.
        let set = try #require(collections["set"]?.arrayValue).compactMap(\.stringValue)
        #expect(set.sorted() == ["is", "not", "ordered", "set"])

        let misc = try KeyedArchiveFixtures.object(
            KeyedArchiveFixtures.read("kiler129-php/ArchivedData/miscTypes.\(encoding).plist"))
        #expect(misc["url"] == "https://example.com/foo/bar?a=b#hash")
        let regex = try KeyedArchiveFixtures.object(misc["regex"])
        #expect(regex.typeName == "NSRegularExpression")
        #expect(regex["NSPattern"] == "(.*)")
        #expect(regex["NSOptions"] == 0)
    }

    @Test("kiler129: date, UUID, nested containers and a shared NSURL", arguments: kilerEncodings)
    func kilerGraph(_ encoding: String) throws {
        #expect(
            try KeyedArchiveFixtures.read("kiler129-php/ArchivedData/date.\(encoding).plist")
                == .date(Self.date("2039-05-12T20:05:12Z")))

        // The README gives no UUID: Foundation's UUID formats the archived bytes independently.
        let uuidPath = "kiler129-php/ArchivedData/UUIDv4.\(encoding).plist"
        let raw = try ArchiveFormat.xmlPropertyList.read(
            KeyedArchiveFixtures.data(uuidPath), options: .init(markup: .plain))
        let bytes = try #require(raw["$objects"]?[1]?["NS.uuidbytes"]?.dataValue)
        let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        #expect(try KeyedArchiveFixtures.read(uuidPath) == .string(uuid.uuidString))
        #expect(uuid.uuidString.uppercased() == uuid.uuidString)

        let url: ArchiveValue = "https://example.com/foo/bar?a=b#hash"
        let nested = try KeyedArchiveFixtures.read("kiler129-php/ArchivedData/nested.\(encoding).plist")
        #expect(
            nested == [
                "level": 0, "levelPath": ["zero"],
                "levelZeroData": [
                    "level": 1, "levelPath": ["zero", "one"],
                    "levelOneData": ["level": 2, "levelPath": ["zero", "one", "two"], "sampleUrl": url],
                ],
            ])

        let reference = try KeyedArchiveFixtures.read("kiler129-php/ArchivedData/reference.\(encoding).plist")
        #expect(reference == ["copyOne": url, "copyTwo": url])
        // Both keys share one NSURL object in the file; a URL has no identity in the tree.
        let plainEntries = try ArchiveFormat.xmlPropertyList.read(
            KeyedArchiveFixtures.data("kiler129-php/ArchivedData/reference.\(encoding).plist"),
            options: .init(markup: .plain))
        let values = try #require(plainEntries["$objects"]?[1]?["NS.objects"]?.arrayValue)
        #expect(values.count == 2 && values[0] == values[1] && values[0].referenceValue != nil)
    }

    static let kilerBroken: [(file: String, path: String)] = [
        ("invalidContainer", "$top"),
        ("invalidObjectDeclarationContainer", "$objects[2]"),
        ("invalidReference", "$top.root"),
        ("objectWithNoClassName", "$objects[2]"),
        ("objectWithNonArrayClassChain", "$objects[2].$classes"),
        ("objectWithNonStringClassName", "$objects[2].$classname"),
    ]

    @Test("kiler129: every broken archive is rejected, binary and XML", arguments: kilerEncodings)
    func kilerBrokenData(_ encoding: String) throws {
        for (file, path) in Self.kilerBroken {
            let failure = Self.failure {
                try KeyedArchiveFixtures.read(Self.malformed("kiler129-php/BrokenData/\(file).\(encoding).plist"))
            }
            #expect(failure?.0 == .malformedInput, "\(file)")
            #expect(failure?.1 == path, "\(file): \(String(describing: failure))")
        }
        // `$top` without `root`: rejected, as NSKeyedUnarchiver's top-level decoding does; a
        // tool that shows any archive may still ask for every top-level object.
        let missingRoot = Self.malformed("kiler129-php/BrokenData/missingRoot.\(encoding).plist")
        let error = try #require(throws: ArchiveError.self) { try KeyedArchiveFixtures.read(missingRoot) }
        #expect(error.code == .malformedInput)
        #expect(error.path == [.key("$top")])
        #expect(error.message.contains("no root object"))
        #expect(error.message.contains("'nonRoot'"))
        var everything = KeyedArchiveOptions()
        everything.readsAllTopLevelObjects = true
        let all = try ArchiveFormat.keyedArchive.read(
            try KeyedArchiveFixtures.data(missingRoot), options: ArchiveReadingOptions(keyedArchive: everything))
        #expect(all == ["nonRoot": true])
    }

    @Test("kiler129: all fourteen broken files are covered")
    func kilerBrokenCount() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: KeyedArchiveFixtures.root.appendingPathComponent(Self.malformed("kiler129-php/BrokenData")).path)
        let covered = Set(Self.kilerBroken.map(\.file) + ["missingRoot"])
        #expect(files.count == 14)
        for file in files {
            #expect(covered.contains(String(file.prefix { $0 != "." })), "\(file) is not tested")
        }
    }

    // MARK: - swift-corelibs-foundation

    @Test("swift-corelibs-foundation: the NSKeyedUnarchiver test archives hold the README's values")
    func corelibsValues() throws {
        func read(_ name: String) throws -> ArchiveValue {
            try KeyedArchiveFixtures.read("swift-corelibs-foundation/NSKeyedUnarchiver-\(name).plist")
        }
        #expect(try read("ArrayTest") == ["baa", "baa", "black", "sheep"])
        #expect(try read("OrderedSetTest") == ["valgeir", "nico", "puzzle"])
        // RFC 3986 §5.2: a relative path against a base with an authority and an empty path
        // gets a "/" between them.
        #expect(try read("URLTest") == "https://www.example.com/foo.xml")
        #expect(try read("UUIDTest") == "0AD863BA-7584-40CF-8896-BD87B3280C34")
        #expect(
            try read("ComplexTest") == [
                "uuid": "71DC068E-3420-45FF-919E-3A267D55EC22", "url": "https://www.swift.org/index.xml",
                "string": "hello", "array": [nil, "hello", 34545, ["key": "val"]],
            ])
        #expect(try read("RangeTest") == ["location": 97345, "length": 98345])
        #expect(try read("RectTest") == ["x": 400.0, "y": 300.0, "width": 200.0, "height": 300.0])
        #expect(try read("EdgeInsetsTest") == ["top": 1.0, "left": 2.0, "bottom": 3.0, "right": 4.0])

        // NSValue "[3i]" {1, 2, 3}: kept as the objects it is archived as.
        let concrete = try KeyedArchiveFixtures.object(read("ConcreteValueTest"))
        #expect(concrete.typeName == "NSValue")
        #expect(concrete["$0"] == "[3i]")
        let array = try KeyedArchiveFixtures.object(concrete["$1"])
        #expect(array.typeName == "_NSKeyedCoderOldStyleArray")
        #expect(array.fields == ["$0": 1, "$1": 2, "$2": 3, "NS.count": 3, "NS.size": 4, "NS.type": 105])

        let notification = try KeyedArchiveFixtures.object(read("NotificationTest"))
        #expect(notification.typeName == "NSNotification")
        #expect(
            notification.fields == [
                "NS.name": "notification-name", "NS.object": "notification-object",
                "NS.userinfo": ["notification-key": "notification-val"],
            ])
    }

    /// What each of the 36 archives made on macOS 10.14 holds, from its name and plistlib.
    static let macOSArchives: [String: @Sendable (ArchiveValue) throws -> Bool] = {
        func object(_ type: String, _ check: @escaping @Sendable (ArchiveObject) -> Bool = { _ in true })
            -> @Sendable (ArchiveValue) throws -> Bool
        {
            { value in
                guard let object = value.objectValue, object.typeName == type else { return false }
                return check(object)
            }
        }
        func numbers(_ expected: [Int64], ordered: Bool) -> @Sendable (ArchiveValue) throws -> Bool {
            { value in
                guard let elements = value.arrayValue else { return false }
                let numbers = elements.compactMap(\.int64Value)
                return numbers.count == elements.count && (ordered ? numbers : numbers.sorted()) == expected
            }
        }
        /// Group i of a match of `length` a's: location i, length `length` - i.
        @Sendable func ranges(_ count: Int64, of length: Int64) -> @Sendable (ArchiveObject) -> Bool {
            { object in
                object["NSRangeArray"]
                    == .array((0..<count).map { ["location": .int($0), "length": .int(length - $0)] })
                    && object["NSRangeLength"] == .int(length)
            }
        }
        let timeZone: @Sendable (ArchiveObject) -> Bool = { $0["NS.timeZone"]?.objectValue?.typeName == "NSTimeZone" }
        let timesFive: [Int64] = [1, 2, 3, 4, 5].flatMap { Array(repeating: $0, count: 5) }
        return [
            "ByteCountFormatter-AllFieldsSet": object("NSByteCountFormatter") {
                $0["NSUnits"] == 3 && $0["NSKBSize"] == 2 && $0["NSZeroPad"] == true
            },
            "ByteCountFormatter-Default": object("NSByteCountFormatter") { $0.fields.isEmpty },
            "DateIntervalFormatter-Default": object("NSDateIntervalFormatter") { formatter in
                // The formatter and its calendar share one NSTimeZone.
                guard let zone = formatter["NS.timeZone"]?.objectValue, let id = zone.id else { return false }
                return zone["NS.name"] == "GMT" && formatter["NS.calendar"]?["NS.timezone"] == .reference(id)
            },
            "DateIntervalFormatter-ValuesSetWithTemplate": object("NSDateIntervalFormatter") {
                $0["NS.dateTemplate"] == "dd mm yyyy HH:MM" && $0["NS.timeZone"]?["NS.name"] == "GMT+0100"
            },
            "DateIntervalFormatter-ValuesSetWithoutTemplate": object("NSDateIntervalFormatter") {
                $0["NS.dateTemplateFromStyles"] == "y年M月d日" && $0["NS.locale"]?["NS.identifier"] == "ja-JP"
            },
            "ISO8601DateFormatter-Default": object("NSISO8601DateFormatter") {
                $0["NS.formatOptions"] == 1907 && timeZone($0)
            },
            "ISO8601DateFormatter-OptionsSet": object("NSISO8601DateFormatter") {
                $0["NS.formatOptions"] == 1366 && timeZone($0)
            },
            "NSAttributedString": object("NSAttributedString") {
                $0["NSString"] == "0123456789" && $0["NSAttributes"]?.arrayValue?.count == 4
                    && $0["NSAttributes"]?[1] == ["Font": "Helvetica", "Size": 123]
            },
            "NSMutableAttributedString": object("NSMutableAttributedString") {
                // Here the string is an NSMutableString object with NS.string.
                $0["NSString"] == "0123456789" && $0["NSAttributes"]?[3] == ["Font": "Times", "Size": 456]
            },
            "NSCountedSet-Empty": { $0 == [] },
            "NSCountedSet-NumbersAppearingOnce": numbers([1, 2, 3, 4, 5], ordered: false),
            "NSCountedSet-NumbersAppearingSeveralTimes": numbers(timesFive, ordered: false),
            "NSIndexPath-Empty": object("NSIndexPath") { $0["NSIndexPathLength"] == 0 },
            "NSIndexPath-ManyIndices": object("NSIndexPath") {
                $0["NSIndexPathLength"] == 6 && $0["NSIndexPathData"]?.dataValue?.count == 6
            },
            "NSIndexPath-OneIndex": object("NSIndexPath") { $0["NSIndexPathValue"] == 52 },
            "NSIndexSet-Empty": object("NSIndexSet") { $0["NSRangeCount"] == 0 },
            "NSIndexSet-ManyRanges": object("NSIndexSet") {
                $0["NSRangeCount"] == 4 && $0["NSRangeData"]?.dataValue != nil
            },
            "NSIndexSet-OneRange": object("NSIndexSet") { $0["NSLocation"] == 0 && $0["NSLength"] == 50 },
            "NSMutableIndexSet-Empty": object("NSMutableIndexSet") {
                $0["NSRangeCount"] == 0 && $0.superclassNames == ["NSIndexSet", "NSObject"]
            },
            "NSMutableIndexSet-ManyRanges": object("NSMutableIndexSet") { $0["NSRangeCount"] == 4 },
            "NSMutableIndexSet-OneRange": object("NSMutableIndexSet") { $0["NSLength"] == 50 },
            "NSMeasurement-Angle": object("NSMeasurement") {
                $0["NS.value"] == 90.0 && $0["NS.unit"]?["NS.symbol"] == "°"
            },
            "NSMeasurement-Frequency": object("NSMeasurement") {
                $0["NS.value"] == 1400.0 && $0["NS.unit"]?["NS.converter"]?["NS.coefficient"] == 1_000_000.0
            },
            "NSMeasurement-Length": object("NSMeasurement") {
                $0["NS.value"] == 45.0 && $0["NS.unit"]?["NS.symbol"] == "mi"
            },
            "NSMeasurement-Zero": object("NSMeasurement") {
                $0["NS.value"] == 0.0 && $0["NS.unit"]?.objectValue?.typeName == "NSUnit"
            },
            "NSMutableOrderedSet-Empty": { $0 == [] },
            "NSMutableOrderedSet-Numbers": numbers([1, 2, 3, 4, 5], ordered: true),
            "NSOrderedSet-Empty": { $0 == [] },
            "NSOrderedSet-Numbers": numbers([1, 2, 3, 4, 5], ordered: true),
            "NSMutableSet-Empty": { $0 == [] },
            "NSMutableSet-Numbers": numbers([1, 2, 3, 4, 5], ordered: false),
            "NSSet-Empty": { $0 == [] },
            "NSSet-Numbers": numbers([1, 2, 3, 4, 5], ordered: false),
            // Regular expressions of nested groups matching a string of a's: the match, then
            // each group one shorter.
            "NSTextCheckingResult-ComplexRegex": object(
                "NSComplexRegularExpressionCheckingResult", ranges(9, of: 9)),
            "NSTextCheckingResult-ExtendedRegex": object(
                "NSExtendedRegularExpressionCheckingResult", ranges(6, of: 6)),
            "NSTextCheckingResult-SimpleRegex": object("NSSimpleRegularExpressionCheckingResult") {
                ranges(1, of: 3)($0) && $0["NSRegularExpression"]?["NSPattern"] == "aaa"
            },
        ]
    }()

    @Test("swift-corelibs-foundation: all 36 macOS 10.14 archives read", arguments: macOSArchives.keys.sorted())
    func macOSArchive(_ name: String) throws {
        let value = try KeyedArchiveFixtures.read("swift-corelibs-foundation/Fixtures-macOS-10.14/\(name).archive")
        let check = try #require(Self.macOSArchives[name])
        #expect(try check(value), "\(name): \(value)")
    }

    @Test("swift-corelibs-foundation: the table covers every archive of the folder")
    func macOSArchiveCount() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: KeyedArchiveFixtures.root.appendingPathComponent("swift-corelibs-foundation/Fixtures-macOS-10.14")
                .path)
        #expect(files.count == 36)
        #expect(Set(files.map { String($0.dropLast(".archive".count)) }) == Set(Self.macOSArchives.keys))
    }

    // MARK: - danielpaulus/nskeyedarchiver

    /// The README's JSON expectations. Go's JSON writes the float 1.0 as `1`: here it is the
    /// double it is archived as.
    static let primitives: ArchiveValue = [
        1, 1, 1.0, 1.5, .data(Data("asdfasdfadsfadsf".utf8)), true, "Hello, World!", "Hello, World!",
        "Hello, World!", false, false, 42,
    ]

    @Test("danielpaulus: $0, $1, … top keys read as arrays with the README's values", arguments: ["bin", "xml"])
    func danielpaulus(_ encoding: String) throws {
        func read(_ name: String) throws -> ArchiveValue {
            try KeyedArchiveFixtures.read("danielpaulus-go/\(name).\(encoding)")
        }
        #expect(try read("onevalue") == [true])
        #expect(try read("primitives") == Self.primitives)
        #expect(
            try read("arrays") == [Self.primitives, [true, "Hello, World!", 42], [true], [42, true, "Hello, World!"]])
        #expect(try read("nestedarrays") == [[[true], [42, true, "Hello, World!"]]])
        #expect(try read("dict") == [["array": [true, "Hello, World!", 42], "int": 1, "string": "string"]])
        // primitives.bin lists `$10` and `$11` between `$1` and `$2`: the order is numeric.
        #expect(try read("primitives")[2] == .double(1))
    }

    @Test(
        "danielpaulus: the missing_, wrong_ and broken_ archives are rejected",
        arguments: [
            ("missing_archiver", ""), ("wrong_archiver", "$archiver"), ("missing_top", ""),
            ("missing_objects", ""), ("missing_version", ""), ("wrong_version", "$version"),
            ("broken_plist", ""),
        ])
    func danielpaulusFailures(_ name: String, _ path: String) throws {
        let error = try #require(throws: ArchiveError.self) {
            try KeyedArchiveFixtures.read(Self.malformed("danielpaulus-go/\(name).xml"))
        }
        #expect(error.code == .malformedInput, "\(error)")
        #expect(error.path.description == path, "\(error)")
        if name == "broken_plist" { #expect(error.location != nil) }
    }

    // MARK: - bpylist2

    @Test("bpylist2: Python-written archives read with the README's values")
    func bpylist2() throws {
        func object(_ name: String) throws -> ArchiveObject {
            try KeyedArchiveFixtures.object(KeyedArchiveFixtures.read("bpylist2/\(name)_archive.plist"))
        }
        let simple = try object("simple")
        #expect(simple.typeName == "crap.Foo")
        #expect(simple.superclassNames == ["NSCoder", "NSObject"])
        #expect(simple.fields == ["title": "yo", "count": 42, "active": true])

        let complex = try object("complex")
        #expect(complex["categories"] == ["banana", "apple"])
        #expect(complex["metadata"] == ["fruit": "kiwi", "veg": "asparagus"])
        #expect(complex["title"] == "yo" && complex["count"] == 42)

        let recursive = try object("recursive")
        #expect(recursive["title"] == "hello")
        let inner = try KeyedArchiveFixtures.object(recursive["recursive"])
        #expect(inner["title"] == "yo" && inner["recursive"] == .null && inner.id == nil)

        // 509,523,358.684097 s after 2001-01-01 is 2017-02-23T06:15:58.684097Z.
        #expect(try object("date")["stamp"] == .date(Date(timeIntervalSinceReferenceDate: 509_523_358.684097)))
        #expect(try Self.date("2017-02-23T06:15:58Z").timeIntervalSinceReferenceDate == 509_523_358)
        #expect(try object("data")["stamp"] == .data(Data()))
        #expect(try object("null")["empty"] == .null)
        #expect(try object("empty").fields.isEmpty)
        #expect(try KeyedArchiveFixtures.read("bpylist2/nsmutabledata_archive.plist") == .data(Data("hello".utf8)))

        let dataclass = try object("dataclass")
        #expect(dataclass.typeName == "FooDataclass" && dataclass.superclassNames.isEmpty)
        #expect(
            dataclass.fields == [
                "int_field": 5, "str_field": "hello", "float_field": 3.15, "list_field": ["foo", "bar", "baz"],
            ])
    }

    @Test("bpylist2: the circular archive becomes a reference to its root")
    func bpylist2Circular() throws {
        let root = try KeyedArchiveFixtures.object(KeyedArchiveFixtures.read("bpylist2/circular_archive.plist"))
        #expect(root.id == ArchiveObjectID(1))
        #expect(root["title"] == "hello")
        #expect(root["recursive"] == .reference(ArchiveObjectID(1)))

    }

    @Test(
        "bpylist2: the invalid_, no_ and missing_ archives are rejected",
        arguments: [
            ("invalid_type", "$archiver"), ("invalid_version", "$version"), ("no_top", ""),
            ("no_objects", ""), ("no_class_meta", "$objects[3]"), ("no_class_name", "$objects[3]"),
            ("missing_uid", "$objects[1]"), ("invalid_uid", "$top.root"),
        ])
    func bpylist2Failures(_ name: String, _ path: String) throws {
        let error = try #require(throws: ArchiveError.self) {
            try KeyedArchiveFixtures.read(Self.malformed("bpylist2/\(name)_archive.plist"))
        }
        #expect(error.code == .malformedInput, "\(error)")
        #expect(error.path.description == path, "\(error)")
    }

    @Test("bpylist2: no_root has no `root` object and is rejected; its object reads by its own key")
    func bpylist2NoRoot() throws {
        let error = try #require(throws: ArchiveError.self) {
            try KeyedArchiveFixtures.read(Self.malformed("bpylist2/no_root_archive.plist"))
        }
        #expect(error.code == .malformedInput && error.path == [.key("$top")])
        #expect(error.message.contains("'rooty'"))
        let rooty = try KeyedArchiveFixtures.read(Self.malformed("bpylist2/no_root_archive.plist"), rootKey: "rooty")
        #expect(rooty.objectValue?.typeName == "crap.Foo")
        #expect(rooty["title"] == "yo")
    }

    @Test("bpylist2: fullChangeLog.bplist, a real app archive of JNStreamTable objects")
    func fullChangeLog() throws {
        let table = try KeyedArchiveFixtures.object(KeyedArchiveFixtures.read("bpylist2/fullChangeLog.bplist"))
        #expect(table.typeName == "JNStreamTable")
        #expect(table["tableID"] == "fullChangeLog" && table["rowHeader"] == 2 && table["replyColumns"] == .null)
        let columns = try #require(table["columns"]?.arrayValue)
        #expect(
            columns.compactMap { $0.objectValue?.typeName } == [
                "JNStreamTableUInt8Column", "JNStreamTableUInt64Column", "JNStreamTableUInt64Column",
                "JNStreamTableStringColumn", "JNStreamTableUInt64Column", "JNStreamTableUInt8Column",
                "JNStreamTableDictionaryColumn",
            ])
        #expect(columns.compactMap { $0["keyPath"]?.stringValue }.first == "changeType")
        let dictionaryColumn = try KeyedArchiveFixtures.object(columns.last)
        #expect(dictionaryColumn.superclassNames == ["JNStreamTableColumn", "NSObject"])
        #expect(dictionaryColumn["keyColumn"]?["stopValue"] == "")
        #expect(dictionaryColumn["valueColumn"]?.objectValue?.typeName == "JNStreamTablePackedValueColumn")
    }

    // MARK: - Single files

    @Test("rust-plist: `foundItems` at the top holds an NSMutableIndexSet")
    func rustPlist() throws {
        var everything = KeyedArchiveOptions()
        everything.readsAllTopLevelObjects = true
        let top = try ArchiveFormat.keyedArchive.read(
            try KeyedArchiveFixtures.data("rust-plist_binary_NSKeyedArchiver.plist"),
            options: ArchiveReadingOptions(keyedArchive: everything))
        #expect(top.dictionaryValue?.keys == ["foundItems"])
        let indexSet = try KeyedArchiveFixtures.object(top["foundItems"])
        #expect(indexSet.typeName == "NSMutableIndexSet")
        #expect(indexSet["NSRangeCount"] == 42)
        #expect(indexSet["NSRangeData"]?.dataValue?.isEmpty == false)
        // Asking for the key reads that object itself.
        #expect(
            try KeyedArchiveFixtures.read("rust-plist_binary_NSKeyedArchiver.plist", rootKey: "foundItems")
                == .object(indexSet))
    }

    @Test("node-bplist-parser: an NSMutableDictionary keeps its archived key order")
    func nodeUID() throws {
        let dictionary = try #require(try KeyedArchiveFixtures.read("node-bplist-parser_uid.bplist").dictionaryValue)
        #expect(dictionary.keys == ["key1", "key3", "key2"])
        #expect(dictionary == ["key1": "obj1", "key2": "obj2", "key3": "obj3"])
    }

    @Test("biplist: the custom class `Archived`")
    func biplist() throws {
        let archived = try KeyedArchiveFixtures.object(
            KeyedArchiveFixtures.read("biplist_nskeyedarchiver_example.plist"))
        #expect(archived.typeName == "Archived" && archived.superclassNames.isEmpty)
        #expect(archived.fields == ["somekey": "object value as string"])
    }

    @Test("CPython: a PyObjC archive with $classhints keeps its class and fields")
    func pyobjc() throws {
        let data = try Fixture.data("plist/cpython-plistlib/keyed_archive_pyobjc.bplist")
        let string = try KeyedArchiveFixtures.object(KeyedArchiveFixtures.read(data))
        #expect(string.typeName == "OC_BuiltinPythonUnicode")
        #expect(string.superclassNames == ["OC_PythonUnicode", "NSString", "NSObject"])
        #expect(string.fields == ["pytype": 1, "NS.string": "KeyArchive UID Test"])
    }

    // MARK: - Hostile archives

    @Test(
        "hostile archives are rejected with the right code and place",
        arguments: [
            ("length-mismatch", ArchiveError.Code.malformedInput, "$objects[1]"),
            ("class-not-dictionary", .malformedInput, "$objects[2]"),
            ("class-not-uid", .malformedInput, "$objects[1].$class"),
            // Entry n holds entry n + 1: the first one past the default depth of 64 levels.
            ("deep-nesting", .limitExceeded, "$objects[65]"),
            ("url-base-cycle", .malformedInput, "$objects[1]"),
            ("uid-out-of-range", .malformedInput, "$objects[1][\"NS.objects\"][0]"),
            ("counted-set-bomb", .limitExceeded, "$objects[1][\"NS.count0\"]"),
            ("bad-model-version", .malformedInput, "$objects[1].MTLModelVersion"),
            ("array-entry", .malformedInput, "$objects[2]"),
            ("duplicate-keys", .malformedInput, "$objects[1][\"NS.keys\"]"),
            ("ordered-set-gap", .malformedInput, "$objects[1]"),
            ("no-null-entry", .malformedInput, "$objects[0]"),
            ("reference-bomb", .limitExceeded, ""),
        ])
    func hostile(_ name: String, _ code: ArchiveError.Code, _ path: String) throws {
        let error = try #require(throws: ArchiveError.self) { try KeyedArchiveFixtures.read("hostile/\(name).plist") }
        #expect(error.code == code, "\(error)")
        if !path.isEmpty {
            #expect(error.path.description == path, "\(error)")
        }
    }

    @Test("hostile: limits name what was exceeded")
    func hostileLimits() throws {
        let bomb = try #require(throws: ArchiveError.self) {
            try KeyedArchiveFixtures.read("hostile/reference-bomb.plist")
        }
        #expect(bomb.limit == .referencesExpanded)
        // 2,000 uses of one array of 1,000: the first is free, the limit stops the rest.
        var generous = ArchiveLimits()
        generous.maxReferencesExpanded = 2_000_000
        generous.maxObjectCount = 3_000_000
        #expect(
            try KeyedArchiveFixtures.read("hostile/reference-bomb.plist", limits: generous).arrayValue?.count == 2000)

        let deep = try #require(throws: ArchiveError.self) {
            try KeyedArchiveFixtures.read("hostile/deep-nesting.plist")
        }
        #expect(deep.limit == .depth)
        var deeper = ArchiveLimits()
        deeper.maxDepth = 2000
        var value = try KeyedArchiveFixtures.read("hostile/deep-nesting.plist", limits: deeper)
        var levels = 1
        while let inner = value[0] {
            levels += 1
            value = inner
        }
        #expect(levels == 1000)

        var few = ArchiveLimits()
        few.maxCollectionCount = 100
        let counted = try #require(throws: ArchiveError.self) {
            try KeyedArchiveFixtures.read("hostile/counted-set-bomb.plist", limits: few)
        }
        #expect(counted.limit == .collectionCount)
    }

    @Test("hostile: collections that contain themselves stay objects, the cycle a reference")
    func selfContaining() throws {
        let array = try KeyedArchiveFixtures.object(KeyedArchiveFixtures.read("hostile/self-containing-array.plist"))
        #expect(array.typeName == "NSMutableArray" && array.id == ArchiveObjectID(1))
        #expect(array.superclassNames == ["NSArray", "NSObject"])
        #expect(array.fields == ["NS.objects": ["first", .reference(ArchiveObjectID(1))]])

        let dictionary = try KeyedArchiveFixtures.object(
            KeyedArchiveFixtures.read("hostile/self-referencing-dictionary.plist"))
        #expect(dictionary.typeName == "NSMutableDictionary" && dictionary.id == ArchiveObjectID(1))
        #expect(dictionary.fields == ["NS.keys": ["me"], "NS.objects": [.reference(ArchiveObjectID(1))]])

        // A → B → A: both take part in the cycle; the first met keeps the definition of the second.
        let mutual = try KeyedArchiveFixtures.object(KeyedArchiveFixtures.read("hostile/mutual-arrays.plist"))
        #expect(mutual.typeName == "NSArray" && mutual.id == ArchiveObjectID(1))
        let inner = try KeyedArchiveFixtures.object(mutual["NS.objects"]?[0])
        #expect(inner.id == nil && inner["NS.objects"] == [.reference(ArchiveObjectID(1))])
    }

    @Test("hostile: a shared object that refers to itself is defined once, then referenced")
    func sharedAndCyclic() throws {
        let array = try #require(try KeyedArchiveFixtures.read("hostile/shared-and-cyclic-object.plist").arrayValue)
        #expect(array.count == 2)
        let node = try KeyedArchiveFixtures.object(array[0])
        #expect(node.typeName == "Node" && node.id == ArchiveObjectID(2))
        #expect(node.fields == ["me": .reference(ArchiveObjectID(2)), "name": "node"])
        #expect(array[1] == .reference(ArchiveObjectID(2)))
    }

    @Test("hostile: a dictionary with number keys stays an NSDictionary object")
    func numberKeys() throws {
        let dictionary = try KeyedArchiveFixtures.object(KeyedArchiveFixtures.read("hostile/number-keys.plist"))
        #expect(dictionary.typeName == "NSDictionary" && dictionary.id == nil)
        #expect(dictionary.fields == ["NS.keys": [1, 2], "NS.objects": ["one", "two"]])
    }

    @Test("hostile: every generated file is tested")
    func hostileCoverage() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: KeyedArchiveFixtures.root.appendingPathComponent("hostile").path
        ).filter { $0.hasSuffix(".plist") }
        #expect(files.count == 18)
    }

    @Test("thousands of random byte flips of keyed archives give a value or an ArchiveError")
    func mutations() throws {
        let sources = [
            "kiler129-php/ArchivedData/collections.bin.plist", "bpylist2/circular_archive.plist",
            "swift-corelibs-foundation/Fixtures-macOS-10.14/DateIntervalFormatter-Default.archive",
            "hostile/self-containing-array.plist", "swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist",
        ]
        var generator = SplitMix64(seed: 0xC0FFEE)
        var limits = ArchiveLimits()
        limits.maxReferencesExpanded = 10_000
        limits.maxObjectCount = 100_000
        for source in sources {
            let original = [UInt8](try KeyedArchiveFixtures.data(source))
            for _ in 0..<600 {
                var bytes = original
                for _ in 0...Int(generator.next() % 3) {
                    let index = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 3 {
                    case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                    case 1: bytes[index] ^= 1 << UInt8(generator.next() % 8)
                    default: bytes[index] = bytes[Int(generator.next() % UInt64(bytes.count))]
                    }
                }
                do {
                    _ = try KeyedArchiveFixtures.read(Data(bytes), limits: limits)
                } catch is ArchiveError {
                } catch {
                    Issue.record("\(source): \(error) is not an ArchiveError")
                }
            }
        }
    }

    // MARK: - Format detection and entry points

    @Test("detection: keyed archives are told from other property lists, binary and XML")
    func detection() throws {
        #expect(ArchiveFormat.detect(try KeyedArchiveFixtures.data("bpylist2/simple_archive.plist")) == .keyedArchive)
        #expect(ArchiveFormat.detect(try KeyedArchiveFixtures.data("danielpaulus-go/dict.xml")) == .keyedArchive)
        #expect(
            ArchiveFormat.detect(try KeyedArchiveFixtures.data("kiler129-php/ArchivedData/nested.xml.plist"))
                == .keyedArchive)
        // Apple's XML writer sorts the keys, so `$archiver` comes first; without it, no guess.
        #expect(
            ArchiveFormat.detect(try KeyedArchiveFixtures.data(Self.malformed("danielpaulus-go/missing_archiver.xml")))
                == .xmlPropertyList)
        let plain = try ArchiveFormat.binaryPropertyList.write(["a": 1, "$archive": 2])
        #expect(ArchiveFormat.detect(plain) == .binaryPropertyList)
        #expect(ArchiveFormat.detect(Data("bplist00".utf8)) == .binaryPropertyList)
        #expect(ArchiveFormat(rawValue: "keyed-archive") == .keyedArchive)
    }

    @Test("entry points: detection reads the root; a plist format reads the raw archive")
    func entryPoints() throws {
        let data = try KeyedArchiveFixtures.data("danielpaulus-go/dict.bin")
        let (tree, format) = try ArchiveFormat.read(data)
        #expect(format == .keyedArchive)
        #expect(tree == [["array": [true, "Hello, World!", 42], "int": 1, "string": "string"]])

        let raw = try ArchiveFormat.binaryPropertyList.read(data)
        #expect(raw["$archiver"] == "NSKeyedArchiver")
        #expect(raw["$objects"]?[0] == "$null")

        // An XML archive whose `$archiver` is not its first key is still recognised by content.
        var text = try #require(
            String(data: try KeyedArchiveFixtures.data("danielpaulus-go/onevalue.xml"), encoding: .utf8))
        text = text.replacingOccurrences(
            of: "<key>$archiver</key>\n\t<string>NSKeyedArchiver</string>\n", with: "")
        text = text.replacingOccurrences(
            of: "<key>$version</key>", with: "<key>$archiver</key><string>NSKeyedArchiver</string><key>$version</key>")
        let reordered = Data(text.utf8)
        #expect(ArchiveFormat.detect(reordered) == .xmlPropertyList)
        let (value, detected) = try ArchiveFormat.read(reordered)
        #expect(detected == .keyedArchive && value == [true])

        // A plain property list is not taken for an archive.
        let (plainValue, plainFormat) = try ArchiveFormat.read(try ArchiveFormat.xmlPropertyList.write(["a": [1]]))
        #expect(plainFormat == .xmlPropertyList && plainValue == ["a": [1]])
    }

    @Test("the root key option reads one top-level object or fails naming the keys")
    func rootKey() throws {
        #expect(try KeyedArchiveFixtures.read("danielpaulus-go/primitives.bin", rootKey: "$11") == 42)
        let error = try #require(throws: ArchiveError.self) {
            try KeyedArchiveFixtures.read("danielpaulus-go/onevalue.bin", rootKey: "root")
        }
        #expect(error.message.contains("'$0'"))
        #expect(
            try KeyedArchiveFixtures.read("kiler129-php/ArchivedData/objectWithSingleProp.bin.plist", rootKey: "root")[
                "foo"] == "bar")
    }
}
