import Foundation

/// The one error type of ModelVersioning and MigrationRules: what went wrong, where in the
/// archive, with which type, version, migration step and rule.
///
/// Every failure a user can cause with data (a damaged file, an archive from a newer app, a
/// migration that meets an unexpected shape) arrives as an `ArchiveError`. Its ``description``
/// reads as a sentence a user can act on:
///
/// ```
/// Circle v1 → v2, rule rename(name → title): key 'name' is missing at shapes[3]
/// ```
///
/// Match on the code directly:
///
/// ```swift
/// do {
///     drawing = try decoder.decode(Drawing.self, from: data)
/// } catch ArchiveError.Code.newerVersion {
///     showUpdateAppAlert()
/// } catch let error as ArchiveError where error.code == .limitExceeded {
///     print(error.limit ?? "")
/// }
/// ```
public struct ArchiveError: Error, Sendable {
    /// What kind of failure this is. Stable: match on it, never on the message.
    ///
    /// A struct of constants rather than an enum, so that `catch ArchiveError.Code.newerVersion`
    /// matches an ``ArchiveError`` by code and new codes can be added without breaking switches.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name, as in `newerVersion`.
        public var rawValue: String

        /// The code named `rawValue`; the library's own codes are the constants below.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's name (``rawValue``).
        public var description: String { rawValue }

        /// The bytes are not a well-formed document of the detected format.
        public static let malformedInput = Code(rawValue: "malformedInput")
        /// The bytes are in no format this library reads.
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// The input exceeds one of the ``ArchiveLimits``; ``ArchiveError/limit`` names which.
        public static let limitExceeded = Code(rawValue: "limitExceeded")
        /// A value has another kind than the model expects.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A required key is absent.
        public static let keyNotFound = Code(rawValue: "keyNotFound")
        /// A required value is `null`.
        public static let valueNotFound = Code(rawValue: "valueNotFound")
        /// A value is present and of the right kind but cannot be used (a bad date string, a
        /// number out of range, an invalid identity).
        public static let dataCorrupted = Code(rawValue: "dataCorrupted")
        /// An object's type name is not registered.
        public static let unknownType = Code(rawValue: "unknownType")
        /// An object's type is registered but not allowed at this key.
        public static let disallowedType = Code(rawValue: "disallowedType")
        /// The archive was written by a newer version of the app than this one.
        public static let newerVersion = Code(rawValue: "newerVersion")
        /// The archive is older than the model and no migration path leads to the current version.
        public static let missingMigration = Code(rawValue: "missingMigration")
        /// A migration rule could not be applied to the archived data.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// A downgrade needs the inverse of a step that has none (also when an archive is written
        /// for an older release, ``WayDown``).
        public static let irreversibleStep = Code(rawValue: "irreversibleStep")
        /// A migration chain or registry is inconsistent (found when it is built).
        public static let invalidChain = Code(rawValue: "invalidChain")
        /// A rules file is malformed.
        public static let invalidRules = Code(rawValue: "invalidRules")
        /// A path could not be parsed.
        public static let invalidPath = Code(rawValue: "invalidPath")
        /// A reference points to no object of the archive.
        public static let unresolvedReference = Code(rawValue: "unresolvedReference")
        /// Objects refer to each other through unconditional references, which cannot be built.
        public static let referenceCycle = Code(rawValue: "referenceCycle")
        /// A value cannot be written to the requested format (NaN in JSON, a conditional struct).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// Reading or writing a file failed.
        public static let io = Code(rawValue: "io")
        /// A downgrade to a release met an object of a type the release did not have, and the
        /// type's chain declares no fallback (``TypeMigrations/downgradeFallback``).
        public static let notInRelease = Code(rawValue: "notInRelease")
        /// The way down an archive carries for older apps (its envelope's `wayDown`, see
        /// ``WayDown``), or what that way down kept in an object for the way back, is malformed
        /// or does not fit this app: an unknown rule, a wrong digest, chains that go round in a
        /// circle or skip a version, steps that do not end at this app's version, a type this app
        /// does not register.
        public static let invalidWayDown = Code(rawValue: "invalidWayDown")

