/// Writes chains as the tree of a JSON rules file: the exact inverse of `RulesFileReader`, with
/// the same vocabulary (``RulesFile/RuleKeyword``, ``RulesFile/ConverterName``), so that
/// reading what it writes gives the same chains.
///
/// Only data can be written: a closure (``MigrationRule/transform(_:_:inverse:)``, a closure
/// split or merge, a custom converter, the typed escape hatch) has no spelling and is an
/// ``ArchiveError/Code/invalidValue`` error naming the rule. So is a rule whose operands the
/// reader would reject (a `move` along a path with indices), so that nothing is written that
/// does not read back.
///
/// Keys come in the order the format's article shows them; a value map is written as a list of
/// pairs sorted by their old values (`ArchiveValue.canonicallyPrecedes`), so that one catalog
/// is always written the same way.
enum RulesFileWriter {
    // MARK: The file

    /// The whole rules file of `catalog`.
    static func file(_ catalog: MigrationCatalog) throws -> ArchiveValue {
        var file = ArchiveDictionary()
        file.appendUnchecked(.int(Int64(RulesFile.formatVersion)), forKey: "formatVersion")
        if let releases = catalog.releases {
            file.appendUnchecked(try self.releases(releases), forKey: "releases")
            let onlyDocument = catalog.documents.count == 1 ? catalog.documents.first?.name : nil
            if let document = releases.document, document != onlyDocument {
                file.appendUnchecked(.string(document), forKey: "releasesDocument")
            }
        }
        if catalog.documents.count == 1, let document = catalog.documents.first {
            file.appendUnchecked(try self.document(document), forKey: "document")
        } else if !catalog.documents.isEmpty {
            file.appendUnchecked(.array(try catalog.documents.map(self.document)), forKey: "documents")
        }
        if !catalog.types.isEmpty {
            var types = ArchiveDictionary(minimumCapacity: catalog.types.count)
            for chain in catalog.types {
                types.appendUnchecked(try type(chain), forKey: chain.typeName)
            }
            file.appendUnchecked(.dictionary(types), forKey: "types")
        }
        return .dictionary(file)
    }

    /// `{"currentVersion": 3, "aliases": […], "unversionedVersion": 1, "steps": […], "downgradeFallback": {…}}`
    static func type(_ chain: TypeMigrations) throws -> ArchiveValue {
        var entries = ArchiveDictionary()
        entries.appendUnchecked(version(chain.currentVersion), forKey: "currentVersion")
        if !chain.aliases.isEmpty {
            entries.appendUnchecked(.array(chain.aliases.map { .string($0) }), forKey: "aliases")
        }
        if let unversioned = chain.unversionedVersion {
            entries.appendUnchecked(version(unversioned), forKey: "unversionedVersion")
        }
        entries.appendUnchecked(try steps(chain.steps, subject: chain.typeName), forKey: "steps")
        if let fallback = chain.downgradeFallback {
            entries.appendUnchecked(try self.fallback(fallback), forKey: "downgradeFallback")
        }
        return .dictionary(entries)
    }

    /// `{"type": "Rectangle", "version": 2, "rules": […]}`
    static func fallback(_ fallback: DowngradeFallback) throws -> ArchiveValue {
        [
            "type": .string(fallback.typeName), "version": version(fallback.version),
            "rules": try rules(fallback.rules),
        ]
    }

    /// `{"name": "people", "versionPath": "schema_version", "currentVersion": 3, "unversionedVersion": 1, "plain": true,
    /// "steps": […]}`
    static func document(_ chain: DocumentMigrations) throws -> ArchiveValue {
        var entries = ArchiveDictionary()
        entries.appendUnchecked(.string(chain.name), forKey: "name")
        if chain.versionPath != "documentVersion" {
            guard ArchiveDictionary.keys(of: chain.versionPath)?.isEmpty == false else {
                throw ArchiveError(
                    .invalidValue,
                    "the version path '\(chain.versionPath)' of document \(chain.name) has no rules-file spelling: "
                        + "it must be one or more keys")
            }
            entries.appendUnchecked(.string(chain.versionPath.description), forKey: "versionPath")
        }
        entries.appendUnchecked(version(chain.currentVersion), forKey: "currentVersion")
        if let unversioned = chain.unversionedVersion {
            entries.appendUnchecked(version(unversioned), forKey: "unversionedVersion")
        }
        if let conventions = chain.style.conventions {
            entries.appendUnchecked(plain(conventions), forKey: "plain")
        }
        entries.appendUnchecked(try steps(chain.steps, subject: "document \(chain.name)"), forKey: "steps")
        return .dictionary(entries)
    }

