/// The JSON rules-file format: migration chains written as data, so that a tool (the
/// `archive-migrate` command) can migrate archives without the app's code.
///
/// A rules file is read into a tree by a JSON reader — ModelVersioning's
/// `ArchiveFormat.json.read(_:options:)`, with every key taken literally — and turned into a
/// catalog with ``MigrationCatalog/init(rulesFile:fileName:)``:
///
/// ```swift
/// let data = try Data(contentsOf: url)
/// let tree = try ArchiveFormat.json.read(data, options: ArchiveReadingOptions(markup: .plain))
/// let catalog = try MigrationCatalog(rulesFile: tree, fileName: url.lastPathComponent)
/// ```
///
/// ## The file
///
/// ```json
/// {
///   "formatVersion": 1,
///   "document": {
///     "name": "people", "versionPath": "schema_version", "currentVersion": 3, "unversionedVersion": 1,
///     "steps": [
///       { "from": 1, "to": 2, "rules": [
///         { "scope": "people[*]", "rules": [
///           { "split": "name", "into": ["first_name", "last_name"], "separator": " " } ] } ] },
///       { "from": 2, "to": 3, "rules": [
///         { "scope": "people[*]", "rules": [
///           { "add": "birthday", "default": null },
///           { "add": "mark_as_favorite", "default": false } ] } ] }
///     ]
///   },
///   "types": {
///     "Circle": {
///       "currentVersion": 3, "aliases": ["MyApp.Circle"], "unversionedVersion": 1,
///       "steps": [
///         { "from": 1, "to": 2, "rules": [ { "rename": "r", "to": "radius" } ] },
///         { "from": 2, "to": 3, "name": "center point", "rules": [ { "nest": ["x", "y"], "into": "center" } ] }
///       ]
///     }
///   }
/// }
/// ```
///
/// | key | value |
/// |---|---|
/// | `formatVersion` | required; `1` |
/// | `document` | one document chain (below) |
/// | `documents` | a list of document chains |
/// | `types` | an object from type names to type chains |
///
/// A **type chain** has `currentVersion` (required), `aliases` (a list of names), `unversionedVersion`
/// (an integer or `null`) and `steps`. A **document chain** has `name` (required), `versionPath`
/// (default `"documentVersion"`; keys only, such as `"metadata.version"`), `currentVersion`
/// (required), `unversionedVersion` and `steps`. A **step** has `from` (required), `to` (default
/// `from + 1`), an optional `name` and `rules`.
///
/// ## Rules
///
/// Each rule is an object with exactly one rule keyword:
///
/// | rule | spelling |
/// |---|---|
/// | ``MigrationRule/rename(_:to:required:)`` | `{"rename": "old", "to": "new", "required": false}` |
/// | ``MigrationRule/add(_:default:)`` | `{"add": "key", "default": false}` |
/// | ``MigrationRule/remove(_:restoring:)`` | `{"remove": "key"}`, `{"remove": "key", "restoring": 0}` |
/// | ``MigrationRule/convert(_:_:)`` | `{"convert": "key", "using": "stringToInt"}` (converters below) |
/// | ``MigrationRule/move(_:to:)`` | `{"move": "x", "to": "center.x"}` |
/// | ``MigrationRule/nest(_:into:)`` | `{"nest": ["x", "y"], "into": "center"}` |
/// | ``MigrationRule/hoist(_:from:)`` | `{"hoist": ["x", "y"], "from": "center"}` |
/// | ``MigrationRule/wrapInArray(_:)`` | `{"wrapInArray": "tag"}` |
/// | ``MigrationRule/takeFirst(_:)`` | `{"takeFirst": "tags"}` |
/// | ``MigrationRule/split(_:into:separator:)`` | `{"split": "name", "into": ["first", "last"], "separator": " "}` |
/// | ``MigrationRule/merge(_:into:separator:)`` | `{"merge": ["first", "last"], "into": "name", "separator": " "}` |
/// | ``MigrationRule/renameType(from:to:)`` | `{"renameType": "Round", "to": "Circle"}` |
/// | ``MigrationRule/scoped(_:_:)`` | `{"scope": "people[*]", "rules": [ … ]}` |
///
/// Closure rules (``MigrationRule/transform(_:_:inverse:)``, closure splits and merges, custom
/// converters) have no spelling: they exist only in Swift.
///
/// ## Converters
///
/// | converter | spelling |
/// |---|---|
/// | numbers, Booleans | `"using"`: `"stringToInt"`, `"intToString"`, `"stringToDouble"`, `"doubleToString"`, `"stringToBool"`, `"boolToString"`, `"intToDouble"`, `"doubleToInt"` |
/// | dates | `{"using": "date", "from": "iso8601", "to": "date"}` and the reverse `{"using": "date", "from": "date", "to": "iso8601"}`; formats `"iso8601"`, `"secondsSince1970"`, `"millisecondsSince1970"`, `"secondsSinceReferenceDate"`, `{"pattern": "yyyy-MM-dd"}` |
/// | value maps | `{"convert": "state", "map": [["open", "todo"], ["closed", "done"]], "default": "todo"}`; string-to-value maps may be an object: `"map": {"open": "todo"}` |
/// | array elements | `{"using": "wrapElements", "inKey": "id", "with": {"type": "arrow"}}`, `{"using": "unwrapElements", "key": "id", "with": {"type": "arrow"}}` |
///
/// ## Strictness
///
/// Every object may carry a `"comment"` key, which is ignored. Any other unknown key is an error,
/// so a typo never passes silently. Every problem is an ``ArchiveError`` with code
/// ``ArchiveError/Code/invalidRules``, a message that names the accepted spellings, the path of
/// the offending value inside the rules file (`types.Circle.steps[1].rules[0].rename`) and the
/// file name as its ``ArchiveError/location``. Chains that parse but do not fit together (a gap,
/// a step skipping a version, a name claimed by two types) are ``ArchiveError/Code/invalidChain``
/// errors with the same path and location.
public enum RulesFile {
    /// The format version this library reads and writes: `1`.
    public static let formatVersion = 1

    /// The rule keywords, in the order of the table above.
    public static var ruleKeywords: [String] { RulesFileReader.ruleKeywords }

    /// The converter names accepted by `"using"` (and `map`).
    public static var converterNames: [String] { RulesFileReader.converterNames }
}
