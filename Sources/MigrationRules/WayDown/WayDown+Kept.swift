/// What a way down (``WayDown``) took out of one object on its way down to an older release,
/// kept beside the object so that the newer app gets it back.
///
/// It is a field of the object (its on-disk name, part of the stable archive format, predates
/// the type's), `$wayBack` (spelled `$$wayBack` in JSON, like every model key
/// that starts with `$`), so an older app whose model keeps unknown fields (ModelVersioning's
/// `UnknownFields`) writes it back unchanged through its decode → edit → encode, as it does any
/// key it does not know:
///
/// ```json
/// "$$wayBack": {
///   "type": "Drawing", "version": 4,
///   "fields": { "focus": null },
///   "base": { "focus": null },
///   "references": [ [ "focus", 1 ] ]
/// }
/// ```
///
/// - `type`, `version`: what the object was before the way down.
/// - `fields`: the value each kept key had then (`absent` lists kept keys it did not have);
///   `base`: the value the newer app's upgrade gives that key when the older app did not touch
///   it (left out when it gives none). The keys kept are those whose values do not survive the
///   way down and back up: fields the older release lacks, values a lossy conversion dropped.
/// - `references`: where a kept value referred to another object, and that object's anchor (a
///   reference inside `fields` is written as `null`, since the older app renumbers identities);
///   `anchor`: this object's anchor, when kept references point to it.
///
/// On the way back up, the pass upgrades the object to `version` (through the downgrade
/// fallback's rules backwards when it was written as another type), then, key by key, puts the
/// kept value back where the upgraded value equals `base` — where it differs, the older app
/// changed that field, and its edit wins — and continues to today's version.
extension WayDown {
    struct Kept: Sendable {
        /// The reserved field.
        static let key = "$wayBack"

        /// One kept key.
        struct Field: Sendable {
            var key: String
            /// The value before the way down; `nil` when the object had no such key.
            var original: ArchiveValue?
            /// What the upgrade gives the key when the older app did not change it; `nil` for nothing.
            var base: ArchiveValue?
            /// References inside ``original``: their paths (below the key) and anchors.
            var references: [(path: ArchivePath, anchor: Int)] = []
        }

        /// The object's type name and version before the way down; `nil` for an anchor alone.
        var typeName: String?
        var version: Int?
        var kept: [Field] = []
        /// This object's anchor, when kept references point to it.
        var anchor: Int?

        /// What the way down did to one object, in order.
        enum Segment {
            /// The chain's steps from `from` down to `to`.
            case steps(chain: Int, from: Int, to: Int)
            /// The chain's downgrade fallback, applied to an object named `typeName` at `version`.
            case fallback(chain: Int, typeName: String, version: Int)
        }

        // MARK: Keeping (on the way down)

