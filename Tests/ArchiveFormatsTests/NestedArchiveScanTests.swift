import Foundation
import Testing

@testable import ArchiveFormats

@Suite("Nested archive scan")
struct NestedArchiveScanTests {
    @Test("data values read before are found by all their bytes, not by the first 80 that Data hashes")
    func keysHashEveryByte() {
        let first = Data(repeating: 0x62, count: 200)
        var second = first
        second[150] = 0x63
        // Foundation's Data hash reads a prefix: the two collide there.
        #expect(first.hashValue == second.hashValue)
        let key = NestedArchiveScanner.Scan.Key(bytes: first, depthLeft: 3)
        #expect(key.hashValue != NestedArchiveScanner.Scan.Key(bytes: second, depthLeft: 3).hashValue)
        #expect(key.hashValue != NestedArchiveScanner.Scan.Key(bytes: first, depthLeft: 2).hashValue)
        #expect(key == NestedArchiveScanner.Scan.Key(bytes: Data(first), depthLeft: 3))
    }
}
