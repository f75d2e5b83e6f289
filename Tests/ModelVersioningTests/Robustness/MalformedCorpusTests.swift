import Foundation
import TestModels
import TestSupport
import Testing

@testable import ModelVersioning

/// Every file of `Fixtures/malformed`: the must-fail files other projects test their readers
/// with, and every input a fuzz target of this project ever stopped on (see the folder's
/// README). Reading one gives a value or an `ArchiveError` with the code the README gives —
/// never a crash — and so does decoding it into a model.
@Suite("Malformed corpus")
struct MalformedCorpusTests {
    /// What reading a file must give.
    enum Expectation: Sendable, CustomStringConvertible {
        /// An `ArchiveError` with this code (and, for a limit, naming this limit).
        case rejected(ArchiveError.Code, ArchiveLimits.Limit? = nil)
        /// A value, or an `ArchiveError` with one of these codes (fuzzer output whose origin says
        /// "read it or reject it, never crash").
        case readOrRejected([ArchiveError.Code])
        /// A value.
        case reads

        var description: String {
            switch self {
            case .rejected(let code, let limit): return "rejected (\(code)\(limit.map { ", \($0)" } ?? ""))"
            case .readOrRejected(let codes):
                return "read or rejected (\(codes.map(\.rawValue).joined(separator: ", ")))"
            case .reads: return "read"
            }
        }
    }

    /// The reader a file is meant for.
    enum Reader: String, Sendable {
        case json, propertyList, keyedArchive

        func read(_ data: Data, limits: ArchiveLimits) throws {
            let options = ArchiveReadingOptions(limits: limits)
            switch self {
            case .json: _ = try ArchiveFormat.json.read(data, options: options)
            // One reader for binary, XML and OpenStep property lists, told apart by content.
            case .propertyList: _ = try ArchiveFormat.binaryPropertyList.read(data, options: options)
            case .keyedArchive: _ = try ArchiveFormat.keyedArchive.read(data, options: options)
            }
        }
    }

    /// One file: what its own reader must give, and what format detection and reading
    /// (`ArchiveFormat.read`, which the decoder uses) must give.
    struct Case: Sendable, CustomTestStringConvertible {
        var path: String
        var reader: Reader
        var expectation: Expectation
        var detected: Expectation
        var limits: ArchiveLimits = .default

        var testDescription: String { path }
    }

    static let root = Fixture.url("malformed")

    /// The limits the fuzz targets run with (`Fuzz/Sources/FuzzSupport/FuzzCheck.swift`): the
    /// defaults with the object count and the expanded references lowered so that no input
    /// takes longer than a second under AddressSanitizer. Fuzzer finds are read with them.
    static let fuzzLimits: ArchiveLimits = {
        var limits = ArchiveLimits.default
        limits.maxObjectCount = 200_000
        limits.maxReferencesExpanded = 20_000
        return limits
    }()

    /// The third-party folders, whose origins say every file must be rejected.
    static let mustFailOrigins = [
        "swift-foundation", "cpython-plistlib", "biplist/data", "rust-plist", "kiler129-php", "danielpaulus-go",
        "bpylist2",
    ]

    /// Inputs the fuzz targets stopped on, with what they give now (the README says what each is).
    static let fuzzerFinds: [String: (Reader, Expectation)] = [
        // fuzz-keyed, timeout: the root array uses one array of 1,000 numbers 976 times. The
        // reader copied the shared array for every use (3.5 s under AddressSanitizer at the
        // default limits); it now shares one copy, and the fuzz limits stop it at 20,000 copies.
        "keyed-archive/array-of-976-uses-of-a-shared-array-of-1000.plist": (
            .keyedArchive, .rejected(.limitExceeded, .referencesExpanded)
        )
    ]

    /// Where detection reads a must-fail file otherwise than its own reader.
    static let detectedOtherwise: [String: Expectation] = [
        // "a;djflkadjsflsakdjf" is no format at all; the property-list reader takes any text for
        // OpenStep and rejects it as malformed.
        "biplist/data/bogus_file.plist": .rejected(.unsupportedFormat),
        // Starts in the middle of the XML declaration (`="1.0" …`).
        "danielpaulus-go/broken_plist.xml": .rejected(.unsupportedFormat),
        // A well-formed property list without `$archiver`: no keyed archive, so detection reads
        // it as the plain property list it is.
        "danielpaulus-go/missing_archiver.xml": .reads,
    ]

    /// What a file must give, from the README: the origin's word for third-party files, the
    /// table above for fuzzer finds.
    static func makeCase(_ path: String, data: Data) -> Case? {
        if let (reader, find) = fuzzerFinds[path] {
            return Case(path: path, reader: reader, expectation: find, detected: find, limits: fuzzLimits)
        }
        if path.hasPrefix("biplist/fuzz_data/") {
            // biplist's own fuzzer output: "must be rejected or read, never crash".
            let either = Expectation.readOrRejected([.malformedInput, .limitExceeded])
            return Case(path: path, reader: .propertyList, expectation: either, detected: either)
        }
        guard mustFailOrigins.contains(where: { path.hasPrefix($0 + "/") }) else { return nil }
        let reader: Reader = isKeyedOrigin(path) ? .keyedArchive : .propertyList
        let expectation = Expectation.rejected(data.isEmpty ? .unsupportedFormat : .malformedInput)
        return Case(
            path: path, reader: reader, expectation: expectation, detected: detectedOtherwise[path] ?? expectation)
    }

