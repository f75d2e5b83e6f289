/// Reads the tree of a JSON rules file into chains, strictly: every unknown key, missing key and
/// value of the wrong kind is an ``ArchiveError/Code/invalidRules`` error at its path inside the
/// file, naming the accepted spellings.
///
/// A rules file is input like an archive: before anything else the tree is checked against the
/// ``ArchiveLimits`` (``checkLimits(_:)``), so that no later step recurses, counts or copies
/// without a bound, and every version is checked against ``RulesFile/versions``, so that no
/// arithmetic on it can overflow.
struct RulesFileReader {
    let fileName: String?
    let limits: ArchiveLimits

    // MARK: Errors

    func invalid(_ message: String, at path: ArchivePath) -> ArchiveError {
        ArchiveError(.invalidRules, message, path: path, location: ArchiveError.InputLocation(file: fileName))
    }

    /// A chain error found by validation, placed at the chain's path in the file.
    func placed(_ error: ArchiveError, under path: ArchivePath) -> ArchiveError {
        var placed = error.prefixingPath(path)
        placed.location = ArchiveError.InputLocation(file: fileName)
        return placed
    }

    // MARK: The file

    static let topKeys = [
        "formatVersion", "document", "documents", "types", "releases", "releasesDocument", "comment",
    ]

    func catalog(from tree: ArchiveValue) throws -> MigrationCatalog {
        try checkLimits(tree)
        let top = try fields(
            tree, at: .root, what: "a rules file", example: #"{"formatVersion": 1, "types": {…}, "documents": […]}"#,
            allowed: Self.topKeys)
        let versionPath = ArchivePath.root.appending("formatVersion")
        guard let version = try top.int("formatVersion") else {
            throw invalid(
                "the rules file has no 'formatVersion'; start it with \"formatVersion\": \(RulesFile.formatVersion)",
                at: versionPath)
        }
        guard version == RulesFile.formatVersion else {
            throw invalid(
                "formatVersion \(version) is not supported; this library reads formatVersion \(RulesFile.formatVersion)",
                at: versionPath)
        }
        var documents: [(DocumentMigrations, ArchivePath)] = []
        if let value = top["document"] {
            let path = ArchivePath.root.appending("document")
            documents.append((try document(value, at: path), path))
        }
        if let list = try top.array("documents", "a list of documents") {
            for (index, value) in list.enumerated() {
                let path = ArchivePath.root.appending("documents").appending(index)
                documents.append((try document(value, at: path), path))
            }
        }
        var types: [(TypeMigrations, ArchivePath)] = []
        if let value = top["types"] {
            let path = ArchivePath.root.appending("types")
            guard case .dictionary(let entries) = value else {
                throw invalid(
                    "'types' must be an object from type names to chains, such as {\"Circle\": {\"currentVersion\": 2, "
                        + "\"steps\": […]}}; found \(value.kindAndValue)", at: path)
            }
            for (name, chain) in entries {
                guard !name.isEmpty else {
                    throw invalid(
                        "a type name is empty; name the chain after the type it migrates", at: path.appending(name))
                }
                types.append((try type(named: name, chain, at: path.appending(name)), path.appending(name)))
            }
        }
        var ruleCount = 0
        for (chain, path) in types {
            for step in chain.steps {
                try countRules(step.rules, into: &ruleCount, at: path)
                try countRules(step.inverseRules ?? [], into: &ruleCount, at: path)
            }
            try countRules(chain.downgradeFallback?.rules ?? [], into: &ruleCount, at: path)
            do { try chain.validate() } catch let error as ArchiveError { throw placed(error, under: path) }
        }
        for (chain, path) in documents {
            for step in chain.steps {
                try countRules(step.rules, into: &ruleCount, at: path)
                try countRules(step.inverseRules ?? [], into: &ruleCount, at: path)
            }
            do { try chain.validate() } catch let error as ArchiveError { throw placed(error, under: path) }
        }
        var manifest: ReleaseManifest?
        if let list = try top.array("releases", "a list of releases, oldest first") {
            manifest = try releases(
                list, document: try top.string("releasesDocument", "the document chain the releases wrote"),
                documents: documents.map(\.0))
        }
        do {
            return try MigrationCatalog(types: types.map(\.0), documents: documents.map(\.0), releases: manifest)
        } catch let error as ArchiveError where error.path.components.first == .key("releases") {
            throw placed(error, under: .root)
        } catch let error as ArchiveError {
            let path = error.typeName.flatMap { name in types.first { $0.0.typeName == name }?.1 } ?? .root
            throw placed(error, under: path)
        }
    }

