import Foundation
import MigrationRules
import TestSupport
import Testing

@testable import ModelVersioning

/// "é" as one scalar (U+00E9, NFC) and as "e" with a combining acute accent (NFD): canonically
/// equivalent, so Swift's `==` finds them equal, but two keys in every archive format.
private let composed = "caf\u{E9}"
private let decomposed = "cafe\u{301}"
/// ANGSTROM SIGN and LATIN CAPITAL LETTER A WITH RING ABOVE: canonically equivalent too.
private let angstrom = "\u{212B}"
private let aRing = "\u{C5}"

/// A model whose one key is spelled with the precomposed "é".
private struct Menu: Codable, Equatable {
    var cafe: Int?

    private enum CodingKeys: String, CodingKey {
        case cafe = "caf\u{E9}"
    }
}

/// A key of any spelling.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ stringValue: String) {
        self.stringValue = stringValue
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

/// Writes one entry per key, in one keyed container.
private struct Spellings: Encodable {
    var keys: [String]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for (index, key) in keys.enumerated() {
            try container.encode(index, forKey: AnyKey(key))
        }
    }
}

/// A binary property list of one dictionary whose keys are written as Apple writes non-ASCII
/// strings (UTF-16, big-endian), each mapped to its position.
private func binaryPlist(keys: [String]) -> Data {
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    let count = keys.count
    precondition(count < 15 && 1 + 2 * count < 256)
    offsets.append(bytes.count)
    bytes.append(0xD0 | UInt8(count))
    bytes += (0..<count).map { UInt8(1 + $0) }  // key references
    bytes += (0..<count).map { UInt8(1 + count + $0) }  // value references
    for key in keys {
        offsets.append(bytes.count)
        let units = Array(key.utf16)
        bytes.append(0x60 | UInt8(units.count))
        for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
    }
    for index in 0..<count {
        offsets.append(bytes.count)
        bytes += [0x10, UInt8(index)]
    }
    let tableOffset = bytes.count
    bytes += offsets.map { UInt8($0) }
    bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // unused, offset size, reference size
    func appendUInt64(_ value: Int) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
    appendUInt64(offsets.count)
    appendUInt64(0)
    appendUInt64(tableOffset)
    return Data(bytes)
}

/// The keys of `value`'s dictionary, as their scalars.
private func scalars(_ value: ArchiveValue?) -> [[UInt32]] {
    (value?.keyedEntries?.keys ?? []).map { $0.unicodeScalars.map(\.value) }
}

@Suite("Key identity: exact Unicode scalars")
struct KeyIdentityTests {
    @Test("a dictionary keeps keys that differ only by normalization apart")
    func dictionaryKeys() {
        var dictionary: ArchiveDictionary = [composed: 1]
        dictionary[decomposed] = 2
        #expect(dictionary.count == 2)
        #expect(dictionary[composed] == 1)
        #expect(dictionary[decomposed] == 2)
        #expect(dictionary.index(forKey: decomposed, startingAt: 1) == 1)
        #expect(dictionary.index(forKey: composed, startingAt: 1) == 0)

        var renamed = dictionary
        let found = renamed.renameKey(composed, to: "plain")
        #expect(found)
        #expect(renamed.keys == ["plain", decomposed])
        let missing = renamed.renameKey(composed, to: "other")
        #expect(!missing)
        renamed.removeValue(forKey: composed)
        #expect(renamed.count == 2)
        renamed.removeValue(forKey: decomposed)
        #expect(renamed.keys == ["plain"])

        #expect(dictionary != [composed: 1, composed + "x": 2])
        #expect(dictionary == [decomposed: 2, composed: 1])
        let elements: [ArchiveDictionary.Element] = [(composed, 1), (decomposed, 2)]
        #expect(ArchiveDictionary(elements).count == 2)
    }

    @Test("repeated keys are found by their scalars, in dictionaries of every size", arguments: [2, 20, 40, 200])
    func duplicates(count: Int) {
        let padding: [ArchiveDictionary.Element] = (0..<count - 2).map { (key: "k\($0)", value: .int(Int64($0))) }
        let distinct = ArchiveDictionary(uniqueEntries: padding + [(composed, 1), (decomposed, 2)])
        #expect(distinct.firstDuplicateKey() == nil)
        let repeated = ArchiveDictionary(uniqueEntries: padding + [(composed, 1), (composed, 2)])
        #expect(repeated.firstDuplicateKey() == composed)
    }

