import ModelVersioning

/// The document chain `upgrade` and `downgrade` migrate one file with.
///
/// - `--document NAME` names it.
/// - An archive (an envelope, or typed objects) needs none: the pass follows the document its
///   envelope names and every object's own chain.
/// - A plain document (no envelope, no typed objects) with no `--document` takes the chains'
///   only document chain, and the report says so. With none, or several, nothing would migrate
///   it, which usually means a wrong path or a forgotten `--document`: that is an error, never
///   "Nothing to migrate".
struct DocumentChoice: Sendable {
    /// The chain to pass to the migration pass; `nil` to let it follow the archive.
    var name: String?
    /// Said in the report when the chain was chosen without `--document`.
    var note: String?

    /// - Throws: `ArchiveError` with code `unknownType` for a plain document no chain applies to.
    init(for tree: ArchiveValue, file: @autoclosure () -> String, named: String?, chains: [String]) throws {
        if let named {
            name = named
            return
        }
        if ArchiveEnvelope.isEnvelope(tree) || Self.containsObject(tree) {
            return
        }
        if chains.count == 1, let only = chains.first {
            name = only
            note = "\(file()) has no envelope; migrated with the only document chain, \(only)"
            return
        }
        throw ArchiveError(
            .unknownType,
            "\(file()) is not an archive (no envelope, no typed objects) and no document chain applies: "
                + (chains.isEmpty
                    ? "the migration chains have no document chain (is it the right file?)"
                    : "give --document with one of \(chains.joined(separator: ", "))"))
    }

    /// Whether `tree` holds a typed object anywhere (walked without recursion).
    private static func containsObject(_ tree: ArchiveValue) -> Bool {
        if case .object = tree { return true }
        var pending = [tree]
        while let value = pending.popLast() {
            switch value {
            case .object: return true
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let entries): pending.append(contentsOf: entries.values)
            default: break
            }
        }
        return false
    }
}