    /// A plain document's conventions: `true` for the defaults (ISO 8601 dates, base64 data),
    /// else `{"dates": …, "data": …}`.
    static func plain(_ conventions: DocumentConventions) -> ArchiveValue {
        if conventions == DocumentConventions() { return true }
        return ["dates": dateFormat(conventions.dates), "data": .string(conventions.data.rawValue)]
    }

    /// The `releases` list.
    static func releases(_ manifest: ReleaseManifest) throws -> ArchiveValue {
        .array(
            manifest.releases.map { release in
                var entries = ArchiveDictionary()
                entries.appendUnchecked(.string(release.name), forKey: "name")
                if let documentVersion = release.documentVersion {
                    entries.appendUnchecked(version(documentVersion), forKey: "documentVersion")
                }
                var types = ArchiveDictionary(minimumCapacity: release.types.count)
                for (name, archived) in release.types.sorted(by: { $0.key < $1.key }) {
                    let keys = release.keyOrders[name]
                    let aliases = release.aliases[name]
                    switch archived {
                    case .absent:
                        types.appendUnchecked("absent", forKey: name)
                    case .version(let number, nil) where keys == nil && aliases == nil:
                        types.appendUnchecked(version(number), forKey: name)
                    case .version(let number, let archivedAs):
                        var entry: ArchiveDictionary = ["version": version(number)]
                        if let archivedAs { entry.appendUnchecked(.string(archivedAs), forKey: "archivedAs") }
                        if let aliases {
                            entry.appendUnchecked(.array(aliases.map { .string($0) }), forKey: "aliases")
                        }
                        if let keys { entry.appendUnchecked(.array(keys.map { .string($0) }), forKey: "keys") }
                        types.appendUnchecked(.dictionary(entry), forKey: name)
                    }
                }
                entries.appendUnchecked(.dictionary(types), forKey: "types")
                return .dictionary(entries)
            })
    }

    // MARK: Steps

    /// The steps of the chain errors call `subject` (`Circle`, `document Sketch`), oldest first.
    static func steps(_ steps: [MigrationStep], subject: String) throws -> ArchiveValue {
        .array(try steps.sorted { $0.from < $1.from }.map { try step($0, subject: subject) })
    }

    /// `{"from": 1, "to": 2, "name": "…", "rules": […], "inverse": […]}`.
    static func step(_ step: MigrationStep, subject: String) throws -> ArchiveValue {
        var entries = ArchiveDictionary()
        entries.appendUnchecked(version(step.from), forKey: "from")
        entries.appendUnchecked(version(step.to), forKey: "to")
        if let name = step.name { entries.appendUnchecked(.string(name), forKey: "name") }
        do {
            entries.appendUnchecked(try rules(step.rules), forKey: "rules")
            if let inverse = step.inverseRules {
                entries.appendUnchecked(try rules(inverse), forKey: "inverse")
            }
        } catch let error as ArchiveError {
            throw error.adding(step: step.label(subject: subject))
        }
        return .dictionary(entries)
    }

    // MARK: Rules

    static func rules(_ rules: [MigrationRule]) throws -> ArchiveValue {
        .array(try rules.map(rule))
    }

