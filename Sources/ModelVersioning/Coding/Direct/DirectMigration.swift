@_spi(Coders) import ArchiveFormats
import Foundation

/// An upgrade that only moves keys (``KeyMovingUpgrade``), laid out for
/// ``DirectJSONDecoder``: which archived keys it applies to, the upgraded keys' bytes, and
/// where each upgraded value comes from. Objects with the same type, version and keys share
/// one, so the chain's rules run once per layout, not once per object, and no value is copied:
/// the upgraded object points at the archived values in the text.
///
/// ```swift
/// // Shape v1 {"id", "name", "x", "y"} → {"id", "title", "center": {"x", "y"}, "visible": true}
/// let upgraded = try session.upgraded(archived, typeName: "Shape", version: 1, depth: 0)
/// upgraded.find("title")     // the archived "name" value
/// ```
final class DirectMigration {
    /// The value of one member of a made dictionary: where it is in the text (a made value's
    /// ``DirectJSONDecoder/ValueRef`` fields, as a member holds them).
    struct MadeValue {
        var value: UInt32
        var ordinal: Int32
    }

    /// The keys and sources of a dictionary rules make, shared by every dictionary made with it.
    struct MadeLayout {
        let keys: UnsafePointer<UInt8>
        let slots: [Slot]
    }

    /// Where an upgraded value comes from.
    enum Source {
        /// The archived member at this position.
        case field(Int)
        /// The session's constant at this index.
        case constant(Int)
        /// The made dictionary at this index of ``objects``.
        case dictionary(Int)
    }

    /// One upgraded member: its key in ``keys`` and its value's source.
    struct Slot {
        var keyStart: UInt32
        var keyLength: UInt32
        var source: Source
    }

    /// The most layouts one run makes: an archive with more key sets per type goes to the tree.
    static let maximumCount = 256

    let archivedName: String
    let archivedVersion: Int?
    let typeName: String
    let version: Int
    /// The upgraded object (`objects[0]`) and the dictionaries rules made in it.
    let objects: [[Slot]]
    /// Where the session's ``DirectDecodingSession/madeLayouts`` hold `objects[1...]`.
    let madeLayoutBase: Int
    /// How deep the made dictionaries nest below the object (0 without any).
    let madeDepth: Int
    /// The archived members the upgrade drops.
    let dropped: [Int]
    /// The bytes of every upgraded key.
    let keys: UnsafeMutablePointer<UInt8>
    /// The archived keys, one after the other, and their lengths.
    private let archivedKeys: [UInt8]
    private let archivedLengths: [Int]

    /// Lays out `upgrade` for objects of `archivedName` at `archivedVersion` with `archivedKeys`,
    /// and adds the values rules add to `constants` and the dictionaries they make to
    /// `madeLayouts` (the session's). `nil`, adding nothing, when an upgraded key is not plain
    /// ASCII or starts with `$` (keys compare as bytes here; this path only reads plain keys).
    init?(
        _ upgrade: KeyMovingUpgrade, archivedName: String, archivedVersion: Int?, archivedKeys: [String],
        constants: inout [ArchiveValue], madeLayouts: inout [MadeLayout]
    ) {
        var added: [ArchiveValue] = []
        var bytes: [UInt8] = []
        var objects: [[Slot]] = [[]]
        var madeDepth = 0
        func lay(_ layout: FieldLayout, into object: Int, depth: Int) -> Bool {
            madeDepth = Swift.max(madeDepth, depth)
            for entry in layout.entries {
                let key = Array(entry.key.utf8)
                guard key.allSatisfy({ $0 < 0x80 }), key.first != UInt8(ascii: "$") else { return false }
                let start = bytes.count
                bytes.append(contentsOf: key)
                let source: Source
                switch entry.source {
                case .field(let index):
                    source = .field(index)
                case .constant(let value):
                    source = .constant(constants.count &+ added.count)
                    added.append(value)
                case .dictionary(let inner):
                    let index = objects.count
                    objects.append([])
                    guard lay(inner, into: index, depth: depth + 1) else { return false }
                    source = .dictionary(index)
                }
                objects[object].append(
                    Slot(
                        keyStart: UInt32(truncatingIfNeeded: start), keyLength: UInt32(truncatingIfNeeded: key.count),
                        source: source))
            }
            return true
        }
        guard lay(upgrade.fields, into: 0, depth: 0), bytes.count < Int(UInt32.max) else { return nil }
        self.archivedName = archivedName
        self.archivedVersion = archivedVersion
        self.typeName = upgrade.typeName
        self.version = upgrade.version
        self.objects = objects
        self.madeDepth = madeDepth
        self.dropped = upgrade.fields.droppedFields(of: archivedKeys.count)
        self.keys = .allocate(capacity: Swift.max(bytes.count, 1))
        self.keys.initialize(from: bytes, count: bytes.count)
        self.archivedKeys = archivedKeys.flatMap { Array($0.utf8) }
        self.archivedLengths = archivedKeys.map(\.utf8.count)
        constants.append(contentsOf: added)
        madeLayoutBase = madeLayouts.count
        for slots in objects.dropFirst() {
            madeLayouts.append(MadeLayout(keys: keys, slots: slots))
        }
    }