        /// What to keep of `original` (without its own `$wayBack`), which became `downgraded` through
        /// `segments`; `nil` when the way down loses nothing and the object keeps its type.
        ///
        /// The kept keys are found by taking `downgraded` back up through the inverse of every rule
        /// that ran (a rule without one, such as a `remove` without a value to restore, does nothing
        /// on the way up): where the result differs from `original`, the key is kept with the value
        /// the result has as its base. When a rule fails on the way up, every key is kept, with no
        /// base. The rules run on the way up count against `work` as on the way down.
        ///
        /// - Throws: ``ArchiveError/Code/limitExceeded`` when they do more work than `work` allows.
        static func keeping(
            _ original: ArchiveObject, version: Int, downgraded: ArchiveObject, segments: [Segment],
            catalog: MigrationCatalog, path: ArchivePath, work: inout RuleWork
        ) throws -> WayDown.Kept? {
            var target = MigrationTarget(
                fields: downgraded.fields, typeName: downgraded.typeName, version: downgraded.version, path: path)
            target.work = work
            defer { work = target.work }
            var changesType = false
            var upgraded: ArchiveDictionary?
            do {
                for segment in segments.reversed() {
                    switch segment {
                    case .steps(let index, let from, let to):
                        let chain = catalog.chains[index]
                        for step in to..<from {
                            guard let down = chain.inverse(ofStep: step - chain.oldestVersion) else {
                                throw Unrecoverable()
                            }
                            for rule in down.rules.reversed() { try rule.inverse?.apply(to: &target) }
                        }
                    case .fallback(let index, let typeName, _):
                        changesType = true
                        for rule in catalog.fallbacks[index]?.rules.reversed() ?? [] {
                            try rule.inverse?.apply(to: &target)
                        }
                        try target.renameType(to: typeName)
                    }
                }
                upgraded = target.fields
            } catch let error as ArchiveError where error.limit == .ruleWork {
                throw error
            } catch {
                upgraded = nil
            }
            var keeping = WayDown.Kept(typeName: original.typeName, version: version)
            for entry in original.fields.entries where entry.key != key {
                let base = upgraded.map { $0[entry.key] } ?? nil
                if upgraded == nil || base != entry.value {
                    keeping.kept.append(Field(key: entry.key, original: entry.value, base: base))
                }
            }
            for entry in upgraded?.entries ?? [] where original.fields.index(forKey: entry.key) == nil {
                keeping.kept.append(Field(key: entry.key, original: nil, base: entry.value))
            }
            guard !keeping.kept.isEmpty || changesType || target.typeName != original.typeName else { return nil }
            for index in keeping.kept.indices {
                if var value = keeping.kept[index].original {
                    var found: [(ArchivePath, Int)] = []
                    Self.takeReferences(&value, at: [], into: &found, depth: 0)
                    keeping.kept[index].original = value
                    keeping.kept[index].references = found.map { (path: $0.0, anchor: $0.1) }
                }
                if var base = keeping.kept[index].base {
                    var ignored: [(ArchivePath, Int)] = []
                    Self.takeReferences(&base, at: [], into: &ignored, depth: 0)
                    keeping.kept[index].base = base
                }
            }
            return keeping
        }

        private struct Unrecoverable: Error {}

        /// Replaces every reference inside `value` by `null`, noting its path and identity: the
        /// older app renumbers identities, so a kept reference goes by the anchor of the object it
        /// points to.
        private static func takeReferences(
            _ value: inout ArchiveValue, at path: [ArchivePath.Component], into found: inout [(ArchivePath, Int)],
            depth: Int
        ) {
            guard depth < maxDepth else { return }
            switch value {
            case .reference(let id):
                found.append((ArchivePath(path), id.rawValue))
                value = .null
            case .array(var elements):
                value = .null
                for index in elements.indices where elements[index].isContainer || elements[index].isReference {
                    takeReferences(&elements[index], at: path + [.index(index)], into: &found, depth: depth + 1)
                }
                value = .array(elements)
            case .dictionary(var entries):
                value = .null
                for index in entries.entries.indices {
                    takeReferences(
                        &entries.entries[index].value, at: path + [.key(entries.entries[index].key)], into: &found,
                        depth: depth + 1)
                }
                value = .dictionary(entries)
            case .object(var object):
                value = .null
                var fields = object.takeFields()
                for index in fields.entries.indices {
                    takeReferences(
                        &fields.entries[index].value, at: path + [.key(fields.entries[index].key)], into: &found,
                        depth: depth + 1)
                }
                object.fields = fields
                value = .object(object)
            default:
                break
            }
        }

        /// The nesting followed inside kept values: the pass has checked the tree against its limits
        /// already, so this only keeps a hostile `$wayBack` from recursing without end.
        static let maxDepth = 256

        // MARK: Spelling

