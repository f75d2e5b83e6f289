import Foundation

/// State shared by every encoder of one encoding run.
final class EncodingSession {
    // Touched on every model object; never accessed overlappingly (one run, one thread).
    @exclusivity(unchecked) var infos: ModelInfoCache
    @exclusivity(unchecked) var graph = EncodingGraph()
    /// The makers of the keyed containers, by key type.
    let keyedContainerMakers = KeyedContainerMakers()
    /// The last key sequence each model wrote, known to hold no key twice: a model writes the
    /// same keys for every instance, so checking a new object against it is one comparison per
    /// key instead of one per pair of keys.
    @exclusivity(unchecked) private var checkedKeys: [ObjectIdentifier: [String]] = [:]
    @exclusivity(unchecked) private var lastChecked: (model: ObjectIdentifier, keys: [String])?
    /// The most keys a keyed container of each `CodingKey` type has written, so that the next
    /// one reserves that many entries: no regrowth while it fills, and little spare capacity
    /// left in the tree (a fixed reservation of eight leaves six empty slots in a 2-key point).
    @exclusivity(unchecked) private var keyCounts: [ObjectIdentifier: Int] = [:]
    /// The last key type and count looked up at each depth: objects at one depth tend to be of
    /// one type, so most containers find their count here without hashing.
    @exclusivity(unchecked) private var recentKeyCounts: [(keyType: ObjectIdentifier, count: Int)] = []
    let limits: ArchiveLimits
    let userInfo: [CodingUserInfoKey: Any]

    init(registry: ModelRegistry?, limits: ArchiveLimits, userInfo: [CodingUserInfoKey: Any]) {
        self.infos = ModelInfoCache(registry: registry)
        self.limits = limits
        self.userInfo = userInfo
    }

    /// A new keyed container's storage for keys of type `keyType`, sized for what the
    /// containers of that type wrote before (see `noteKeyCount(of:depth:)`).
    func keyedStorage(for keyType: Any.Type, depth: Int) -> KeyedEncodingStorage {
        let id = ObjectIdentifier(keyType)
        if depth < recentKeyCounts.count, recentKeyCounts[depth].keyType == id {
            return KeyedEncodingStorage(keyType: id, expectedCount: recentKeyCounts[depth].count)
        }
        let recent = (keyType: id, count: keyCounts[id] ?? 0)
        if depth < recentKeyCounts.count {
            recentKeyCounts[depth] = recent
        } else {
            recentKeyCounts.append(contentsOf: repeatElement(recent, count: depth + 1 - recentKeyCounts.count))
        }
        return KeyedEncodingStorage(keyType: id, expectedCount: recent.count)
    }

    /// Remembers how many keys `storage` wrote, for the next container of its key type.
    func noteKeyCount(of storage: KeyedEncodingStorage, depth: Int) {
        guard let keyType = storage.keyType, storage.entries.count > storage.expectedCount else { return }
        let count = storage.entries.count
        guard count > keyCounts[keyType] ?? 0 else { return }
        keyCounts[keyType] = count
        if depth < recentKeyCounts.count, recentKeyCounts[depth].keyType == keyType {
            recentKeyCounts[depth].count = count
        }
    }

    /// The fields of a model's keyed container, with repeated keys resolved (see
    /// ``KeyedEncodingStorage/finish(checkedKeys:)``).
    func fields(of storage: KeyedEncodingStorage, model: ModelInfo, depth: Int) throws -> ArchiveDictionary {
        noteKeyCount(of: storage, depth: depth)
        let id = ObjectIdentifier(model)
        let known = lastChecked?.model == id ? lastChecked?.keys : checkedKeys[id]
        let (fields, matched) = try storage.finish(checkedKeys: known)
        if !matched {
            let keys = fields.keys
            checkedKeys[id] = keys
            lastChecked = (id, keys)
        } else if lastChecked?.model != id, let known {
            lastChecked = (id, known)
        }
        return fields
    }
}
