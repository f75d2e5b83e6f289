import Foundation

/// The hand-over between the reference paths and the fast paths, written once; the one place
/// that lists every fast path, its fall-back rule, its tests and its fuzz target (the article
/// <doc:FastPaths> says the same for users).
///
/// The **tree path** is the reference: the format readers and writers (ArchiveFormats) turn
/// bytes into an `ArchiveValue` tree and back, the migration pass edits the tree, ``TreeDecoder``
/// reads models out of it and ``TreeEncoder`` builds one (`Coding/Tree/`, with the object graph
/// in `Coding/Graph/`). It handles every archive, format and model the library supports, and
/// every error message and path a user sees comes from it.
///
/// Three **fast paths** skip the tree for the common case, each on JSON only:
///
/// | fast path | where | covers | tests | fuzz target |
/// |---|---|---|---|---|
/// | direct decoder | `Coding/Direct/` ``DirectJSONDecoder`` | archives whose objects are current or whose chains only move keys (``DirectMigration``), into declared model types, structs, arrays, optionals, strings, numbers, Booleans | *Direct JSON decoding*, *Direct migration* | `fuzz-decode`, `fuzz-migrate` |
/// | direct encoder | `Coding/Direct/` ``DirectJSONEncoder`` | archives (not plain documents, no way down) without shared instances, conditional references or non-scalar sets | *Direct JSON encoder* | `fuzz-decode` (round trips) |
/// | text rewrite | `Engine/TextRewrite/` `JSONTextRewrite` | upgrading archives whose old objects only move keys, bytes to bytes, for the engine (``MigrationEngine``) | *Upgrading JSON archives by rewriting their text*, *archive-migrate: text rewrite* | `fuzz-upgrade` |
///
/// The rule: **anything a fast path does not cover falls back to the tree path**, and so does
/// every error (a run that ends is never resumed; the archive is decoded, encoded or upgraded
/// again from the start through the tree). A fast path is therefore never the only
/// implementation of anything: it must give exactly the tree path's result — the same values,
/// the same bytes — and its tests and fuzz target compare it with the tree path on the same
/// inputs.
///
/// What the paths share lives in `Coding/` itself (``EncodingSession``, the marker protocols of `CodingMarkers.swift`),
/// `Coding/Keys/` and `Coding/Values/`; the JSON grammar they read (``JSONText``,
/// ``JSONNumberParser``) and the structural index (``JSONStructure``) live with the format in
/// ArchiveFormats.
enum CodingPaths {
    /// Decodes a `T` from `data` through the direct path when it covers the archive, and
    /// through the tree path (read, migrate, decode) otherwise.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, with decoder: ArchiveDecoder) throws -> T {
        if let value = DirectJSONDecoder.decode(T.self, from: data, with: decoder) {
            return value
        }
        return try decoder.decodeThroughTree(T.self, from: data)
    }

    /// Encodes `value` through the direct path when the format is JSON, the document is an
    /// archive (a plain document's version goes where its chain says), the archive carries no way
    /// down (`ArchiveEncoder.readableBy`, computed from the whole tree) and the path covers the
    /// value, and through the tree path (encode a tree, write it) otherwise.
    static func encode<T: Encodable>(_ value: T, with encoder: ArchiveEncoder) throws -> Data {
        if encoder.format == .json, encoder.plainDocument == nil, encoder.readableBy == nil,
            let data = DirectJSONEncoder.encode(value, with: encoder)
        {
            return data
        }
        return try encoder.format.write(try encoder.encodeTree(value), options: encoder.effectiveWritingOptions)
    }
}
