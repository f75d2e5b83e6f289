import Foundation

/// Encodes Codable values into versioned archives: every ``VersionedModel`` object is stamped
/// with its archive type name and version, shared model class instances are written once, and
/// Mantle-style encoding behaviours decide which properties are written.
///
/// ```swift
/// let encoder = ArchiveEncoder()                        // JSON, pretty-printed
/// let data = try encoder.encode(contents)
///
/// var plist = ArchiveEncoder(format: .binaryPropertyList)
/// plist.document = "Sketch"                             // optional document name and version
/// plist.documentVersion = 3
/// try plist.encode(contents).write(to: url, options: .atomic)
/// ```
///
/// The archive is an `ArchiveEnvelope` around the encoded root; ``encodeTree(_:)`` returns it
/// as a tree without writing bytes.
///
/// A document that is not an archive of this library — a foreign JSON file with its own
/// `schema_version` — is written the way it is spelled on disk when ``registry`` has a document
/// chain named ``document`` whose `DocumentMigrations.style` is plain: no envelope, the
/// version at the chain's `DocumentMigrations.versionPath`, dates and data in the chain's
/// `DocumentConventions`, no `$` markup. The decoder reads it back with the same chain:
///
/// ```swift
/// let registry = try ModelRegistry([], documents: [people])     // people.style == .plain(…)
/// var encoder = ArchiveEncoder(registry: registry)
/// encoder.document = "people"
/// let data = try encoder.encode(file)      // {"people": […], "schema_version": 3}
/// ```
///
/// Errors are `ArchiveError`s with the path of the offending value:
/// `ArchiveError.Code.referenceCycle` when model objects refer to each other through
/// unconditional references (declare the back-reference `.conditional`),
/// `ArchiveError.Code.invalidValue` for values the model or format cannot hold, and
/// `ArchiveError.Code.limitExceeded` beyond `ArchiveLimits.maxDepth`.
public struct ArchiveEncoder: Sendable {
    /// The format ``encode(_:)`` writes.
    public var format: ArchiveFormat
    /// Pretty printing, markup and limits for the format writer.
    public var writingOptions: ArchiveWritingOptions
    /// The document name recorded in the envelope; for a plain document (see
    /// ``documentStyle``), the chain it is written by.
    public var document: String?
    /// The document version recorded in the envelope, or written at a plain document's version
    /// path; when `nil`, the current version of ``registry``'s chain named ``document``. An
    /// archive that names a document always records its version (``stampedDocumentVersion``):
    /// one without would be read back as the chain's oldest version and migrated again.
    public var documentVersion: Int?
    /// Registered types' information is reused when present; encoding needs no registration
    /// (except for ``readableBy``, whose steps come from the registry's chains and releases).
    public var registry: ModelRegistry?
    /// The oldest release of the app that must still read the archive (`"1.1"`, or the document
    /// version it wrote), or `nil`.
    ///
    /// When set, the archive carries the way down to that release (see `WayDown`): for every
    /// type and document chain in it newer than the release, the steps that take it down to the
    /// release's versions, as data, with a digest, in the envelope. That release's app — built
    /// with this library — reads the archive as if the newer app had written it for it, keeps
    /// what its models cannot hold, and gives it back when this app reads its archive again (see
    /// the article <doc:ArchivesOlderAppsCanOpen>). Archives without `readableBy` carry nothing.
    ///
    /// ```swift
    /// var encoder = SketchRegistry.encoder()
    /// encoder.registry = try SketchRegistry.registry()
    /// encoder.readableBy = "1.1"
    /// let data = try encoder.encode(drawing)    // app 1.1 opens it
    /// ```
    ///
    /// Needs ``registry`` with the app's releases (`ModelRegistry(_:documents:releases:)`).
    /// Writing fails with `ArchiveError.Code.invalidValue` naming the step and rule that cannot
    /// be written as data (a closure: declare the step's `inverseRules`),
    /// `ArchiveError.Code.irreversibleStep` for a step without an inverse,
    /// `ArchiveError.Code.notInRelease` for a type the release did not have and whose chain
    /// declares no downgrade fallback, and `ArchiveError.Code.unknownType` without releases or
    /// for an unknown release. JSON is then written through the tree (see `CodingPaths`).
    public var readableBy: String?
    /// Values the models' `encode(to:)` can read from `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder.
    public init(
        format: ArchiveFormat = .json, writingOptions: ArchiveWritingOptions = .init(), registry: ModelRegistry? = nil
    ) {
        self.format = format
        self.writingOptions = writingOptions
        self.registry = registry
    }