        /// The `$wayBack` value.
        var tree: ArchiveValue {
            var entries = ArchiveDictionary()
            if let typeName { entries.appendUnchecked(.string(typeName), forKey: "type") }
            if let version { entries.appendUnchecked(.int(Int64(version)), forKey: "version") }
            var fields = ArchiveDictionary()
            var absent: [ArchiveValue] = []
            var bases = ArchiveDictionary()
            var references: [ArchiveValue] = []
            for kept in kept {
                if let original = kept.original {
                    fields.appendUnchecked(original, forKey: kept.key)
                } else {
                    absent.append(.string(kept.key))
                }
                if let base = kept.base { bases.appendUnchecked(base, forKey: kept.key) }
                for reference in kept.references {
                    let path = ArchivePath([.key(kept.key)]).appending(reference.path)
                    references.append([.string(path.description), .int(Int64(reference.anchor))])
                }
            }
            if !fields.isEmpty { entries.appendUnchecked(.dictionary(fields), forKey: "fields") }
            if !absent.isEmpty { entries.appendUnchecked(.array(absent), forKey: "absent") }
            if !bases.isEmpty { entries.appendUnchecked(.dictionary(bases), forKey: "base") }
            if !references.isEmpty { entries.appendUnchecked(.array(references), forKey: "references") }
            if let anchor { entries.appendUnchecked(.int(Int64(anchor)), forKey: "anchor") }
            return .dictionary(entries)
        }

        static let keys = ["type", "version", "fields", "absent", "base", "references", "anchor"]
    }
}

extension WayDown.Kept {
    /// Reads a `$wayBack` value found at `path` (the field's path): archive data, so anything
    /// malformed is an ``ArchiveError/Code/invalidWayDown`` error there.
    init(parsing value: ArchiveValue, at path: ArchivePath) throws {
        func invalid(_ message: String, _ key: String? = nil) -> ArchiveError {
            ArchiveError(
                .invalidWayDown, "what a way down kept for the way back is malformed: \(message)",
                path: key.map { path.appending($0) } ?? path)
        }
        func nonNegative(_ value: ArchiveValue, _ key: String) throws -> Int {
            guard case .int(let number) = value, number >= 0, let int = Int(exactly: number) else {
                throw invalid("'\(key)' must be a non-negative integer, not \(value.briefDescription)", key)
            }
            return int
        }
        guard case .dictionary(let entries) = value else {
            throw invalid("it must be a dictionary, not \(value.kindAndValue)")
        }
        if let unknown = entries.keys.first(where: { !Self.keys.contains($0) }) {
            throw invalid("unknown key '\(unknown)'", unknown)
        }
        switch (entries["type"], entries["version"]) {
        case (nil, nil):
            break
        case (.string(let name)?, let version?) where !name.isEmpty:
            typeName = name
            self.version = try nonNegative(version, "version")
        default:
            throw invalid("'type' (a non-empty string) and 'version' go together", "type")
        }
        if let anchor = entries["anchor"] { self.anchor = try nonNegative(anchor, "anchor") }
        func dictionary(_ key: String) throws -> ArchiveDictionary {
            guard let value = entries[key] else { return [:] }
            guard case .dictionary(let dictionary) = value else {
                throw invalid("'\(key)' must be a dictionary, not \(value.kindAndValue)", key)
            }
            return dictionary
        }
        let fields = try dictionary("fields")
        let bases = try dictionary("base")
        var absent: [String] = []
        if let value = entries["absent"] {
            guard case .array(let names) = value else { throw invalid("'absent' must be a list of keys", "absent") }
            absent = try names.map { name in
                guard case .string(let key) = name else { throw invalid("'absent' must be a list of keys", "absent") }
                return key
            }
        }
        guard typeName != nil || (fields.isEmpty && absent.isEmpty) else {
            throw invalid("kept fields need the 'type' and 'version' they were kept at", "fields")
        }
        for entry in fields.entries {
            kept.append(Field(key: entry.key, original: entry.value, base: bases[entry.key]))
        }
        for key in absent where fields.index(forKey: key) == nil {
            kept.append(Field(key: key, original: nil, base: bases[key]))
        }
        if let value = entries["references"] {
            guard case .array(let list) = value else {
                throw invalid("'references' must be a list of [path, anchor] pairs", "references")
            }
            for (index, pair) in list.enumerated() {
                guard case .array(let items) = pair, items.count == 2, case .string(let text) = items[0],
                    let parsed = try? ArchivePath(parsing: text), case .key(let key)? = parsed.components.first,
                    parsed.components.allSatisfy(Self.isKeyOrIndex),
                    let keptIndex = kept.firstIndex(where: { $0.key.hasSameScalars(as: key) && $0.original != nil })
                else {
                    throw invalid(
                        "each reference is a pair [path of a kept field, anchor]; entry \(index) is not",
                        "references")
                }
                let anchor = try nonNegative(items[1], "references")
                kept[keptIndex].references.append(
                    (path: ArchivePath(Array(parsed.components.dropFirst())), anchor: anchor))
            }
        }
    }

