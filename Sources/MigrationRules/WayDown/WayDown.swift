/// The steps down to an older release, carried inside an archive as data: how an app older than
/// the archive reads it.
///
/// An older app cannot know the steps back from versions it never saw. A newer app does, and
/// its steps are declarative and reversible, so when it writes an archive that an older
/// release must still read (``MigrationCatalog/writeWayDown(toRelease:into:)``, the
/// `readableBy` of ModelVersioning's `ArchiveEncoder`, `archive-migrate … --readable-by 1.1`),
/// it puts the inverse steps for every type and document chain newer than that release into the
/// archive's envelope, in the rules-file vocabulary (see <doc:RulesFileFormat>), with a digest:
///
/// ```json
/// "wayDown": {
///   "formatVersion": 1,
///   "release": "1.1",
///   "document": { "name": "Sketch", "from": 4, "to": 2, "steps": [
///     { "from": 4, "to": 3, "name": "app 2.0", "rules": [] },
///     { "from": 3, "to": 2, "name": "app 1.2", "rules": [] } ] },
///   "types": {
///     "Circle": { "from": 3, "to": 2, "steps": [
///       { "from": 3, "to": 2, "name": "app 1.2: radius", "rules": [ { "rename": "radius", "to": "r" } ] } ] }
///   },
///   "digest": "sha256:…"
/// }
/// ```
///
/// A ``MigrationPass`` upgrading such an archive with a catalog older than it (an app's decoder,
/// `archive-migrate upgrade` with an older rules file) reads the way down and runs its steps,
/// down to the versions it knows, before its own upgrade — the same pass, with the same limits
/// and errors — and keeps beside each object what the older versions cannot hold, so that the
/// newer app gets it back (see the article "Archives older apps can open").
///
/// Each chain is named by the name its objects carry at ``Chain/from`` (today's type name, or
/// the document's name); each step goes one version down and its rules are what runs.
public struct WayDown: Sendable {
    /// The steps of one type or document down to the release.
    public struct Chain: Sendable {
        /// The type name objects carry at ``from``, or the document's name.
        public var name: String
        /// The newest version the steps start at.
        public var from: Int
        /// The version they end at: the release's, or (for a type the release did not have,
        /// before its ``fallback``) the chain's oldest.
        public var to: Int
        /// The name the release archived the type under, when it is not the one the steps'
        /// ``MigrationRule/renameType(from:to:)`` rules give (an alias).
        public var archivedAs: String?
        /// The steps, newest first: each goes from one version to the one below, and its rules
        /// are what runs.
        public var steps: [MigrationStep]
        /// How the release saw objects of a type it did not have.
        public var fallback: DowngradeFallback?

        /// Creates a chain.
        public init(
            name: String, from: Int, to: Int, archivedAs: String? = nil, steps: [MigrationStep],
            fallback: DowngradeFallback? = nil
        ) {
            self.name = name
            self.from = from
            self.to = to
            self.archivedAs = archivedAs
            self.steps = steps
            self.fallback = fallback
        }
    }

    /// The format of the `wayDown` value this library reads and writes: `1`.
    public static let formatVersion = 1

    /// The release the steps lead to (`"1.1"`).
    public var release: String
    /// The document's steps, when the document is newer than the release.
    public var document: Chain?
    /// The steps of each type newer than the release (or that it did not have), in the
    /// catalog's order.
    public var types: [Chain]

    /// Creates a way down.
    public init(release: String, document: Chain? = nil, types: [Chain]) {
        self.release = release
        self.document = document
        self.types = types
    }

    /// The digest of the way down as it is written: `sha256:` and the SHA-256 of the canonical
    /// bytes of the `wayDown` value without its `digest` key (see ``WayDown/init(tree:limits:)``).
    public var digest: String {
        get throws { Self.digest(of: try body()) }
    }

    /// The `wayDown` value: the body and its ``digest``.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidValue`` naming the rule and
    ///   step that has no rules-file spelling (a closure).
    public var tree: ArchiveValue {
        get throws {
            var body = try self.body()
            body.appendUnchecked(.string(Self.digest(of: body)), forKey: Self.digestKey)
            return .dictionary(body)
        }
    }

