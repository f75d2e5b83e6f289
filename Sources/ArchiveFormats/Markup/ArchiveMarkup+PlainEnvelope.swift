import Foundation

/// The plain envelope: how JSON keeps the types of a plain document that holds values plain JSON
/// has none for (see `ArchiveWritingOptions.PlainEnvelope` and `ArchiveEnvelope`).
///
/// ```json
/// {
///   "$archive": 1,
///   "plain": true,
///   "root": {
///     "BackgroundColor": { "$data": "YnBsaXN0MDDU…" },
///     "LastUsed": { "$date": "2024-03-01T10:22:31Z" },
///     "name": "Basic"
///   }
/// }
/// ```
///
/// The root is written in archive markup (its own `$` keys escaped) and read back without the
/// envelope: the tree a reader gives is the plain document, exactly as it was.
extension ArchiveMarkup {
    static let plainKey = ArchiveEnvelope.plainKey

    /// Whether plain JSON has no type for `value` itself (its elements aside): a date, data, a
    /// non-finite double (JSON has no NaN or infinity), an object or a reference (plain JSON
    /// writes those two as dictionaries, which read back as dictionaries).
    @inline(__always)
    static func plainJSONCannotHold(_ value: ArchiveValue) -> Bool {
        switch value {
        case .date, .data, .object, .reference: return true
        case .double(let number): return !number.isFinite
        default: return false
        }
    }

    /// The first value of `tree`, in document order, that plain JSON has no type for
    /// (``plainJSONCannotHold(_:)``), with its path; `nil` when plain JSON holds the whole tree.
    ///
    /// The walk keeps its own stack, so a deep tree costs no call stack; it does not look inside
    /// an object or a reference (they are such values themselves).
    package static func firstValuePlainJSONCannotHold(in tree: ArchiveValue) -> (
        path: ArchivePath, kind: ArchiveValue.Kind
    )? {
        if plainJSONCannotHold(tree) { return (.root, tree.kind) }
        enum Container {
            case array([ArchiveValue])
            case dictionary(ArchiveDictionary)
        }
        struct Frame {
            var container: Container
            /// The index of the next child to look at.
            var next = 0
        }
        var frames: [Frame] = []
        func push(_ value: ArchiveValue) {
            switch value {
            case .array(let elements) where !elements.isEmpty: frames.append(Frame(container: .array(elements)))
            case .dictionary(let entries) where !entries.isEmpty: frames.append(Frame(container: .dictionary(entries)))
            default: break
            }
        }
        push(tree)
        while let top = frames.indices.last {
            let index = frames[top].next
            let child: ArchiveValue
            switch frames[top].container {
            case .array(let elements):
                guard index < elements.count else {
                    frames.removeLast()
                    continue
                }
                child = elements[index]
            case .dictionary(let entries):
                guard index < entries.count else {
                    frames.removeLast()
                    continue
                }
                child = entries.value(at: index)
            }
            frames[top].next = index + 1
            if plainJSONCannotHold(child) {
                // The path of the child: each frame's current child, from the root down.
                let components = frames.map { frame -> ArchivePath.Component in
                    switch frame.container {
                    case .array: return .index(frame.next - 1)
                    case .dictionary(let entries): return .key(entries[frame.next - 1].key)
                    }
                }
                return (ArchivePath(components), child.kind)
            }
            push(child)
        }
        return nil
    }

    /// `root` in a plain envelope: `{"$archive": 1, "plain": true, "root": root}`, to be written
    /// in archive markup.
    static func plainEnvelope(around root: ArchiveValue) -> ArchiveValue {
        var entries = ArchiveDictionary(minimumCapacity: 3)
        entries.appendUnchecked(.int(Int64(ArchiveEnvelope.currentFormatVersion)), forKey: archiveKey)
        entries.appendUnchecked(.bool(true), forKey: plainKey)
        entries.appendUnchecked(root, forKey: ArchiveEnvelope.rootKey)
        return .dictionary(entries)
    }

    /// The plain document a plain envelope holds (its root), or `nil` when `value`, a tree read
    /// with archive markup, is not a plain envelope (a dictionary with `$archive` and `plain`).
    ///
    /// - Throws: `ArchiveError.Code.malformedInput` for a plain envelope whose `plain` is not
    ///   `true`, that holds any key but `$archive`, `plain` and `root`, that has no root or a bad
    ///   `$archive`; `ArchiveError.Code.newerVersion` for an envelope format above this library's.
    static func rootOfPlainEnvelope(_ value: ArchiveValue) throws -> ArchiveValue? {
        guard case .dictionary(let entries) = value, entries.index(forKey: archiveKey) != nil,
            let flag = entries[plainKey]
        else { return nil }
        guard flag == .bool(true) else {
            throw ArchiveError(.malformedInput, "'plain' must be true", path: [.key(plainKey)])
        }
        if let stray = entries.keys.first(where: { ![archiveKey, plainKey, ArchiveEnvelope.rootKey].contains($0) }) {
            throw ArchiveError(
                .malformedInput,
                "a plain envelope holds only '$archive', 'plain' and 'root', not '\(stray)' "
                    + "(a plain document has no document name, version or way down of the envelope's)",
                path: [.key(stray)])
        }
        // The marker's format and the root, checked as for every envelope.
        guard let envelope = try ArchiveEnvelope(tree: value) else { return nil }
        return envelope.root
    }
}
