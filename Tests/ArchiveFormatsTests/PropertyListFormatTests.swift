import Foundation
import TestSupport
import Testing

@testable import ArchiveFormats

@Suite("Property lists")
struct PropertyListFormatTests {
    // MARK: - Fixtures

    static let fixtureRoot = Fixture.url("plist")

    static let fixtureFolders = [
        "swift-foundation", "swift-corelibs-foundation", "cpython-plistlib", "biplist", "rust-plist",
        "node-bplist-parser", "bpylist2", "terminal", "preferences",
    ]

    // The files that must be rejected (the `*.bad` files, CPython's invalid binaries, …) are in
    // Fixtures/malformed: MalformedCorpusTests.

    static func fixture(_ relativePath: String) throws -> Data {
        try Data(contentsOf: fixtureRoot.appendingPathComponent(relativePath))
    }

    static func read(_ data: Data, markup: MarkupMode = .automatic, limits: ArchiveLimits = .default) throws
        -> ArchiveValue
    {
        try PropertyListReader.read(data, options: ArchiveReadingOptions(limits: limits, markup: markup))
    }

    /// Every file below `folder`, relative to the fixture root (READMEs, indexes, and the scripts
    /// and JSON that go with generated fixtures left out).
    static func files(in folder: String) throws -> [String] {
        let base = fixtureRoot.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var files: [String] = []
        while let next = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = base.appendingPathComponent(next).path
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !next.hasSuffix("README.md"), !next.hasSuffix("INDEX.txt"), !next.hasSuffix(".py"),
                !next.hasSuffix(".json")
            else { continue }
            files.append(folder + "/" + next)
        }
        return files.sorted()
    }

    @Test("every fixture reads as plistlib's expectation, or is rejected as listed", arguments: fixtureFolders)
    func fixtureFolder(_ folder: String) throws {
        let files = try Self.files(in: folder)
        #expect(!files.isEmpty)
        for file in files {
            let expectationURL = Self.fixtureRoot.appendingPathComponent("expected/\(file).json")
            let expectation = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: expectationURL)) as? [String: Any],
                "no expectation for \(file): run Fixtures/plist/expected/generate.py")
            let data = try Self.fixture(file)
            if expectation["rejected"] != nil {
                let error = try #require(throws: ArchiveError.self, "\(file) must be rejected") { try Self.read(data) }
                #expect(error.code == (data.isEmpty ? .unsupportedFormat : .malformedInput), "\(file): \(error)")
            } else if expectation["readOrRejected"] != nil {
                do {
                    _ = try Self.read(data)
                } catch let error as ArchiveError {
                    #expect(error.code == .malformedInput || error.code == .limitExceeded, "\(file): \(error)")
                }
            } else {
                let value = try Self.read(data)
                let expected = try #require(expectation["value"], "\(file)")
                if let mismatch = ExpectedValue.mismatch(value, expected, at: "") {
                    Issue.record("\(file): \(mismatch)")
                }
            }
        }
    }

    @Test("swift-foundation: XML and binary hold the README's value")
    func swiftFoundation() throws {
        let xml = try Self.read(Self.fixture("swift-foundation/Generic_XML_Properties.plist"))
        let binary = try Self.read(Self.fixture("swift-foundation/Generic_XML_Properties_Binary.plist"))
        // 1976-04-01T12:00:00Z is 197,208,000 s after 1970-01-01 (2,282 days × 86,400 + 12 h).
        let expected: ArchiveValue = [
            "array1": [
                "arr0", 42, false, .date(Date(timeIntervalSince1970: 197_208_000)),
                .data(Data([0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33])),
            ],
            "item1": "value1",
            "item2": "value2",
        ]
        #expect(xml == expected)
        #expect(binary == expected)
        #expect(xml.dictionaryValue?.keys == ["array1", "item1", "item2"])
    }

    @Test("cpython sample: XML equals binary, with big integers and a Unicode key")
    func cpythonSample() throws {
        let xml = try Self.read(Self.fixture("cpython-plistlib/sample.xml.plist"))
        let binary = try Self.read(Self.fixture("cpython-plistlib/sample.binary.plist"))
        #expect(xml == binary)
        #expect(xml["aBigInt"] == .int(Int64.max - 43))  // 2**63 - 44
        if case .int = xml["aBigInt"] {} else { Issue.record("aBigInt must be .int") }
        #expect(xml["aBigInt2"] == .uint(UInt64(1) << 63 + 44))
        if case .uint(let big) = binary["aBigInt2"] {
            #expect(big == 9_223_372_036_854_775_852)
        } else {
            Issue.record("aBigInt2 must be .uint in the binary file")
        }
        #expect(xml["aNegativeBigInt"] == .int(-80_000_000_000))
        #expect(binary["Åbenraa"] == "That was a unicode key.")
        #expect(xml["aDict"]?["anotherString"] == "<hello & 'hi' there!>")
    }

    @Test("biplist: 64-bit integer limits")
    func largeIntLimits() throws {
        let value = try Self.read(Self.fixture("biplist/data/large_int_limits.plist"))
        #expect(value["Max 8 Byte Unsigned Integer"] == .uint(.max))
        #expect(value["Min 8 Byte Signed Integer"] == .int(.min))
        #expect(value["Max 8 Byte Signed Integer"] == .int(.max))
    }

    @Test("the year-0 date Apple writes for distantPast reads")
    func distantPast() throws {
        let small = try Self.read(Self.fixture("biplist/data/small_date.plist"))
        #expect(small["MyDate"] == .date(.distantPast))
    }

    @Test("a keyed archive keeps its UIDs and is read plainly even with archive markup")
    func keyedArchive() throws {
        let data = try Self.fixture("cpython-plistlib/keyed_archive_pyobjc.bplist")
        let plain = try Self.read(data)
        let forced = try Self.read(data, markup: .archive)
        #expect(plain == forced)
        #expect(plain["$top"]?["root"] == .reference(1))
        #expect(plain["$objects"]?[1]?["$class"] == .reference(2))
    }

    // MARK: - Reference bombs and limits

    /// A binary plist built by hand from the bytes of its objects (object 0 is the top object),
    /// with 2-byte offsets and 1-byte object references.
    static func handBuilt(_ objects: [[UInt8]]) -> Data {
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes.append(contentsOf: object)
        }
        let table = bytes.count
        for offset in offsets { bytes.append(contentsOf: [UInt8(offset >> 8), UInt8(offset & 0xFF)]) }
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, 2, 1])
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)])
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0])
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)])
        return Data(bytes)
    }

    /// An array marker for `count` elements (the count in a 2-byte integer object after 0xAF).
    static func arrayMarker(_ count: Int) -> [UInt8] {
        [0xAF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
    }

    /// Object 0 is an array of `outer` references to object 1, an array of `inner` references to
    /// object 2, the integer 7.
    static func referenceBomb(outer: Int, inner: Int) -> Data {
        handBuilt([
            arrayMarker(outer) + Array(repeating: 1, count: outer),
            arrayMarker(inner) + Array(repeating: 2, count: inner),
            [0x10, 7],
        ])
    }

    @Test("reference cycles are rejected, shared objects are not")
    func cycles() throws {
        let selfContaining = Self.handBuilt([[0xA2, 1, 0], [0x10, 1]])  // [1, <itself>]
        let error = try #require(throws: ArchiveError.self) { try Self.read(selfContaining) }
        #expect(error.code == .malformedInput)
        #expect(error.message.contains("cycle"))
        #expect(error.path == "[1]")
        // A dictionary whose value is an array that contains the dictionary.
        let indirect = Self.handBuilt([[0xD1, 1, 2], [0x51, UInt8(ascii: "k")], [0xA1, 0]])
        let indirectError = try #require(throws: ArchiveError.self) { try Self.read(indirect) }
        #expect(indirectError.message.contains("cycle"))
        #expect(indirectError.path == "k[0]")
        // The same array twice is a DAG, not a cycle; a key may also be a value.
        let shared = Self.handBuilt([[0xA3, 1, 1, 2], [0xA1, 2], [0x51, UInt8(ascii: "k")]])
        #expect(try Self.read(shared) == [["k"], ["k"], "k"])
        let keyAsValue = Self.handBuilt([[0xD1, 1, 1], [0x51, UInt8(ascii: "k")]])
        #expect(try Self.read(keyAsValue) == ["k": "k"])
    }

    @Test("an error found while closing, opening or reading a nested container names the path to it")
    func nestedErrorPaths() throws {
        // {"a": [7, {"k": 7, "k": 7}]}: the inner dictionary repeats its key, found as it closes.
        let duplicate = Self.handBuilt([
            [0xD1, 1, 2], [0x51, UInt8(ascii: "a")], [0xA2, 3, 4], [0x10, 7], [0xD2, 5, 5, 3, 3],
            [0x51, UInt8(ascii: "k")],
        ])
        let duplicateError = try #require(throws: ArchiveError.self) { try Self.read(duplicate) }
        #expect(duplicateError.message.contains("occurs twice"))
        #expect(duplicateError.path == "a[1]")
        // {"a": [7, <an array of 2 whose second reference names no object>]}: found while reading it.
        let dangling = Self.handBuilt([
            [0xD1, 1, 2], [0x51, UInt8(ascii: "a")], [0xA2, 3, 4], [0x10, 7], [0xA2, 3, 9],
        ])
        let danglingError = try #require(throws: ArchiveError.self) { try Self.read(dangling) }
        #expect(danglingError.message.contains("reference to object 9"))
        #expect(danglingError.path == "a[1]")
        // {"a": [7, {<a key that is not a string>: 7}]}.
        let badKey = Self.handBuilt([
            [0xD1, 1, 2], [0x51, UInt8(ascii: "a")], [0xA2, 3, 4], [0x10, 7], [0xD1, 3, 3],
        ])
        let badKeyError = try #require(throws: ArchiveError.self) { try Self.read(badKey) }
        #expect(badKeyError.message.contains("not a string"))
        #expect(badKeyError.path == "a[1]")
    }

    @Test(
        "binary objects that break the format are rejected",
        arguments: [
            ([0x0F] as [UInt8], "fill byte"),
            ([0x0C], "unknown marker"),
            (
                [0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                "integer"
            ),
            ([0x14, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], "128-bit"),
            ([0x21, 0, 0], "real"),
            ([0x32, 0, 0, 0, 0], "date"),
            ([0x84, 1, 0, 0, 0, 0], "UID"),
            ([0xB0], "ordered sets"),
            ([0x70], "unknown marker"),
            ([0x61, 0xDC, 0x00], "surrogate"),
            ([0x52, 0xC3, 0x28], "ASCII"),
            ([0x4F, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], "length"),
            ([0x4F, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], "length"),
            // CPython's size attacks (invalid_binary 15-33) spelled with Apple's integer markers.
            ([0xAF, 0x12, 0x7F, 0xFF, 0xFF, 0xFF], "larger than the file"),
            ([0xAF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], "larger than the file"),
            ([0xAF, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], "larger than the file"),
            ([0xDF, 0x10, 0x20, 0x00], "larger than the file"),
            ([0x6F, 0x12, 0x40, 0x00, 0x00, 0x00, 0x00, 0x41], "larger than the file"),
            ([0xA5, 0x00], "past the object data"),
            ([0xD3, 0x00, 0x00], "past the object data"),
            ([0x5F, 0x10, 0x05, 0x41], "past the object data"),
            ([0x63, 0x00, 0x41, 0x00], "past the object data"),
            ([0x44, 0xAA], "past the object data"),
            ([0xA1, 0x05], "reference to object 5"),
        ])
    func malformedBinaryObjects(object: [UInt8], reason: String) throws {
        let error = try #require(throws: ArchiveError.self) { try Self.read(Self.handBuilt([object])) }
        #expect(error.code == .malformedInput)
        #expect(error.message.contains(reason), "\(error)")
        #expect(error.location?.byteOffset == 8)
    }

    @Test("binary integers of every width, 128-bit ones included, read in canonical form")
    func binaryIntegers() throws {
        let cases: [([UInt8], ArchiveValue)] = [
            ([0x10, 0xFF], .int(255)),
            ([0x11, 0xFF, 0xFF], .int(65_535)),
            ([0x12, 0xFF, 0xFF, 0xFF, 0xFF], .int(4_294_967_295)),
            ([0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .int(-1)),
            ([0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5], .int(5)),
            ([0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .uint(.max)),
            ([0x14, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0], .int(.min)),
            ([0x22, 0x3F, 0x00, 0x00, 0x00], .double(0.5)),
            ([0x80, 0x05], .reference(5)),
            ([0x83, 0xFF, 0xFF, 0xFF, 0xFF], .reference(ArchiveObjectID(Int(UInt32.max)))),
            ([0x87, 0, 0, 0, 0, 0, 0, 0x01, 0x00], .reference(256)),
            ([0x00], .null),
        ]
        for (object, expected) in cases {
            let value = try Self.read(Self.handBuilt([object]))
            #expect(value == expected)
            if case .uint(let number) = value { #expect(number > UInt64(Int64.max)) }
        }
    }

    @Test("a small file that references one big array many times stops at maxReferencesExpanded")
    func referenceBombStops() throws {
        let data = Self.referenceBomb(outer: 2_000, inner: 1_000)
        #expect(data.count < 4_000)
        let error = try #require(throws: ArchiveError.self) { try Self.read(data) }
        #expect(error.code == .limitExceeded)
        #expect(error.limit == .referencesExpanded)
    }

    @Test("shared containers within the limits are read once and shared")
    func sharedContainers() throws {
        let value = try Self.read(Self.referenceBomb(outer: 3, inner: 4))
        let inner: ArchiveValue = [7, 7, 7, 7]
        #expect(value == [inner, inner, inner])
        var limits = ArchiveLimits()
        limits.maxReferencesExpanded = 9  // two further uses of a 5-node array = 10
        let error = try #require(throws: ArchiveError.self) {
            try Self.read(Self.referenceBomb(outer: 3, inner: 4), limits: limits)
        }
        #expect(error.limit == .referencesExpanded)
        limits = ArchiveLimits()
        limits.maxObjectCount = 15  // 1 + 3 × 5 = 16 nodes
        let countError = try #require(throws: ArchiveError.self) {
            try Self.read(Self.referenceBomb(outer: 3, inner: 4), limits: limits)
        }
        #expect(countError.limit == .objectCount)
    }

    @Test("nesting, collection, string and data limits hold in every reader")
    func limits() throws {
        var limits = ArchiveLimits()
        limits.maxDepth = 3
        let deep: ArchiveValue = [[[["x"]]]]
        for format in [ArchiveFormat.binaryPropertyList, .xmlPropertyList] {
            var writeOptions = ArchiveWritingOptions()
            let data = try format.write(deep, options: writeOptions)
            let error = try #require(throws: ArchiveError.self) { try Self.read(data, limits: limits) }
            #expect(error.limit == .depth, "\(format)")
            writeOptions.limits = limits
            let writeError = try #require(throws: ArchiveError.self) { try format.write(deep, options: writeOptions) }
            #expect(writeError.limit == .depth, "\(format)")
        }
        let openStepError = try #require(throws: ArchiveError.self) {
            try Self.read(Data("((((x))))".utf8), limits: limits)
        }
        #expect(openStepError.limit == .depth)

        limits = ArchiveLimits()
        limits.maxCollectionCount = 2
        limits.maxStringLength = 4
        limits.maxDataLength = 2
        let cases: [(ArchiveValue, ArchiveLimits.Limit)] = [
            ([1, 2, 3], .collectionCount), (["a": 1, "b": 2, "c": 3], .collectionCount),
            ("hello", .stringLength), ("héllo", .stringLength), (.data(Data([1, 2, 3])), .dataLength),
        ]
        for (value, limit) in cases {
            for format in [ArchiveFormat.binaryPropertyList, .xmlPropertyList] {
                let data = try format.write(value)
                let error = try #require(throws: ArchiveError.self) { try Self.read(data, limits: limits) }
                #expect(error.limit == limit, "\(format) \(value)")
            }
        }
        let tooMany = try #require(throws: ArchiveError.self) { try Self.read(Data("(a, b, c)".utf8), limits: limits) }
        #expect(tooMany.limit == .collectionCount)
    }

    // MARK: - Round trips

    static let richTree: ArchiveValue = {
        let circle = ArchiveObject(
            typeName: "Circle", version: 2, id: 7, fields: ["radius": 30.5, "$price": 3, "center": ["x": 1, "y": -2]])
        let subclass = ArchiveObject(
            typeName: "Square", version: nil, superclassNames: ["Shape", "NSObject"], fields: ["side": 2])
        return [
            "$archive": 1,
            "root": [
                "ints": [.int(.min), .int(-1), 0, 255, 256, 65_535, 65_536, .int(Int64(UInt32.max) + 1), .int(.max)],
                "uints": [.uint(.max), .uint(UInt64(Int64.max) + 1)],
                "doubles": [
                    -0.0, 0.1, .double(1.0 / 3.0), 2.718281828459045, 0.30000000000000004, 1.0000000000000002,
                    -1.2345678901234567e-89, 1e-300, .double(.leastNonzeroMagnitude),
                    1.7976931348623157e308,
                    .double(.nan), .double(.infinity), .double(-.infinity),
                ],
                "floats": [.double(Double(Float(3.14159)))],
                "strings": [
                    "", "ascii", "Åbenraa", "日本語", "emoji 🎉", "<&> \"quoted\" 'single'\r\nline", "tab\tand newline\n",
                ],
                "clé": "non-ASCII key",
                "dates": [
                    .date(Date(timeIntervalSinceReferenceDate: 0)),
                    .date(Date(timeIntervalSinceReferenceDate: 120_479_613)),
                    .date(Date(timeIntervalSinceReferenceDate: 120_479_613.5)),
                    .date(Date(timeIntervalSinceReferenceDate: 508_305_358.684097)),
                    .date(Date(timeIntervalSinceReferenceDate: -978_307_200)),
                    .date(.distantPast), .date(.distantFuture),
                ],
                "data": [.data(Data()), .data(Data([0, 1, 2, 255])), .data(Data((0..<300).map { UInt8($0 % 256) }))],
                "nested": [[[], [:], [[["deep": [true, false]]]]]],
                "objects": [.object(circle), .reference(7), .object(subclass), .reference(0)],
                "null": .null,
                "nulls": [.null, ["inner": .null]],
                "$dollar": ["$type": "not an object", "$$double": 1, "plain": 2],
                "references": [
                    .reference(255), .reference(256), .reference(65_536), .reference(ArchiveObjectID(Int(UInt32.max))),
                ],
                "CF$UID": "a key that merely looks like a UID",
            ],
        ]
    }()

    @Test("a rich tree survives tree → binary → tree and tree → XML → tree", arguments: [true, false])
    func roundTrip(prettyPrinted: Bool) throws {
        for format in [ArchiveFormat.binaryPropertyList, .xmlPropertyList] {
            let data = try format.write(Self.richTree, options: .init(prettyPrinted: prettyPrinted))
            #expect(ArchiveFormat.detect(data) == format)
            let back = try Self.read(data)
            #expect(back == Self.richTree, "\(format)")
            if let mismatch = Self.firstDifference(back, Self.richTree) { Issue.record("\(format): \(mismatch)") }
            // Bit-exact doubles: -0.0 keeps its sign.
            if case .double(let zero)? = back["root"]?["doubles"]?[0] {
                #expect(zero.sign == .minus, "\(format)")
            }
            // Writing what was read gives the same bytes.
            #expect(try format.write(back, options: .init(prettyPrinted: prettyPrinted)) == data, "\(format)")
        }
    }

    @Test(
        "XML written in Apple's layout by others is reproduced byte for byte",
        arguments: [
            "cpython-plistlib/sample.xml.plist", "swift-foundation/Generic_XML_Properties.plist",
            "swift-corelibs-foundation/Test.plist",
        ])
    func appleLayout(_ file: String) throws {
        let data = try Self.fixture(file)
        let written = try ArchiveFormat.xmlPropertyList.write(Self.read(data))
        #expect(written == data)
        let binary = try ArchiveFormat.binaryPropertyList.write(Self.read(data))
        #expect(try ArchiveFormat.xmlPropertyList.write(Self.read(binary)) == data)
    }

    @Test("markup: automatic is off for foreign plists, plain keeps metadata keys as keys")
    func markupModes() throws {
        let foreign: ArchiveValue = ["$schema": "x", "value": ["$type": "Circle"]]
        for format in [ArchiveFormat.binaryPropertyList, .xmlPropertyList] {
            let plainData = try format.write(foreign, options: .init(markup: .plain))
            #expect(try Self.read(plainData) == foreign, "\(format)")  // first key is $schema: plain
            let error = try #require(throws: ArchiveError.self) { try Self.read(plainData, markup: .archive) }
            #expect(error.code == .malformedInput, "\(format)")  // $schema is no markup key

            let object = ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 3])
            let objectData = try format.write(.object(object), options: .init(markup: .plain))
            #expect(try Self.read(objectData) == .object(object), "\(format)")  // first key $type: markup
            #expect(try Self.read(objectData, markup: .plain) == ["$type": "Circle", "$version": 1, "r": 3])

            let collision = ArchiveObject(typeName: "Circle", version: 1, fields: ["$version": 3])
            let collisionError = try #require(throws: ArchiveError.self) {
                try format.write(.object(collision), options: .init(markup: .plain))
            }
            #expect(collisionError.code == .invalidValue)
        }
        let binaryNull = try ArchiveFormat.binaryPropertyList.write(.null, options: .init(markup: .plain))
        #expect(try Self.read(binaryNull) == .null)
        let xmlNull = try #require(throws: ArchiveError.self) {
            try ArchiveFormat.xmlPropertyList.write(["a": .null], options: .init(markup: .plain))
        }
        #expect(xmlNull.code == .invalidValue)
        #expect(xmlNull.path == "a")
    }

    @Test("a keyed archive is written and read plainly in every markup mode")
    func keyedArchivePlain() throws {
        let archive: ArchiveValue = [
            "$version": 100_000, "$archiver": "NSKeyedArchiver", "$top": ["root": .reference(1)],
            "$objects": ["$null", ["$class": .reference(2), "NS.string": "hi"], ["$classname": "NSString"]],
        ]
        for format in [ArchiveFormat.binaryPropertyList, .xmlPropertyList] {
            let data = try format.write(archive, options: .init(markup: .archive))
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains("$$"), "\(format)")
            #expect(try Self.read(data, markup: .archive) == archive, "\(format)")
        }
    }

    @Test("writing rejects values property lists cannot hold")
    func invalidValues() throws {
        for format in [ArchiveFormat.binaryPropertyList, .xmlPropertyList] {
            for value: ArchiveValue in [
                .reference(-1), .reference(ArchiveObjectID(Int(UInt32.max) + 1)),
                .date(Date(timeIntervalSinceReferenceDate: 1e15)),
                .date(Date(timeIntervalSinceReferenceDate: .nan)),
            ] {
                let error = try #require(throws: ArchiveError.self) { try format.write(["x": [value]]) }
                #expect(error.code == .invalidValue, "\(format) \(value)")
                #expect(error.path == "x[0]", "\(format) \(value)")
            }
        }
    }

    // MARK: - Foundation as a reference

    @Test("Foundation reads our binary and XML output of plain values", arguments: [true, false])
    func foundationReadsOurOutput(prettyPrinted: Bool) throws {
        let plain: ArchiveValue = [
            "string": "Åbenraa <&>", "empty": "", "int": 42, "negative": -80_000_000_000, "min": .int(.min),
            "max": .int(.max), "uintMax": .uint(.max), "double": 0.1, "third": .double(1.0 / 3.0), "yes": true,
            "no": false, "date": .date(Date(timeIntervalSinceReferenceDate: 120_479_613)),
            "data": .data(Data([0xAA, 0xBB, 0, 1])), "array": [1, "two", [3.5]], "dict": ["k": "v"],
            "long": .string(String(repeating: "long ", count: 40)), "unicode": "日本語 🎉",
        ]
        for format in [ArchiveFormat.binaryPropertyList, .xmlPropertyList] {
            let data = try format.write(plain, options: .init(prettyPrinted: prettyPrinted))
            let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            let converted = try #require(Self.archiveValue(fromFoundation: object), "\(format)")
            #expect(converted == plain, "\(format)")
        }
    }

    @Test("our readers agree with Foundation on what Foundation writes")
    func foundationWrites() throws {
        let object: [String: Any] = [
            "s": "Mässig, Maß", "i": 728, "n": -5, "r": 32.5, "b": true, "d": Data([1, 2, 3]),
            "t": Date(timeIntervalSinceReferenceDate: 120_479_613), "a": [1, "x", [String: Any]()], "u": UInt64.max,
        ]
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let data = try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
            let ours = try Self.read(data)
            let theirs = try #require(Self.archiveValue(fromFoundation: object))
            #expect(ours == theirs, "\(format)")
        }
    }

    /// Converts what `PropertyListSerialization` returns (trusted, small) into a tree.
    static func archiveValue(fromFoundation object: Any) -> ArchiveValue? {
        if type(of: object) == Bool.self, let flag = object as? Bool { return .bool(flag) }
        #if canImport(Darwin)
            // Apple's Foundation hands booleans back as `__NSCFBoolean`, an `NSNumber` whose
            // `objCType` is "c" like a char's: only its Core Foundation type tells them apart.
            if let number = object as? NSNumber, CFGetTypeID(number) == CFBooleanGetTypeID() {
                return .bool(number.boolValue)
            }
        #endif
        if let string = object as? String { return .string(string) }
        if let data = object as? Data { return .data(data) }
        if let date = object as? Date { return .date(date) }
        if let number = object as? NSNumber {
            switch String(cString: number.objCType) {
            case "d", "f": return .double(number.doubleValue)
            case "Q", "L", "I", "S": return ArchiveValue(number.uint64Value)
            case "c" where type(of: object) == Bool.self: return .bool(number.boolValue)
            default: return .int(number.int64Value)
            }
        }
        if let array = object as? [Any] {
            var elements: [ArchiveValue] = []
            for element in array {
                guard let value = archiveValue(fromFoundation: element) else { return nil }
                elements.append(value)
            }
            return .array(elements)
        }
        if let dictionary = object as? [String: Any] {
            var entries = ArchiveDictionary()
            for (key, element) in dictionary {
                guard let value = archiveValue(fromFoundation: element) else { return nil }
                entries[key] = value
            }
            return .dictionary(entries)
        }
        return nil
    }

    // MARK: - XML details

    static func xml(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            \(body)
            </plist>
            """.utf8)
    }

    @Test(
        "XML scalars in the forms Apple reads and writes",
        arguments: [
            ("<integer>0x1F</integer>", ArchiveValue.int(31)),
            ("<integer>-0x10</integer>", .int(-16)),
            ("<integer>+12</integer>", .int(12)),
            ("<integer>18446744073709551615</integer>", .uint(.max)),
            ("<integer>-9223372036854775808</integer>", .int(.min)),
            ("<integer>0xFFFFFFFFFFFFFFFF</integer>", .uint(.max)),
            ("<real>1e-7</real>", .double(1e-7)),
            ("<real>-2.5</real>", .double(-2.5)),
            ("<real>.5</real>", .double(0.5)),
            ("<real>32</real>", .double(32)),
            ("<real>+infinity</real>", .double(.infinity)),
            ("<real>-infinity</real>", .double(-.infinity)),
            ("<real>inf</real>", .double(.infinity)),
            ("<real>-inf</real>", .double(-.infinity)),
            ("<real>Infinity</real>", .double(.infinity)),
            ("<real>nan</real>", .double(.nan)),
            ("<date>2004-10-26T10:33:33Z</date>", .date(Date(timeIntervalSinceReferenceDate: 120_479_613))),
            ("<date>2004-10-26T10:33:33.25Z</date>", .date(Date(timeIntervalSinceReferenceDate: 120_479_613.25))),
            ("<date>0000-12-30T00:00:00Z</date>", .date(.distantPast)),
            ("<data>\n\tAAEC\n\tAw==\n\t</data>", .data(Data([0, 1, 2, 3]))),
            ("<data>AQI</data>", .data(Data([1, 2]))),
            ("<data/>", .data(Data())),
            ("<string/>", .string("")),
            ("<string>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;</string>", .string("a <b> & \"c\" 'd'")),
            ("<string>&#65;&#x42;&#x1F389;</string>", .string("AB🎉")),
            ("<string><![CDATA[<not> &a; tag]]></string>", .string("<not> &a; tag")),
            ("<string>a<!-- comment -->b<?pi x?>c</string>", .string("abc")),
            ("<string>  spaced  </string>", .string("  spaced  ")),
            ("<true/>", .bool(true)),
            ("<false></false>", .bool(false)),
            ("<array/>", .array([])),
            ("<dict/>", .dictionary([:])),
            ("<dict><key/><string>empty key</string></dict>", .dictionary(["": "empty key"])),
            ("<dict><key>CF$UID</key><integer>3</integer></dict>", .reference(3)),
            ("<dict><key>CF$UID</key><string>3</string></dict>", .dictionary(["CF$UID": "3"])),
        ])
    func xmlScalars(body: String, expected: ArchiveValue) throws {
        #expect(try Self.read(Self.xml(body)) == expected)
    }

    @Test(
        "malformed XML is rejected with a line and column",
        arguments: [
            ("<dict><key>a</key></dict>", 4),
            ("<array><string>a</array>", 4),
            ("<dict><string>a</string></dict>", 4),
            ("<foo/>", 4),
            ("text", 4),
            ("<integer>18446744073709551616</integer>", 4),
            ("<integer>-9223372036854775809</integer>", 4),
            ("<integer>12a</integer>", 4),
            ("<integer/>", 4),
            ("<real>1.2.3</real>", 4),
            ("<real>0x1p3</real>", 4),
            ("<date>2004-13-26T10:33:33Z</date>", 4),
            ("<date>10000-01-01T00:00:00Z</date>", 4),
            ("<data>AB*C</data>", 4),
            ("<data>A</data>", 4),
            ("<string>&bogus;</string>", 4),
            ("<string>&#xD800;</string>", 4),
            ("<string>&#x110000;</string>", 4),
            ("<string>a & b</string>", 4),
            ("<true>yes</true>", 4),
            ("<dict><key>a</key><true/><key>a</key><false/></dict>", 4),
            ("<dict><key>CF$UID</key><integer>-1</integer></dict>", 4),
            ("<string>a</string><string>b</string>", 4),
            ("<plist><true/></plist>", 4),
        ])
    func malformedXML(body: String, line: Int) throws {
        let error = try #require(throws: ArchiveError.self) { try Self.read(Self.xml(body)) }
        #expect(error.code == .malformedInput)
        #expect(error.location?.line == line, "\(error)")
        #expect(error.location?.column != nil)
    }

    @Test("XML without the wrapper, with a BOM, or in UTF-16 reads the same")
    func xmlEncodings() throws {
        let body = "<dict><key>名前</key><string>Åbenraa 🎉</string></dict>"
        let expected: ArchiveValue = ["名前": "Åbenraa 🎉"]
        #expect(try Self.read(Data(body.utf8)) == expected)
        #expect(try Self.read(Data([0xEF, 0xBB, 0xBF]) + Self.xml(body)) == expected)
        let utf16Text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist version=\"1.0\">\(body)</plist>\n"
        let bigEndian = try Data([0xFE, 0xFF]) + #require(utf16Text.data(using: .utf16BigEndian))
        let littleEndian = try Data([0xFF, 0xFE]) + #require(utf16Text.data(using: .utf16LittleEndian))
        let noBOM = try #require(utf16Text.data(using: .utf16LittleEndian))
        for data in [bigEndian, littleEndian, noBOM] {
            #expect(try Self.read(data) == expected)
            #expect(ArchiveFormat.detect(data) == .xmlPropertyList)
        }
        let mismatch = try #require(throws: ArchiveError.self) {
            try Self.read(Data(utf16Text.utf8))
        }
        #expect(mismatch.code == .malformedInput)
        let lone = try #require(throws: ArchiveError.self) {
            try Self.read(Data([0xFF, 0xFE, 0x3C, 0x00, 0x00, 0xD8, 0x3E, 0x00]))
        }
        #expect(lone.code == .malformedInput)
    }

    @Test("XML errors carry the path inside the tree")
    func xmlErrorPath() throws {
        let error = try #require(throws: ArchiveError.self) {
            try Self.read(Self.xml("<dict><key>shapes</key><array><true/><integer>x</integer></array></dict>"))
        }
        #expect(error.path == "shapes[1]")
        #expect(error.location?.line == 4)
    }

    @Test("binary errors carry the path and the byte offset")
    func binaryErrorPath() throws {
        var data = try ArchiveFormat.binaryPropertyList.write([
            "shapes": [true, .date(Date(timeIntervalSinceReferenceDate: 1))]
        ])
        // The date's marker (0x33) followed by its 8 bytes: make the seconds NaN.
        let bytes = [UInt8](data)
        let marker = try #require(bytes.firstIndex(of: 0x33))
        data.replaceSubrange(marker + 1..<marker + 9, with: [0x7F, 0xF8, 0, 0, 0, 0, 0, 0])
        let error = try #require(throws: ArchiveError.self) { try Self.read(data) }
        #expect(error.path == "shapes[1]")
        #expect(error.location?.byteOffset == marker)
    }

    @Test("an XML document whose entities would explode is rejected before any expansion")
    func billionLaughs() throws {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
              <!ENTITY lol "lol">
              <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            ]>
            <plist><string>&lol1;</string></plist>
            """
        let error = try #require(throws: ArchiveError.self) { try Self.read(Data(laughs.utf8)) }
        #expect(error.code == .malformedInput)
        #expect(error.location?.line == 2)
    }

    // MARK: - OpenStep

    @Test("OpenStep text: strings, escapes, data, comments")
    func openStep() throws {
        let text = #"""
            // a comment
            {
                plain = value.with/odd:chars-$_+;
                "quoted key" = "tab\tnewline\nquote\"backslash\\";
                unicode = "\U00e9\U00E9 \UD83C\UDF89";
                octal = "\101\60";
                single = 'it\'s';
                data = <0fbd77 1F>;
                empty = ();
                list = ( a, "b", ( c ), { k = v; }, );
                /* block
                   comment */ number = 1.5;
            }
            """#
        let value = try Self.read(Data(text.utf8))
        let expected: ArchiveValue = [
            "plain": "value.with/odd:chars-$_+", "quoted key": "tab\tnewline\nquote\"backslash\\",
            "unicode": "éé 🎉", "octal": "A0", "single": "it's", "data": .data(Data([0x0F, 0xBD, 0x77, 0x1F])),
            "empty": [], "list": ["a", "b", ["c"], ["k": "v"]], "number": "1.5",
        ]
        #expect(value == expected)
        #expect(value.dictionaryValue?.keys.first == "plain")
        #expect(try Self.read(Data("<0fbd77>".utf8)) == .data(Data([0x0F, 0xBD, 0x77])))
        #expect(try Self.read(Data("( a )".utf8)) == ["a"])
    }

    @Test(
        "malformed OpenStep text is rejected with a line",
        arguments: [
            "{ a = b }", "{ a b; }", "( a b )", "<0fb>", "<0x12>", "\"open", "{ a = b; a = c; }", "/* open", "( a, ",
            "\"\\UD83C\"", "{ a = b; } extra",
        ])
    func malformedOpenStep(text: String) throws {
        let error = try #require(throws: ArchiveError.self) { try Self.read(Data(text.utf8)) }
        #expect(error.code == .malformedInput, "\(error)")
        #expect(error.location?.line == 1, "\(error)")
    }

    @Test("detection tells binary, XML, OpenStep and JSON apart")
    func detection() throws {
        #expect(PropertyListReader.kind(of: Data("bplist00".utf8)) == .binary)
        #expect(PropertyListReader.kind(of: Data("  <?xml".utf8)) == .xml)
        #expect(PropertyListReader.kind(of: Data("<plist>".utf8)) == .xml)
        #expect(PropertyListReader.kind(of: Data("<dict/>".utf8)) == .xml)
        #expect(PropertyListReader.kind(of: Data("<0fbd 77>".utf8)) == .openStep)
        #expect(PropertyListReader.kind(of: Data("{ a = b; }".utf8)) == .openStep)
        #expect(PropertyListReader.kind(of: Data()) == nil)
        let blank = try #require(throws: ArchiveError.self) { try Self.read(Data("  \n ".utf8)) }
        #expect(blank.code == .malformedInput)
        #expect(ArchiveFormat.detect(Data("{ a = b; }".utf8)) == .xmlPropertyList)
        #expect(ArchiveFormat.detect(Data("{ \"a\" = b; }".utf8)) == .xmlPropertyList)
        #expect(ArchiveFormat.detect(Data("( a, b )".utf8)) == .xmlPropertyList)
        #expect(ArchiveFormat.detect(Data("/* c */ { a = b; }".utf8)) == .xmlPropertyList)
        #expect(ArchiveFormat.detect(Data("{ \"a\" : 1 }".utf8)) == .json)
        #expect(ArchiveFormat.detect(Data("{ \"a\\\"=\" : 1 }".utf8)) == .json)
        #expect(ArchiveFormat.detect(Data("{}".utf8)) == .json)
        #expect(ArchiveFormat.detect(Data("[1]".utf8)) == .json)
        let animals = try Self.fixture("rust-plist/ascii-animals.plist")
        let (tree, format) = try ArchiveFormat.read(animals)
        #expect(format == .xmlPropertyList)
        #expect(tree["AnimalSounds"]?["pig"] == "oink")
    }

    // MARK: - Mutations

    @Test("thousands of random byte flips of valid plists give a value or an ArchiveError")
    func mutations() throws {
        let small: ArchiveValue = [
            "name": "Åbenraa", "n": [1, 300, -5, .uint(.max)], "r": 2.5, "d": .data(Data([1, 2, 3])),
            "t": .date(Date(timeIntervalSinceReferenceDate: 1)), "nested": [["a": [true, false]]], "u": .reference(3),
        ]
        var generator = SplitMix64(seed: 0x5EED)
        for format in [ArchiveFormat.binaryPropertyList, .xmlPropertyList] {
            let original = [UInt8](try format.write(small, options: .init(prettyPrinted: false)))
            for _ in 0..<2_000 {
                var bytes = original
                for _ in 0...Int(generator.next() % 3) {
                    let index = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 4 {
                    case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                    case 1: bytes[index] ^= 1 << UInt8(generator.next() % 8)
                    case 2: bytes.remove(at: index)
                    default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
                    }
                    if bytes.isEmpty { bytes = [0] }
                }
                do {
                    _ = try Self.read(Data(bytes))
                } catch is ArchiveError {
                } catch {
                    Issue.record("\(format): \(error) is not an ArchiveError")
                }
            }
        }
    }

    // MARK: - Helpers

    /// A short description of where two trees differ, for readable failures.
    static func firstDifference(_ a: ArchiveValue, _ b: ArchiveValue, path: String = "") -> String? {
        switch (a, b) {
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return "\(path): \(x.count) vs \(y.count) elements" }
            for (index, pair) in zip(x, y).enumerated() {
                if let difference = firstDifference(pair.0, pair.1, path: "\(path)[\(index)]") { return difference }
            }
            return nil
        case (.dictionary(let x), .dictionary(let y)):
            guard x.keys == y.keys else { return "\(path): keys \(x.keys) vs \(y.keys)" }
            for (key, value) in x {
                if let difference = firstDifference(value, y[key] ?? .null, path: "\(path).\(key)") {
                    return difference
                }
            }
            return nil
        default:
            return a == b ? nil : "\(path): \(a) vs \(b)"
        }
    }
}

/// Compares a tree with a tagged expectation written by `Fixtures/plist/expected/generate.py`.
enum ExpectedValue {
    /// Where `value` differs from `expected`, or `nil` when it matches (dictionary order included).
    static func mismatch(_ value: ArchiveValue, _ expected: Any, at path: String) -> String? {
        guard let tagged = expected as? [String: Any], let (tag, payload) = tagged.first(where: { $0.key != "seconds" })
        else { return "\(path): unreadable expectation" }
        switch (tag, value) {
        case ("string", .string(let string)):
            return string == payload as? String ? nil : "\(path): \(string.debugDescription) ≠ \(payload)"
        case ("integer", .int(let number)):
            return String(number) == payload as? String ? nil : "\(path): \(number) ≠ \(payload)"
        case ("integer", .uint(let number)):
            guard number > UInt64(Int64.max) else { return "\(path): \(number) is not in canonical form" }
            return String(number) == payload as? String ? nil : "\(path): \(number) ≠ \(payload)"
        case ("real", .double(let number)):
            guard let text = payload as? String else { return "\(path): bad expectation" }
            switch text {
            case "nan": return number.isNaN ? nil : "\(path): \(number) ≠ nan"
            case "inf": return number == .infinity ? nil : "\(path): \(number) ≠ inf"
            case "-inf": return number == -.infinity ? nil : "\(path): \(number) ≠ -inf"
            default: return Double(text) == number ? nil : "\(path): \(number) ≠ \(text)"
            }
        case ("bool", .bool(let flag)):
            return flag == payload as? Bool ? nil : "\(path): \(flag) ≠ \(payload)"
        case ("data", .data(let data)):
            return Data(base64Encoded: payload as? String ?? "") == data ? nil : "\(path): data differs"
        case ("date", .date(let date)):
            // plistlib rounds binary dates to microseconds.
            guard let text = tagged["seconds"] as? String, let seconds = Double(text) else {
                return "\(path): bad expectation"
            }
            let difference = abs(date.timeIntervalSinceReferenceDate - seconds)
            return difference <= 1e-6
                ? nil : "\(path): \(date.timeIntervalSinceReferenceDate) ≠ \(seconds) (\(payload))"
        case ("uid", .reference(let id)):
            return id.rawValue == payload as? Int ? nil : "\(path): \(id) ≠ uid \(payload)"
        case ("null", .null):
            return nil
        case ("array", .array(let elements)):
            guard let items = payload as? [Any] else { return "\(path): bad expectation" }
            guard items.count == elements.count else { return "\(path): \(elements.count) ≠ \(items.count) elements" }
            for (index, (element, item)) in zip(elements, items).enumerated() {
                if let mismatch = mismatch(element, item, at: "\(path)[\(index)]") { return mismatch }
            }
            return nil
        case ("dict", .dictionary(let dictionary)):
            guard let items = payload as? [[Any]] else { return "\(path): bad expectation" }
            let keys = items.compactMap { $0.first as? String }
            guard keys == dictionary.keys else { return "\(path): keys \(dictionary.keys) ≠ \(keys)" }
            for (entry, item) in zip(dictionary, items) where item.count == 2 {
                if let mismatch = mismatch(entry.value, item[1], at: "\(path).\(entry.key)") { return mismatch }
            }
            return nil
        default:
            return "\(path): \(value.kind) \(value) ≠ \(tag) \(payload)"
        }
    }
}