        /// Every code.
        public static let allCases: [Code] = [
            .malformedInput,
            .unsupportedFormat,
            .limitExceeded,
            .typeMismatch,
            .keyNotFound,
            .valueNotFound,
            .dataCorrupted,
            .unknownType,
            .disallowedType,
            .newerVersion,
            .missingMigration,
            .migrationFailed,
            .irreversibleStep,
            .invalidChain,
            .invalidRules,
            .invalidPath,
            .unresolvedReference,
            .referenceCycle,
            .invalidValue,
            .io,
            .notInRelease,
            .invalidWayDown,
        ]
    }

    /// Where in an input document (a file, a rules file) the problem is.
    public struct InputLocation: Sendable, Hashable, CustomStringConvertible {
        /// The file, when known.
        public var file: String?
        /// The 1-based line, when known.
        public var line: Int?
        /// The 1-based column, when known.
        public var column: Int?
        /// The 0-based byte offset, when known.
        public var byteOffset: Int?

        package init(file: String? = nil, line: Int? = nil, column: Int? = nil, byteOffset: Int? = nil) {
            self.file = file
            self.line = line
            self.column = column
            self.byteOffset = byteOffset
        }

        /// `rules.json:3:14`, `byte 812`, …
        public var description: String {
            var parts: [String] = []
            if let line {
                parts.append(column.map { "line \(line), column \($0)" } ?? "line \(line)")
            } else if let byteOffset {
                parts.append("byte \(byteOffset)")
            }
            if let file { parts.append("of \(file)") }
            return parts.joined(separator: " ")
        }
    }

    /// The kind of failure.
    public var code: Code
    /// The specific problem, as a sentence fragment (`key 'name' is missing`).
    public var message: String
    /// Where inside the archive tree, from its root (`shapes[3].center.x`).
    public var path: ArchivePath
    /// The archived type name of the object involved.
    public var typeName: String?
    /// The version that object was archived at.
    public var archivedVersion: Int?
    /// The migration step involved (`Circle v1 → v2`).
    public var step: String?
    /// The migration rule involved (`rename(name → title)`).
    public var rule: String?
    /// For ``Code/limitExceeded``: which limit.
    public var limit: ArchiveLimits.Limit?
    /// Where in the input bytes or file.
    public var location: InputLocation?
    /// The error that caused this one.
    public var underlyingError: (any Error)?
    /// For an error found after an upgrade (decoding the upgraded tree): what the object involved
    /// was archived as, where, and the steps that ran on it.
    public var history: MigrationHistory?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, path: ArchivePath = .root, typeName: String? = nil,
        archivedVersion: Int? = nil, step: String? = nil, rule: String? = nil, limit: ArchiveLimits.Limit? = nil,
        location: InputLocation? = nil, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.typeName = typeName
        self.archivedVersion = archivedVersion
        self.step = step
        self.rule = rule
        self.limit = limit
        self.location = location
        self.underlyingError = underlyingError
    }

    /// An error for exceeding `limit`.
    package static func limitExceeded(
        _ limit: ArchiveLimits.Limit, _ message: String, path: ArchivePath = .root,
        location: InputLocation? = nil
    ) -> ArchiveError {
        ArchiveError(.limitExceeded, message, path: path, limit: limit, location: location)
    }

    /// This error with its path placed under `prefix` (used when a nested stage reports an error
    /// relative to the value it was given).
    package func prefixingPath(_ prefix: ArchivePath) -> ArchiveError {
        var copy = self
        copy.path = prefix.appending(path)
        return copy
    }

    /// This error with the missing context filled in; context already present is kept.
    package func adding(
        typeName: String? = nil, archivedVersion: Int? = nil, step: String? = nil, rule: String? = nil,
        file: String? = nil
    ) -> ArchiveError {
        var copy = self
        if copy.typeName == nil { copy.typeName = typeName }
        if copy.archivedVersion == nil { copy.archivedVersion = archivedVersion }
        if copy.step == nil { copy.step = step }
        if copy.rule == nil { copy.rule = rule }
        if let file {
            var location = copy.location ?? InputLocation()
            if location.file == nil { location.file = file }
            copy.location = location
        }
        return copy
    }
}

extension ArchiveError: CustomStringConvertible, CustomDebugStringConvertible {
    /// A sentence: step or type, rule, what went wrong, where, and why.
    ///
    /// `Circle v1 → v2, rule rename(name → title): key 'name' is missing at shapes[3]`
    public var description: String {
        var text = ""
        if let step {
            text = step
        } else if let history {
            text = history.description
        } else if let typeName {
            text = typeName
            if let archivedVersion { text += " v\(archivedVersion)" }
        }
        if let rule {
            text += text.isEmpty ? "rule \(rule)" : ", rule \(rule)"
        }
        if !text.isEmpty { text += ": " }
        text += message
        if !path.isRoot {
            text += " at \(path)"
        }
        if let location {
            let locationText = location.description
            if !locationText.isEmpty { text += " (\(locationText))" }
        }
        if let underlyingError {
            // Foundation's errors print their whole user-info dictionary; keep their sentence.
            let nested = underlyingError as? ArchiveError
            text += ": " + (nested.map(\.description) ?? underlyingError.localizedDescription)
        }
        return text
    }

    /// The code, then ``description``: `ArchiveError(newerVersion): …`.
    public var debugDescription: String {
        "ArchiveError(\(code.rawValue)): \(description)"
    }
}

extension ArchiveError.Code {
    /// Lets `catch ArchiveError.Code.newerVersion { … }` match an ``ArchiveError`` by its code.
    public static func ~= (pattern: ArchiveError.Code, value: any Error) -> Bool {
        (value as? ArchiveError)?.code == pattern
    }
}
