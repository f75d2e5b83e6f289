/// The JSON rules-file format: migration chains written as data, so that a tool (the
/// `archive-migrate` command) can migrate archives without the app's code.
///
/// The format is described in one place, the article <doc:RulesFileFormat>; this type holds its
/// vocabulary, which the reader switches on exhaustively and the article is tested against.
/// A rules file is read into a tree by a JSON reader and turned into a catalog with
/// ``MigrationCatalog/init(rulesFile:fileName:limits:)``.
public enum RulesFile {
    /// The format version this library reads and writes: `1`.
    public static let formatVersion = 1

    /// The versions a rules file may name (`currentVersion`, `unversionedVersion`, a step's
    /// `from` and `to`): 0 through 2,147,483,647 (2³¹ − 1).
    ///
    /// The bound keeps a file meaning the same on every platform, 32-bit `Int` included, and
    /// leaves room for the step after the last: a version outside it is an
    /// ``ArchiveError/Code/invalidRules`` error at its path in the file, never a wrapped number.
    public static let versions: ClosedRange<Int> = 0...2_147_483_647

    /// The rule keywords: each rule is a JSON object with exactly one of them.
    public enum RuleKeyword: String, Sendable, Hashable, CaseIterable {
        /// ``MigrationRule/rename(_:to:required:)``
        case rename
        /// ``MigrationRule/add(_:default:)``
        case add
        /// ``MigrationRule/remove(_:restoring:)``
        case remove
        /// ``MigrationRule/convert(_:_:)``, with a ``ConverterName``
        case convert
        /// ``MigrationRule/move(_:to:)``
        case move
        /// ``MigrationRule/nest(_:into:)``
        case nest
        /// ``MigrationRule/hoist(_:from:)``
        case hoist
        /// ``MigrationRule/wrapInArray(_:)``
        case wrapInArray
        /// ``MigrationRule/takeFirst(_:)``
        case takeFirst
        /// ``MigrationRule/split(_:into:separator:)``
        case split
        /// ``MigrationRule/merge(_:into:separator:)``
        case merge
        /// ``MigrationRule/renameType(from:to:)``
        case renameType
        /// ``MigrationRule/scoped(_:_:)``
        case scope
    }

    /// The converters a `convert` rule names with `"using"`; a value map is spelled with `"map"`.
    public enum ConverterName: String, Sendable, Hashable, CaseIterable {
        /// ``ValueConverter/stringToInt``
        case stringToInt
        /// ``ValueConverter/intToString``
        case intToString
        /// ``ValueConverter/stringToDouble``
        case stringToDouble
        /// ``ValueConverter/doubleToString``
        case doubleToString
        /// ``ValueConverter/stringToBool``
        case stringToBool
        /// ``ValueConverter/boolToString``
        case boolToString
        /// ``ValueConverter/intToDouble``
        case intToDouble
        /// ``ValueConverter/doubleToInt``
        case doubleToInt
        /// ``ValueConverter/doubleToFloat``
        case doubleToFloat
        /// ``ValueConverter/date(format:)`` and ``ValueConverter/dateToString(format:)``
        case date
        /// ``ValueConverter/wrapElements(inKey:with:)``
        case wrapElements
        /// ``ValueConverter/unwrapElements(key:restoring:)``
        case unwrapElements
        /// ``ValueConverter/map(_:default:)``
        case map
    }
}

extension RulesFile.RuleKeyword {
    /// The keys a rule with this keyword may have besides the keyword (and `comment`).
    var operandKeys: [String] {
        switch self {
        case .rename: return ["to", "required"]
        case .add: return ["default"]
        case .remove: return ["restoring"]
        case .convert: return ["using", "map", "default", "from", "to", "inKey", "with", "key"]
        case .move: return ["to"]
        case .nest: return ["into"]
        case .hoist: return ["from"]
        case .wrapInArray, .takeFirst: return []
        case .split, .merge: return ["into", "separator"]
        case .renameType: return ["to"]
        case .scope: return ["rules"]
        }
    }

    /// An example spelling, shown in error messages.
    var example: String {
        switch self {
        case .rename: return #"{"rename": "old", "to": "new", "required": false}"#
        case .add: return #"{"add": "key", "default": false}"#
        case .remove: return #"{"remove": "key", "restoring": 0}"#
        case .convert: return #"{"convert": "key", "using": "stringToInt"}"#
        case .move: return #"{"move": "x", "to": "center.x"}"#
        case .nest: return #"{"nest": ["x", "y"], "into": "center"}"#
        case .hoist: return #"{"hoist": ["x", "y"], "from": "center"}"#
        case .wrapInArray: return #"{"wrapInArray": "key"}"#
        case .takeFirst: return #"{"takeFirst": "key"}"#
        case .split: return #"{"split": "name", "into": ["first", "last"], "separator": " "}"#
        case .merge: return #"{"merge": ["first", "last"], "into": "name", "separator": " "}"#
        case .renameType: return #"{"renameType": "OldName", "to": "NewName"}"#
        case .scope: return #"{"scope": "people[*]", "rules": […]}"#
        }
    }
}

extension RulesFile.ConverterName {
    /// The keys a convert rule using this converter may have besides `convert` and `using`.
    var operandKeys: [String] {
        switch self {
        case .stringToInt, .intToString, .stringToDouble, .doubleToString, .stringToBool, .boolToString,
            .intToDouble, .doubleToInt, .doubleToFloat:
            return []
        case .date: return ["from", "to"]
        case .wrapElements: return ["inKey", "with"]
        case .unwrapElements: return ["key", "with"]
        case .map: return ["map", "default"]
        }
    }

    /// Every name, for error messages.
    static var spelledList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