    /// One rule, `{"rename": "r", "to": "radius"}`.
    static func rule(_ rule: MigrationRule) throws -> ArchiveValue {
        func spelled(_ keyword: RulesFile.RuleKeyword, _ operand: ArchiveValue, _ rest: (String, ArchiveValue)...)
            -> ArchiveValue
        {
            var entries = ArchiveDictionary(minimumCapacity: rest.count + 1)
            entries.appendUnchecked(operand, forKey: keyword.rawValue)
            for (key, value) in rest { entries.appendUnchecked(value, forKey: key) }
            return .dictionary(entries)
        }
        func notData(_ what: String) -> ArchiveError {
            ArchiveError(
                .invalidValue, "the rule \(rule) \(what), so it has no rules-file spelling", rule: rule.description)
        }
        func keys(_ names: [String]) -> ArchiveValue { .array(names.map { .string($0) }) }
        switch rule.operation {
        case .rename(let key, let newKey, let required):
            return required
                ? spelled(.rename, .string(key), ("to", .string(newKey)), ("required", true))
                : spelled(.rename, .string(key), ("to", .string(newKey)))
        case .add(let key, let value):
            return spelled(.add, .string(key), ("default", value))
        case .remove(let key, let restoring):
            guard let restoring else { return spelled(.remove, .string(key)) }
            return spelled(.remove, .string(key), ("restoring", restoring))
        case .convert(let key, let converter):
            guard let spelling = converter.spelling else { throw notData("converts with closures") }
            var entries = ArchiveDictionary()
            entries.appendUnchecked(.string(key), forKey: RulesFile.RuleKeyword.convert.rawValue)
            for (name, value) in try self.converter(spelling) { entries.appendUnchecked(value, forKey: name) }
            return .dictionary(entries)
        case .move(let source, let destination, let keys):
            guard keys != nil else { throw notData("moves along a path that is not one or more keys") }
            return spelled(.move, .string(source.description), ("to", .string(destination.description)))
        case .nest(let names, let container):
            return spelled(.nest, keys(names), ("into", .string(container)))
        case .hoist(let names, let container):
            return spelled(.hoist, keys(names), ("from", .string(container)))
        case .wrapInArray(let key):
            return spelled(.wrapInArray, .string(key))
        case .takeFirst(let key):
            return spelled(.takeFirst, .string(key))
        case .split(let key, let parts, let division):
            guard case .separator(let separator) = division else { throw notData("splits with a closure") }
            return spelled(.split, .string(key), ("into", keys(parts)), ("separator", .string(separator)))
        case .merge(let parts, let key, let division):
            guard case .separator(let separator) = division else { throw notData("merges with a closure") }
            return spelled(.merge, keys(parts), ("into", .string(key)), ("separator", .string(separator)))
        case .renameType(let oldName, let newName):
            return spelled(.renameType, .string(oldName), ("to", .string(newName)))
        case .scoped(let path, let rules):
            return spelled(.scope, .string(path.description), ("rules", try self.rules(rules)))
        case .transform:
            throw notData("is a closure")
        }
    }

    /// The keys of a convert rule after `convert`.
    static func converter(_ spelling: ValueConverter.Spelling) throws -> [(String, ArchiveValue)] {
        let using = "using"
        switch spelling {
        case .named(let name):
            return [(using, .string(name.rawValue))]
        case .date(let format):
            return [
                (using, .string(RulesFile.ConverterName.date.rawValue)), ("from", dateFormat(format)), ("to", "date"),
            ]
        case .dateToString(let format):
            return [
                (using, .string(RulesFile.ConverterName.date.rawValue)), ("from", "date"), ("to", dateFormat(format)),
            ]
        case .map(let mapping, let fallback):
            let pairs = mapping.sorted { $0.key.canonicallyPrecedes($1.key) }.map {
                ArchiveValue.array([$0.key, $0.value])
            }
            guard let fallback else { return [("map", .array(pairs))] }
            return [("map", .array(pairs)), ("default", fallback)]
        case .wrapElements(let key, let template):
            var keys: [(String, ArchiveValue)] = [
                (using, .string(RulesFile.ConverterName.wrapElements.rawValue)), ("inKey", .string(key)),
            ]
            if !template.isEmpty { keys.append(("with", .dictionary(template))) }
            return keys
        case .unwrapElements(let key, let template):
            var keys: [(String, ArchiveValue)] = [
                (using, .string(RulesFile.ConverterName.unwrapElements.rawValue)), ("key", .string(key)),
            ]
            if let template { keys.append(("with", .dictionary(template))) }
            return keys
        }
    }

    static func dateFormat(_ format: ValueConverter.DateFormat) -> ArchiveValue {
        switch format {
        case .iso8601: return "iso8601"
        case .secondsSince1970: return "secondsSince1970"
        case .millisecondsSince1970: return "millisecondsSince1970"
        case .secondsSinceReferenceDate: return "secondsSinceReferenceDate"
        case .pattern(let pattern): return ["pattern": .string(pattern)]
        }
    }

    static func version(_ number: Int) -> ArchiveValue {
        .int(Int64(number))
    }
}

extension MigrationCatalog {
    /// The catalog as the tree of a JSON rules file (see <doc:RulesFileFormat>): the inverse of
    /// ``init(rulesFile:fileName:limits:)``, which reads back the same chains and releases.
    ///
    /// ```swift
    /// let tree = try catalog.rulesFile()
    /// let data = try ArchiveFormat.json.write(tree, options: ArchiveWritingOptions(markup: .plain))
    /// ```
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidValue`` naming the rule (and
    ///   the step) that has no rules-file spelling: a closure, a closure split or merge, a custom
    ///   converter, a `move` along a path that is not keys alone.
    public func rulesFile() throws -> ArchiveValue {
        try RulesFileWriter.file(self)
    }
}
