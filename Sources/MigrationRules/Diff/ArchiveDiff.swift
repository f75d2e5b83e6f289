/// The semantic difference of two archive trees, as paths.
///
/// ```swift
/// for difference in ArchiveDiff.differences(from: expected, to: actual) {
///     print(difference)      // ~ shapes[1].radius: 3 → 3.5
/// }
/// ```
///
/// Semantic means: dictionary and object keys compare as sets (order is not meaning) of exact
/// Unicode scalars, as strings do (`"\u{E9}"` and `"e\u{301}"` differ, see ``ArchiveValue``), arrays
/// compare element by element, objects compare by type name, version and fields, and — unless
/// ``Options/numbersByValue`` is off — `1` and `1.0` are the same number. With
/// ``Options/nullMeansAbsent``, a key holding `null` equals a missing key.
///
/// Types matter otherwise: values of different kinds are never equal, however alike they are
/// spelled — data and the base64 text of its bytes, a date and its ISO 8601 text, a dictionary
/// and an object — and such a difference says both kinds (``ArchiveDifference/isChangeOfKind``):
///
/// ```
/// ~ BackgroundColor: <274 bytes> → "YnBsaXN0MDDUAQIDBAUGBwpY…" (data → string)
/// ```
public enum ArchiveDiff {
    /// How values are compared.
    public struct Options: Sendable, Hashable {
        /// Whether integers and doubles of the same value are equal (`1` and `1.0`).
        public var numbersByValue: Bool
        /// Whether a key whose value is `null` counts as absent (what an `Optional` property
        /// decodes either way): `{"focus": null}` then equals `{}`.
        public var nullMeansAbsent: Bool
        /// The most differences reported; the walk stops there.
        public var limit: Int

        /// Options that by default compare numbers by value, tell `null` from a missing key, and stop at 1000
        /// differences.
        public init(numbersByValue: Bool = true, nullMeansAbsent: Bool = false, limit: Int = 1000) {
            self.numbersByValue = numbersByValue
            self.nullMeansAbsent = nullMeansAbsent
            self.limit = limit
        }
    }

    /// The differences from `old` to `new`, in document order.
    public static func differences(
        from old: ArchiveValue, to new: ArchiveValue, options: Options = .init()
    ) -> [ArchiveDifference] {
        var walker = Walker(options: options)
        walker.compare(old, new, at: .root)
        return walker.differences
    }

    private struct Walker {
        let options: Options
        var differences: [ArchiveDifference] = []

        init(options: Options) {
            self.options = options
        }

        var isFull: Bool { differences.count >= options.limit }

        mutating func note(
            _ kind: ArchiveDifference.Kind, _ path: ArchivePath, _ old: ArchiveValue?, _ new: ArchiveValue?
        ) {
            guard !isFull else { return }
            differences.append(ArchiveDifference(path: path, kind: kind, old: old, new: new))
        }

        mutating func compare(_ old: ArchiveValue, _ new: ArchiveValue, at path: ArchivePath) {
            guard !isFull else { return }
            switch (old, new) {
            case (.dictionary(let a), .dictionary(let b)):
                compare(a, b, at: path)
            case (.object(let a), .object(let b)):
                if !a.typeName.hasSameScalars(as: b.typeName) {
                    note(.changed, path.appending("$type"), .string(a.typeName), .string(b.typeName))
                }
                if a.version != b.version {
                    note(
                        .changed, path.appending("$version"), a.version.map { .int(Int64($0)) } ?? .null,
                        b.version.map { .int(Int64($0)) } ?? .null)
                }
                if a.id != b.id {
                    note(
                        .changed, path.appending("$id"), a.id.map { .int(Int64($0.rawValue)) } ?? .null,
                        b.id.map { .int(Int64($0.rawValue)) } ?? .null)
                }
                compare(a.fields, b.fields, at: path)
            case (.array(let a), .array(let b)):
                for index in 0..<min(a.count, b.count) {
                    compare(a[index], b[index], at: path.appending(index))
                }
                if a.count > b.count {
                    for index in b.count..<a.count { note(.removed, path.appending(index), a[index], nil) }
                } else if b.count > a.count {
                    for index in a.count..<b.count { note(.added, path.appending(index), nil, b[index]) }
                }
            default:
                if !equal(old, new) { note(.changed, path, old, new) }
            }
        }

