import Foundation
import Testing

@_spi(Coders) @testable import ArchiveFormats

/// Reads `text` with the JSON reader.
private func read(
    _ text: String, markup: MarkupMode = .plain, limits: ArchiveLimits = .default
) throws -> ArchiveValue {
    try JSONReader.read(Data(text.utf8), options: ArchiveReadingOptions(limits: limits, markup: markup))
}

private func read(bytes: [UInt8], markup: MarkupMode = .plain) throws -> ArchiveValue {
    try JSONReader.read(Data(bytes), options: ArchiveReadingOptions(markup: markup))
}

/// Whether the direct decoder's structural pass vouches for `bytes` (it must never vouch for
/// what the reader rejects).
private func structureAccepts(_ bytes: [UInt8], limits: ArchiveLimits = .default) -> Bool {
    bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return false }
        return JSONStructure.scan(base, count: buffer.count, limits: limits) != nil
    }
}

/// Writes `value` with the JSON writer and returns the text.
private func write(
    _ value: ArchiveValue, pretty: Bool = false, markup: MarkupMode = .archive, limits: ArchiveLimits = .default
) throws -> String {
    let data = try JSONWriter.write(
        value, options: ArchiveWritingOptions(prettyPrinted: pretty, markup: markup, limits: limits))
    return String(decoding: data, as: UTF8.self)
}

