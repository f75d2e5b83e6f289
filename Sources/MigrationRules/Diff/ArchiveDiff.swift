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
            var hint = 0
            var matched = [Bool](repeating: false, count: b.count)
            for (key, value) in a {
                guard !isFull else { return }
                if let position = b.index(forKey: key, startingAt: hint) {
                    hint = position + 1
                    matched[position] = true
                    let other = b.value(at: position)
                    if value.isContainer && other.isContainer {
                        compare(value, other, at: path.appending(key))
                    } else if !equal(value, other) {
                        // Scalars (or a scalar and a container): the path is built only for a difference.
                        note(.changed, path.appending(key), value, other)
                    }
                } else if !(options.nullMeansAbsent && value.isNull) {
                    note(.removed, path.appending(key), value, nil)
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