    deinit {
        keys.deallocate()
    }

    /// Whether `object` has exactly the archived keys this upgrade was laid out for.
    func matches(_ object: DirectObject) -> Bool {
        let count = archivedLengths.count
        guard object.state.pointee.count == count else { return false }
        let base = object.state.pointee.keys
        return archivedKeys.withUnsafeBufferPointer { expected in
            var offset = 0
            for index in 0..<count {
                let member = object.member(at: index)
                let length = archivedLengths[index]
                guard Int(member.keyLength) == length,
                    JSONText.equal(
                        base + Int(member.keyStart), expected.baseAddress.map { $0 + offset }, length: length)
                else { return false }
                offset &+= length
            }
            return true
        }
    }
}

extension DirectDecodingSession {
    /// `archived`, an object of `typeName` at `version` that needs upgrading, upgraded: its
    /// members moved where the chain's rules put them, with the values the rules add. Ends the
    /// run when a key appears twice, or the chain does more than move keys or a rule fails (the
    /// migration pass then upgrades or reports).
    func upgraded(_ archived: DirectObject, typeName: String, version: Int?, depth: Int) throws
        -> DirectObject
    {
        let migration = try self.migration(for: archived, typeName: typeName, version: version)
        // The dictionaries it makes must nest within the pass's depth limit, read or not.
        guard depth &+ migration.madeDepth < options.limits.maxDepth else { throw unsupported() }
        for index in migration.dropped {
            let member = archived.member(at: index)
            try readDropped(DirectJSONDecoder.ValueRef(offset: Int(member.value), ordinal: Int(member.ordinal)))
        }
        let slots = migration.objects[0]
        let object = makeObject(capacity: slots.count, keys: migration.keys)
        for slot in slots {
            object.append(try member(slot, of: archived, migration: migration))
        }
        let state = object.state
        state.pointee.typeName = migration.typeName
        state.pointee.version = migration.version
        state.pointee.startsMarkup = archived.state.pointee.startsMarkup
        return object
    }

    /// Reads what an upgrade drops as the reader would: no model reads it and the migration pass
    /// never walks into it, but the reader rejects a repeated key or bad markup anywhere.
    private func readDropped(_ value: DirectJSONDecoder.ValueRef) throws {
        if value.isMade {
            guard value.isMadeDictionary else { return }
            try readMembers(of: madeDictionary(value))
        } else if value.ordinal >= 0 {
            if text.bytes[value.offset] == UInt8(ascii: "[") {
                var elements = elements(of: value)
                while let element = elements.next() { try readDropped(element) }
            } else {
                // Never walked by the pass: its depth does not matter.
                try readMembers(of: try readObject(value, depth: 0))
            }
        }
    }

    private func readMembers(of object: DirectObject) throws {
        for index in 0..<object.state.pointee.count {
            let member = object.member(at: index)
            try readDropped(DirectJSONDecoder.ValueRef(offset: Int(member.value), ordinal: Int(member.ordinal)))
        }
    }

    /// The members of the dictionary an upgrade made, `value`.
    func madeDictionary(_ value: DirectJSONDecoder.ValueRef) -> DirectObject {
        let layout = madeLayouts[value.offset]
        let object = makeObject(capacity: layout.slots.count, keys: layout.keys)
        var index = value.madeIndex
        for slot in layout.slots {
            let made = madeValues[index]
            object.append(
                DirectObject.Member(
                    keyStart: slot.keyStart, keyLength: slot.keyLength, value: made.value, ordinal: made.ordinal))
            index &+= 1
        }
        return object
    }

