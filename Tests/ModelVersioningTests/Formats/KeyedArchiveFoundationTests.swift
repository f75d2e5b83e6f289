// Round trips with swift-corelibs-foundation's own NSKeyedArchiver and NSKeyedUnarchiver on Linux.
// Only trusted, small archives are handed to Foundation: its unarchiver traps on hostile input
// and its archiver is quadratic in the number of objects (see FORMATS.md).
#if os(Linux)
    import Foundation
    import Testing

    @testable import ModelVersioning

    /// An NSCoding class of an old app, archived by Foundation under its module-qualified name.
    final class LegacyNote: NSObject, NSSecureCoding {
        static var supportsSecureCoding: Bool { true }

        let title: String
        let count: Int

        init(title: String, count: Int) {
            self.title = title
            self.count = count
        }

        func encode(with coder: NSCoder) {
            coder.encode(title as NSString, forKey: "title")
            coder.encode(count, forKey: "count")
        }

        required init?(coder: NSCoder) {
            guard let title = coder.decodeObject(of: NSString.self, forKey: "title") else { return nil }
            self.title = title as String
            self.count = coder.decodeInteger(forKey: "count")
        }
    }

    /// The same note after the move to Codable.
    struct Note: VersionedModel, Equatable {
        var title: String
        var count: Int

        static let archiveTypeAliases = ["ModelVersioningTests.LegacyNote"]
        static let unversionedVersion: Int? = 1
    }

    @Suite("Keyed archives: Foundation round trips (Linux)")
    struct KeyedArchiveFoundationTests {
        static let plainClasses: [AnyClass] = [
            NSArray.self, NSDictionary.self, NSString.self, NSNumber.self, NSData.self, NSDate.self, NSNull.self,
        ]

        /// The Foundation object a plain tree stands for.
        static func foundation(_ value: ArchiveValue) -> NSObject {
            switch value {
            case .bool(let flag): return NSNumber(value: flag)
            case .int(let number): return NSNumber(value: number)
            case .uint(let number): return NSNumber(value: number)
            case .double(let number): return NSNumber(value: number)
            case .string(let text): return NSString(string: text)
            case .data(let bytes): return NSData(data: bytes)
            case .date(let date): return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
            case .array(let elements): return NSArray(array: elements.map(foundation))
            case .dictionary(let entries):
                return NSDictionary(
                    objects: entries.values.map(foundation), forKeys: entries.keys.map { NSString(string: $0) })
            case .null, .object, .reference: return NSNull()
            }
        }

        static func unarchive(_ data: Data) throws -> NSObject? {
            try NSKeyedUnarchiver.unarchivedObject(ofClasses: plainClasses, from: data) as? NSObject
        }

        static func archive(_ object: NSObject) throws -> Data {
            try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
        }

        static func read(_ data: Data) throws -> ArchiveValue {
            try ArchiveFormat.keyedArchive.read(data)
        }

        // MARK: - Foundation reads our archives

        @Test("NSKeyedUnarchiver reads our archives of plain values: hand-picked edge cases")
        func foundationReadsEdgeCases() throws {
            let trees: [ArchiveValue] = [
                "text", "", "$null", "Åbenraa 日本 🎉", 0, -1, .int(.min), .int(.max), .uint(.max), 2.5, -0.0, 1e300,
                true, false, .data(Data()), .data(Data([0, 255, 7])),
                .date(Date(timeIntervalSinceReferenceDate: 509_523_358.684097)),
                [], [:], ["$null": "$null", "ключ": [1, "two", 3.0, nil, ["nested": [true]]]],
                [.date(Date(timeIntervalSinceReferenceDate: -1e9)), .data(Data("x".utf8)), "x", "x", 7, 7, 7.0],
            ]
            for tree in trees {
                let data = try ArchiveFormat.keyedArchive.write(tree)
                let decoded = try Self.unarchive(data)
                #expect(decoded?.isEqual(Self.foundation(tree)) == true, "\(tree) → \(String(describing: decoded))")
            }
        }

        @Test("NSKeyedUnarchiver reads our archives of random plain trees")
        func foundationReadsRandomTrees() throws {
            var generator = PlainTreeGenerator(seed: 0x4E53_4B65_79, includesNullString: true)
            for _ in 0..<150 {
                let tree = generator.tree()
                let data = try ArchiveFormat.keyedArchive.write(tree)
                let decoded = try Self.unarchive(data)
                if tree == .null {
                    #expect(decoded == nil)  // a nil root, as archivedData(withRootObject: nil) writes it
                } else {
                    #expect(decoded?.isEqual(Self.foundation(tree)) == true, "\(tree) → \(String(describing: decoded))")
                }
            }
        }

        // MARK: - We read Foundation's archives

        @Test("we read what NSKeyedArchiver writes for NSSecureCoding classes")
        func weReadFoundation() throws {
            #expect(try Self.read(Self.archive("hello" as NSString)) == "hello")
            #expect(try Self.read(Self.archive(NSMutableString(string: "mutable"))) == "mutable")
            #expect(try Self.read(Self.archive(NSNumber(value: true))) == .bool(true))
            #expect(try Self.read(Self.archive(NSNumber(value: Int64.min))) == .int(.min))
            #expect(try Self.read(Self.archive(NSNumber(value: UInt64.max))) == .uint(.max))
            #expect(try Self.read(Self.archive(NSNumber(value: 2.5))) == .double(2.5))
            #expect(try Self.read(Self.archive(NSData(data: Data([1, 2, 3])))) == .data(Data([1, 2, 3])))
            #expect(try Self.read(Self.archive(NSMutableData(data: Data([4, 5])))) == .data(Data([4, 5])))
            #expect(
                try Self.read(Self.archive(NSDate(timeIntervalSinceReferenceDate: 12.25)))
                    == .date(Date(timeIntervalSinceReferenceDate: 12.25)))
            let uuid = UUID()
            #expect(try Self.read(Self.archive(uuid as NSUUID)) == .string(uuid.uuidString))
            let url = try #require(
                NSURL(string: "docs/a.html?q=1", relativeTo: URL(string: "https://example.com/base/")))
            #expect(try Self.read(Self.archive(url)) == .string("https://example.com/base/docs/a.html?q=1"))
            #expect(try Self.read(Self.archive(NSURL(fileURLWithPath: "/tmp/x y"))) == "file:///tmp/x%20y")
            #expect(try Self.read(Self.archive(NSNull())) == .null)
            #expect(try Self.read(Self.archive(NSArray(array: ["a", 1, NSNull()]))) == ["a", 1, nil])
            #expect(try Self.read(Self.archive(NSOrderedSet(array: ["z", "y", "x"]))) == ["z", "y", "x"])
            let set = try #require(try Self.read(Self.archive(NSSet(array: [3, 1, 2]))).arrayValue)
            #expect(set.compactMap(\.int64Value).sorted() == [1, 2, 3])
            // (Foundation's archiver shares one entry between equal numbers: 1 and true would be one.)
            let dictionary: NSDictionary = ["k": "v", "n": 2, "nested": ["inner": [true]] as NSDictionary]
            #expect(try Self.read(Self.archive(dictionary)) == ["k": "v", "n": 2, "nested": ["inner": [true]]])
            let mutable = NSMutableDictionary(dictionary: ["m": NSMutableArray(array: [1.5])])
            #expect(try Self.read(Self.archive(mutable)) == ["m": [1.5]])
        }

        @Test("we read Foundation's shared instances, expanded where they are used")
        func weReadFoundationGraphs() throws {
            // (Foundation's archiver crashes on an array that contains itself: the cycle fixtures
            // of hostile/ are written by Python instead.)
            let shared = NSMutableArray(array: ["s"])
            let holder = NSArray(array: [shared, shared])
            let data = try Self.archive(holder)
            #expect(try Self.read(data) == [["s"], ["s"]])
            let plain = try ArchiveFormat.binaryPropertyList.read(data, options: ArchiveReadingOptions(markup: .plain))
            let elements = try #require(plain["$objects"]?[1]?["NS.objects"]?.arrayValue)
            #expect(elements.count == 2 && elements[0] == elements[1])  // one archived instance
        }

        @Test("random plain trees: Foundation writes them, we read them equal")
        func weReadFoundationRandomTrees() throws {
            // Foundation writes the string "$null" inline, where it reads back as nil (its own
            // unarchiver agrees): left out here, checked in `nullString`.
            var generator = PlainTreeGenerator(seed: 0x5EC0_DE, includesNullString: false)
            for _ in 0..<60 {
                let tree = generator.tree()
                let data = try Self.archive(Self.foundation(tree))
                let read = try Self.read(data)
                #expect(Self.foundation(read).isEqual(Self.foundation(tree)), "\(tree) → \(read)")
            }
        }

        @Test("the string \"$null\": Foundation's archive of it reads as nil, ours keeps it")
        func nullString() throws {
            #expect(try Self.read(Self.archive(NSArray(array: ["$null", "a"]))) == [nil, "a"])
            let ours = try ArchiveFormat.keyedArchive.write(["$null", "a"])
            #expect(try Self.unarchive(ours)?.isEqual(NSArray(array: ["$null", "a"])) == true)
        }

        @Test("a Swift NSCoding class archived by Foundation decodes into its Codable successor by alias")
        func moduleQualifiedClass() throws {
            let data = try Self.archive(LegacyNote(title: "groceries", count: 3))
            let tree = try Self.read(data)
            let object = try #require(tree.objectValue)
            #expect(object.typeName == "ModelVersioningTests.LegacyNote")
            #expect(object.fields == ["title": "groceries", "count": 3])

            let registry = try ModelRegistry([Note.self])
            let note = try ArchiveDecoder(registry: registry).decode(Note.self, from: data)
            #expect(note == Note(title: "groceries", count: 3))

            // And back: our archive of the note, under its old class name, is read by Foundation.
            var legacy = object
            legacy.fields = ["title": "milk", "count": 4]
            let ours = try ArchiveFormat.keyedArchive.write(.object(legacy))
            let unarchived = try NSKeyedUnarchiver.unarchivedObject(ofClass: LegacyNote.self, from: ours)
            #expect(unarchived?.title == "milk" && unarchived?.count == 4)
        }
    }

    /// Random trees of the values Foundation's plain classes hold (no objects, no references).
    struct PlainTreeGenerator {
        var random: SplitMix64
        let strings: [String]

        init(seed: UInt64, includesNullString: Bool) {
            random = SplitMix64(seed: seed)
            strings = ["", "a", "$key", "Åbenraa", "日本語", "🎉", "line\nbreak"] + (includesNullString ? ["$null"] : [])
        }

        mutating func tree() -> ArchiveValue {
            value(depth: 0)
        }

        private mutating func pick<T>(_ values: [T]) -> T {
            values[Int(random.next() % UInt64(values.count))]
        }

        private mutating func value(depth: Int) -> ArchiveValue {
            switch random.next() % (depth >= 3 ? 8 : 11) {
            case 0: return .null
            case 1: return .bool(random.next() % 2 == 0)
            case 2: return .int(pick([0, -1, .min, .max, Int64(bitPattern: random.next())]))
            case 3: return ArchiveValue(pick([UInt64.max, random.next()]))
            case 4: return .double(pick([0.5, -2.25, 1e300, Double(Int32(truncatingIfNeeded: random.next())) / 7]))
            case 5: return .string(pick(strings))
            case 6: return .data(Data((0..<Int(random.next() % 6)).map { UInt8($0) }))
            case 7: return .date(Date(timeIntervalSinceReferenceDate: Double(Int32(truncatingIfNeeded: random.next()))))
            case 8, 9: return .array((0..<Int(random.next() % 4)).map { _ in value(depth: depth + 1) })
            default:
                var entries = ArchiveDictionary()
                for _ in 0..<Int(random.next() % 4) {
                    let key = pick(strings)
                    if entries.index(forKey: key) == nil {
                        entries.appendUnchecked(value(depth: depth + 1), forKey: key)
                    }
                }
                return .dictionary(entries)
            }
        }
    }
#endif
