/// Which document chain migrates a document: the one rule every road follows — the decoder, and
/// the engine behind `ArchiveBatch`, `ArchiveUpgrader` and `archive-migrate`. (The migration pass
/// itself applies only the chain it is given or the one an envelope names: it also migrates
/// archives nested in a plain container, which are not that container's document.)
///
/// - A chain named by the caller (`document:`, `DecodingOptions.document`, `--document`) is
///   used as named.
/// - An archive — an envelope, or a tree holding typed objects — needs none named: the pass
///   follows the document its envelope names and every object's own chain.
/// - A plain document (no envelope, no typed objects) with none named takes the catalog's only
///   document chain, when it has exactly one, and the choice says so (``note(for:)``).
/// - A plain document with no chain named and none or several in the catalog gets none
///   (``isUnmatched``): nothing would migrate it. A front door that migrates files reports that
///   as an error, since it usually means a wrong path or a forgotten `--document`, never as
///   "Nothing to migrate".
///
/// ```swift
/// let choice = DocumentChoice(for: tree, named: nil, in: catalog)
/// try pass.upgrade(&tree, document: choice.name)
/// ```
public struct DocumentChoice: Sendable, Hashable {
    /// How the chain was chosen.
    public enum Reason: Sendable, Hashable {
        /// The caller named it.
        case named
        /// The tree is an archive: the pass follows its envelope and objects (``DocumentChoice/name`` is `nil`).
        case archive
        /// The tree is a plain document and the catalog's only document chain is this one.
        case onlyDocumentChain
        /// The tree is a plain document and no chain applies (``DocumentChoice/name`` is `nil`); the catalog's
        /// document chains are `candidates`.
        case unmatched(candidates: [String])
    }

    /// The document chain to pass to the migration pass; `nil` to follow the archive (or for a
    /// plain document no chain applies to).
    public var name: String?
    /// Why.
    public var reason: Reason

    /// The choice for `tree` (see the type's discussion).
    public init(for tree: ArchiveValue, named: String?, in catalog: MigrationCatalog) {
        if let named {
            self.init(name: named, reason: .named)
        } else if ArchiveEnvelope.isEnvelope(tree) || Self.containsObject(tree) {
            self.init(name: nil, reason: .archive)
        } else if catalog.documents.count == 1, let only = catalog.documents.first {
            self.init(name: only.name, reason: .onlyDocumentChain)
        } else {
            self.init(name: nil, reason: .unmatched(candidates: catalog.documents.map(\.name)))
        }
    }

    /// The chain's name alone, without walking a large plain tree when the catalog has not
    /// exactly one document chain to offer: what the decoder asks.
    package static func name(for tree: ArchiveValue, named: String?, in catalog: MigrationCatalog) -> String? {
        if let named { return named }
        guard catalog.documents.count == 1, !ArchiveEnvelope.isEnvelope(tree) else { return nil }
        return DocumentChoice(for: tree, named: nil, in: catalog).name
    }

    private init(name: String?, reason: Reason) {
        self.name = name
        self.reason = reason
    }

    /// Whether the tree is a plain document no chain applies to.
    public var isUnmatched: Bool {
        if case .unmatched = reason { return true }
        return false
    }

    /// What a report says of a choice made without the caller naming it: `kyoto.json has no
    /// envelope; migrated with the only document chain, Sketch`; `nil` when there is nothing to
    /// say.
    public func note(for shownAs: String) -> String? {
        guard case .onlyDocumentChain = reason, let name else { return nil }
        return "\(shownAs) has no envelope; migrated with the only document chain, \(name)"
    }

    /// The error for a plain document no chain applies to; `nil` for any other choice. The
    /// caller locates it in its input (a file, a line, a row).
    public var unmatchedError: ArchiveError? {
        guard case .unmatched(let candidates) = reason else { return nil }
        return ArchiveError(
            .unknownType,
            "not an archive (no envelope, no typed objects) and no document chain applies: "
                + (candidates.isEmpty
                    ? "the migration chains have no document chain (is it the right file?)"
                    : "name the document chain (--document, or the document option of the Swift API) with one of "
                        + candidates.joined(separator: ", ")))
    }

    /// Whether `tree` holds a typed object anywhere (walked without recursion, so any depth).
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
