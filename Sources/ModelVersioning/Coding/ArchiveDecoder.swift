import Foundation

/// Decodes versioned archives into today's Codable models: reads any supported format, resolves
/// polymorphic values through the registry, checks allow lists before any initializer runs, and
/// restores object identity (shared instances, conditional references, weak back-references).
///
/// ```swift
/// let registry = try ModelRegistry([Contents.self, Circle.self, Rectangle.self])
/// let decoder = ArchiveDecoder(registry: registry)
/// let contents = try decoder.decode(Contents.self, from: data)
/// ```
///
/// Errors are `ArchiveError`s naming the path inside the archive, the archived type and
/// version: `ArchiveError.Code.malformedInput` for damaged bytes,
/// `ArchiveError.Code.newerVersion` for archives written by a newer app,
/// `ArchiveError.Code.unknownType` and `ArchiveError.Code.disallowedType` for objects of
/// types the app does not know or does not allow at that key, and the Codable codes
/// (`ArchiveError.Code.keyNotFound`, `ArchiveError.Code.typeMismatch`, …).
public struct ArchiveDecoder: Sendable {
    /// The types polymorphic values resolve to.
    public var registry: ModelRegistry
    /// Limits and leniency.
    public var options: DecodingOptions

    /// Creates a decoder.
    public init(registry: ModelRegistry = ModelRegistry(), options: DecodingOptions = .init()) {
        self.registry = registry
        self.options = options
    }

    /// Reads `data` (JSON, a property list or an NSKeyedArchiver archive, detected) and decodes a
    /// `T` from its root.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let (tree, _) = try ArchiveFormat.read(data, options: ArchiveReadingOptions(limits: options.limits))
        return try decode(T.self, fromTree: tree)
    }

    /// Decodes a `T` from an archive tree: the root of an envelope, or the tree itself.
    public func decode<T: Decodable>(_ type: T.Type, fromTree tree: ArchiveValue) throws -> T {
        let root = try ArchiveEnvelope(tree: tree)?.root ?? tree
        let session = DecodingSession(registry: registry, options: options, root: root)
        let decoder = TreeDecoder(session: session, value: root)
        do {
            return try decoder.unbox(root, as: T.self)
        } catch let error as ArchiveError {
            throw error
        } catch let error as DecodingError {
            throw ArchiveError(error)
        } catch {
            throw ArchiveError(.dataCorrupted, "a model's initializer failed", underlyingError: error)
        }
    }
}