    /// The value an upgrade added, `value`; `nil` when `value` is a made dictionary.
    func madeConstant(_ value: DirectJSONDecoder.ValueRef) -> ArchiveValue? {
        // Spelled out: `ArchiveValue` is `ExpressibleByNilLiteral`, so a bare `nil` in a
        // conditional expression becomes `.null`.
        if value.isMadeDictionary { return Optional<ArchiveValue>.none }
        return constants[value.madeIndex]
    }

    /// The upgrade for objects like `archived`: one laid out before, or a new one.
    private func migration(for archived: DirectObject, typeName: String, version: Int?) throws
        -> DirectMigration
    {
        for migration in recentMigrations
        where migration.archivedVersion == version && migration.archivedName == typeName
            && migration.matches(archived)
        {
            return migration
        }
        // Any key set an upgrade is laid out for has every key once: an object it matches, too.
        guard migrations.count < DirectMigration.maximumCount, !archived.hasDuplicateKey() else {
            throw unsupported()
        }
        let keys = archived.keys
        guard let upgrade = catalog.keyMovingUpgrade(typeName: typeName, version: version, keys: keys),
            let migration = DirectMigration(
                upgrade, archivedName: typeName, archivedVersion: version, archivedKeys: keys,
                constants: &constants, madeLayouts: &madeLayouts)
        else { throw unsupported() }
        migrations.append(migration)
        if recentMigrations.count == 8 { recentMigrations.removeLast() }
        recentMigrations.insert(migration, at: 0)
        return migration
    }

    private func member(_ slot: DirectMigration.Slot, of archived: DirectObject, migration: DirectMigration)
        throws -> DirectObject.Member
    {
        let value: DirectJSONDecoder.ValueRef
        switch slot.source {
        case .field(let index):
            let member = archived.member(at: index)
            return DirectObject.Member(
                keyStart: slot.keyStart, keyLength: slot.keyLength, value: member.value, ordinal: member.ordinal)
        case .constant(let index):
            guard index < DirectJSONDecoder.ValueRef.madeLimit else { throw unsupported() }
            value = .constant(index)
        case .dictionary(let object):
            let first = try makeDictionary(migration.objects[object], of: archived, migration: migration)
            value = .dictionary(layout: migration.madeLayoutBase &+ object &- 1, first: first)
        }
        return DirectObject.Member(
            keyStart: slot.keyStart, keyLength: slot.keyLength, value: UInt32(truncatingIfNeeded: value.offset),
            ordinal: Int32(truncatingIfNeeded: value.ordinal))
    }

    /// Records the values of a dictionary a rule made, with `slots`; returns where the first is
    /// in ``madeValues``.
    private func makeDictionary(
        _ slots: [DirectMigration.Slot], of archived: DirectObject, migration: DirectMigration
    ) throws -> Int {
        guard
            let first = madeValues.append(
                repeating: DirectMigration.MadeValue(value: 0, ordinal: -1), count: slots.count),
            first < DirectJSONDecoder.ValueRef.madeLimit
        else { throw unsupported() }
        for (index, slot) in slots.enumerated() {
            let member = try member(slot, of: archived, migration: migration)
            // Out of memory, the buffer holds nothing: nothing is written.
            guard
                madeValues.replace(
                    at: first &+ index, with: DirectMigration.MadeValue(value: member.value, ordinal: member.ordinal))
            else { throw unsupported() }
        }
        return first
    }
}

extension DirectJSONDecoder.ValueRef {
    /// The most values of each kind an upgrade makes in one run (they must fit a member's
    /// 32-bit ordinal).
    static let madeLimit = 1 << 29

    /// A value an upgrade added: the session's constant at `index` (below ``madeLimit``).
    static func constant(_ index: Int) -> Self {
        Self(offset: 0, ordinal: -2 &- (index &<< 1))
    }

    /// A dictionary an upgrade made with the session's made layout `layout`, whose values start
    /// at `first` (below ``madeLimit``) in its made values.
    static func dictionary(layout: Int, first: Int) -> Self {
        Self(offset: layout, ordinal: -3 &- (first &<< 1))
    }

    /// Whether an upgrade made the value (it is not in the text).
    @inline(__always)
    var isMade: Bool { ordinal < -1 }

    /// Whether the made value is a dictionary (else a constant).
    var isMadeDictionary: Bool { (-2 &- ordinal) & 1 == 1 }

    /// The index of the made value: its constant, or its dictionary's first made value.
    var madeIndex: Int { (-2 &- ordinal) &>> 1 }
}
