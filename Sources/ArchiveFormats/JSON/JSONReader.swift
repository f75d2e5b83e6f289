import Foundation

/// Reads JSON text (RFC 8259, strictly) into an `ArchiveValue` tree.
///
/// ```swift
/// let tree = try JSONReader.read(Data(#"{"shapes": [{"x": 1.5}]}"#.utf8), options: .init())
/// ```
///
/// What it accepts: UTF-8 (a leading byte-order mark is skipped) holding exactly one value with
/// optional whitespace around it. It rejects invalid UTF-8 anywhere (never repairing it), lone
/// surrogate escapes, raw control characters in strings, comments, trailing commas, leading
/// zeros and `+`, `NaN`/`Infinity`, and duplicate keys in one object (keys are identified by
/// their exact Unicode scalars, as in `ArchiveDictionary`: `"\u{E9}"` and `"e\u{301}"` are two
/// keys).
///
/// Numbers: an integer literal becomes `ArchiveValue.int(_:)` when it fits `Int64`, else
/// `ArchiveValue.uint(_:)` when it fits `UInt64`, else a double; every literal with a fraction
/// or an exponent becomes a correctly rounded double (see ``JSONNumberParser``). A literal
/// beyond the range of `Double` is an error ("number out of range").
///
/// Markup (``ArchiveReadingOptions/markup``): with ``MarkupMode/automatic`` objects are read
/// through ``ArchiveMarkup`` when the top-level value is an object whose first key is `$archive`
/// or `$type`; ``MarkupMode/archive`` always reads markup, ``MarkupMode/plain`` never does.
/// A plain envelope read with markup (``ArchiveMarkup/rootOfPlainEnvelope(_:)``) gives its root,
/// the plain document it holds.
///
/// - Throws: `ArchiveError` with code `ArchiveError.Code.malformedInput` (with the path in
///   the tree and the line, column and byte offset of the problem), or
///   `ArchiveError.Code.limitExceeded` naming the limit of ``ArchiveReadingOptions/limits``
///   that was hit (depth, input bytes, values, string length, collection count).
enum JSONReader {
    static func read(_ data: Data, options: ArchiveReadingOptions) throws -> ArchiveValue {
        try readDocument(data, options: options).value
    }

    /// Reads `data` and tells whether it was read as archive markup (in `.automatic`, whether
    /// its top-level object starts with `$archive` or `$type`), whether it holds a reference,
    /// and whether it was a plain envelope — then its root, a plain document, is the value, and
    /// `usedMarkup` is `false`: the document is plain, only its JSON spelling was marked up.
    static func readDocument(_ data: Data, options: ArchiveReadingOptions) throws -> (
        value: ArchiveValue, usedMarkup: Bool, hasReferences: Bool, isPlainEnvelope: Bool
    ) {
        let (value, usedMarkup, hasReferences) = try readMarkedUp(data, options: options)
        if usedMarkup, let plain = try ArchiveMarkup.rootOfPlainEnvelope(value) {
            // A plain document's references are its own (property-list UIDs), not the archive's.
            return (plain, false, false, true)
        }
        return (value, usedMarkup, hasReferences, false)
    }

    /// ``readDocument(_:options:)`` before a plain envelope is opened.
    private static func readMarkedUp(_ data: Data, options: ArchiveReadingOptions) throws -> (
        value: ArchiveValue, usedMarkup: Bool, hasReferences: Bool
    ) {
        guard data.count <= options.limits.maxInputBytes else {
            throw ArchiveError.limitExceeded(
                .inputBytes, "the input has \(data.count) bytes, more than the limit of \(options.limits.maxInputBytes)"
            )
        }
        return try data.withUnsafeBytes { raw in
            try raw.withMemoryRebound(to: UInt8.self) { buffer in
                guard let base = buffer.baseAddress, !buffer.isEmpty else {
                    throw ArchiveError(
                        .malformedInput, "expected a value, found the end of the input",
                        location: .init(line: 1, column: 1, byteOffset: 0))
                }
                var parser = JSONParser(base, count: buffer.count, options: options)
                let value = try parser.parse()
                return (value, parser.markup, parser.sawReference)
            }
        }
    }
}