    // MARK: Chains

    static let typeKeys = ["currentVersion", "aliases", "unversionedVersion", "steps", "downgradeFallback", "comment"]
    static let fallbackKeys = ["type", "version", "rules", "comment"]
    static let documentKeys = [
        "name", "versionPath", "currentVersion", "unversionedVersion", "plain", "steps", "comment",
    ]
    static let plainKeys = ["dates", "data", "comment"]
    static let stepKeys = ["from", "to", "name", "rules", "inverse", "comment"]

    func type(named name: String, _ value: ArchiveValue, at path: ArchivePath) throws -> TypeMigrations {
        let chain = try fields(
            value, at: path, what: "the chain of type \(name)",
            example: #"{"currentVersion": 2, "aliases": […], "unversionedVersion": 1, "steps": […]}"#,
            allowed: Self.typeKeys)
        return TypeMigrations(
            typeName: name,
            currentVersion: try chain.requiredVersion("currentVersion", "the version the app writes today"),
            aliases: try chain.names("aliases", "a list of type names") ?? [],
            unversionedVersion: try chain.version("unversionedVersion"), steps: try steps(chain),
            downgradeFallback: try chain["downgradeFallback"].map {
                try fallback($0, at: path.appending("downgradeFallback"))
            })
    }

    /// `{"type": "Rectangle", "version": 2, "rules": […]}`: how releases without the type saw it.
    func fallback(_ value: ArchiveValue, at path: ArchivePath) throws -> DowngradeFallback {
        let fallback = try fields(
            value, at: path, what: "a downgrade fallback",
            example: #"{"type": "Rectangle", "version": 2, "rules": […]}"#, allowed: Self.fallbackKeys)
        guard let typeName = try fallback.string("type", "today's name of the type it becomes"), !typeName.isEmpty
        else {
            throw invalid("a downgrade fallback needs the 'type' it becomes", at: path.appending("type"))
        }
        let rules = try fallback.array("rules", "a list of rules") ?? []
        return DowngradeFallback(
            becoming: typeName, version: try fallback.requiredVersion("version", "the version of that type"),
            rules: try rules.enumerated().map { try rule($1, at: path.appending("rules").appending($0)) })
    }

    func document(_ value: ArchiveValue, at path: ArchivePath) throws -> DocumentMigrations {
        let chain = try fields(
            value, at: path, what: "a document chain",
            example: #"{"name": "people", "versionPath": "schema_version", "currentVersion": 3, "steps": […]}"#,
            allowed: Self.documentKeys)
        guard let name = try chain.string("name", "the document name") else {
            throw invalid("a document chain needs a 'name'", at: path.appending("name"))
        }
        guard !name.isEmpty else { throw invalid("'name' is empty", at: path.appending("name")) }
        var versionPath: ArchivePath = "documentVersion"
        if try chain.string("versionPath", "a path of keys such as \"metadata.version\"") != nil {
            versionPath = try chain.keyPath("versionPath")
        }
        return DocumentMigrations(
            name: name, versionPath: versionPath,
            currentVersion: try chain.requiredVersion("currentVersion", "the version the app writes today"),
            unversionedVersion: try chain.version("unversionedVersion"),
            style: try chain["plain"].map { try style($0, at: path.appending("plain")) } ?? .archive,
            steps: try steps(chain))
    }

    /// `"plain": true`, `"plain": false` or `"plain": {"dates": "secondsSince1970", "data": "base64"}`:
    /// a document that is not an archive of this library, and how it spells dates and data.
    func style(_ value: ArchiveValue, at path: ArchivePath) throws -> DocumentStyle {
        let example = #"{"dates": "iso8601", "data": "base64"}"#
        switch value {
        case .bool(let isPlain):
            return isPlain ? .plain : .archive
        case .dictionary:
            let plain = try fields(
                value, at: path, what: "the conventions of a plain document", example: example,
                allowed: Self.plainKeys)
            var conventions = DocumentConventions()
            if let dates = plain["dates"] {
                conventions.dates = try dateFormat(dates, key: "dates", at: path.appending("dates"))
            }
            if let name = try plain.string("data", "how data is spelled") {
                guard let spelling = DocumentConventions.DataSpelling(rawValue: name) else {
                    throw invalid(
                        "unknown data spelling '\(name)'; the spellings are "
                            + DocumentConventions.DataSpelling.allCases.map { "\"\($0.rawValue)\"" }.joined(
                                separator: ", "),
                        at: path.appending("data"))
                }
                conventions.data = spelling
            }
            return .plain(conventions)
        default:
            throw invalid(
                "'plain' must be true, false or the document's conventions such as \(example); found "
                    + value.kindAndValue, at: path)
        }
    }

    func steps(_ chain: Fields) throws -> [MigrationStep] {
        guard let list = try chain.array("steps", "a list of steps") else { return [] }
        try checkStepCount(list.count, at: chain.path.appending("steps"))
        var steps: [MigrationStep] = []
        for (index, value) in list.enumerated() {
            let path = chain.path.appending("steps").appending(index)
            let step = try fields(
                value, at: path, what: "a step", example: #"{"from": 1, "to": 2, "rules": […]}"#, allowed: Self.stepKeys
            )
            let from = try step.requiredVersion("from", "the version the step starts at")
            let to: Int
            if let given = try step.version("to") {
                to = given
            } else {
                // `from + 1`, which must be a version too: the last one has no next.
                let (next, overflow) = from.addingReportingOverflow(1)
                guard !overflow, RulesFile.versions.contains(next) else {
                    throw invalid(
                        "a step from v\(from) has nowhere to go: v\(RulesFile.versions.upperBound) is the last version "
                            + "a rules file names",
                        at: path.appending("from"))
                }
                to = next
            }
            let name = try step.string("name", "a name for reports")
            if name?.isEmpty == true {
                throw invalid("'name' is empty; leave it out to show the versions instead", at: path.appending("name"))
            }
            steps.append(
                MigrationStep(
                    from: from, to: to, name: name, rules: try rules(step, "rules") ?? [],
                    inverseRules: try rules(step, "inverse")))
        }
        return steps
    }

    // MARK: Rules

    /// The list of rules under `key`, or `nil` when there is none.
    func rules(_ fields: Fields, _ key: String) throws -> [MigrationRule]? {
        guard let list = try fields.array(key, "a list of rules") else { return nil }
        return try list.enumerated().map { try rule($1, at: fields.path.appending(key).appending($0)) }
    }

    func rule(_ value: ArchiveValue, at path: ArchivePath) throws -> MigrationRule {
        guard case .dictionary(let entries) = value else {
            throw invalid(
                "a rule is an object such as {\"rename\": \"old\", \"to\": \"new\"}; found \(value.kindAndValue)",
                at: path)
        }
        let keywords = entries.keys.compactMap(RulesFile.RuleKeyword.init(rawValue:))
        guard keywords.count == 1, let keyword = keywords.first else {
            if keywords.count > 1 {
                throw invalid(
                    "a rule has exactly one rule keyword, and this one has \(keywords.map { "'\($0.rawValue)'" }.joined(separator: " and "))",
                    at: path)
            }
            let first = entries.keys.first { $0 != "comment" }
            throw invalid(
                (first.map { "unknown rule '\($0)'" } ?? "the rule is empty") + "; the rules are "
                    + RulesFile.RuleKeyword.allCases.map(\.rawValue).joined(separator: ", "),
                at: first.map { path.appending($0) } ?? path)
        }
        let rule = Fields(entries: entries, path: path, reader: self)
        try rule.checkKeys(
            [keyword.rawValue] + keyword.operandKeys + ["comment"],
            context: "a \(keyword.rawValue) rule, spelled \(keyword.example)")
        let key = keyword.rawValue
        switch keyword {
        case .rename:
            return .rename(
                try rule.key(key), to: try rule.requiredKey("to", "the new key"),
                required: try rule.bool("required") ?? false)
        case .add:
            guard let value = rule["default"] else {
                throw invalid("an add rule needs a 'default': \(keyword.example)", at: path.appending("default"))
            }
            return .add(try rule.key(key), default: value)
        case .remove:
            return .remove(try rule.key(key), restoring: rule["restoring"])
        case .convert:
            return .convert(try rule.key(key), try converter(rule))
        case .move:
            return .move(try rule.keyPath(key), to: try rule.keyPath("to"))
        case .nest:
            return .nest(try rule.keys(key), into: try rule.requiredKey("into", "the nested dictionary's key"))
        case .hoist:
            return .hoist(try rule.keys(key), from: try rule.requiredKey("from", "the nested dictionary's key"))
        case .wrapInArray:
            return .wrapInArray(try rule.key(key))
        case .takeFirst:
            return .takeFirst(try rule.key(key))
        case .split:
            return .split(try rule.key(key), into: try rule.keys("into"), separator: try rule.separator())
        case .merge:
            return .merge(
                try rule.keys(key), into: try rule.requiredKey("into", "the merged key"),
                separator: try rule.separator())
        case .renameType:
            return .renameType(from: try rule.key(key), to: try rule.requiredKey("to", "the new type name"))
        case .scope:
            let scope = try rule.path(key)
            guard let list = try rule.array("rules", "a list of rules") else {
                throw invalid("a scope rule needs 'rules': \(keyword.example)", at: path.appending("rules"))
            }
            return .scoped(
                scope, try list.enumerated().map { try self.rule($1, at: path.appending("rules").appending($0)) })
        }
    }

    // MARK: Converters

    static let dateFormats: [String: ValueConverter.DateFormat] = [
        "iso8601": .iso8601, "secondsSince1970": .secondsSince1970, "millisecondsSince1970": .millisecondsSince1970,
        "secondsSinceReferenceDate": .secondsSinceReferenceDate,
    ]

    func converter(_ rule: Fields) throws -> ValueConverter {
        let name: String
        if rule["map"] != nil {
            name = try rule.string("using", "a converter name") ?? RulesFile.ConverterName.map.rawValue
            guard name == RulesFile.ConverterName.map.rawValue else {
                throw invalid(
                    "a convert rule has either 'using' or 'map'; for a value map leave 'using' out",
                    at: rule.path.appending("using"))
            }
        } else {
            guard let using = try rule.string("using", "a converter name") else {
                throw invalid(
                    "a convert rule needs 'using' (one of \(RulesFile.ConverterName.spelledList)) or 'map'",
                    at: rule.path.appending("using"))
            }
            name = using
        }
        guard let converterName = RulesFile.ConverterName(rawValue: name) else {
            throw invalid(
                "unknown converter '\(name)'; the converters are \(RulesFile.ConverterName.spelledList)",
                at: rule.path.appending("using"))
        }
        try rule.checkKeys(
            ["convert", "using", "comment"] + converterName.operandKeys,
            context: "a convert rule using \(name)")
        switch converterName {
        case .stringToInt: return .stringToInt
        case .intToString: return .intToString
        case .stringToDouble: return .stringToDouble
        case .doubleToString: return .doubleToString
        case .stringToBool: return .stringToBool
        case .boolToString: return .boolToString
        case .intToDouble: return .intToDouble
        case .doubleToInt: return .doubleToInt
        case .doubleToFloat: return .doubleToFloat
        case .date:
            let from = try dateFormat(rule, "from")
            let to = try dateFormat(rule, "to")
            switch (from, to) {
            case (.some(let format), nil): return .date(format: format)
            case (nil, .some(let format)): return .dateToString(format: format)
            default:
                throw invalid(
                    "a date conversion goes between \"date\" and a format: {\"using\": \"date\", \"from\": \"iso8601\", "
                        + "\"to\": \"date\"} or the reverse",
                    at: rule.path.appending("from"))
            }
        case .wrapElements:
            return .wrapElements(
                inKey: try rule.requiredKey("inKey", "the key each element goes under"),
                with: try rule.dictionary("with") ?? [:])
        case .unwrapElements:
            return .unwrapElements(
                key: try rule.requiredKey("key", "the key to take"), restoring: try rule.dictionary("with"))
        case .map:
            return try valueMap(rule)
        }
    }

    /// A date format under `key`, or `nil` when `key` is `"date"`.
    private func dateFormat(_ rule: Fields, _ key: String) throws -> ValueConverter.DateFormat? {
        let path = rule.path.appending(key)
        guard let value = rule[key] else {
            throw invalid("a date conversion needs '\(key)': \(Self.acceptedDateFormats(orDate: true))", at: path)
        }
        if value == .string("date") { return nil }
        return try dateFormat(value, key: key, at: path, orDate: true)
    }

    /// The spellings of date formats, for messages: `"iso8601", … or {"pattern": "yyyy-MM-dd"}`.
    static func acceptedDateFormats(orDate: Bool) -> String {
        (orDate ? "\"date\", " : "") + "\(dateFormats.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")) "
            + "or {\"pattern\": \"yyyy-MM-dd\"}"
    }

    /// A date format: one of ``dateFormats`` by name, or `{"pattern": "yyyy-MM-dd"}`.
    func dateFormat(
        _ value: ArchiveValue, key: String, at path: ArchivePath, orDate: Bool = false
    ) throws -> ValueConverter.DateFormat {
        let accepted = Self.acceptedDateFormats(orDate: orDate)
        switch value {
        case .string(let name):
            guard let format = Self.dateFormats[name] else {
                throw invalid("unknown date format '\(name)'; the formats are \(accepted)", at: path)
            }
            return format
        case .dictionary(let entries):
            let fields = Fields(entries: entries, path: path, reader: self)
            try fields.checkKeys(["pattern"], context: "a date pattern, spelled {\"pattern\": \"yyyy-MM-dd\"}")
            guard let pattern = try fields.string("pattern", "a date pattern such as \"yyyy-MM-dd\"") else {
                throw invalid("a date pattern is spelled {\"pattern\": \"yyyy-MM-dd\"}", at: path.appending("pattern"))
            }
            let format = ValueConverter.DateFormat.pattern(pattern)
            do {
                try format.validate()
            } catch let error as ArchiveError {
                throw invalid(error.message, at: path.appending("pattern"))
            }
            return format
        default:
            throw invalid("'\(key)' must be \(accepted); found \(value.kindAndValue)", at: path)
        }
    }

    /// A value map: a list of pairs or an object. Without a `default` the map must be one-to-one,
    /// so that a downgrade knows which old value to restore: two old values mapped to one new
    /// value are an error naming both (with a `default` the map is one-way anyway, and may
    /// collapse values).
    private func valueMap(_ rule: Fields) throws -> ValueConverter {
        let path = rule.path.appending("map")
        var mapping: [ArchiveValue: ArchiveValue] = [:]
        // Each new value, the first old value mapped to it and where in the file.
        var oldByNew: [ArchiveValue: (old: ArchiveValue, path: ArchivePath)] = [:]
        let isOneWay = rule["default"] != nil
        func add(_ old: ArchiveValue, _ new: ArchiveValue, at entryPath: ArchivePath) throws {
            guard mapping.updateValue(new, forKey: old) == nil else {
                throw invalid("the map has \(old.briefDescription) twice", at: entryPath)
            }
            guard !isOneWay else { return }
            if let earlier = oldByNew.updateValue((old, entryPath), forKey: new) {
                throw invalid(
                    "the map sends both \(earlier.old.briefDescription) (at \(earlier.path)) and \(old.briefDescription) "
                        + "to \(new.briefDescription), so a downgrade could not tell which to restore; give each old "
                        + "value a new value of its own, or add a 'default' to make the map one-way",
                    at: entryPath)
            }
        }
        switch rule["map"] {
        case .array(let pairs)?:
            for (index, pair) in pairs.enumerated() {
                guard case .array(let items) = pair, items.count == 2 else {
                    throw invalid(
                        "each entry of a map is a pair [old, new]; found \(pair.kindAndValue)",
                        at: path.appending(index))
                }
                try add(items[0], items[1], at: path.appending(index))
            }
        case .dictionary(let entries)?:
            for (key, value) in entries {
                try add(.string(key), value, at: path.appending(key))
            }
        case let other?:
            throw invalid(
                "'map' must be a list of pairs [[old, new], …] or an object {\"old\": \"new\"}; found \(other.kindAndValue)",
                at: path)
        case nil:
            throw invalid("a value map needs 'map'", at: path)
        }
        return .map(mapping, default: rule["default"])
    }

    // MARK: Fields

    func fields(
        _ value: ArchiveValue, at path: ArchivePath, what: String, example: String, allowed: [String]
    ) throws -> Fields {
        guard case .dictionary(let entries) = value else {
            throw invalid("\(what) is an object such as \(example); found \(value.kindAndValue)", at: path)
        }
        let fields = Fields(entries: entries, path: path, reader: self)
        try fields.checkKeys(allowed, context: "\(what), spelled \(example)")
        return fields
    }

    /// The entries of one object of the rules file, with typed, path-aware accessors.
    struct Fields {
        let entries: ArchiveDictionary
        let path: ArchivePath
        let reader: RulesFileReader

        subscript(key: String) -> ArchiveValue? { entries[key] }

        func checkKeys(_ allowed: [String], context: String) throws {
            for key in entries.keys where !allowed.contains(key) {
                let accepted = allowed.filter { $0 != "comment" }.map { "'\($0)'" }.joined(separator: ", ")
                throw reader.invalid(
                    "unknown key '\(key)' in \(context); the keys are \(accepted) (and 'comment')",
                    at: path.appending(key))
            }
        }

        private func mismatch(_ key: String, _ expected: String, _ value: ArchiveValue) -> ArchiveError {
            reader.invalid("'\(key)' must be \(expected); found \(value.kindAndValue)", at: path.appending(key))
        }

        func string(_ key: String, _ meaning: String) throws -> String? {
            guard let value = entries[key] else { return nil }
            guard case .string(let text) = value else { throw mismatch(key, "a string (\(meaning))", value) }
            return text
        }

        func int(_ key: String) throws -> Int? {
            guard let value = entries[key], !value.isNull else { return nil }
            switch value {
            case .int(let number):
                if let version = Int(exactly: number) { return version }
            default: break
            }
            throw mismatch(key, "an integer", value)
        }

        /// A version under `key`: an integer in ``RulesFile/versions``; `nil` when absent or null.
        func version(_ key: String) throws -> Int? {
            guard let value = entries[key], !value.isNull else { return nil }
            let range = RulesFile.versions
            switch value {
            case .int(let number):
                if number >= Int64(range.lowerBound), number <= Int64(range.upperBound),
                    let version = Int(exactly: number)
                {
                    return version
                }
            case .uint(let number):
                if number <= UInt64(range.upperBound), let version = Int(exactly: number) { return version }
            default:
                throw mismatch(key, "an integer", value)
            }
            throw reader.invalid(
                "'\(key)' must be a version from \(range.lowerBound) to \(range.upperBound); found \(value.briefDescription)",
                at: path.appending(key))
        }

        func requiredVersion(_ key: String, _ meaning: String) throws -> Int {
            guard let number = try version(key) else {
                throw reader.invalid("'\(key)' is missing (\(meaning))", at: path.appending(key))
            }
            return number
        }

        func bool(_ key: String) throws -> Bool? {
            guard let value = entries[key] else { return nil }
            guard case .bool(let flag) = value else { throw mismatch(key, "true or false", value) }
            return flag
        }

        func array(_ key: String, _ meaning: String) throws -> [ArchiveValue]? {
            guard let value = entries[key] else { return nil }
            guard case .array(let elements) = value else { throw mismatch(key, meaning, value) }
            return elements
        }

        func dictionary(_ key: String) throws -> ArchiveDictionary? {
            guard let value = entries[key] else { return nil }
            guard case .dictionary(let entries) = value else { throw mismatch(key, "an object", value) }
            return entries
        }

        func strings(_ key: String, _ meaning: String) throws -> [String]? {
            guard let elements = try array(key, meaning) else { return nil }
            return try elements.enumerated().map { index, element in
                guard case .string(let text) = element else {
                    throw reader.invalid(
                        "'\(key)' must be \(meaning); element \(index) is \(element.kindAndValue)",
                        at: path.appending(key).appending(index))
                }
                return text
            }
        }

        /// A list of non-empty names (type names) under `key`.
        func names(_ key: String, _ meaning: String) throws -> [String]? {
            guard let names = try strings(key, meaning) else { return nil }
            try reader.checkKeyCount(names.count, at: path.appending(key), of: "the list has", "names")
            if let index = names.firstIndex(of: "") {
                throw reader.invalid(
                    "'\(key)' must be \(meaning); element \(index) is empty", at: path.appending(key).appending(index))
            }
            return names
        }

        /// A non-empty key under `key` (the rule keyword's operand).
        func key(_ key: String) throws -> String {
            try requiredKey(key, "a key")
        }

        func requiredKey(_ key: String, _ meaning: String) throws -> String {
            guard let text = try string(key, meaning) else {
                throw reader.invalid("'\(key)' is missing (\(meaning))", at: path.appending(key))
            }
            guard !text.isEmpty else { throw reader.invalid("'\(key)' is empty", at: path.appending(key)) }
            return text
        }

        /// A non-empty list of distinct (by their Unicode scalars, as keys are told apart),
        /// non-empty keys, at most ``ArchiveLimits/maxRuleKeys`` of them.
        func keys(_ key: String) throws -> [String] {
            guard let keys = try strings(key, "a list of keys") else {
                throw reader.invalid("'\(key)' is missing (a list of keys)", at: path.appending(key))
            }
            guard !keys.isEmpty else { throw reader.invalid("'\(key)' is an empty list", at: path.appending(key)) }
            try reader.checkKeyCount(keys.count, at: path.appending(key))
            var seen = Set<ExactString>(minimumCapacity: keys.count)
            for (index, name) in keys.enumerated() {
                if name.isEmpty {
                    throw reader.invalid("key \(index) is empty", at: path.appending(key).appending(index))
                }
                if !seen.insert(ExactString(name)).inserted {
                    throw reader.invalid("'\(name)' is listed twice", at: path.appending(key).appending(index))
                }
            }
            return keys
        }

        func separator() throws -> String {
            guard let text = try string("separator", "the text between the parts") else {
                throw reader.invalid(
                    "'separator' is missing (the text between the parts)", at: path.appending("separator"))
            }
            guard !text.isEmpty else { throw reader.invalid("'separator' is empty", at: path.appending("separator")) }
            return text
        }

        /// A path (`people[*].name`) under `key`: at most ``ArchiveLimits/maxRuleKeys``
        /// components, and no deeper than ``ArchiveLimits/maxDepth`` (the rules that follow a
        /// path recurse once per component, and nothing deeper is in a tree the pass walks).
        func path(_ key: String) throws -> ArchivePath {
            let text = try string(key, "a path such as \"people[*]\"") ?? ""
            let parsed: ArchivePath
            do {
                parsed = try ArchivePath(parsing: text)
            } catch let error as ArchiveError {
                throw reader.invalid(error.message, at: path.appending(key))
            }
            try reader.checkKeyCount(parsed.count, at: path.appending(key))
            guard parsed.count <= reader.limits.maxDepth else {
                throw ArchiveError.limitExceeded(
                    .depth, "the path has \(parsed.count) components, deeper than \(reader.limits.maxDepth) levels",
                    path: path.appending(key), location: ArchiveError.InputLocation(file: reader.fileName))
            }
            return parsed
        }

        /// A path of keys only (`center.x`) under `key`.
        func keyPath(_ key: String) throws -> ArchivePath {
            guard entries[key] != nil else {
                throw reader.invalid(
                    "'\(key)' is missing (a path of keys such as \"center.x\")", at: path.appending(key))
            }
            let parsed = try path(key)
            guard !parsed.isRoot, !parsed.components.contains(where: { if case .key = $0 { false } else { true } })
            else {
                throw reader.invalid(
                    "'\(parsed)' must be one or more keys such as \"center.x\" (no indices or wildcards)",
                    at: path.appending(key))
            }
            return parsed
        }
    }
}
