import Foundation

/// How a document is spelled on disk: as an archive of this library, or as a plain document with
/// conventions of its own.
///
/// A document chain declares its style (``DocumentMigrations/style``), so that everything that
/// writes the document — the encoder, an upgrade, a downgrade, a fixture golden — writes it the
/// way its readers expect:
///
/// ```swift
/// // {"people": [{"name": "Fred", "born": "1978-04-01T00:00:00Z", "photo": "iVBORw0KGgo="}], "schema_version": 3}
/// let people = DocumentMigrations(
///     name: "people", versionPath: "schema_version", currentVersion: 3,
///     style: .plain(DocumentConventions(dates: .iso8601, data: .base64)),
///     steps: [ … ])
/// ```
///
/// The style is a writing mode, never a migration: the migration pass runs the same steps
/// whichever it is, and a document keeps the mode it was read in (an archive with an envelope
/// stays one). It decides how *new* text is written and how dates and data are read back.
public enum DocumentStyle: Sendable, Hashable, CustomStringConvertible {
    /// An archive of this library, the default: an envelope names the document and its version,
    /// and objects, references, dates and data use the `$` markup of the archive format.
    case archive
    /// A plain document: no envelope, its version at ``DocumentMigrations/versionPath``, dates
    /// and data spelled as the conventions say, and no markup — keys that start with `$` are its
    /// own and written as they are.
    case plain(DocumentConventions)

    /// A plain document with ISO 8601 dates and base64 data (``DocumentConventions/init(dates:data:)``).
    public static var plain: DocumentStyle { .plain(DocumentConventions()) }

    /// The conventions of a plain document; `nil` for an archive.
    public var conventions: DocumentConventions? {
        if case .plain(let conventions) = self { return conventions }
        return nil
    }

    /// `archive`, `plain(dates: iso8601, data: base64)`.
    public var description: String {
        switch self {
        case .archive: return "archive"
        case .plain(let conventions): return "plain(\(conventions))"
        }
    }
}

/// How a plain document spells the values JSON has no type for: dates and data.
///
/// ```swift
/// DocumentConventions()                                            // "2026-11-30T05:14:25Z", "iVBORw0KGgo="
/// DocumentConventions(dates: .millisecondsSince1970)               // 1796015665000
/// DocumentConventions(dates: .pattern("yyyy-MM-dd"))               // "2026-11-30"
/// ```
///
/// Writers spell every date and data value of a plain JSON document this way, and the decoder
/// reads them back this way, so a document the library writes always decodes. Property lists
/// and keyed archives have dates and data of their own and keep them.
public struct DocumentConventions: Sendable, Hashable, CustomStringConvertible {
    /// How data is spelled.
    public enum DataSpelling: String, Sendable, Hashable, CaseIterable {
        /// A base64 string (RFC 4648, with padding), as Foundation's `JSONEncoder` writes by
        /// default.
        case base64
    }

    /// How dates are spelled: ISO 8601 text (the default), a number of seconds or milliseconds
    /// since 1970, seconds since 2001, or a fixed pattern, read and written as the converters
    /// ``ValueConverter/date(format:)`` and ``ValueConverter/dateToString(format:)`` do (except
    /// that ISO 8601 text no fraction spells exactly gets milliseconds, not nanoseconds).
    public var dates: ValueConverter.DateFormat
    /// How data is spelled.
    public var data: DataSpelling

    /// Conventions with the given spellings.
    public init(dates: ValueConverter.DateFormat = .iso8601, data: DataSpelling = .base64) {
        self.dates = dates
        self.data = data
    }

    /// `dates: iso8601, data: base64`.
    public var description: String { "dates: \(dates), data: \(data.rawValue)" }

    /// The value `date` is spelled as: text or a number.
    ///
    /// ISO 8601 text has the fewest fraction digits (0, 3, 6 or 9) that read back to the same
    /// date, or three (milliseconds, what foreign readers expect) when none does.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidValue`` for a date the
    ///   spelling cannot hold (a non-finite one, or outside the years 1–9999 for text).
    package func spelling(of date: Date) throws -> ArchiveValue {
        if dates == .iso8601, date.timeIntervalSinceReferenceDate.isFinite,
            let text = ISO8601Date.exactString(from: date) ?? ISO8601Date.string(from: date, fractionDigits: 3)
        {
            return .string(text)
        }
        do {
            return try DateCoding(dates).encode(.date(date))
        } catch let error as ArchiveError {
            throw ArchiveError(.invalidValue, "\(error.message) (dates are spelled \(dates))")
        }
    }

    /// What a date spelled this way is, for messages: `a date spelled iso8601 (a string)`.
    package var expectedDate: String { "a date spelled \(dates) (\(DateCoding(dates).expectedKind))" }

    /// The date a value spelled this way stands for; a date value is taken as it is.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/typeMismatch`` for a value of
    ///   another kind than the spelling's (a number where text is expected), or
    ///   ``ArchiveError/Code/dataCorrupted`` for text or a number that is no date of the spelling.
    package func date(from value: ArchiveValue) throws -> Date {
        if case .date(let date) = value { return date }
        let coding = DateCoding(dates)
        guard coding.accepts(value) else {
            throw ArchiveError(.typeMismatch, "expected \(expectedDate), found \(value.kindAndValue)")
        }
        let converted: ArchiveValue
        do {
            converted = try coding.date(from: value)
        } catch let error as ArchiveError {
            throw ArchiveError(.dataCorrupted, error.message)
        }
        guard case .date(let date) = converted else {
            throw ArchiveError(.dataCorrupted, "\(value.briefDescription) is not a date spelled \(dates)")
        }
        return date
    }

    /// The value `data` is spelled as.
    package func spelling(of data: Data) -> ArchiveValue {
        switch self.data {
        case .base64: return .string(data.base64EncodedString())
        }
    }

    /// The bytes a value spelled this way stands for; a data value is taken as it is.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/typeMismatch`` for a value that
    ///   is not a string, ``ArchiveError/Code/dataCorrupted`` for a string that is not base64.
    package func data(from value: ArchiveValue) throws -> Data {
        switch (data, value) {
        case (_, .data(let bytes)):
            return bytes
        case (.base64, .string(let text)):
            guard let bytes = Data(base64Encoded: text) else {
                throw ArchiveError(.dataCorrupted, "the string is not valid base64 data")
            }
            return bytes
        case (.base64, _):
            throw ArchiveError(.typeMismatch, "expected data spelled base64 (a string), found \(value.kindAndValue)")
        }
    }
}
