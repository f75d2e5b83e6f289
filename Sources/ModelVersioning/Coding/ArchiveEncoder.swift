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
    /// The document name recorded in the envelope.
    public var document: String?
    /// The document version recorded in the envelope.
    public var documentVersion: Int?
    /// Registered types' information is reused when present; encoding needs no registration.
    public var registry: ModelRegistry?
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
    /// `StreamingJSONEncoder`), with the same bytes as writing ``encodeTree(_:)``'s tree. When
    /// something does, or a model's `encode(to:)` throws, the value is encoded again through the
    /// tree, so an `encode(to:)` can run twice for one call: keep it free of side effects, as
    /// `Encodable` expects.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        try CodingPaths.encode(value, with: self)
    }

    /// Encodes `value` into an archive tree: the envelope with the root value.
    public func encodeTree<T: Encodable>(_ value: T) throws -> ArchiveValue {
        ArchiveEnvelope(root: try encodeValue(value), document: document, documentVersion: documentVersion).tree
    }

    /// Encodes `value` into a bare tree, without the envelope.
    public func encodeValue<T: Encodable>(_ value: T) throws -> ArchiveValue {
        let session = EncodingSession(registry: registry, limits: writingOptions.limits, userInfo: userInfo)
        let root = TreeEncoder(session: session, parent: nil, key: nil, depth: 0, model: nil)
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
}