    /// Every file below the folder (its README and CPython's INDEX.txt left out).
    static let paths: [String] = {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var paths: [String] = []
        while let next = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard
                FileManager.default.fileExists(
                    atPath: root.appendingPathComponent(next).path, isDirectory: &isDirectory),
                !isDirectory.boolValue, !next.hasSuffix("README.md"), !next.hasSuffix("INDEX.txt")
            else { continue }
            paths.append(next)
        }
        return paths.sorted()
    }()

    static let cases: [Case] = paths.compactMap { path in
        guard let data = try? Data(contentsOf: root.appendingPathComponent(path)) else { return nil }
        return makeCase(path, data: data)
    }

    /// How a call ended.
    enum Outcome {
        case value
        case error(ArchiveError)
    }

    /// Runs `body`; records an issue for anything thrown that is not an `ArchiveError`.
    static func outcome(_ what: String, _ body: () throws -> Void) -> Outcome? {
        do {
            try body()
            return .value
        } catch let error as ArchiveError {
            return .error(error)
        } catch {
            Issue.record("\(what) threw \(type(of: error)), not an ArchiveError: \(error)")
            return nil
        }
    }

    static func check(_ outcome: Outcome?, against expectation: Expectation, _ what: String) {
        switch (outcome, expectation) {
        case (nil, _):
            break
        case (.value, .rejected):
            Issue.record("\(what): read, but must be \(expectation)")
        case (.error(let error), .rejected(let code, let limit)):
            #expect(error.code == code, "\(what): \(error)")
            if let limit { #expect(error.limit == limit, "\(what): \(error)") }
        case (.value, .readOrRejected), (.value, .reads):
            break
        case (.error(let error), .reads):
            Issue.record("\(what): must read, but \(error)")
        case (.error(let error), .readOrRejected(let codes)):
            #expect(codes.contains(error.code), "\(what): \(error)")
        }
    }

    // MARK: - Tests

    @Test("every file reads as a value or the expected ArchiveError; decoding it too", arguments: cases)
    func file(_ entry: Case) throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent(entry.path))
        let own = Self.outcome("the \(entry.reader) reader") { try entry.reader.read(data, limits: entry.limits) }
        Self.check(own, against: entry.expectation, "\(entry.path), \(entry.reader) reader")
        if case .error(let error) = own, error.code == .malformedInput, entry.reader != .keyedArchive {
            // Parsers say where: a byte offset, or a line and column.
            #expect(error.location != nil, "\(entry.path): \(error)")
        }

        let detected = Self.outcome("ArchiveFormat.read") {
            _ = try ArchiveFormat.read(data, options: ArchiveReadingOptions(limits: entry.limits))
        }
        Self.check(detected, against: entry.detected, "\(entry.path), ArchiveFormat.read")

        // The decoder reads the same way, then migrates and decodes into a polymorphic model.
        var options = DecodingOptions()
        options.limits = entry.limits
        let decoder = ArchiveDecoder(registry: shapesRegistry, options: options)
        let decoded = Self.outcome("ArchiveDecoder.decode") { _ = try decoder.decode(Contents.self, from: data) }
        switch (detected, decoded) {
        case (.error(let readError), .error(let decodeError)):
            #expect(decodeError.code == readError.code, "\(entry.path): \(decodeError)")
        case (.error, .value):
            Issue.record("\(entry.path): decoded although it does not read")
        case (.value, .error(let error)):
            // The tree is no Contents archive: a Codable error, never a reading one.
            #expect(
                [.typeMismatch, .keyNotFound, .valueNotFound, .dataCorrupted, .unknownType, .limitExceeded].contains(
                    error.code), "\(entry.path): \(error)")
        default:
            break
        }
    }

    static func isKeyedOrigin(_ path: String) -> Bool {
        ["kiler129-php/", "danielpaulus-go/", "bpylist2/"].contains { path.hasPrefix($0) }
    }

    @Test("every file of the folder has an expectation")
    func everyFileIsCovered() {
        let covered = Set(Self.cases.map(\.path))
        for path in Self.paths {
            #expect(covered.contains(path), "\(path) has no expectation: add it to the README and to fuzzerFinds")
        }
    }

    @Test("the third-party corpus is complete: 94 files from seven origins")
    func thirdPartyCount() {
        let counts = Dictionary(
            grouping: Self.paths.filter { path in
                (Self.mustFailOrigins + ["biplist/fuzz_data"]).contains { path.hasPrefix($0 + "/") }
            },
            by: { String($0.prefix { $0 != "/" }) }
        ).mapValues(\.count)
        // The fixture READMEs' lists: 3 `*.bad`; CPython's entity file and 40 invalid binaries;
        // biplist's 4 bogus files and 12 fuzzer files; rust-plist's 4; kiler129's 7 broken
        // archives in XML and binary; danielpaulus's 7; bpylist2's 9.
        #expect(
            counts == [
                "swift-foundation": 3, "cpython-plistlib": 41, "biplist": 16, "rust-plist": 4, "kiler129-php": 14,
                "danielpaulus-go": 7, "bpylist2": 9,
            ])
    }
}