        /// Keys are matched by their exact Unicode scalars; each look-up starts after the
        /// previous hit (keys in the same order cost one comparison each) and large
        /// dictionaries find the others through their index, so the walk takes linear time.
        /// `b`'s keys found from `a` are marked, so that only the others are looked up in `a`
        /// (one random look-up per key in all, not two).
        mutating func compare(_ a: ArchiveDictionary, _ b: ArchiveDictionary, at path: ArchivePath) {
            var matched = [Bool](repeating: false, count: b.count)
            if let index = b.keyIndex, index.firstDuplicate == nil {
                compareGrouped(a, b, index: index, matched: &matched, at: path)
            } else {
                var hint = 0
                for (key, value) in a {
                    guard !isFull else { return }
                    let position = b.index(forKey: key, startingAt: hint)
                    if let position { hint = position + 1 }
                    let other = position.map { b.value(at: $0) }
                    compareEntry(
                        key, value, position, other, otherIsContainer: other?.isContainer ?? false, matched: &matched,
                        at: path)
                }
            }
            for (position, (key, value)) in b.enumerated() where !matched[position] {
                guard !isFull else { return }
                // A key of `b` that no key of `a` found: added, unless it repeats an earlier key.
                if a.index(forKey: key) != nil { continue }
                if options.nullMeansAbsent && value.isNull { continue }
                note(.added, path.appending(key), nil, value)
            }
        }

        /// `a`'s keys found in a large `b` without repeated keys, a group at a time: those in
        /// `b`'s order by one comparison each, the others through `b`'s index together
        /// (`KeyIndex.positions(ofGroup:…)`), whose reads of a table larger than the caches then
        /// overlap instead of each waiting for memory.
        private mutating func compareGrouped(
            _ a: ArchiveDictionary, _ b: ArchiveDictionary, index: KeyIndex, matched: inout [Bool],
            at path: ArchivePath
        ) {
            let groupSize = KeyIndex.groupSize
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 4 * groupSize) { buffer in
                guard let positions = buffer.baseAddress else { return }
                // The members the index looks up, what it finds for them, and whether the values
                // found are containers.
                let lookedUp = positions + groupSize
                let found = positions + 2 * groupSize
                let containers = positions + 3 * groupSize
                var hint = 0
                var start = 0
                while start < a.entries.count {
                    guard !isFull else { return }
                    let members = min(groupSize, a.entries.count - start)
                    var missing = 0
                    for member in 0..<members {
                        if hint < b.entries.count
                            && b.entries[hint].key.hasSameScalars(as: a.entries[start + member].key)
                        {
                            positions[member] = hint
                            hint += 1
                        } else {
                            lookedUp[missing] = member
                            missing += 1
                        }
                    }
                    if missing > 0 {
                        index.positions(
                            ofGroup: missing, key: { a.entries[start + lookedUp[$0]].key }, in: b.entries,
                            into: found)
                        for offset in 0..<missing { positions[lookedUp[offset]] = found[offset] }
                        if positions[members - 1] >= 0 { hint = positions[members - 1] + 1 }
                    }
                    // The values found, read before any is compared: an entry can straddle two
                    // cache lines, and these reads overlap too.
                    for member in 0..<members {
                        let position = positions[member]
                        containers[member] = position >= 0 && b.entries[position].value.isContainer ? 1 : 0
                    }
                    for member in 0..<members {
                        guard !isFull else { return }
                        let position = positions[member]
                        compareEntry(
                            a.entries[start + member].key, a.entries[start + member].value,
                            position >= 0 ? position : nil, position >= 0 ? b.entries[position].value : nil,
                            otherIsContainer: containers[member] != 0, matched: &matched, at: path)
                    }
                    start += members
                }
            }
        }

        /// One key of `a` and its value against `other`, the value of `b`'s entry at `position`
        /// (both `nil`: `b` lacks the key), a container when `otherIsContainer`.
        @inline(__always)
        private mutating func compareEntry(
            _ key: String, _ value: ArchiveValue, _ position: Int?, _ other: ArchiveValue?, otherIsContainer: Bool,
            matched: inout [Bool], at path: ArchivePath
        ) {
            if let position, let other {
                matched[position] = true
                if value.isContainer && otherIsContainer {
                    compare(value, other, at: path.appending(key))
                } else if !equal(value, other) {
                    // Scalars (or a scalar and a container): the path is built only for a difference.
                    note(.changed, path.appending(key), value, other)
                }
            } else if !(options.nullMeansAbsent && value.isNull) {
                note(.removed, path.appending(key), value, nil)
            }
        }

        func equal(_ a: ArchiveValue, _ b: ArchiveValue) -> Bool {
            if a == b { return true }
            guard options.numbersByValue else { return false }
            switch (a, b) {
            case (.double(let x), .int(let i)), (.int(let i), .double(let x)):
                return Int64(exactly: x) == i
            case (.double(let x), .uint(let u)), (.uint(let u), .double(let x)):
                return UInt64(exactly: x) == u
            default:
                return false
            }
        }
    }
}