    /// `to release 1.1: document Sketch v4 → v2, Drawing v4 → v2, RoundedRectangle v1 → Rectangle v2 → …`
    public var summary: String {
        var parts: [String] = []
        if let document { parts.append("document \(document.name) v\(document.from) → v\(document.to)") }
        for chain in types {
            var part = "\(chain.name) v\(chain.from)"
            if chain.from != chain.to || chain.fallback == nil { part += " → v\(chain.to)" }
            if let fallback = chain.fallback { part += " → \(fallback.typeName) v\(fallback.version)" }
            if let archivedAs = chain.archivedAs { part += " as \(archivedAs)" }
            parts.append(part)
        }
        return "to release \(release): " + (parts.isEmpty ? "nothing" : parts.joined(separator: ", "))
    }

    // MARK: Writing

    static let formatVersionKey = "formatVersion"
    static let releaseKey = "release"
    static let documentKey = "document"
    static let typesKey = "types"
    static let digestKey = "digest"
    static let digestPrefix = "sha256:"

    /// Everything but the digest.
    func body() throws -> ArchiveDictionary {
        var body = ArchiveDictionary()
        body.appendUnchecked(.int(Int64(Self.formatVersion)), forKey: Self.formatVersionKey)
        body.appendUnchecked(.string(release), forKey: Self.releaseKey)
        if let document {
            var chain = try Self.chainTree(document, subject: "document \(document.name)")
            chain.insert(.string(document.name), forKey: "name", at: 0)
            body.appendUnchecked(.dictionary(chain), forKey: Self.documentKey)
        }
        if !types.isEmpty {
            var entries = ArchiveDictionary(minimumCapacity: types.count)
            for chain in types {
                entries.appendUnchecked(.dictionary(try Self.chainTree(chain, subject: chain.name)), forKey: chain.name)
            }
            body.appendUnchecked(.dictionary(entries), forKey: Self.typesKey)
        }
        return body
    }

    /// `{"from": 4, "to": 2, "as": "Rect", "steps": […], "fallback": {…}}`
    private static func chainTree(_ chain: Chain, subject: String) throws -> ArchiveDictionary {
        var entries = ArchiveDictionary()
        entries.appendUnchecked(.int(Int64(chain.from)), forKey: "from")
        entries.appendUnchecked(.int(Int64(chain.to)), forKey: "to")
        if let archivedAs = chain.archivedAs { entries.appendUnchecked(.string(archivedAs), forKey: "as") }
        entries.appendUnchecked(
            .array(try chain.steps.map { try RulesFileWriter.step($0, subject: subject) }), forKey: "steps")
        if let fallback = chain.fallback {
            entries.appendUnchecked(try RulesFileWriter.fallback(fallback), forKey: "fallback")
        }
        return entries
    }

    /// The digest a reader computes for a `wayDown` value: over its canonical bytes without its
    /// `digest` key (see ``WayDown/init(tree:limits:)``); `nil` when `tree` is not a dictionary.
    ///
    /// ```swift
    /// WayDown.digest(ofTree: wayDownValue) == wayDownValue["digest"]?.stringValue   // untouched
    /// ```
    ///
    /// The value is not checked against any limit: check it first when it comes from elsewhere
    /// (``WayDown/init(tree:limits:)`` does).
    public static func digest(ofTree tree: ArchiveValue) -> String? {
        guard case .dictionary(var body) = tree else { return nil }
        body.removeValue(forKey: digestKey)
        return digest(of: body)
    }

    /// `sha256:` and the hexadecimal SHA-256 of the canonical bytes of `body`
    /// (`ArchiveValue.appendCanonicalBytes(to:)`).
    static func digest(of body: ArchiveDictionary) -> String {
        var bytes = CanonicalBytes()
        ArchiveValue.dictionary(body).appendCanonicalBytes(to: &bytes)
        return digestPrefix + bytes.hexDigest()
    }
}