/// The `ArchiveError` that `body` throws, or `nil` (recording an issue) when it throws nothing or
/// something else.
private func archiveError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> ArchiveError? {
    do {
        try body()
        Issue.record("expected an ArchiveError, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ArchiveError {
        return error
    } catch {
        Issue.record("expected an ArchiveError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite("JSON format")
struct JSONFormatTests {
    @Test("a writer's buffer that cannot grow drops its bytes and says so instead of trapping")
    func bufferAllocationFailure() {
        var buffer = ByteBuffer(capacity: 16)
        buffer.append("abc" as StaticString)
        let small = buffer.reserve(8)
        #expect(small)
        var failed = buffer.allocationFailed
        #expect(!failed)
        let huge = buffer.reserve(Int.max)
        #expect(!huge, "no capacity doubles to Int.max bytes")
        failed = buffer.allocationFailed
        var count = buffer.count
        #expect(failed)
        #expect(count == 0, "what was written is dropped")
        buffer.append(repeating: 0x20, count: Int.max / 2 + 1)
        count = buffer.count
        #expect(count == 0, "appends that do not fit are ignored")
        buffer.append(UInt8(ascii: "x"))
        count = buffer.count
        #expect(count == 1, "the old memory stays usable")
        let data = buffer.takeData()
        #expect(data == Data("x".utf8))
    }

    // MARK: - Reading values

    @Test("the flat objects' pass reads the fields of its own example")
    func flatObjectExample() {
        let archive = Array(#"{"$type":"Shape","$version":1,"id":7,"name":"a\n","tags":["a"]}"#.utf8)
        archive.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else {
                Issue.record("no bytes")
                return
            }
            var object = FlatJSONObject(
                text: JSONText(bytes: base, end: bytes.count), limits: .default, maxArrayDepth: 8)
            var recent = RecentTypeName()
            let stamp = object.readStamp(recentType: &recent)
            #expect(stamp?.typeName == "Shape" && stamp?.version == 1)
            var fields: [JSONMemberSpan] = []
            let flat = object.readFields(into: &fields)
            #expect(flat)
            let keys = fields.map { String(decoding: bytes[$0.keyStart..<($0.keyStart + $0.keyLength)], as: UTF8.self) }
            #expect(keys == ["id", "name", "tags"])
            let copied = fields.map { field in
                field.verbatimEnd < 0 ? nil : String(decoding: bytes[field.value..<field.verbatimEnd], as: UTF8.self)
            }
            #expect(copied == ["7", nil, #"["a"]"#])
        }
        let bytes = ArchiveBytes.copy(of: Data(#"{"a":1}"#.utf8))
        #expect(bytes.withUnsafeBytes { $0.first } == UInt8(ascii: "{") && bytes.data == Data(#"{"a":1}"#.utf8))
    }

    @Test("telling JSON from its first key answers as format detection does")
    func isJSONAgreesWithDetect() {
        var inputs: [[UInt8]] = [
            #"{"a":1}"#, #"{"a" = 1;}"#, #"{"a" :1}"#, #"{"a\"b":1}"#, #"{"a\"b" = 1;}"#, #"{"a\":1" = 1;}"#,
            #"{"":1}"#, #"{"a""#,
            #"{"a":"#, "{\"", "{ \"a\": 1 }", "{a = 1;}", "[1]", "(1)", #""s""#, "<plist/>",
        ].map { Array($0.utf8) }
        inputs.append([0x7B, 0x00, 0x22, 0x00, 0x61, 0x00])  // UTF-16 little-endian `{"a`
        inputs.append(Array("{\"\(String(repeating: "k", count: 300))\":1}".utf8))
        inputs.append(Array("{\"\(String(repeating: "k", count: 300))\" = 1;}".utf8))
        // Every prefix of an archive's start, and of an OpenStep dictionary's.
        for text in [#"{"$type":"Shape","$version":1}"#, #"{"$type" = "Shape";}"#] {
            let bytes = Array(text.utf8)
            for length in 0...bytes.count { inputs.append(Array(bytes.prefix(length))) }
        }
        for bytes in inputs {
            let isJSON = bytes.withUnsafeBytes { ArchiveFormat.isJSON($0) }
            #expect(isJSON == (ArchiveFormat.detect(Data(bytes)) == .json), "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test("reads every JSON value kind into the tree")
    func readsValueKinds() throws {
        let tree = try read(#" { "a" : [1, -2, 3.5, "x", true, false, null], "b": {}, "c": [] } "#)
        let expected: ArchiveValue = [
            "a": [1, -2, 3.5, "x", true, false, nil],
            "b": .dictionary([:]),
            "c": [],
        ]
        #expect(tree == expected)
        #expect(tree.dictionaryValue?.keys == ["a", "b", "c"])
    }

    @Test("keeps key order and reads keys that share their first and last bytes as distinct keys")
    func keyOrderAndSimilarKeys() throws {
        // 17-byte keys that differ only in the middle byte, read many times over.
        let text =
            "["
            + Array(repeating: #"{"abcdefgh1ijklmnop":1,"abcdefgh2ijklmnop":2,"b":3,"a":4}"#, count: 3)
            .joined(separator: ",") + "]"
        let tree = try read(text)
        for element in tree.arrayValue ?? [] {
            #expect(element.dictionaryValue?.keys == ["abcdefgh1ijklmnop", "abcdefgh2ijklmnop", "b", "a"])
            #expect(element["abcdefgh2ijklmnop"] == 2)
        }
        #expect(tree.arrayValue?.count == 3)
    }

    @Test(
        "integer literals keep their exact value",
        arguments: [
            ("0", ArchiveValue.int(0)),
            ("-0", .int(0)),
            ("9223372036854775807", .int(Int64.max)),
            ("-9223372036854775808", .int(Int64.min)),
            ("9223372036854775808", .uint(9_223_372_036_854_775_808)),
            ("18446744073709551615", .uint(UInt64.max)),
            ("12345678901234567890", .uint(12_345_678_901_234_567_890)),
        ])
    func integers(text: String, expected: ArchiveValue) throws {
        let value = try read(text)
        #expect(value == expected)
        #expect(value.kind == expected.kind)
    }

    @Test(
        "integers beyond 64 bits become doubles",
        arguments: ["18446744073709551616", "-9223372036854775809", "123456789012345678901234567890"])
    func integersBeyond64Bits(text: String) throws {
        let value = try read(text)
        #expect(value.kind == .double)
        #expect(value.doubleValue?.bitPattern == Double(text)?.bitPattern)
    }

    @Test(
        "doubles equal Double(String) of the same text",
        arguments: [
            "0.1", "-0.0", "0.0", "5e-324", "4.9406564584124654e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "2.2250738585072014e-308", "2.2250738585072011e-308",
            "1.7976931348623157e308", "1.7976931348623158e308", "0.30000000000000004", "1.2345678901234567",
            "9007199254740993.0", "9007199254740992.0", "1e22", "1e23", "1.5e37", "3e38", "8.98846567431158e307",
            "1E5", "1e+5", "1e-5", "-1.5e-3", "1e-400", "0e999999999999", "123.456e-2", "0.000001",
            "100000000000000000000000.5", "3.14159265358979323846264338327950288",
            "0.1000000000000000055511151231257827021181583404541015625",
        ])
    func doubles(text: String) throws {
        let value = try read(text)
        let reference = try #require(Double(text))
        #expect(value.kind == .double)
        #expect(value.doubleValue?.bitPattern == reference.bitPattern)
    }

    @Test("random doubles in 17 digits and short decimals equal Double(String)")
    func randomDoubles() throws {
        var generator = SplitMix64(seed: 42)
        var texts: [String] = []
        for _ in 0..<2000 {
            let double = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            texts.append(String(format: "%.17g", double))
            texts.append(String(format: "%.16e", -double))
            let mantissa = generator.next() % 10_000_000_000_000_000
            let exponent = Int(generator.next() % 80) - 40
            texts.append("\(mantissa)e\(exponent)")
            texts.append("-\(mantissa % 100_000).\(generator.next() % 1000)")
        }
        let tree = try read("[" + texts.joined(separator: ",") + "]")
        let values = try #require(tree.arrayValue)
        #expect(values.count == texts.count)
        for (text, value) in zip(texts, values) {
            let reference = try #require(Double(text))
            #expect(value.doubleValue?.bitPattern == reference.bitPattern, "\(text)")
        }
    }

    @Test(
        "numbers beyond the range of Double are errors",
        arguments: ["1e309", "-1e400", "1" + String(repeating: "0", count: 400)])
    func numberOutOfRange(text: String) {
        let error = archiveError { _ = try read("[1, \(text)]") }
        #expect(error?.code == .malformedInput)
        #expect(error?.message == "number out of range")
        #expect(error?.path == [.index(1)])
        #expect(error?.location?.column == 5)
    }

    @Test("string escapes and non-ASCII text")
    func strings() throws {
        let text = #"["\"\\\/\b\f\n\r\t", "\u0041\u00e5\u4E2D", "\ud83d\ude00", "Å 中文 😀 é", "\u0000"]"#
        let tree = try read(text)
        let expected: ArchiveValue = ["\"\\/\u{08}\u{0C}\n\r\t", "Aå中", "😀", "\u{C5} 中文 😀 \u{E9}", "\u{0}"]
        #expect(tree == expected)
    }

    @Test("strings and keys agree with JSONSerialization")
    func agreesWithJSONSerialization() throws {
        let documents = [
            #"{"Å":"Ångström","中文":"汉字","emoji":"😀\ud83d\ude00","mark":"e\u0301","tab":"a\tb","nul":"\u0000x"}"#,
            #"{"k\u00e9y":"v\/al\"ue","long":"\#(String(repeating: "lorem ipsum ", count: 20))"}"#,
            #"{"a":"\uD834\uDD1E","b":"\u2028\u2029","c":"\u007f"}"#,
        ]
        for document in documents {
            let reference = try #require(
                try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: String])
            let tree = try read(document)
            let entries = try #require(tree.dictionaryValue)
            #expect(entries.count == reference.count)
            for (key, value) in reference {
                #expect(entries[key] == .string(value), "\(key)")
            }
        }
    }

    @Test("a leading byte-order mark is skipped")
    func byteOrderMark() throws {
        #expect(try read(bytes: [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == [1])
        let error = archiveError { _ = try read(bytes: [0xEF, 0xBB, 0xBF] + Array("[x]".utf8)) }
        #expect(error?.location?.line == 1)
        #expect(error?.location?.column == 2)
        #expect(error?.location?.byteOffset == 4)
    }

    @Test("reads a slice of a larger Data")
    func dataSlice() throws {
        let data = Data("xx[1,2]".utf8).dropFirst(2)
        #expect(try JSONReader.read(data, options: .init()) == [1, 2])
        #expect(try ArchiveFormat.json.read(data) == [1, 2])
    }

    // MARK: - Rejecting malformed input

    @Test(
        "malformed text is rejected",
        arguments: [
            "", " ", "{", "[", "[1", "[1,", "{\"a\"", "{\"a\":", "{\"a\":1", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}",
            "{1:1}", "[01]", "[-01]", "[00]", "[1.]", "[.5]", "[1e]", "[1e+]", "[1.e5]", "[-]", "[+1]", "[NaN]",
            "[Infinity]", "[-Infinity]", "[nan]", "[tru]", "[nul]", "[fals]", "[True]", "[NULL]", "// c\n1", "/* c */1",
            "# c\n1", "[1]x", "[1] [2]", "1 2", "\"abc", "\"a\u{01}b\"", "\"a\nb\"", "\"a\tb\"", "\"\\x\"", "\"\\u12\"",
            "\"\\u12G4\"", "\"\\U0041\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800x\"",
            "\"\\udbff\\udbff\"", "'a'", "{\"a\":1 \"b\":2}", "[1 2]", "{\"a\"}", "{,}", "[,1]", "{\"a\":1}}", "]",
            "}", ",", ":", "[1:2]", "{\"a\",1}", "\"\\", "\"\\u", "0x10", "1.5.3", "--1", "[1,,2]",
        ])
    func malformedText(text: String) {
        let error = archiveError { _ = try read(text) }
        #expect(error?.code == .malformedInput, "\(text)")
        #expect(error?.location?.byteOffset != nil)
        #expect(!structureAccepts(Array(text.utf8)), "\(text)")
    }

    @Test("only space, tab, line feed and carriage return are whitespace")
    func whitespace() throws {
        #expect(try read(" \t\r\n[ 1 ,\t2\r\n]\n\n ") == [1, 2])
        for text in ["\u{0C}1", "[1,\u{0B}2]", "\u{A0}1", "[1]\u{0}", "\u{2028}[]"] {
            #expect(archiveError { _ = try read(text) }?.code == .malformedInput, "\(text.unicodeScalars.map(\.value))")
            #expect(!structureAccepts(Array(text.utf8)))
        }
        #expect(structureAccepts(Array(" \t\r\n[ 1 ,\t2\r\n]\n\n ".utf8)))
    }

    @Test("hostile input stops at a limit instead of exhausting the stack or memory")
    func hostileInput() throws {
        let nested = archiveError { _ = try read(String(repeating: "[", count: 1_000_000)) }
        #expect(nested?.limit == .depth)
        #expect(nested?.path.count == ArchiveLimits.default.maxDepth)
        let objects = archiveError { _ = try read(String(repeating: #"{"a":"#, count: 100_000)) }
        #expect(objects?.limit == .depth)
        // Long literals are read in linear time; the value decides.
        let digits = String(repeating: "1", count: 1_000_000)
        #expect(archiveError { _ = try read(digits) }?.message == "number out of range")
        #expect(try read("0." + digits).doubleValue == Double("0." + digits))
        #expect(
            try read("[\"" + String(repeating: "x", count: 1_000_000) + "\"]")[0]?.stringValue?.utf8.count == 1_000_000)
    }

    @Test("ArchiveFormat detects, reads and writes JSON through this reader and writer")
    func archiveFormatEntryPoints() throws {
        let data = Data(#"  {"$archive":1,"root":{"$type":"Note","text":"hi"}}"#.utf8)
        let (tree, format) = try ArchiveFormat.read(data)
        #expect(format == .json)
        #expect(tree["root"]?.objectValue?.typeName == "Note")
        let written = try ArchiveFormat.json.write(tree, options: .init(prettyPrinted: false))
        #expect(String(decoding: written, as: UTF8.self) == #"{"$archive":1,"root":{"$type":"Note","text":"hi"}}"#)
    }

    @Test(
        "invalid UTF-8 is rejected, never repaired",
        arguments: [
            [0x22, 0xC0, 0xAF, 0x22],  // overlong '/'
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong, three bytes
            [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22],  // overlong, four bytes
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8-encoded surrogate U+D800
            [0x22, 0xED, 0xBF, 0xBF, 0x22],  // UTF-8-encoded surrogate U+DFFF
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xE2, 0x82, 0x22],  // truncated sequence
            [0x22, 0x61, 0xF0, 0x9F, 0x98, 0x22],  // truncated emoji
            [0x22, 0x80, 0x22],  // stray continuation byte
            [0x22, 0xFF, 0x22],
            [0x22, 0xC3, 0xA5, 0xC3, 0x22],  // valid "å", then a truncated sequence
            [0x22, 0x5C, 0x6E, 0xC3, 0x22],  // after an escape
            [0x22, 0x61, 0x80, 0x5C, 0x22, 0x62, 0x22],  // before an escape
            [0x22, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0xC3, 0x5C, 0x6E, 0x22],  // ditto, past a word
            [0x7B, 0x22, 0x6B, 0xFF, 0x5C, 0x6E, 0x22, 0x3A, 0x31, 0x7D],  // in a key, before an escape
            [0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D],  // in a key
            [0xFF],
            [0x5B, 0xC3, 0xA5, 0x5D],  // valid UTF-8 outside a string
            [0x22, 0xE2, 0x82],  // truncated at the end of the input
            [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x31],  // a second byte-order mark
        ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        let error = archiveError { _ = try read(bytes: bytes) }
        #expect(error?.code == .malformedInput)
        #expect(!structureAccepts(bytes))
    }

    @Test("the structural pass accepts only what the reader accepts, on random damage to documents")
    func structuralPassAgreesWithTheReader() throws {
        let document =
            Array(
                #"{"$archive":1,"root":{"$type":"Doc","$version":2,"shapes":[{"id":1,"title":"a \"q\" \u00e9\ud83d\ude00","#
                    .utf8)
            + Array(#""x":-0.5e-3,"tags":["t",""],"on":true,"off":false,"none":null,"deep":[[{}],[]]}]}}"#.utf8)
        #expect(structureAccepts(document))
        #expect(try read(bytes: document) != .null)
        let alphabet = Array(#"{}[]":,\-+.0123456789eEtrufalsn $"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var random = SplitMix64(seed: 0x51C7)
        var accepted = 0
        for _ in 0..<4000 {
            var bytes = document
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                default: if bytes.count > 1 { bytes.remove(at: index) }
                }
            }
            guard structureAccepts(bytes) else { continue }
            accepted += 1
            #expect(throws: Never.self, "\(String(decoding: bytes, as: UTF8.self))") { _ = try read(bytes: bytes) }
        }
        #expect(accepted > 100)
    }

    /// The keys the structural pass recorded for `bytes`, as it will hand them to the decoder:
    /// each entry's key bytes when its length is known, `nil` otherwise (an element, or a key the
    /// decoder reads itself); `nil` when the pass does not vouch for the text.
    private func recordedKeys(_ bytes: [UInt8]) -> [String?]? {
        bytes.withUnsafeBufferPointer { buffer -> [String?]? in
            guard let base = buffer.baseAddress,
                let structure = JSONStructure.scan(base, count: buffer.count, limits: .default)
            else { return nil }
            return (0..<structure.entries.count).map { index in
                let length = structure.keyLengths[index]
                guard length != JSONStructure.unknownKeyLength else { return nil }
                let start = Int(structure.entries[index]) + 1
                // The recorded key ends at a quote, and is exactly what the reader reads there.
                guard start + Int(length) < buffer.count, buffer[start + Int(length)] == UInt8(ascii: "\"") else {
                    return "<no closing quote>"
                }
                return String(decoding: buffer[start..<(start + Int(length))], as: UTF8.self)
            }
        }
    }

    @Test("expected keys: objects that repeat the last object's keys, or almost, are judged as if new")
    func keyTemplates() throws {
        // Variants of a key at one place: equal, one byte off at the start, middle or end, longer,
        // shorter, escaped, spaced before the colon, empty, and long ones past each word.
        let long = "abcdefghijklmnopqrstu"  // 21 bytes: three words with its quotes and colon
        // Keys as they appear between the quotes; those with a backslash are escaped.
        let variants = [
            "id", "ie", "jd", "idx", "i", "", #"i\u0064"#, #"id\""#, long, "abcdefghXjklmnopqrstu",
            "abcdefghijklmnopXrstu", "abcdefghijklmnopqrstX", long + "vwxyz12", "$type", "$typf", "$version",
            // The long key's length, escaped where only the second or the third word sees it.
            #"abcdefghijklmnop\"stu"#, #"abcdefgh\"klmnopqrstu"#, #"i\""#,
        ]
        var random = SplitMix64(seed: 0x7E3)
        for _ in 0..<300 {
            var text = "["
            var expected: [String?] = []
            for object in 0..<Int.random(in: 1...8, using: &random) {
                if object > 0 { text += "," }
                text += "{"
                expected.append(nil)  // the object, an element of the array
                var used: Set<String> = []
                for member in 0..<Int.random(in: 1...4, using: &random) {
                    // Mostly the same key per place, so that templates form and are then broken.
                    var key =
                        Int.random(in: 0..<4, using: &random) == 0
                        ? variants.randomElement(using: &random)! : ["id", long, "$type", "x"][member]
                    // No key twice, as the reader reads it (it rejects that).
                    if used.contains(key == #"i\u0064"# ? "id" : key) { key = "k\(member)" }
                    used.insert(key == #"i\u0064"# ? "id" : key)
                    text += (member > 0 ? "," : "") + "\"" + key + "\""
                    text += Int.random(in: 0..<6, using: &random) == 0 ? " : " : ":"
                    text += "\(member)"
                    // Plain keys are recorded with their length; escaped ones are left to the decoder.
                    expected.append(key.contains("\\") ? nil : key)
                }
                text += "}"
            }
            text += "]"
            let bytes = Array(text.utf8)
            let keys = try #require(recordedKeys(bytes), "\(text)")
            #expect(keys == expected, "\(text)")
            #expect(throws: Never.self, "\(text)") { _ = try read(bytes: bytes) }
            // Cut short anywhere, or with a key's closing quote dropped, it is rejected as the
            // reader rejects it.
            let cut = Int.random(in: 1..<bytes.count, using: &random)
            #expect(recordedKeys(Array(bytes[..<cut])) == nil)
            if let quote = bytes.indices.filter({ bytes[$0] == UInt8(ascii: ":") }).randomElement(using: &random) {
                var broken = bytes
                broken.remove(at: quote - 1)
                let accepted = recordedKeys(broken) != nil
                let readable = (try? read(bytes: broken)) != nil
                #expect(!accepted || readable, "\(String(decoding: broken, as: UTF8.self))")
            }
        }
    }

    @Test("the structural pass skips a plain number exactly where the number reader stops, and only then")
    func plainNumbers() {
        var random = SplitMix64(seed: 0x2A)
        let pieces = ["-", "0", "1", "9", "00", "12", ".", ".5", "5", "e", "E", "+", "-", "e5", "x", ",", "]"]
        for _ in 0..<5000 {
            let text = (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            let bytes = Array(text.utf8) + Array("]]]]]]]]]]]]]]]]]]]]".utf8)
            bytes.withUnsafeBufferPointer { buffer in
                let text = JSONText(bytes: buffer.baseAddress!, end: buffer.count)
                guard let end = text.plainNumberEnd(at: 0) else { return }
                var position = 0
                let number = text.number(at: &position)
                #expect(number != nil, "\(String(decoding: bytes, as: UTF8.self))")
                #expect(position == end, "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
    }

    @Test("the structural pass stays within the reader's limits")
    func structuralPassLimits() {
        var limits = ArchiveLimits.default
        limits.maxDepth = 10
        #expect(structureAccepts(Array("[[[[[[[[1]]]]]]]]".utf8), limits: limits))  // 8 levels
        #expect(!structureAccepts(Array("[[[[[[[[[1]]]]]]]]]".utf8), limits: limits))  // 9: the margin of two
        limits = .default
        limits.maxStringLength = 3
        #expect(structureAccepts(Array(#"["abc"]"#.utf8), limits: limits))
        #expect(!structureAccepts(Array(#"["abcd"]"#.utf8), limits: limits))
        #expect(!structureAccepts(Array(#"{"abcd":1}"#.utf8), limits: limits))
        limits = .default
        limits.maxCollectionCount = 2
        #expect(structureAccepts(Array("[1,2]".utf8), limits: limits))
        #expect(!structureAccepts(Array("[1,2,3]".utf8), limits: limits))
        #expect(!structureAccepts(Array(#"{"a":1,"b":2,"c":3}"#.utf8), limits: limits))
        limits = .default
        limits.maxObjectCount = 3
        #expect(structureAccepts(Array("[1,2]".utf8), limits: limits))
        #expect(!structureAccepts(Array("[1,2,3]".utf8), limits: limits))
        limits = .default
        limits.maxInputBytes = 4
        #expect(!structureAccepts(Array("[1,2]".utf8), limits: limits))
        #expect(!structureAccepts(Array(String(repeating: "1", count: 400).utf8)))  // out of range
        #expect(!structureAccepts([0xEF, 0xBB, 0xBF] + Array("[]".utf8)))  // a byte-order mark: the reader's
    }

    @Test("valid multi-byte UTF-8 at the edges of the ranges is accepted")
    func validUTF8Edges() throws {
        let scalars = ["\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}"]
        let tree = try read("[" + scalars.map { "\"\($0)\"" }.joined(separator: ",") + "]")
        #expect(tree == .array(scalars.map { .string($0) }))
    }

    @Test("errors name the path in the tree and the line and column")
    func errorPathAndLocation() throws {
        let first = archiveError { _ = try read(#"{"a":[1,{"b":tru}]}"#) }
        #expect(first?.code == .malformedInput)
        #expect(first?.path.description == "a[1].b")
        #expect(first?.location == ArchiveError.InputLocation(line: 1, column: 14, byteOffset: 13))

        let text = "{\n  \"shapes\": [\n    {\"x\": 1},\n    {\"x\": 2,}\n  ]\n}"
        let second = archiveError { _ = try read(text) }
        #expect(second?.code == .malformedInput)
        #expect(second?.path.description == "shapes[1]")
        #expect(second?.location?.line == 4)
        #expect(second?.location?.column == 13)
        #expect(second?.message.contains("trailing commas") == true)

        // Columns count characters, not bytes.
        let third = archiveError { _ = try read("{\"é\": x}") }
        #expect(third?.path.description == "é")
        #expect(third?.location?.column == 7)
        #expect(third?.location?.byteOffset == 7)

        let fourth = archiveError { _ = try read("[1,2,3,]") }
        #expect(fourth?.path == [.index(3)])

        let fifth = archiveError { _ = try read("[[1], [2 3]]") }
        #expect(fifth?.path == [.index(1)])
        #expect(fifth?.location?.column == 10)
    }

    @Test("duplicate keys are errors naming the key and the object")
    func duplicateKeys() throws {
        let flat = archiveError { _ = try read(#"{"a":1,"b":2,"a":3}"#) }
        #expect(flat?.code == .malformedInput)
        #expect(flat?.message.contains("'a'") == true)
        #expect(flat?.path == .root)
        #expect(flat?.location?.column == 14)

        let nested = archiveError { _ = try read(#"{"x":[{"k":1,"k":2}]}"#) }
        #expect(nested?.path.description == "x[0]")

        // A large object, checked when it closes.
        let keys = (0..<100).map { "\"key\($0)\":\($0)" } + ["\"key57\":0"]
        let large = archiveError { _ = try read("{" + keys.joined(separator: ",") + "}") }
        #expect(large?.code == .malformedInput)
        #expect(large?.message.contains("'key57'") == true)

        // Escaped spellings of the same key; canonically equivalent keys are two keys (as for
        // ArchiveDictionary, which identifies keys by their exact Unicode scalars).
        let escaped = archiveError { _ = try read(#"{"ab":1,"\u0061b":2}"#) }
        #expect(escaped?.message.contains("'ab'") == true)
        #expect(try read(#"{"K":1,"\u212A":2}"#).keyedEntries?.count == 2)
        #expect(try read("{\"\u{E9}\":1,\"e\u{301}\":2}").keyedEntries?.count == 2)

        // `$archive` is literal in a top-level archive object and `$$archive` unescapes to it.
        let marker = archiveError { _ = try read(#"{"$archive":1,"$$archive":2,"root":3}"#, markup: .automatic) }
        #expect(marker?.message.contains("'$archive'") == true)
        let field = archiveError { _ = try read(#"{"$type":"A","$archive":1,"$$archive":2}"#, markup: .automatic) }
        #expect(field?.code == .malformedInput)

        // Not duplicates: same length, same first and last eight bytes.
        let distinct = try read(#"{"abcdefgh1ijklmnop":1,"abcdefgh2ijklmnop":2}"#)
        #expect(distinct.dictionaryValue?.count == 2)
        let many = try read("{" + (0..<300).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}")
        #expect(many.dictionaryValue?.count == 300)
    }

    // MARK: - Limits

    @Test("depth: maxDepth levels read, one more fails")
    func depthLimit() throws {
        var limits = ArchiveLimits()
        limits.maxDepth = 4
        #expect(try read("[[[[1]]]]", limits: limits) == [[[[1]]]])
        #expect(try read(#"{"a":{"b":{"c":{"d":1}}}}"#, limits: limits)["a"]?["b"]?["c"]?["d"] == 1)
        let arrays = archiveError { _ = try read("[[[[[1]]]]]", limits: limits) }
        #expect(arrays?.code == .limitExceeded)
        #expect(arrays?.limit == .depth)
        #expect(arrays?.path == [.index(0), .index(0), .index(0), .index(0)])
        let objects = archiveError { _ = try read(#"{"a":{"b":{"c":{"d":{}}}}}"#, limits: limits) }
        #expect(objects?.limit == .depth)
        #expect(objects?.path.description == "a.b.c.d")
        #expect(objects?.location?.column == 21)

        let limit = ArchiveLimits.default.maxDepth
        let deep = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try read(deep).kind == .array)
        let tooDeep = archiveError { _ = try read("[" + deep + "]") }
        #expect(tooDeep?.limit == .depth)
    }

    @Test("deep documents are safe on a 512 KiB thread stack")
    func smallStack() async throws {
        let text = String(repeating: #"{"a":["#, count: 128) + String(repeating: "]}", count: 128)
        // The reader and the writer keep their own stacks: 256 levels need no more thread stack
        // than one (the default limit is lower for the decoder's sake, see LimitsTests).
        let limits = {
            var limits = ArchiveLimits()
            limits.maxDepth = 256
            return limits
        }()
        let result: Result<Int, any Error> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do {
                    let tree = try read(text, limits: limits)
                    let data = try JSONWriter.write(tree, options: .init(prettyPrinted: true, limits: limits))
                    let again = try JSONReader.read(data, options: .init(limits: limits))
                    continuation.resume(returning: .success(again == tree ? data.count : -1))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.stackSize = 512 << 10
            thread.start()
        }
        #expect(try result.get() > 0)
    }

    @Test("collection count, string length, value count and input size limits")
    func otherLimits() throws {
        var limits = ArchiveLimits()
        limits.maxCollectionCount = 3
        #expect(try read("[1,2,3]", limits: limits) == [1, 2, 3])
        let array = archiveError { _ = try read("[1,2,3,4]", limits: limits) }
        #expect(array?.limit == .collectionCount)
        let object = archiveError { _ = try read(#"{"x":{"a":1,"b":2,"c":3,"d":4}}"#, limits: limits) }
        #expect(object?.limit == .collectionCount)
        #expect(object?.path.description == "x")

        limits = ArchiveLimits()
        limits.maxStringLength = 5
        #expect(try read(#"["abcde", "\n\n\n\n\n"]"#, limits: limits) == ["abcde", "\n\n\n\n\n"])
        #expect(archiveError { _ = try read(#"["abcdef"]"#, limits: limits) }?.limit == .stringLength)
        // Decoded UTF-8 bytes count: three 'å' are six bytes.
        #expect(archiveError { _ = try read(#"["\u00e5\u00e5\u00e5"]"#, limits: limits) }?.limit == .stringLength)
        let key = archiveError { _ = try read(#"{"abcdef":1}"#, limits: limits) }
        #expect(key?.limit == .stringLength)

        limits = ArchiveLimits()
        limits.maxObjectCount = 5
        #expect(try read("[1,2,[3]]", limits: limits) == [1, 2, [3]])
        #expect(archiveError { _ = try read("[1,2,3,4,5]", limits: limits) }?.limit == .objectCount)

        limits = ArchiveLimits()
        limits.maxInputBytes = 10
        #expect(try read("[1,2,3,45]", limits: limits) == [1, 2, 3, 45])
        let input = archiveError { _ = try read("[1,2,3,456]", limits: limits) }
        #expect(input?.limit == .inputBytes)
    }

    // MARK: - Markup

    @Test("automatic markup reads objects, references and tagged values in archives")
    func readsMarkup() throws {
        let text = """
            {"$archive": 1, "root": {"$type": "Circle", "$version": 2, "$id": 7, "$classes": ["Shape"],
              "radius": 1.5, "$$price": 3,
              "links": [{"$ref": 7}, {"$date": "2001-01-01T00:00:10Z"}, {"$date": 12.5}, {"$data": "AQID"},
                        {"$double": "nan"}, {"$double": "inf"}, {"$double": "-inf"}, {"$$ref": 1}]}}
            """
        let tree = try read(text, markup: .automatic)
        let circle = try #require(tree["root"]?.objectValue)
        #expect(circle.typeName == "Circle")
        #expect(circle.version == 2)
        #expect(circle.id == 7)
        #expect(circle.superclassNames == ["Shape"])
        #expect(circle.fields.keys == ["radius", "$price", "links"])
        let links = try #require(circle["links"]?.arrayValue)
        #expect(links[0] == .reference(7))
        #expect(links[1] == .date(Date(timeIntervalSinceReferenceDate: 10)))
        #expect(links[2] == .date(Date(timeIntervalSinceReferenceDate: 12.5)))
        #expect(links[3] == .data(Data([1, 2, 3])))
        #expect(links[4].doubleValue?.isNaN == true)
        #expect(links[5] == .double(.infinity))
        #expect(links[6] == .double(-.infinity))
        #expect(links[7] == ["$ref": 1])
        #expect(tree.dictionaryValue?.keys == ["$archive", "root"])
    }

    @Test("markup errors carry the path of the offending key")
    func markupErrors() {
        let unknown = archiveError { _ = try read(#"{"$archive":1,"root":{"x":{"$bogus":1}}}"#, markup: .automatic) }
        #expect(unknown?.code == .malformedInput)
        #expect(unknown?.path.description == "root.x.$bogus")
        #expect(unknown?.location?.column == 27)

        let versionOnly = archiveError {
            _ = try read(#"{"$archive":1,"root":[{"$version":1,"a":1}]}"#, markup: .automatic)
        }
        #expect(versionOnly?.code == .malformedInput)
        #expect(versionOnly?.message == "an object needs '$type'")
        #expect(versionOnly?.path.description == "root[0]")

        let badType = archiveError { _ = try read(#"[{"$type":"","a":1}]"#, markup: .archive) }
        #expect(badType?.path.description == "[0].$type")
    }

    @Test("plain and automatic reading leave foreign `$` keys alone")
    func plainMarkup() throws {
        #expect(try read(#"{"$schema":1}"#, markup: .automatic) == ["$schema": 1])
        #expect(try read(#"{"$schema":1}"#, markup: .plain) == ["$schema": 1])
        #expect(archiveError { _ = try read(#"{"$schema":1}"#, markup: .archive) }?.code == .malformedInput)
        // Automatic: only the first key of a top-level object switches markup on.
        #expect(try read(#"{"a":1,"$type":"X"}"#, markup: .automatic) == ["a": 1, "$type": "X"])
        #expect(try read(#"[{"$type":"X"}]"#, markup: .automatic) == [["$type": "X"]])
        #expect(
            try read(#"{"$type":"X","$$a":{"$ref":1}}"#, markup: .automatic)
                == .object(ArchiveObject(typeName: "X", version: nil, fields: ["$a": .reference(1)])))
        #expect(try read(#"{"$type":"X"}"#, markup: .plain) == ["$type": "X"])
        #expect(try read(#"{"$ref":1}"#, markup: .archive) == .reference(1))
    }

    @Test(
        "objects read as markup equal ArchiveMarkup.interpret of their entries",
        arguments: [
            #"{"$type":"A","$version":1,"$id":2,"$classes":["B","C"],"x":1,"y":[1,2]}"#,
            #"{"$id":2,"$type":"A","x":1}"#,
            #"{"x":1,"$type":"A"}"#,
            #"{"$type":"A","x":1,"$version":3}"#,
            #"{"$type":"A","$$x":1,"y":2}"#,
            #"{"$$x":1}"#,
            #"{"$type":"A","$version":-1}"#,
            #"{"$type":"A","$version":1.5}"#,
            #"{"$type":"A","$version":1.0}"#,
            #"{"$type":"A","$id":"7"}"#,
            #"{"$type":7}"#,
            #"{"$type":"A","$classes":["B",1]}"#,
            #"{"$type":"A","$classes":"B"}"#,
            #"{"$type":"A","$ref":1}"#,
            #"{"$type":"A","$archive":1}"#,
            #"{"$version":1}"#,
            #"{"$ref":3,"x":1}"#,
            #"{"$ref":3}"#,
            #"{"$date":"2020-02-29T12:00:00.5Z"}"#,
            #"{"$date":"not a date"}"#,
            #"{"$data":"AQID"}"#,
            #"{"$data":3}"#,
            #"{"$double":"nan"}"#,
            #"{"$double":"zero"}"#,
            #"{"$null":true}"#,
            #"{"$whatever":1}"#,
            #"{"$type":"A","$version":9223372036854775808}"#,
        ])
    func fastPathMatchesInterpret(text: String) throws {
        let entries = try #require(read(text, markup: .plain).dictionaryValue)
        let expected = Result {
            try ArchiveMarkup.interpret(
                entries.map { ArchiveDictionary.Entry(key: $0.key, value: $0.value) }, isTopLevel: false,
                allowsValueTags: true, path: [.index(0)])
        }
        let actual = Result { try read("[" + text + "]", markup: .archive)[0] ?? .null }
        switch (expected, actual) {
        case (.success(let want), .success(let got)):
            #expect(got == want)
            #expect(got.objectValue?.fields.keys == want.objectValue?.fields.keys)
        case (.failure(let want as ArchiveError), .failure(let got as ArchiveError)):
            #expect(got.code == want.code)
            #expect(got.message == want.message)
            #expect(got.path == want.path)
        default:
            Issue.record("interpret gave \(expected), the reader \(actual)")
        }
    }

    // MARK: - Writing

    @Test("pretty-printed text is exact")
    func prettyText() throws {
        let tree: ArchiveValue = [
            "name": "Ann", "tags": ["a", "b"], "empty": [], "nested": ["x": 1.5, "none": nil, "n": -3],
            "obj": .dictionary([:]),
        ]
        let expected = """
            {
              "name": "Ann",
              "tags": [
                "a",
                "b"
              ],
              "empty": [],
              "nested": {
                "x": 1.5,
                "none": null,
                "n": -3
              },
              "obj": {}
            }

            """
        #expect(try write(tree, pretty: true) == expected)
        #expect(
            try write(tree)
                == #"{"name":"Ann","tags":["a","b"],"empty":[],"nested":{"x":1.5,"none":null,"n":-3},"obj":{}}"#)
        #expect(try write([], pretty: true) == "[]\n")
        #expect(try write(true, pretty: true) == "true\n")
    }

    @Test("strings escape only quotes, backslashes and control characters")
    func stringEscaping() throws {
        let text = "\"\\/\u{08}\u{0C}\n\r\t\u{01}\u{1F}\u{7F}Å中😀e\u{301}\u{0}"
        #expect(try write(.string(text)) == #""\"\\/\b\f\n\r\t\u0001\u001f"# + "\u{7F}Å中😀e\u{301}" + #"\u0000""#)
        // Long strings take the eight-bytes-at-a-time path.
        let long = String(repeating: "abcdefgh", count: 8) + "\"" + String(repeating: "é", count: 20) + "\n"
        let written = try write(.string(long))
        #expect(try read(written) == .string(long))
        #expect(
            written == "\"" + String(repeating: "abcdefgh", count: 8) + "\\\"" + String(repeating: "é", count: 20)
                + "\\n\"")
    }

    @Test(
        "numbers are written exactly and doubles stay doubles",
        arguments: [
            (ArchiveValue.int(0), "0"), (.int(Int64.min), "-9223372036854775808"),
            (.int(Int64.max), "9223372036854775807"),
            (.uint(UInt64.max), "18446744073709551615"), (.int(-7), "-7"), (.int(1_000_000), "1000000"),
            (.double(1), "1.0"), (.double(-0.0), "-0.0"), (.double(0.1), "0.1"), (.double(100), "100.0"),
            (.double(1e16), "1e+16"), (.double(.leastNonzeroMagnitude), "5e-324"),
            (.double(1.7976931348623157e308), "1.7976931348623157e+308"),
            (.double(-2.25), "-2.25"), (.double(1e-5), "1e-05"),
        ])
    func numberText(value: ArchiveValue, text: String) throws {
        #expect(try write(value) == text)
        let back = try read(text)
        #expect(back.kind == (value.kind == .uint && value.int64Value != nil ? .int : value.kind))
        if case .double(let double) = value {
            #expect(back.doubleValue?.bitPattern == double.bitPattern)
        } else {
            #expect(back == value)
        }
    }

    @Test("strings of every short length escape a quote, backslash or control character wherever it is")
    func escapesEverywhere() throws {
        let specials: [Character] = ["\"", "\\", "\n", "\u{01}", "\u{1F}", "\t"]
        for length in 0...24 {
            // ASCII, and two-byte UTF-8 so the word-at-a-time checks see high bytes too.
            let unit: Character = length % 2 == 0 ? "a" : "é"
            let plain = String(repeating: unit, count: length)
            var texts = [plain]
            for position in 0...length {
                for special in specials {
                    var text = Array(plain)
                    text.insert(special, at: position)
                    texts.append(String(text))
                }
            }
            for text in texts {
                let json = try write(.string(text))
                #expect(try read(json) == .string(text), "\(json)")
                let foundation = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
                #expect(foundation as? String == text, "\(json)")
            }
        }
    }

    @Test("doubles are written as Swift's description spells them: short decimals, 17 digits, boundaries")
    func doublesSpelledAsDescription() throws {
        func expected(_ number: Double) -> String {
            let text = number.description
            return text.contains(where: { $0 == "." || $0 == "e" }) ? text : text + ".0"
        }
        var random = SplitMix64(seed: 7)
        var numbers: [Double] = [
            1e-4, 1e-4.nextDown, 1e-4.nextUp, 1e15, 1e15.nextDown, 1e15.nextUp, 0.1 + 0.2, 0.3, 100, 1, 0.5,
            123_456_789_012_345.6, 999_999_999_999_999, 0.000_123_456_789_012_345, .leastNonzeroMagnitude,
            9_007_199_254_740_992, -0.0, 0.0, -1.5, 2.5e-4, 0.1, 1.0 / 3, 2.0 / 3, 1e14 + 0.5, 4_503_599_627_370_497.5,
        ]
        let powers: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10]
        for _ in 0..<20_000 {
            // Short decimals (what archives mostly hold), at every scale.
            let mantissa = Double(random.next() % 10_000_000_000)
            numbers.append(mantissa / powers[Int(random.next() % UInt64(powers.count))])
            numbers.append(-Double(random.next() % 100_000) / 1_000)
            // Any bit pattern: 17-digit doubles, subnormals, huge values.
            let any = Double(bitPattern: random.next())
            if any.isFinite { numbers.append(any) }
            // Near the spelling boundaries.
            numbers.append(1e-4 * (1 + Double(random.next() % 1000) / 1e6))
            numbers.append(1e15 * (1 - Double(random.next() % 1000) / 1e9))
        }
        for number in numbers {
            let text = try write(.double(number))
            guard text == expected(number) else {
                Issue.record("\(number.bitPattern): wrote \(text), description spells \(expected(number))")
                return
            }
        }
    }

    @Test("integers of every digit count are written as Swift's description spells them")
    func integersSpelledAsDescription() throws {
        var signed: [Int64] = [0, 1, -1, 9, -9, .max, .min, .max - 1, .min + 1]
        var unsigned: [UInt64] = [UInt64(Int64.max) + 1, .max, .max - 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            signed += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
        }
        unsigned += [9_999_999_999_999_999_999, 10_000_000_000_000_000_000, 10_000_000_000_000_000_001]
        var random = SplitMix64(seed: 11)
        for _ in 0..<10_000 {
            let bits = random.next()
            // Every magnitude: shift off 0 to 63 bits.
            let shifted = bits >> (random.next() % 64)
            signed.append(Int64(bitPattern: shifted))
            if shifted > UInt64(Int64.max) { unsigned.append(shifted) }
        }
        for number in signed {
            let text = try write(.int(number))
            guard text == number.description else {
                Issue.record("wrote \(text) for \(number)")
                return
            }
        }
        for number in unsigned {
            let text = try write(.uint(number))
            guard text == number.description else {
                Issue.record("wrote \(text) for \(number)")
                return
            }
        }
    }

    @Test("archive markup spells objects, references, dates, data, non-finite doubles and `$` keys")
    func writesArchiveMarkup() throws {
        let circle = ArchiveObject(
            typeName: "Circle", version: 2, id: 7, superclassNames: ["Shape"],
            fields: ["radius": 1.5, "$price": 3])
        let tree: ArchiveValue = [
            "$archive": 1,
            "root": .object(circle),
            "refs": [
                .reference(7), .date(Date(timeIntervalSinceReferenceDate: 10)),
                .date(Date(timeIntervalSinceReferenceDate: 1.0 / 3)),
                .data(Data([1, 2, 3])), .double(.nan), .double(-.infinity),
            ],
            "nested": ["$archive": 2, "$$x": 1],
        ]
        let expected =
            #"{"$archive":1,"root":{"$type":"Circle","$version":2,"$id":7,"$classes":["Shape"],"radius":1.5,"$$price":3},"#
            + #""refs":[{"$ref":7},{"$date":"2001-01-01T00:00:10Z"},{"$date":0.3333333333333333},{"$data":"AQID"},{"$double":"nan"},"#
            + #"{"$double":"-inf"}],"nested":{"$$archive":2,"$$$x":1}}"#
        #expect(try write(tree) == expected)
        #expect(try write(tree, markup: .automatic) == expected)
        #expect(try read(expected, markup: .automatic) == tree)
        #expect(try write(.reference(3), pretty: true) == "{\n  \"$ref\": 3\n}\n")
        let prettyCircle = """
            [
              {
                "$type": "Circle",
                "$version": 2,
                "$id": 7,
                "$classes": [
                  "Shape",
                  "Figure"
                ],
                "radius": 1.5,
                "$$price": 3
              },
              {
                "$type": "Empty"
              }
            ]

            """
        var figure = circle
        figure.superclassNames.append("Figure")
        let pair: ArchiveValue = [
            .object(figure), .object(ArchiveObject(typeName: "Empty", version: nil, fields: [:])),
        ]
        #expect(try write(pair, pretty: true) == prettyCircle)
        #expect(try read(prettyCircle, markup: .archive) == pair)
    }

    @Test("plain markup writes what foreign readers expect")
    func writesPlainMarkup() throws {
        let tree: ArchiveValue = [
            "shape": .object(ArchiveObject(typeName: "Circle", version: 1, id: 2, fields: ["$price": 3, "r": 1])),
            "ref": .reference(2),
            "when": .date(Date(timeIntervalSinceReferenceDate: 10)),
            "later": .date(Date(timeIntervalSinceReferenceDate: 10 + 1.0 / 3)),
            "bytes": .data(Data([1, 2, 3])),
            "$schema": 1,
        ]
        let expected =
            #"{"shape":{"$type":"Circle","$version":1,"$id":2,"$price":3,"r":1},"ref":{"$ref":2},"#
            + #""when":"2001-01-01T00:00:10Z","later":"2001-01-01T00:00:10.333Z","bytes":"AQID","$schema":1}"#
        #expect(try write(tree, markup: .plain) == expected)
        let reference = try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? [String: Any]
        #expect(reference?["when"] as? String == "2001-01-01T00:00:10Z")
    }

    @Test("ISO 8601 dates agree with Foundation's ISO8601DateFormatter")
    func isoDatesAgreeWithFoundation() throws {
        let formatter = ISO8601DateFormatter()
        let texts = [
            "2001-01-01T00:00:10Z", "2000-02-29T23:59:59Z", "1970-01-01T00:00:00Z", "1999-12-31T12:30:00Z",
            "2026-11-30T05:14:25Z", "1601-03-01T00:00:00Z", "2400-12-31T00:00:01Z",
        ]
        for text in texts {
            let date = try #require(formatter.date(from: text))
            #expect(try write(.date(date), markup: .plain) == "\"\(text)\"")
            #expect(try write(.date(date)) == #"{"$date":"\#(text)"}"#)
            #expect(try read(#"{"$date":"\#(text)"}"#, markup: .archive) == .date(date))
        }
    }

    @Test("non-finite doubles cannot be written as plain JSON", arguments: [Double.nan, .infinity, -.infinity])
    func plainNonFinite(value: Double) {
        let error = archiveError { _ = try write(["values": [1.0, .double(value)]], markup: .plain) }
        #expect(error?.code == .invalidValue)
        #expect(error?.path.description == "values[1]")
        // After a nested container has been written and closed, the path still names the child.
        let later = archiveError {
            _ = try write(["first": ["inner": [1, 2]], "values": [["x": 1], 2.0, .double(value)]], markup: .plain)
        }
        #expect(later?.path.description == "values[2]")
    }

    @Test("an invalid value inside an object is named by its field, after nested containers")
    func invalidFieldPath() {
        let field = archiveError {
            _ = try write(
                .object(
                    ArchiveObject(
                        typeName: "Circle", version: 1, id: 4,
                        fields: ["center": ["x": 1], "tags": ["a", ["b"]], "radius": 2, "link": .reference(-1)])))
        }
        #expect(field?.code == .invalidValue)
        #expect(field?.path.description == "link")
    }

    @Test("the writer stops at maxDepth, counting tagged values as a level")
    func writerDepth() throws {
        var limits = ArchiveLimits()
        limits.maxDepth = 3
        #expect(try write([[[1]]], limits: limits) == "[[[1]]]")
        let error = archiveError { _ = try write([[[[1]]]], limits: limits) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == .depth)
        #expect(error?.path == [.index(0), .index(0), .index(0)])
        #expect(try write([["x": .reference(1)]], limits: limits) == #"[{"x":{"$ref":1}}]"#)
        let date = archiveError { _ = try write([[[.date(Date())]]], limits: limits) }
        #expect(date?.limit == .depth)
        #expect(
            try write([[[.date(Date(timeIntervalSinceReferenceDate: 0))]]], markup: .plain, limits: limits)
                == #"[[["2001-01-01T00:00:00Z"]]]"#)
    }

    @Test("values that markup cannot spell are invalid")
    func invalidValues() {
        #expect(archiveError { _ = try write(.object(ArchiveObject(typeName: "", version: 1))) }?.code == .invalidValue)
        #expect(archiveError { _ = try write(.reference(-1)) }?.code == .invalidValue)
        #expect(
            archiveError { _ = try write(["d": .date(Date(timeIntervalSinceReferenceDate: .nan))]) }?.path.description
                == "d")
        #expect(
            archiveError { _ = try write(.date(Date(timeIntervalSinceReferenceDate: 1e15)), markup: .plain) }?.code
                == .invalidValue)
    }

    // MARK: - Round trips

    /// A tree with every value kind the archive markup can hold.
    private static let everyKind: ArchiveValue = [
        "$archive": 1,
        "root": .object(
            ArchiveObject(
                typeName: "Drawing", version: 3, id: 1, superclassNames: ["Base"],
                fields: [
                    "null": nil, "yes": true, "no": false, "int": 42, "min": .int(Int64.min), "max": .int(Int64.max),
                    "umax": .uint(UInt64.max), "pi": 3.141592653589793, "negativeZero": -0.0,
                    "tiny": .double(.leastNonzeroMagnitude),
                    "huge": 1.7976931348623157e308, "nan": .double(.nan), "inf": .double(.infinity),
                    "text": "Å 中文 😀 e\u{301} \"\\\n",
                    "empty": "", "bytes": .data(Data([0, 1, 2, 254, 255])), "noBytes": .data(Data()),
                    "when": .date(Date(timeIntervalSinceReferenceDate: 123_456.789)),
                    "exact": .date(Date(timeIntervalSinceReferenceDate: -86_400)),
                    "list": [1, "two", [3.5], .dictionary([:]), nil],
                    "map": ["$dollar": 1, "$$double": 2, "plain": ["$archive": 3]],
                    "child": .object(ArchiveObject(typeName: "Circle", version: nil, fields: ["r": 1])),
                    "back": .reference(1), "$field": "escaped",
                ])),
    ]

    @Test("every value kind round-trips through archive markup", arguments: [false, true])
    func archiveRoundTrip(pretty: Bool) throws {
        let text = try write(Self.everyKind, pretty: pretty)
        #expect(try read(text, markup: .automatic) == Self.everyKind)
        #expect(try read(text, markup: .archive) == Self.everyKind)
        // Deterministic: the same tree gives the same bytes.
        #expect(try write(try read(text, markup: .automatic), pretty: pretty) == text)
    }

    @Test("plain trees round-trip through plain markup", arguments: [false, true])
    func plainRoundTrip(pretty: Bool) throws {
        let tree: ArchiveValue = [
            "$schema": "x", "ints": [0, -1, .int(Int64.min), .uint(UInt64.max)],
            "doubles": [0.1, -0.0, 1e300, .double(.leastNonzeroMagnitude)],
            "text": ["Å", "中文", "😀", "e\u{301}", "\u{0}\u{1F}"], "flags": [true, false, nil],
            "nested": ["a": ["b": [:]]],
        ]
        let text = try write(tree, pretty: pretty, markup: .plain)
        #expect(try read(text, markup: .plain) == tree)
        #expect(try read(text, markup: .automatic) == tree)
    }

    // MARK: - Hostile input

    @Test("random mutations of a valid document read to a value or an ArchiveError, and values round-trip")
    func mutations() throws {
        let seed = #"""
            {"$archive":1,"root":{"$type":"Drawing","$version":2,"$id":1,"title":"Ünïcødé \ud83d\ude00 \"q\"",
             "shapes":[{"$type":"Circle","r":1.5e3,"c":{"x":-0.25,"y":12345678901234567890}},{"$ref":1},
             {"$date":"2020-01-01T00:00:00Z"},{"$data":"AQID"},{"$double":"nan"},[true,false,null,-0,1e-7]],
             "$$k":{"a":"\u00e5\n","b":[[],{}]}}}
            """#
        let original = Array(seed.utf8)
        var generator = SplitMix64(seed: 7)
        var values = 0
        for round in 0..<3000 {
            var bytes = original
            for _ in 0...(generator.next() % 3) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 6 {
                case 0: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                case 1: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
                case 2: bytes.remove(at: position)
                case 3: bytes.removeSubrange(position...)
                case 4:
                    let interesting: [UInt8] = Array(#"{}[]",:\"0-.e$"#.utf8) + [0x80, 0xC3, 0xED, 0xF4, 0xFF, 0x00]
                    bytes[position] = interesting[Int(generator.next() % UInt64(interesting.count))]
                default:
                    let length = Int(generator.next() % 16)
                    bytes.insert(contentsOf: bytes[position..<min(bytes.count, position + length)], at: position)
                }
                if bytes.isEmpty { bytes = [0x20] }
            }
            let markup: MarkupMode = round % 2 == 0 ? .automatic : .archive
            do {
                let value = try read(bytes: bytes, markup: markup)
                values += 1
                let written = try JSONWriter.write(value, options: .init(prettyPrinted: round % 3 == 0))
                #expect(try JSONReader.read(written, options: .init(markup: .archive)) == value)
            } catch is ArchiveError {
                // Expected for most mutations.
            } catch {
                Issue.record("mutation \(round) threw \(error)")
            }
        }
        #expect(values > 0)
    }
}