    @Test("ANGSTROM SIGN and A WITH RING ABOVE are two keys, two strings and two type names")
    func angstromSign() {
        #expect(angstrom == aRing)  // Swift's canonical equivalence
        let dictionary: ArchiveDictionary = [angstrom: 1, aRing: 2]
        #expect(dictionary.count == 2)
        #expect(dictionary[aRing] == 2)
        #expect(ArchiveValue.string(angstrom) != .string(aRing))
        #expect(Set<ArchiveValue>([.string(angstrom), .string(aRing)]).count == 2)
        #expect(
            ArchiveObject(typeName: angstrom, version: 1) != ArchiveObject(typeName: aRing, version: 1))
        #expect(
            ArchiveObject(typeName: "A", version: 1, superclassNames: [angstrom])
                != ArchiveObject(typeName: "A", version: 1, superclassNames: [aRing]))
    }

    @Test("strings that differ only by normalization are different values that hash apart and sort apart")
    func stringValues() {
        #expect(ArchiveValue.string(composed) != .string(decomposed))
        #expect(Set<ArchiveValue>([.string(composed), .string(decomposed)]).count == 2)
        #expect(Set([ExactString(composed), ExactString(decomposed), ExactString(composed)]).count == 2)
        // Either order sorts to the same order: neither string is left where it came in.
        let forward = [ArchiveValue.string(composed), .string(decomposed)].sorted { $0.canonicallyPrecedes($1) }
        let backward = [ArchiveValue.string(decomposed), .string(composed)].sorted { $0.canonicallyPrecedes($1) }
        #expect(forward == backward)
        #expect(forward.first == .string(decomposed))  // "e" (0x65) before "é" (0xC3 0xA9)
    }

    @Test("JSON objects keep keys that differ only by normalization apart", arguments: [0, 40])
    func json(padding: Int) throws {
        let extra = (0..<padding).map { "\"k\($0)\":0," }.joined()
        for text in [
            "{\(extra)\"\(composed)\":1,\"\(decomposed)\":2}",
            #"{"# + extra + #""caf\u00e9":1,"cafe\u0301":2}"#,
            "{\(extra)\"\(angstrom)\":1,\"\(aRing)\":2}",
        ] {
            let tree = try ArchiveFormat.json.read(Data(text.utf8))
            #expect(tree.keyedEntries?.count == padding + 2, "\(text)")
        }
        let repeated = "{\(extra)\"\(composed)\":1,\"caf\\u00e9\":2}"
        #expect(throws: ArchiveError.self) { try ArchiveFormat.json.read(Data(repeated.utf8)) }
    }

    @Test("XML property lists keep keys that differ only by normalization apart")
    func xmlPropertyList() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>\(composed)</key><integer>1</integer>
                <key>\(decomposed)</key><integer>2</integer>
                <key>\(angstrom)</key><integer>3</integer>
                <key>\(aRing)</key><integer>4</integer>
            </dict>
            </plist>
            """
        let tree = try ArchiveFormat.xmlPropertyList.read(Data(text.utf8))
        #expect(scalars(tree) == [composed, decomposed, angstrom, aRing].map { $0.unicodeScalars.map(\.value) })
        #expect(tree[decomposed] == 2)
    }

    @Test("OpenStep property lists keep keys that differ only by normalization apart")
    func openStepPropertyList() throws {
        let tree = try ArchiveFormat.xmlPropertyList.read(Data("{ \"\(composed)\" = 1; \"\(decomposed)\" = 2; }".utf8))
        #expect(tree.keyedEntries?.count == 2)
    }

    @Test("binary property lists keep keys that differ only by normalization apart")
    func binaryPropertyList() throws {
        let data = binaryPlist(keys: [composed, decomposed, angstrom, aRing])
        let tree = try ArchiveFormat.binaryPropertyList.read(data)
        #expect(scalars(tree) == [composed, decomposed, angstrom, aRing].map { $0.unicodeScalars.map(\.value) })
        #expect(tree[composed] == 0)
        #expect(tree[decomposed] == 1)
        // A key that really repeats is still rejected.
        #expect(throws: ArchiveError.self) {
            try ArchiveFormat.binaryPropertyList.read(binaryPlist(keys: [composed, composed]))
        }
    }

    @Test("every format writes and reads back keys and strings that differ only by normalization")
    func roundTrips() throws {
        let object = ArchiveObject(
            typeName: "Menu", version: 1,
            fields: [composed: .string(decomposed), decomposed: .string(composed), angstrom: .string(aRing)])
        let tree = ArchiveValue.array([.object(object), .dictionary([composed: 1, decomposed: 2])])
        #expect(object.fields.count == 3)
        for format in [ArchiveFormat.json, .xmlPropertyList, .binaryPropertyList, .keyedArchive] {
            let back = try format.read(try format.write(tree), options: ArchiveReadingOptions(markup: .archive))
            #expect(back == tree, "\(format)")
            #expect(ArchiveDiff.differences(from: tree, to: back).isEmpty, "\(format)")
        }
    }

    @Test("the diff reports keys, strings and type names that differ only by normalization")
    func diff() {
        let strings = ArchiveDiff.differences(from: ["name": .string(composed)], to: ["name": .string(decomposed)])
        #expect(strings.map(\.kind) == [.changed])
        #expect(strings.first?.path == [.key("name")])

        let keys = ArchiveDiff.differences(from: [composed: 1], to: [decomposed: 1])
        #expect(keys.map(\.kind) == [.removed, .added])
        #expect(keys.map(\.path) == [[.key(composed)], [.key(decomposed)]])

        let types = ArchiveDiff.differences(
            from: .object(ArchiveObject(typeName: angstrom, version: 1)),
            to: .object(ArchiveObject(typeName: aRing, version: 1)))
        #expect(types.map(\.path.description) == ["$type"])
    }

    @Test("archive-migrate diff tells archives apart that differ only by normalization")
    func commandLineDiff() throws {
        let scratch = try ScratchFolder()
        try scratch.write("{\"\(composed)\": \"\(composed)\"}", to: "nfc.json")
        try scratch.write("{\"\(composed)\": \"\(decomposed)\"}", to: "nfd-value.json")
        try scratch.write("{\"\(decomposed)\": \"\(composed)\"}", to: "nfd-key.json")
        let value = try ToolProcess.run(["diff", "nfc.json", "nfd-value.json"], in: scratch.url)
        #expect(value.status == 1)
        #expect(value.output != "no differences\n")
        let key = try ToolProcess.run(["diff", "nfc.json", "nfd-key.json"], in: scratch.url)
        #expect(key.status == 1)
        #expect(key.output != "no differences\n")
        #expect(try ToolProcess.run(["diff", "nfc.json", "nfc.json"], in: scratch.url).status == 0)
    }

    @Test("a model key finds only the archived key with exactly its scalars")
    func modelKeys() throws {
        let decoder = ArchiveDecoder()
        let exact = Data("{\"\(composed)\": 1}".utf8)
        let other = Data("{\"\(decomposed)\": 1}".utf8)
        #expect(try decoder.decode(Menu.self, from: exact) == Menu(cafe: 1))
        #expect(try decoder.decode(Menu.self, from: other) == Menu(cafe: nil))
        #expect(try decoder.decode(Menu.self, fromTree: try ArchiveFormat.json.read(other)) == Menu(cafe: nil))
        let both = Data("{\"\(decomposed)\": 2, \"\(composed)\": 1}".utf8)
        #expect(try decoder.decode(Menu.self, from: both) == Menu(cafe: 1))
    }

    @Test("encoders keep keys that differ only by normalization apart, and write each as spelled")
    func encoders() throws {
        let encoder = ArchiveEncoder(writingOptions: ArchiveWritingOptions(prettyPrinted: false, markup: .plain))
        let one = Spellings(keys: [composed, decomposed, angstrom, aRing])
        #expect(try encoder.encodeValue(one).keyedEntries?.count == 4)
        #expect(try ArchiveFormat.json.read(try encoder.encode(one))["root"]?.keyedEntries?.count == 4)
        // Two containers of one key type at one depth: the second must not be written with the
        // bytes of the first's key.
        let apart = [Spellings(keys: [composed]), Spellings(keys: [decomposed])]
        let data = try encoder.encode(apart)
        #expect(data.range(of: Data("[{\"\(composed)\":0},{\"\(decomposed)\":0}]".utf8)) != nil)
        #expect(try ArchiveFormat.json.read(data)["root"] == (try encoder.encodeValue(apart)))
    }

    @Test("migration rules find keys by their scalars")
    func rules() throws {
        var target = MigrationTarget(fields: [composed: 1, "b": 2])
        try MigrationRule.rename(decomposed, to: "x").apply(to: &target)
        #expect(target.fields.keys == [composed, "b"])
        try MigrationRule.remove(decomposed).apply(to: &target)
        #expect(target.fields.count == 2)
        try MigrationRule.add(decomposed, default: 3).apply(to: &target)
        #expect(target.fields.count == 3)
        try MigrationRule.rename(composed, to: decomposed + "!").apply(to: &target)
        #expect(target.fields.keys == [decomposed + "!", "b", decomposed])
        #expect(throws: ArchiveError.self) { try MigrationRule.rename("b", to: decomposed).apply(to: &target) }
    }
}
