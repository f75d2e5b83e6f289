import Foundation

/// The hand-over between the two coding paths, written once.
///
/// `Coding/` holds two complete implementations of `Decoder` and `Encoder`:
///
/// - **The tree path** (`Coding/Tree/`) is the reference. ``TreeDecoder`` reads models out of an
///   `ArchiveValue` tree and ``TreeEncoder`` builds one; with the format readers and writers,
///   the migration pass and the object graph (`Coding/Graph/`) it handles every archive,
///   every format and every model the library supports, and every error message and path a user
///   sees comes from it.
/// - **The streaming JSON path** (`Coding/StreamingJSON/`) is the fast path for what an app does
///   on every launch. ``StreamingJSONDecoder`` decodes a JSON archive straight from its bytes
///   when every object is at its type's current version or needs only a chain that moves keys
///   (``StreamingMigration``), into exactly the declared model types, plain structs, arrays,
///   optionals, strings, numbers and Booleans. ``StreamingJSONEncoder`` writes an archive's JSON
///   straight from the values when nothing needs the whole tree (a plain document, whose
///   version goes where its chain says, is written through the tree). Each type's documentation
///   lists exactly what ends its run.
///
/// The rule: **anything the streaming path does not cover falls back to the tree path**, and so
/// does every error (a run that ends is never resumed; the archive is decoded or the value
/// encoded again from the start through the tree). The streaming path is therefore never the
/// only implementation of anything: it must give exactly the tree path's result — the same
/// values, the same bytes — and the test suites *Streaming JSON decoding*, *Streaming JSON
/// encoder* and *Streaming migration* check it against the tree path on the same inputs.
///
/// The parts both paths use live in `Coding/Shared/` (the encoding session, the coding key,
/// keyed-container makers, the primitive and marker protocols); the JSON grammar both read
/// (``JSONText``, ``JSONNumberParser``) lives with the format in `Formats/JSON/`.
enum CodingPaths {
    /// Decodes a `T` from `data` through the streaming path when it covers the archive, and
    /// through the tree path (read, migrate, decode) otherwise.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, with decoder: ArchiveDecoder) throws -> T {
        if let value = StreamingJSONDecoder.decode(T.self, from: data, with: decoder) {
            return value
        }
        return try decoder.decodeThroughTree(T.self, from: data)
    }

    /// Encodes `value` through the streaming path when the format is JSON, the document is an
    /// archive (a plain document's version goes where its chain says), the archive carries no way
    /// down (`ArchiveEncoder.readableBy`, computed from the whole tree) and the path covers the
    /// value, and through the tree path (encode a tree, write it) otherwise.
    static func encode<T: Encodable>(_ value: T, with encoder: ArchiveEncoder) throws -> Data {
        if encoder.format == .json, encoder.plainDocument == nil, encoder.readableBy == nil,
            let data = StreamingJSONEncoder.encode(value, with: encoder)
        {
            return data
        }
        return try encoder.format.write(try encoder.encodeTree(value), options: encoder.effectiveWritingOptions)
    }
}
