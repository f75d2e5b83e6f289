@_spi(Coders) import ArchiveFormats
import Foundation

/// Upgrades a JSON archive by rewriting its text, without building a tree: one walk over the
/// text's ``JSONStructure`` that writes every value again as ``JSONWriter`` writes it, and every
/// old object the way its chain leaves it, when the chain only moves keys (rename, add a scalar
/// default, remove, nest, rename the type: ``KeyMovingUpgrade``).
///
/// The bytes are the ones the tree path gives — read the archive (`ArchiveDocument`), run the
/// migration pass, write the tree in the document's own layout — not merely an equal tree: the
/// same keys in the same order, the same spelling of every number and string (`1.50` becomes
/// `1.5` on both paths), the same indentation. Every scalar is read by the tree reader's own
/// functions and written by the tree writer's, so the two paths cannot drift apart, or copied
/// when the writer would give back its very bytes: a string without escapes, a number
/// `JSONText.verbatimNumberEnd(at:)` accepts (tested against the reader and writer on random
/// literals), a key the writer encoded once for the layout; the tests
/// (`ArchiveUpgraderTests`) and the `fuzz-upgrade` target compare them on generated and arbitrary
/// archives.
///
/// It answers `nil`, for the tree path to take the archive, for anything else: text the
/// structural pass does not vouch for (``JSONStructure``), a top-level value that is not a
/// typed object (an envelope, a plain document), markup beyond `$type` and `$version`
/// (references, identities, dates, data, escaped keys), escaped keys, a repeated key, an old
/// object whose chain does more than move keys (or fails on its keys, or is newer than the
/// chain), a typed object inside a value an upgrade drops. The tree path then migrates it, or
/// reports what is wrong, exactly as before: this type only ever skips work.
///
/// ```swift
/// let upgrade = JSONTextRewrite(catalog: catalog, limits: .default)
/// if let outcome = upgrade.upgrade(row) {
///     if outcome.changed { try store.write(outcome.output, for: key) }
/// } else {
///     // the tree path: ArchiveDocument, MigrationPass, document.data()
/// }
/// ```
///
/// One instance serves every thread of a batch: what each archived type, version and key set
/// upgrades to is worked out once (by the chain's own rules, on stand-ins) and kept (the first
/// ``maximumLayoutCount`` key sets, within ``maximumLayoutBytes``).
package final class JSONTextRewrite: @unchecked Sendable {
    // @unchecked Sendable: `layouts`, `layoutBytes` and `spareWorkspaces`, the only mutable state, are touched
    // only with `lock` held; a workspace is used by one upgrade at a time (taken from and given
    // back to `spareWorkspaces` under the lock). The lock makes every access exclusive, so the
    // run-time exclusivity checks are off for them (they cost about 80 instructions each, several
    // per archive).

    /// What became of one archive.
    package struct Outcome: Sendable, Hashable {
        /// Whether any object was upgraded.
        package var changed: Bool
        /// The archive's text as the tree writer spells it (upgraded when ``changed``).
        package var output: Data
    }

    let catalog: MigrationCatalog
    let limits: ArchiveLimits
    private let lock = NSLock()
    /// Every layout worked out so far (a `nil` upgrade: the chain does more than move keys for
    /// these keys, or fails on them). Guarded by `lock`.
    @exclusivity(unchecked) private var layouts: [Layout] = []

    /// The most layouts kept, and the most bytes of type names and keys they hold: past either,
    /// objects of another key set are still upgraded, their layout worked out for each one (as
    /// the tree path does for every object).
    static let maximumLayoutCount = 1024
    static let maximumLayoutBytes = 4 << 20
    /// The bytes of type names and keys the kept layouts hold. Guarded by `lock`.
    @exclusivity(unchecked) private var layoutBytes = 0

    /// Upgrades with the chains of `catalog` to their current versions, reading within `limits`
    /// (the tree reader's).
    package init(catalog: MigrationCatalog, limits: ArchiveLimits) {
        self.catalog = catalog
        self.limits = limits
        // The tree writer refuses to open a container inside `maxDepth` open ones, with the
        // default limits (a document is written with them); two levels of margin, as the
        // structural pass keeps, so that whatever the walk writes the tree path writes too.
        walkMaxDepth = Swift.min(limits.maxDepth, ArchiveLimits.default.maxDepth) &- 2
    }

    /// The most containers the walk writes inside one another (see `init`).
    let walkMaxDepth: Int

    /// `data` upgraded (see the type's discussion); `nil` when the tree path must take it.
    /// Never throws and never traps: whatever is wrong with `data` is for the tree path to
    /// report.
    package func upgrade(_ data: Data) -> Outcome? {
        upgrade(data, onlyFlat: nil)
    }

    /// ``upgrade(_:)`` one way only (`flat`: the flat objects' pass, else the structural walk), for
    /// the tests that hold the two ways to the same bytes.
    func upgrade(_ data: Data, flat: Bool) -> Outcome? {
        upgrade(data, onlyFlat: flat)
    }

    private func upgrade(_ data: Data, onlyFlat: Bool?) -> Outcome? {
        data.withUnsafeBytes { raw in
            upgrade(bytes: raw, writingUnchanged: true, onlyFlat: onlyFlat) { Data($0) }
        }.map { Outcome(changed: $0, output: $1 ?? Data()) }
    }

    /// The bytes in `raw` upgraded, for a caller that has them open already (each opening of a
    /// `Data` makes three run-time exclusivity checks in Foundation), with the new bytes made by
    /// `output` (a store keeps them in memory of its own rather than in `Data`) and only when the
    /// archive changed or `writingUnchanged`: whether it changed, and its new bytes; `nil` when
    /// the tree path must take it.
    package func upgrade<Output>(
        bytes raw: UnsafeRawBufferPointer, writingUnchanged: Bool, output: (UnsafeRawBufferPointer) -> Output
    ) -> (changed: Bool, output: Output?)? {
        upgrade(bytes: raw, writingUnchanged: writingUnchanged, onlyFlat: nil, output: output)
    }

    /// The flat objects' pass, then the structural walk (`onlyFlat` `nil`), or one of them.
    private func upgrade<Output>(
        bytes raw: UnsafeRawBufferPointer, writingUnchanged: Bool, onlyFlat: Bool?,
        output: (UnsafeRawBufferPointer) -> Output
    ) -> (changed: Bool, output: Output?)? {
        let workspace = takeWorkspace()
        defer { giveBack(workspace) }
        guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), !raw.isEmpty,
            raw.count <= limits.maxInputBytes
        else { return nil }
        let text = JSONText(bytes: base, end: raw.count)
        if let onlyFlat {
            return rewrite(
                text, flat: onlyFlat, workspace: workspace, writingUnchanged: writingUnchanged, output: output)
        }
        // A flat object starts `{"$type":"` (a pretty-printed archive does not even try).
        if raw.count > 1, base[0] == UInt8(ascii: "{"), base[1] == UInt8(ascii: "\""),
            let result = rewrite(
                text, flat: true, workspace: workspace, writingUnchanged: writingUnchanged, output: output)
        {
            return result
        }
        return rewrite(text, flat: false, workspace: workspace, writingUnchanged: writingUnchanged, output: output)
    }

    /// The text upgraded in one of two ways, `nil` when that way cannot take it:
    ///
    /// - `flat`: a compact object whose values hold no object, read in one pass that checks the
    ///   text as the structural pass does and notes each value that the writer would spell with
    ///   its very bytes, written with a copy of each (`Rewriter.writeFlatObject()`). Most archives
    ///   of small models are such objects (a SQLite row, an NDJSON line); the walk takes the others,
    ///   after a pass that stops at the first thing it does not take.
    /// - else: the structural pass (``JSONStructure``), then the walk over it.
    private func rewrite<Output>(
        _ text: JSONText, flat: Bool, workspace: Workspace, writingUnchanged: Bool,
        output make: (UnsafeRawBufferPointer) -> Output
    ) -> (changed: Bool, output: Output?)? {
        let structure: JSONStructure
        let pretty: Bool
        if flat {
            structure = workspace.noStructure
            pretty = false
        } else {
            let start = text.skipWhitespace(from: 0)
            guard text.byte(at: start) == UInt8(ascii: "{"),
                let scanned = JSONStructure.scan(
                    text.bytes, count: text.end, limits: limits, reusing: workspace.storage)
            else { return nil }
            structure = scanned
            pretty = ArchiveDocument.hasLineBreakInside(UnsafeRawBufferPointer(start: text.bytes, count: text.end))
        }
        let reused = workspace.emitter.take()
        var emitter: JSONWriter.Emitter
        if let reused {
            emitter = reused
        } else {
            emitter = JSONWriter.Emitter(
                options: ArchiveWritingOptions(prettyPrinted: pretty, markup: .archive),
                capacity: text.end &+ text.end / 4 &+ 64)
        }
        emitter.restart(prettyPrinted: pretty)
        var rewriter = Rewriter(
            text: text, structure: structure, owner: self, workspace: workspace, emitter: emitter)
        var written = true
        do {
            if flat {
                try rewriter.writeFlatObject()
            } else {
                try rewriter.writeObject(ordinal: 0, level: 0)
            }
        } catch {
            written = false
        }
        let changed = rewriter.changed
        var output = rewriter.finish()
        if written && pretty { output.output.append(UInt8(ascii: "\n")) }
        // A copy of exactly the bytes written: the emitter's memory stays for the next one.
        var result: (changed: Bool, output: Output?)?
        if written && !output.output.allocationFailed {
            result = (
                changed,
                changed || writingUnchanged
                    ? output.output.withBytes(from: 0) { make(UnsafeRawBufferPointer($0)) } : nil
            )
        }
        workspace.keep(output)
        return result
    }

    // MARK: Workspaces

    /// What one upgrade works in, kept for the next one: the structural pass's buffers, the
    /// walk's member stack, the layouts met lately. One thread holds it at a time.
    final class Workspace {
        let storage = JSONStructure.Storage()
        /// The structure of the flat objects' walk, which never asks it for a container.
        let noStructure = JSONStructure.empty()
        @exclusivity(unchecked) var members: [Member] = []
        @exclusivity(unchecked) var scratch: [UInt8] = []
        /// The layouts this workspace met last, newest first: looked at before the shared list.
        @exclusivity(unchecked) var recentLayouts: [Layout] = []
        /// The last type name met, and whether objects of it need upgrading.
        @exclusivity(unchecked) var recentType = RecentTypeName()
        /// The writer of the last upgrade, with its memory (`nil` while an upgrade uses it).
        @exclusivity(unchecked) var emitter: JSONWriter.Emitter?

        /// Keeps `emitter` for the next upgrade, unless its buffer grew past
        /// ``maximumKeptOutput`` (a pooled workspace does not hold a large archive's memory).
        func keep(_ emitter: consuming JSONWriter.Emitter) {
            guard emitter.output.reservedCapacity <= Self.maximumKeptOutput else { return }
            self.emitter = .some(emitter)
        }

        static let maximumKeptOutput = 1 << 20

        static let recentCount = 8
    }

    /// Workspaces no upgrade is using. Guarded by `lock`.
    @exclusivity(unchecked) private var spareWorkspaces: [Workspace] = []

    private func takeWorkspace() -> Workspace {
        lock.lock()
        let workspace = spareWorkspaces.popLast()
        lock.unlock()
        return workspace ?? Workspace()
    }

    private func giveBack(_ workspace: Workspace) {
        lock.lock()
        // As many as threads upgrade at once, and a few more.
        if spareWorkspaces.count < 64 { spareWorkspaces.append(workspace) }
        lock.unlock()
    }

    // MARK: Layouts

    /// How objects of one archived type, version and key set are upgraded.
    final class Layout {
        let archivedName: String
        let archivedVersion: Int?
        /// The archived keys, one after the other, and their lengths.
        let archivedKeys: [UInt8]
        let archivedLengths: [Int]
        /// `nil` when the tree must upgrade them.
        let upgrade: Upgrade?

        init(archivedName: String, archivedVersion: Int?, keys: [[UInt8]], upgrade: Upgrade?) {
            self.archivedName = archivedName
            self.archivedVersion = archivedVersion
            self.archivedKeys = keys.flatMap { $0 }
            self.archivedLengths = keys.map(\.count)
            self.upgrade = upgrade
        }

        /// Whether `members` (an object's fields, keys at `text`) have exactly these keys.
        func matches(name: String, version: Int?, members: UnsafeBufferPointer<Member>, text: JSONText) -> Bool {
            guard archivedVersion == version, members.count == archivedLengths.count, archivedName == name else {
                return false
            }
            return archivedKeys.withUnsafeBufferPointer { expected in
                var offset = 0
                for index in 0..<members.count {
                    let member = members[index]
                    let length = archivedLengths[index]
                    guard member.keyLength == length,
                        JSONText.equal(
                            text.bytes + member.keyStart, expected.baseAddress.map { $0 + offset }, length: length)
                    else { return false }
                    offset &+= length
                }
                return true
            }
        }
    }

    /// An object's upgrade as a list of operations on plain values (walked without a reference
    /// count per step): the upgraded keys in order, each followed by its value's source.
    final class Upgrade {
        enum Operation {
            /// The next member's key: bytes `start..<start + length` of ``keys``.
            case key(start: Int, length: Int)
            /// Its value: the archived field at this position.
            case field(Int)
            /// Its value: ``constants`` at this index (a scalar a rule added).
            case constant(Int)
            /// Its value: a dictionary a rule made, whose members follow up to ``close``.
            case open
            case close
            /// Its value: an empty dictionary a rule made.
            case empty
        }

        let typeName: String
        let version: Int
        /// Its `$type` and `$version` entries as JSON without pretty-printing writes them.
        let compactStamp: [UInt8]
        let operations: [Operation]
        /// The keys of the ``Operation/key(start:length:)`` operations, as the writer spells them
        /// (``JSONWriter/Emitter/encodedKey(_:escapingReserved:)``), one after the other.
        let keys: [UInt8]
        let constants: [ArchiveValue]
        /// The archived fields it drops.
        let dropped: [Int]
        /// How deep the dictionaries it makes nest below the object (0 without any).
        let madeDepth: Int
        /// The upgraded object as compact JSON writes it, but for its archived fields: runs of
        /// bytes (its braces, stamp, keys, commas, added constants), the `n`th ending at
        /// `compactRunEnds[n]` and followed by archived field `compactFields[n]` (written
        /// `compactFieldDepths[n]` dictionaries deep), or by nothing (-1) after the last. One
        /// copy per run instead of an operation per key, comma and constant.
        let compactBytes: [UInt8]
        let compactRunEnds: [Int]
        let compactFields: [Int]
        let compactFieldDepths: [Int]

        /// `nil` when a rule adds a double that is not finite: archive markup spells it as a
        /// tagged value (`{"$double": "inf"}`), whose layout the tree writer works out from the
        /// containers it has open, which this walk does not keep.
        init?(_ upgrade: KeyMovingUpgrade, fieldCount: Int) {
            var operations: [Operation] = []
            var keys: [UInt8] = []
            var constants: [ArchiveValue] = []
            var madeDepth = 0
            var finite = true
            func lay(_ layout: FieldLayout, depth: Int) {
                madeDepth = Swift.max(madeDepth, depth)
                for entry in layout.entries {
                    // As the writer spells it, quoted and with its colon.
                    let key = JSONWriter.Emitter.encodedKey(entry.key, escapingReserved: true)
                    operations.append(.key(start: keys.count, length: key.count))
                    keys.append(contentsOf: key)
                    switch entry.source {
                    case .field(let index):
                        operations.append(.field(index))
                    case .constant(let value):
                        if case .double(let number) = value, !number.isFinite { finite = false }
                        operations.append(.constant(constants.count))
                        constants.append(value)
                    case .dictionary(let inner) where inner.entries.isEmpty:
                        operations.append(.empty)
                    case .dictionary(let inner):
                        operations.append(.open)
                        lay(inner, depth: depth + 1)
                        operations.append(.close)
                    }
                }
            }
            lay(upgrade.fields, depth: 0)
            guard finite else { return nil }
            self.typeName = upgrade.typeName
            self.version = upgrade.version
            self.compactStamp = JSONWriter.Emitter.compactTypeAndVersion(typeName: typeName, version: version)
            self.operations = operations
            self.keys = keys
            self.constants = constants
            self.dropped = upgrade.fields.droppedFields(of: fieldCount)
            self.madeDepth = madeDepth
            // What `writeUpgraded` and `write(_:from:level:)` write without pretty-printing.
            var bytes = [UInt8(ascii: "{")] + compactStamp
            var runEnds: [Int] = []
            var fields: [Int] = []
            var depths: [Int] = []
            var first = false
            var depth = 0
            var constantWriter = JSONWriter.Emitter(
                options: ArchiveWritingOptions(prettyPrinted: false, markup: .archive), capacity: 64)
            for operation in operations {
                switch operation {
                case .key(let start, let length):
                    if !first { bytes.append(UInt8(ascii: ",")) }
                    first = false
                    bytes += keys[start..<(start + length)]
                case .field(let index):
                    runEnds.append(bytes.count)
                    fields.append(index)
                    depths.append(depth)
                case .constant(let index):
                    // A scalar: its spelling does not depend on where it is written.
                    constantWriter.restart(prettyPrinted: false)
                    guard (try? constantWriter.write(constants[index], isTopLevel: false)) != nil,
                        !constantWriter.output.allocationFailed
                    else { return nil }
                    bytes += constantWriter.output.withBytes(from: 0) { Array($0) }
                case .open:
                    bytes.append(UInt8(ascii: "{"))
                    first = true
                    depth += 1
                case .close:
                    bytes.append(UInt8(ascii: "}"))
                    depth -= 1
                case .empty:
                    bytes += [UInt8(ascii: "{"), UInt8(ascii: "}")]
                }
            }
            bytes.append(UInt8(ascii: "}"))
            runEnds.append(bytes.count)
            fields.append(-1)
            depths.append(0)
            compactBytes = bytes
            compactRunEnds = runEnds
            compactFields = fields
            compactFieldDepths = depths
        }
    }

    /// The upgrade of objects of `name` at `version` with the keys of `members`, worked out the
    /// first time any workspace meets them; `nil` when the tree must upgrade them.
    fileprivate func upgrade(
        name: String, version: Int?, members: UnsafeBufferPointer<Member>, text: JSONText, workspace: Workspace
    ) -> Upgrade? {
        for layout in workspace.recentLayouts
        where layout.matches(name: name, version: version, members: members, text: text) {
            return layout.upgrade
        }
        let layout = sharedLayout(name: name, version: version, members: members, text: text)
        if workspace.recentLayouts.count == Workspace.recentCount { workspace.recentLayouts.removeLast() }
        workspace.recentLayouts.insert(layout, at: 0)
        return layout.upgrade
    }

    private func sharedLayout(name: String, version: Int?, members: UnsafeBufferPointer<Member>, text: JSONText)
        -> Layout
    {
        func find() -> Layout? {
            lock.lock()
            defer { lock.unlock() }
            return layouts.first { $0.matches(name: name, version: version, members: members, text: text) }
        }
        if let layout = find() { return layout }
        // Worked out without the lock (the chain's rules run on stand-ins): another thread may
        // work out the same one meanwhile, and the first kept is the one used from then on.
        let keys = members.map { Array(UnsafeBufferPointer(start: text.bytes + $0.keyStart, count: $0.keyLength)) }
        let upgrade = catalog.keyMovingUpgrade(
            typeName: name, version: version, keys: keys.map { String(decoding: $0, as: UTF8.self) }
        ).flatMap { Upgrade($0, fieldCount: keys.count) }
        let made = Layout(archivedName: name, archivedVersion: version, keys: keys, upgrade: upgrade)
        lock.lock()
        defer { lock.unlock() }
        if let kept = layouts.first(where: { $0.matches(name: name, version: version, members: members, text: text) }) {
            return kept
        }
        // Past either limit, the layout is used but not kept: the next such object works it out
        // again, as the tree path does for every object.
        let bytes = made.archivedKeys.count &+ (made.upgrade?.keys.count ?? 0) &+ name.utf8.count
        if layouts.count < Self.maximumLayoutCount && layoutBytes &+ bytes <= Self.maximumLayoutBytes {
            layouts.append(made)
            layoutBytes &+= bytes
        }
        return made
    }

    /// One member of an object in the text (its ordinal -1 for a flat object's array, which the
    /// structure does not number; its verbatim end set by the flat objects' pass only).
    typealias Member = JSONMemberSpan

    /// Thrown inside the walk when the tree path must take the archive.
    private struct TreePath: Error {}

    /// The walk: reads the text through its structure and writes it through the tree writer's
    /// emitter.
    private struct Rewriter: ~Copyable {
        let text: JSONText
        let structure: JSONStructure
        let owner: JSONTextRewrite
        let workspace: Workspace
        let maxDepth: Int
        var emitter: JSONWriter.Emitter
        /// The members of the objects being written, outermost first (the workspace's, moved
        /// here for the walk and back by ``finish()``).
        var members: [Member]
        var changed = false
        private var scratch: [UInt8]

        init(
            text: JSONText, structure: JSONStructure, owner: JSONTextRewrite, workspace: Workspace,
            emitter: consuming JSONWriter.Emitter
        ) {
            self.text = text
            self.structure = structure
            self.owner = owner
            self.workspace = workspace
            self.maxDepth = owner.walkMaxDepth
            self.emitter = emitter
            // Swapped, not copied: no reference count changes hands.
            members = []
            scratch = []
            swap(&members, &workspace.members)
            swap(&scratch, &workspace.scratch)
            members.removeAll(keepingCapacity: true)
        }

        /// Hands the member stack and scratch space back to the workspace (space a large archive
        /// made them grow is let go of, so that a pooled workspace holds little), and the
        /// emitter to the caller.
        consuming func finish() -> JSONWriter.Emitter {
            if members.capacity <= 4096 { swap(&members, &workspace.members) }
            if scratch.capacity <= 1 << 16 { swap(&scratch, &workspace.scratch) }
            return emitter
        }

        // MARK: Values

        /// Writes the value whose first byte is at `offset` (`ordinal`: its container's, when it
        /// is one), inside `level` open containers.
        mutating func writeValue(offset: Int, ordinal: Int, level: Int) throws {
            switch text.bytes[offset] {
            case UInt8(ascii: "{"):
                // A container the structure does not number is not this walk's.
                guard ordinal >= 0 else { throw TreePath() }
                try writeObject(ordinal: ordinal, level: level)
            case UInt8(ascii: "["):
                guard ordinal >= 0 else { throw TreePath() }
                try writeArray(ordinal: ordinal, level: level)
            case UInt8(ascii: "\""):
                writeString(at: offset)
            case UInt8(ascii: "t"):
                emitter.output.append("true")
            case UInt8(ascii: "f"):
                emitter.output.append("false")
            case UInt8(ascii: "n"):
                emitter.output.append("null")
            default:
                if let end = text.verbatimNumberEnd(at: offset) {
                    // Spelled as the writer spells it: copied (reading and writing a double is
                    // about 1,000 instructions per archive of four numbers).
                    emitter.output.append(UnsafeBufferPointer(start: text.bytes + offset, count: end &- offset))
                    return
                }
                var position = offset
                guard let number = text.number(at: &position) else { throw TreePath() }
                try emitter.write(number, isTopLevel: false)
            }
        }

        /// Writes the string whose opening quote is at `offset` as the tree writer writes the
        /// `String` the tree reader makes of it.
        private mutating func writeString(at offset: Int) {
            let (stop, _) = text.scanString(from: offset &+ 1)
            if stop < text.end, text.bytes[stop] == UInt8(ascii: "\"") {
                // No escapes, so no quote, backslash or control character (validated UTF-8, by
                // the structural pass): the writer writes these bytes between quotes, so they are
                // copied with their quotes.
                emitter.output.append(UnsafeBufferPointer(start: text.bytes + offset, count: stop &- offset &+ 1))
            } else {
                emitter.writeString(text.string(at: offset, scratch: &scratch))
            }
        }

        private mutating func writeArray(ordinal: Int, level: Int) throws {
            let count = Int(structure.containers[ordinal].count)
            guard count > 0 else {
                emitter.output.append("[]")
                return
            }
            guard level < maxDepth else { throw TreePath() }
            emitter.output.append(UInt8(ascii: "["))
            var cursor = structure.cursor(overContainer: ordinal)
            for index in 0..<count {
                if index > 0 { emitter.output.append(UInt8(ascii: ",")) }
                emitter.newline(level &+ 1)
                let element = structure.nextElement(in: text, cursor: &cursor)
                try writeValue(offset: element.offset, ordinal: element.ordinal, level: level &+ 1)
            }
            emitter.newline(level)
            emitter.output.append(UInt8(ascii: "]"))
        }

        // MARK: Objects

        /// Writes the object or dictionary `ordinal`: a typed object with its markup
        /// first, upgraded when its chain says so.
        mutating func writeObject(ordinal: Int, level: Int) throws {
            guard level < maxDepth else { throw TreePath() }
            let base = members.count
            defer { members.removeLast(members.count &- base) }
            let (typeName, version) = try readMembers(ordinal: ordinal, isTopLevel: level == 0)
            let count = members.count &- base
            guard let typeName else {
                try checkUniqueKeys(from: base)
                try writeDictionary(from: base, count: count, level: level)
                return
            }
            if needsUpgrade(typeName, version) {
                try writeUpgraded(typeName: typeName, version: version, from: base, level: level)
                return
            }
            try checkUniqueKeys(from: base)
            // Up to date, but holding a key the last step moves away: the pass checks the layout.
            for index in base..<members.count {
                let member = members[index]
                if workspace.recentType.leavesToPass(key: text.bytes + member.keyStart, length: member.keyLength) {
                    throw TreePath()
                }
            }
            emitter.output.append(UInt8(ascii: "{"))
            emitter.writeTypeAndVersion(typeName: typeName, version: version, level: level &+ 1)
            for index in 0..<count {
                emitter.output.append(UInt8(ascii: ","))
                try writeMember(members[base &+ index], level: level)
            }
            emitter.newline(level)
            emitter.output.append(UInt8(ascii: "}"))
        }

        /// Reads the whole text as a flat object (``FlatJSONObject``) and writes it upgraded; throws
        /// when it is not one, or is up to date, for the structural walk to take it.
        mutating func writeFlatObject() throws {
            var object = FlatJSONObject(text: text, limits: owner.limits, maxArrayDepth: maxDepth &- 1)
            guard let (typeName, version) = object.readStamp(recentType: &workspace.recentType),
                needsUpgrade(typeName, version)
            else { throw TreePath() }
            let base = members.count
            defer { members.removeLast(members.count &- base) }
            guard object.readFields(into: &members) else { throw TreePath() }
            try writeUpgraded(typeName: typeName, version: version, from: base, level: 0, flatDepth: object.deepest)
        }

        /// Writes the object of `typeName` at `version`, which needs upgrading, whose archived
        /// fields are the members from `base` on, upgraded, inside `level` open containers (the
        /// deepest array of a flat object is `flatDepth` below it).
        mutating func writeUpgraded(
            typeName: String, version: Int?, from base: Int, level: Int, flatDepth: Int = 0
        ) throws {
            let workspace = self.workspace
            let upgrade = members.withUnsafeBufferPointer { all in
                owner.upgrade(
                    name: typeName, version: version, members: UnsafeBufferPointer(rebasing: all[base...]),
                    text: text, workspace: workspace)
            }
            // A flat object's arrays are copied, not walked: whatever depth the walk would check
            // as it writes them, at their deepest, is checked here.
            guard let upgrade, level &+ upgrade.madeDepth &+ flatDepth < maxDepth else { throw TreePath() }
            // The pass renames an upgraded object only when its name differs from the chain's
            // as a `String` (canonical equivalence): a name spelled with other scalars that
            // compares equal (`\u{212A}ite` for `Kite`) keeps its spelling there.
            if !typeName.hasSameScalars(as: upgrade.typeName) && typeName == upgrade.typeName {
                throw TreePath()
            }
            for index in upgrade.dropped {
                try checkDropped(members[base &+ index], level: level &+ 1)
            }
            changed = true
            guard emitter.pretty else {
                try writeCompact(upgrade, from: base, level: level)
                return
            }
            emitter.output.append(UInt8(ascii: "{"))
            emitter.writeTypeAndVersion(
                upgrade.compactStamp, typeName: upgrade.typeName, version: upgrade.version, level: level &+ 1)
            try write(upgrade, from: base, level: level)
            emitter.newline(level)
            emitter.output.append(UInt8(ascii: "}"))
        }

        private mutating func writeDictionary(from base: Int, count: Int, level: Int) throws {
            guard count > 0 else {
                emitter.output.append("{}")
                return
            }
            guard level < maxDepth else { throw TreePath() }
            emitter.output.append(UInt8(ascii: "{"))
            for index in 0..<count {
                if index > 0 { emitter.output.append(UInt8(ascii: ",")) }
                try writeMember(members[base &+ index], level: level)
            }
            emitter.newline(level)
            emitter.output.append(UInt8(ascii: "}"))
        }

        /// Writes `"key": value` for a member of a container inside `level` open ones.
        private mutating func writeMember(_ member: Member, level: Int) throws {
            emitter.newline(level &+ 1)
            emitter.writeKey(
                utf8: UnsafeBufferPointer(start: text.bytes + member.keyStart, count: member.keyLength),
                escapingReserved: true)
            try writeValue(offset: member.value, ordinal: member.ordinal, level: level &+ 1)
        }

        /// Writes the object `upgrade` upgraded without pretty-printing (its archived fields are
        /// the members from `base` on), inside `level` open containers: its runs of bytes, and
        /// after each its archived field.
        private mutating func writeCompact(_ upgrade: Upgrade, from base: Int, level: Int) throws {
            try upgrade.compactBytes.withUnsafeBufferPointer { bytes in
                try upgrade.compactRunEnds.withUnsafeBufferPointer { runEnds in
                    try upgrade.compactFields.withUnsafeBufferPointer { fields in
                        var start = 0
                        for run in 0..<runEnds.count {
                            let end = runEnds[run]
                            emitter.output.append(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                            start = end
                            let field = fields[run]
                            guard field >= 0 else { break }
                            try writeField(members[base &+ field], level: level &+ upgrade.compactFieldDepths[run] &+ 1)
                        }
                    }
                }
            }
        }

        /// Writes an archived field's value, `level` containers deep: a copy of its bytes when the
        /// writer spells it so (a flat object's pass says), else through the writer.
        @inline(__always)
        private mutating func writeField(_ member: Member, level: Int) throws {
            if member.verbatimEnd >= 0 {
                emitter.output.append(
                    UnsafeBufferPointer(start: text.bytes + member.value, count: member.verbatimEnd &- member.value))
            } else {
                try writeValue(offset: member.value, ordinal: member.ordinal, level: level)
            }
        }

        /// Writes the members of an object `upgrade` upgraded (its archived fields are the members
        /// from `base` on), after its markup, inside `level` open containers (pretty-printed).
        private mutating func write(_ upgrade: Upgrade, from base: Int, level objectLevel: Int) throws {
            var level = objectLevel
            // Whether the next member is its container's first (the object's follow its markup).
            var first = false
            try upgrade.operations.withUnsafeBufferPointer { operations in
                try upgrade.keys.withUnsafeBufferPointer { keys in
                    for operation in operations {
                        switch operation {
                        case .key(let start, let length):
                            if !first { emitter.output.append(UInt8(ascii: ",")) }
                            first = false
                            emitter.newline(level &+ 1)
                            emitter.writeEncodedKey(UnsafeBufferPointer(rebasing: keys[start..<(start &+ length)]))
                        case .field(let field):
                            try writeField(members[base &+ field], level: level &+ 1)
                        case .constant(let index):
                            try emitter.write(upgrade.constants[index], isTopLevel: false)
                        case .open:
                            emitter.output.append(UInt8(ascii: "{"))
                            level &+= 1
                            first = true
                        case .close:
                            emitter.newline(level)
                            emitter.output.append(UInt8(ascii: "}"))
                            level &-= 1
                        case .empty:
                            emitter.output.append("{}")
                        }
                    }
                }
            }
        }

        /// Appends the members of object `ordinal` to ``members`` (without its markup) and returns
        /// its type name and version. Throws for what the tree must read: markup other than
        /// `$type` and `$version`, an escaped key, a `$version` without a `$type`, and at the top
        /// an object that does not start with `$type` (a plain document or an envelope).
        private mutating func readMembers(ordinal: Int, isTopLevel: Bool) throws -> (String?, Int?) {
            let count = Int(structure.containers[ordinal].count)
            var cursor = structure.cursor(overContainer: ordinal)
            var typeName: String?
            var version: Int?
            var sawVersion = false
            let bytes = text.bytes
            for index in 0..<count {
                // A key with escapes is read by the tree; a non-ASCII one is written as it is.
                guard let entry = structure.nextMember(in: text, cursor: &cursor) else { throw TreePath() }
                let keyStart = entry.keyStart
                let keyLength = entry.keyLength
                let isType = keyLength == 5 && memcmp(bytes + keyStart, "$type", 5) == 0
                // At the top, markup is read only when the first key is `$type` (or `$archive`:
                // an envelope, left to the tree).
                if isTopLevel && index == 0 && !isType { throw TreePath() }
                if keyLength > 0 && bytes[keyStart] == UInt8(ascii: "$") {
                    if isType {
                        guard typeName == nil, bytes[entry.value] == UInt8(ascii: "\"") else { throw TreePath() }
                        typeName = try self.typeName(at: entry.value)
                    } else if keyLength == 8 && memcmp(bytes + keyStart, "$version", 8) == 0 {
                        var position = entry.value
                        guard !sawVersion, entry.ordinal < 0, let number = text.number(at: &position),
                            case .int(let archived) = number, archived >= 0, let int = Int(exactly: archived)
                        else { throw TreePath() }
                        version = int
                        sawVersion = true
                    } else {
                        throw TreePath()
                    }
                } else {
                    members.append(
                        Member(keyStart: keyStart, keyLength: keyLength, value: entry.value, ordinal: entry.ordinal))
                }
            }
            if isTopLevel && typeName == nil { throw TreePath() }
            if sawVersion && typeName == nil { throw TreePath() }
            return (typeName, version)
        }

        /// Throws when two of the members from `base` on have the same key (the tree reader
        /// rejects such objects).
        private func checkUniqueKeys(from base: Int) throws {
            let count = members.count &- base
            guard count > 1 else { return }
            let bytes = text.bytes
            if count > 16 {
                var seen = Set<ExactString>()
                for index in base..<members.count {
                    let member = members[index]
                    let key = String(
                        decoding: UnsafeBufferPointer(start: bytes + member.keyStart, count: member.keyLength),
                        as: UTF8.self)
                    guard seen.insert(ExactString(key)).inserted else { throw TreePath() }
                }
                return
            }
            for later in (base &+ 1)..<members.count {
                let key = members[later]
                for earlier in base..<later where members[earlier].keyLength == key.keyLength {
                    if JSONText.equal(bytes + members[earlier].keyStart, bytes + key.keyStart, length: key.keyLength) {
                        throw TreePath()
                    }
                }
            }
        }

        /// Checks a value an upgrade drops, at `level`, as the reader would: no repeated key, no
        /// markup the tree reads differently. A typed object inside it goes to the tree (which
        /// removes the field before its walk gets there); this walk keeps to plain values.
        private mutating func checkDropped(_ member: Member, level: Int) throws {
            guard member.ordinal >= 0 else { return }
            guard level < maxDepth else { throw TreePath() }
            if text.bytes[member.value] == UInt8(ascii: "[") {
                var cursor = structure.cursor(overContainer: member.ordinal)
                for _ in 0..<Int(structure.containers[member.ordinal].count) {
                    let element = structure.nextElement(in: text, cursor: &cursor)
                    try checkDropped(
                        Member(keyStart: 0, keyLength: 0, value: element.offset, ordinal: element.ordinal),
                        level: level &+ 1)
                }
                return
            }
            let base = members.count
            defer { members.removeLast(members.count &- base) }
            let (typeName, _) = try readMembers(ordinal: member.ordinal, isTopLevel: false)
            guard typeName == nil else { throw TreePath() }
            try checkUniqueKeys(from: base)
            for index in base..<members.count {
                try checkDropped(members[index], level: level &+ 1)
            }
        }

        /// The `$type` string whose quote is at `offset`: the workspace's last one when the bytes
        /// are the same (no string made).
        private mutating func typeName(at offset: Int) throws -> String {
            let start = offset &+ 1
            let (stop, _) = text.scanString(from: start)
            guard stop < text.end, text.bytes[stop] == UInt8(ascii: "\"") else {
                // Escaped: made from its scalars.
                let name = text.string(at: offset, scratch: &scratch)
                guard !name.isEmpty else { throw TreePath() }
                return name
            }
            guard stop > start else { throw TreePath() }
            if let name = workspace.recentType.name(spelledBy: text.bytes + start, length: stop &- start) {
                return name
            }
            return String(decoding: UnsafeBufferPointer(start: text.bytes + start, count: stop &- start), as: UTF8.self)
        }

        /// `MigrationCatalog.needsUpgrade(typeName:version:)`, remembered for the last type.
        private func needsUpgrade(_ typeName: String, _ version: Int?) -> Bool {
            workspace.recentType.needsUpgrade(typeName, version, catalog: owner.catalog)
        }
    }
}