    private static func isKeyOrIndex(_ component: ArchivePath.Component) -> Bool {
        switch component {
        case .key, .index: return true
        case .anyKey, .anyIndex: return false
        }
    }

    // MARK: Restoring (on the way back up)

    /// A kept reference put back, resolved once the whole tree has been upgraded.
    struct PendingReference {
        /// The object the kept key belongs to.
        var objectPath: ArchivePath
        var key: String
        var path: ArchivePath
        var anchor: Int
        /// The key's value before it was restored, put back when the anchor is not found.
        var fallback: ArchiveValue?
    }

    /// Puts the kept values into `fields` (the object upgraded to ``version``), key by key where
    /// the older app left the field as it got it; notes the references to resolve.
    func restore(into fields: inout ArchiveDictionary, objectPath: ArchivePath, pending: inout [PendingReference]) {
        for kept in kept {
            let current = fields[kept.key]
            guard current == kept.base else { continue }
            if let original = kept.original {
                fields[kept.key] = original
            } else {
                fields.removeValue(forKey: kept.key)
            }
            for reference in kept.references {
                pending.append(
                    PendingReference(
                        objectPath: objectPath, key: kept.key, path: reference.path, anchor: reference.anchor,
                        fallback: current))
            }
        }
    }

    /// The position of the `$wayBack` field among `fields`, if any.
    @inline(__always)
    static func index(in fields: ArchiveDictionary) -> Int? {
        for index in fields.entries.indices where fields.entries[index].key.utf8.first == UInt8(ascii: "$") {
            if fields.entries[index].key.hasSameScalars(as: key) { return index }
        }
        return nil
    }
}

// MARK: - After the walk

extension WayDown.Kept {
    /// Gives every object of `root` whose identity is in `ids` an anchor of that number (in its
    /// `$wayBack`), so that kept references find it after an older app renumbered identities.
    static func anchor(_ root: inout ArchiveValue, ids: Set<Int>, depth: Int = 0) {
        guard depth < maxDepth else { return }
        switch root {
        case .object(var object):
            root = .null
            var fields = object.takeFields()
            for index in fields.entries.indices where fields.entries[index].value.isContainer {
                anchor(&fields.entries[index].value, ids: ids, depth: depth + 1)
            }
            if let id = object.id?.rawValue, ids.contains(id) {
                if let index = Self.index(in: fields), case .dictionary(var entries) = fields.entries[index].value {
                    entries["anchor"] = .int(Int64(id))
                    fields.entries[index].value = .dictionary(entries)
                } else {
                    fields[key] = WayDown.Kept(anchor: id).tree
                }
            }
            object.fields = fields
            root = .object(object)
        case .array(var elements):
            root = .null
            for index in elements.indices where elements[index].isContainer {
                anchor(&elements[index], ids: ids, depth: depth + 1)
            }
            root = .array(elements)
        case .dictionary(var entries):
            root = .null
            for index in entries.entries.indices where entries.entries[index].value.isContainer {
                anchor(&entries.entries[index].value, ids: ids, depth: depth + 1)
            }
            root = .dictionary(entries)
        default:
            break
        }
    }

