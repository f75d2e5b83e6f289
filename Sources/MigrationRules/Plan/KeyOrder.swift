/// The order a release wrote an object's keys in (``AppRelease/keyOrders``), ready to put a
/// downgraded object's keys back in it: the listed keys in their order, then the keys the list
/// does not name, as they were. Dotted names order the keys of a nested dictionary.
///
/// ```swift
/// let order = KeyOrder(["title", "meta.author", "meta.created", "shapes"])
/// order.apply(to: &fields)    // {shapes, meta: {created, author}, title} → {title, meta: {author, created}, shapes}
/// ```
struct KeyOrder: Sendable {
    /// The keys of this level, in order.
    private(set) var keys: [String] = []
    /// The order inside the nested dictionaries of some of them.
    private(set) var nested: [String: KeyOrder] = [:]

    init(_ names: [String]) {
        var inner: [String: [String]] = [:]
        for name in names {
            let parts = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0])
            if !keys.contains(where: { $0.hasSameScalars(as: key) }) { keys.append(key) }
            if parts.count == 2 { inner[key, default: []].append(String(parts[1])) }
        }
        for (key, names) in inner { nested[key] = KeyOrder(names) }
    }

    /// What makes `names` no order: an empty name or one listed twice (`nil` when there is none).
    static func firstProblem(in names: [String]) -> String? {
        var seen = Set<[Unicode.Scalar]>()
        for name in names {
            guard !name.isEmpty, !name.split(separator: ".", omittingEmptySubsequences: false).contains("") else {
                return "an empty key in '\(name)'"
            }
            guard seen.insert(Array(name.unicodeScalars)).inserted else { return "'\(name)' twice" }
        }
        return nil
    }

    /// Puts `fields` in this order: the listed keys first, in their order, then the others as
    /// they were; nested dictionaries of listed keys likewise.
    func apply(to fields: inout ArchiveDictionary) {
        var ordered: [ArchiveDictionary.Entry] = []
        ordered.reserveCapacity(fields.count)
        var taken = [Bool](repeating: false, count: fields.count)
        for key in keys {
            guard let index = fields.index(forKey: key), !taken[index] else { continue }
            taken[index] = true
            var entry = fields.entries[index]
            if let inner = nested[key], var dictionary = entry.value.dictionaryValue {
                inner.apply(to: &dictionary)
                entry.value = .dictionary(dictionary)
            }
            ordered.append(entry)
        }
        for index in fields.entries.indices where !taken[index] {
            ordered.append(fields.entries[index])
        }
        fields = ArchiveDictionary(uniqueStoredEntries: ordered)
    }
}
