#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(ucrt)
    import ucrt
#endif

/// A string identified by its exact Unicode scalars: equal only to a string of the same scalars,
/// hashed by its UTF-8 bytes.
///
/// This is how archives identify keys and strings: Foundation's `NSString`, JSON objects,
/// property lists and keyed archives tell `"é"` (U+00E9) and `"e\u{301}"` (e and a combining
/// acute accent) apart, and so does ``ArchiveDictionary``, ``ArchiveValue``'s equality and the
/// diff. Swift's own `String` equality does not: it compares by canonical equivalence, so
/// `"\u{E9}" == "e\u{301}"` and `"\u{212B}" == "\u{C5}"` (ANGSTROM SIGN and LATIN CAPITAL
/// LETTER A WITH RING ABOVE) are both `true`. Use this wrapper for sets and dictionaries of
/// archived keys or strings.
///
/// ```swift
/// var seen = Set<ExactString>()
/// seen.insert(ExactString("\u{E9}"))
/// seen.insert(ExactString("e\u{301}")).inserted   // true: a different key
/// ```
package struct ExactString: Hashable, Sendable {
    package var string: String

    @inlinable
    package init(_ string: String) {
        self.string = string
    }

    @inlinable
    package static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.hasSameScalars(as: rhs.string)
    }

    @inlinable
    package func hash(into hasher: inout Hasher) {
        string.hashScalars(into: &hasher)
    }
}

extension String {
    /// Whether `other` has exactly the same Unicode scalars (the same UTF-8 bytes): the identity
    /// of archived keys and strings, where `==` compares by canonical equivalence (see
    /// ``ExactString``).
    ///
    /// As fast as `==` where `==` is fast: two copies of one string (the same storage, or the
    /// same small string) are equal without looking at their bytes, and strings of different
    /// lengths differ; only the rest are compared, out of line (so that callers need not retain
    /// the strings for the common cases), first with `==`, then by their bytes.
    @inlinable
    @inline(__always)
    package func hasSameScalars(as other: String) -> Bool {
        #if compiler(>=6.3)
            // The same representation: the same bytes (what `==` checks first, too).
            if _isIdentical(to: other) { return true }
        #endif
        guard utf8.count == other.utf8.count else { return false }
        return hasSameBytes(as: other)
    }

    /// Whether `other`, of the same UTF-8 length, has the same bytes.
    @usableFromInline
    @inline(never)
    internal func hasSameBytes(as other: String) -> Bool {
        // The same scalars are canonically equivalent: `==` rules most other strings out
        // cheaply (short ASCII ones in a few instructions) before their bytes are compared.
        guard self == other else { return false }
        let lhs = utf8
        let rhs = other.utf8
        let compared = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in String.equalBytes(left, right) }
        }
        if let compared, let compared { return compared }
        return lhs.elementsEqual(rhs)
    }

    /// Whether two buffers hold the same bytes: short ones (most keys) a word at a time in
    /// line, long ones with `memcmp`.
    @inline(__always)
    private static func equalBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = left.count
        guard count == right.count else { return false }
        guard count > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
        if count > 32 { return memcmp(leftBase, rightBase, count) == 0 }
        var offset = 0
        while offset &+ 8 <= count {
            let a = UnsafeRawPointer(leftBase + offset).loadUnaligned(as: UInt64.self)
            let b = UnsafeRawPointer(rightBase + offset).loadUnaligned(as: UInt64.self)
            if a != b { return false }
            offset &+= 8
        }
        while offset < count {
            if leftBase[offset] != rightBase[offset] { return false }
            offset &+= 1
        }
        return true
    }

    /// Feeds the string's UTF-8 bytes and their count to `hasher`: strings with the same scalars
    /// hash alike (see ``hasSameScalars(as:)``), and canonically equivalent spellings apart.
    @inlinable
    package func hashScalars(into hasher: inout Hasher) {
        let bytes = utf8
        hasher.combine(bytes.count)
        let hashed: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            hasher.combine(bytes: UnsafeRawBufferPointer(buffer))
        }
        if hashed == nil {
            var contiguous = self
            contiguous.makeContiguousUTF8()
            _ = contiguous.utf8.withContiguousStorageIfAvailable { buffer in
                hasher.combine(bytes: UnsafeRawBufferPointer(buffer))
            }
        }
    }

    /// A total order that tells apart what ``hasSameScalars(as:)`` tells apart: `<` (canonical
    /// order) first, and for canonically equivalent spellings their UTF-8 bytes. Sorting by it
    /// gives the same order as `<` whenever no two strings are canonically equivalent.
    @inlinable
    package func precedesExactly(_ other: String) -> Bool {
        if self < other { return true }
        if other < self { return false }
        return utf8.lexicographicallyPrecedes(other.utf8)
    }
}