    /// Encodes `value` and writes the archive in ``format``.
    ///
    /// JSON is written straight from the values when nothing needs the whole tree (no model
    /// class instance met twice, conditional references, sets of non-scalars or dictionaries
    /// without `String` keys; see
    /// `DirectJSONEncoder`), with the same bytes as writing ``encodeTree(_:)``'s tree. When
    /// something does, or a model's `encode(to:)` throws, the value is encoded again through the
    /// tree, so an `encode(to:)` can run twice for one call: keep it free of side effects, as
    /// `Encodable` expects.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        try CodingPaths.encode(value, with: self)
    }

    /// How the document is written: the style of ``registry``'s chain named ``document``, or
    /// `DocumentStyle.archive` when there is none.
    public var documentStyle: DocumentStyle {
        guard let document, let chain = registry?.catalog.document(named: document) else { return .archive }
        return chain.style
    }

    /// The document version the archive records: ``documentVersion``, or the current version of
    /// ``registry``'s chain named ``document``; `nil` when no document is named.
    ///
    /// - Throws: `ArchiveError` with code `invalidValue` when a document is named but neither
    ///   a version nor a registry with its chain is given: the archive would carry no version.
    public var stampedDocumentVersion: Int? {
        get throws {
            guard let document else { return nil }
            if let documentVersion { return documentVersion }
            guard let chain = registry?.catalog.document(named: document) else {
                throw ArchiveError(
                    .invalidValue,
                    "the archive names the document '\(document)' but no version for it: set documentVersion, or "
                        + "give the encoder the registry that holds the document's chain (ArchiveEncoder.registry)")
            }
            return chain.currentVersion
        }
    }

    /// The chain of a plain document this encoder writes, if it writes one.
    var plainDocument: DocumentMigrations? {
        guard let document, let chain = registry?.catalog.document(named: document), chain.style != .archive else {
            return nil
        }
        return chain
    }

    /// The options the format writer gets: ``writingOptions``, with plain markup and the chain's
    /// conventions for a plain document.
    var effectiveWritingOptions: ArchiveWritingOptions {
        guard let chain = plainDocument else { return writingOptions }
        return writingOptions.writing(chain.style)
    }

    /// Encodes `value` into an archive tree: the envelope with the root value (and the way down
    /// to ``readableBy``, when set); for a plain document (``documentStyle``), the root value
    /// with the document version at its chain's version path.
    ///
    /// A plain document holds values only: a model object is written as its fields (the
    /// document's version covers it; no `$type` or `$version`), and a model class instance
    /// written in more than one place, which only an archive can share, is an error.
    ///
    /// - Throws: also `ArchiveError.Code.invalidValue` when a plain document's root is not a
    ///   dictionary that can hold its version, it would refer to an object written elsewhere, or
    ///   it is asked to carry a way down (a plain document has no envelope to hold one).
    public func encodeTree<T: Encodable>(_ value: T) throws -> ArchiveValue {
        if let chain = plainDocument {
            if let readableBy {
                throw ArchiveError(
                    .invalidValue,
                    "readableBy \(readableBy): the plain document '\(chain.name)' has no envelope to carry the way down in"
                )
            }
            var root = try Self.plainValue(encodeValue(value), document: chain.name, path: .root)
            try chain.storeVersion(documentVersion ?? chain.currentVersion, in: &root)
            return root
        }
        let version = try stampedDocumentVersion
        var tree = ArchiveEnvelope(root: try encodeValue(value), document: document, documentVersion: version).tree
        if let readableBy {
            guard let registry else {
                throw ArchiveError(
                    .unknownType,
                    "readableBy \(readableBy) needs the registry with the app's releases (ArchiveEncoder.registry)")
            }
            try registry.catalog.writeWayDown(toRelease: readableBy, into: &tree)
        }
        return tree
    }

    /// Encodes `value` into a bare tree, without the envelope.
    public func encodeValue<T: Encodable>(_ value: T) throws -> ArchiveValue {
        let session = EncodingSession(registry: registry, limits: writingOptions.limits, userInfo: userInfo)
        let root = TreeEncoder(session: session, parent: nil, key: nil, depth: 0, model: nil)
        // The makers' spare containers refer back to the run.
        defer { session.keyedContainerMakers.removeAll() }
        var tree: ArchiveValue
        do {
            tree = try root.box(value, key: nil)
        } catch let error as ArchiveError {
            throw error
        } catch let error as EncodingError {
            throw ArchiveError(error)
        } catch {
            throw ArchiveError(.invalidValue, "the value could not be encoded", underlyingError: error)
        }
        if !session.graph.isEmpty {
            session.graph.finalize(&tree)
        }
        return tree
    }

    /// `value` as a plain document holds it: objects as dictionaries of their fields. The
    /// encoder has already bounded the depth (`ArchiveLimits.maxDepth`).
    private static func plainValue(_ value: ArchiveValue, document: String, path: ArchivePath) throws -> ArchiveValue {
        switch value {
        case .object(let object):
            return try plainValue(.dictionary(object.fields), document: document, path: path)
        case .dictionary(var entries):
            for index in entries.indices {
                let key = entries[index].key
                try entries.withValue(at: index) { field in
                    field = try plainValue(field, document: document, path: path.appending(key))
                }
            }
            return .dictionary(entries)
        case .array(var elements):
            for index in elements.indices {
                elements[index] = try plainValue(elements[index], document: document, path: path.appending(index))
            }
            return .array(elements)
        case .reference:
            throw ArchiveError(
                .invalidValue,
                "the plain document \(document) would refer to an object written elsewhere (a model class instance "
                    + "met twice, or a conditional reference): only an archive can share an instance",
                path: path)
        default:
            return value
        }
    }
}