    /// Turns the kept references put back during an upgrade into references to the objects that
    /// carry their anchors (`anchors`: anchor → path), giving those objects identities where the
    /// older app wrote them without, and removes the anchors used; a key whose anchor is gone
    /// gets back the value the upgrade gave it.
    static func resolve(_ root: inout ArchiveValue, pending: [PendingReference], anchors: [Int: ArchivePath]) {
        var nextID = largestID(in: root, depth: 0) + 1
        var ids: [Int: ArchiveObjectID] = [:]
        var unresolved = Set<String>()
        func identity(_ anchor: Int) -> ArchiveObjectID? {
            if let id = ids[anchor] { return id }
            guard let path = anchors[anchor] else { return nil }
            var id: ArchiveObjectID?
            _ = root.modify(at: path.components[...]) { value in
                guard case .object(var object) = value else { return }
                if let existing = object.id {
                    id = existing
                } else {
                    value = .null
                    object.id = ArchiveObjectID(nextID)
                    id = object.id
                    nextID += 1
                    value = .object(object)
                }
            }
            ids[anchor] = id
            return id
        }
        for reference in pending {
            let keyPath = reference.objectPath.appending(reference.key)
            guard !unresolved.contains(keyPath.description) else { continue }
            if let id = identity(reference.anchor) {
                _ = root.modify(at: keyPath.appending(reference.path).components[...]) { $0 = .reference(id) }
            } else {
                unresolved.insert(keyPath.description)
                _ = root.modify(at: reference.objectPath.components[...]) { value in
                    guard case .object(var object) = value else { return }
                    value = .null
                    object.fields[reference.key] = reference.fallback
                    value = .object(object)
                }
            }
        }
        for anchor in ids.keys {
            guard let path = anchors[anchor] else { continue }
            _ = root.modify(at: path.components[...]) { value in
                guard case .object(var object) = value, let index = Self.index(in: object.fields),
                    case .dictionary(var entries) = object.fields.entries[index].value
                else { return }
                value = .null
                entries.removeValue(forKey: "anchor")
                if entries.isEmpty {
                    object.fields.removeValue(forKey: key)
                } else {
                    object.fields[key] = .dictionary(entries)
                }
                value = .object(object)
            }
        }
    }

    private static func largestID(in value: ArchiveValue, depth: Int) -> Int {
        guard depth < maxDepth else { return 0 }
        switch value {
        case .object(let object):
            var largest = object.id?.rawValue ?? 0
            for entry in object.fields.entries where entry.value.isContainer {
                largest = max(largest, largestID(in: entry.value, depth: depth + 1))
            }
            return largest
        case .array(let elements):
            return elements.lazy.filter(\.isContainer).map { largestID(in: $0, depth: depth + 1) }.max() ?? 0
        case .dictionary(let entries):
            return entries.entries.lazy.filter(\.value.isContainer).map { largestID(in: $0.value, depth: depth + 1) }
                .max() ?? 0
        default:
            return 0
        }
    }
}

extension ArchiveValue {
    /// Runs `body` on the value at `components` (keys of dictionaries and object fields, indices
    /// of arrays); `false` when there is no such value.
    fileprivate mutating func modify(
        at components: ArraySlice<ArchivePath.Component>, _ body: (inout ArchiveValue) -> Void
    ) -> Bool {
        guard let first = components.first else {
            body(&self)
            return true
        }
        let rest = components.dropFirst()
        switch (first, self) {
        case (.key(let key), .object(var object)):
            self = .null
            defer { self = .object(object) }
            var fields = object.takeFields()
            defer { object.fields = fields }
            guard let index = fields.index(forKey: key) else { return false }
            return fields.entries[index].value.modify(at: rest, body)
        case (.key(let key), .dictionary(var entries)):
            self = .null
            defer { self = .dictionary(entries) }
            guard let index = entries.index(forKey: key) else { return false }
            return entries.entries[index].value.modify(at: rest, body)
        case (.index(let index), .array(var elements)):
            self = .null
            defer { self = .array(elements) }
            guard elements.indices.contains(index) else { return false }
            return elements[index].modify(at: rest, body)
        default:
            return false
        }
    }

    fileprivate var isReference: Bool {
        if case .reference = self { return true }
        return false
    }
}
