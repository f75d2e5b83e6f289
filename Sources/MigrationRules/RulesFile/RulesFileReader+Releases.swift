extension RulesFileReader {
    static let releaseKeys = ["name", "documentVersion", "types", "comment"]
    static let archivedTypeKeys = ["version", "archivedAs", "aliases", "keys", "comment"]

    /// The `releases` list of a rules file:
    ///
    /// ```json
    /// "releases": [
    ///   {"name": "1.0", "documentVersion": 1,
    ///    "types": {"Drawing": 1, "Rectangle": {"version": 1, "archivedAs": "Rect", "keys": ["x", "y", "w", "h", "style"]},
    ///              "RoundedRectangle": "absent"}}
    /// ]
    /// ```
    ///
    /// A type's `keys` are the keys the release wrote its objects with, in order
    /// (``AppRelease/keyOrders``); its `aliases`, the other names it archived some of them under
    /// (``AppRelease/aliases``).
    ///
    /// The releases' document is the file's one document chain, or the one `releasesDocument`
    /// names.
    func releases(
        _ list: [ArchiveValue], document: String?, documents: [DocumentMigrations]
    ) throws -> ReleaseManifest {
        var releases: [AppRelease] = []
        for (index, value) in list.enumerated() {
            let path = ArchivePath([.key("releases"), .index(index)])
            let release = try fields(
                value, at: path, what: "a release",
                example: #"{"name": "1.0", "documentVersion": 1, "types": {"Circle": 1, "Badge": "absent"}}"#,
                allowed: Self.releaseKeys)
            guard let name = try release.string("name", "the release's name, such as \"1.0\"") else {
                throw invalid("a release needs a 'name'", at: path.appending("name"))
            }
            var types: [String: AppRelease.ArchivedType] = [:]
            var keyOrders: [String: [String]] = [:]
            var aliases: [String: [String]] = [:]
            let typesPath = path.appending("types")
            for (typeName, archived) in try release.dictionary("types") ?? [:] {
                let (type, keys, names) = try archivedType(archived, at: typesPath.appending(typeName))
                types[typeName] = type
                keyOrders[typeName] = keys
                aliases[typeName] = names
            }
            releases.append(
                AppRelease(
                    name, documentVersion: try release.version("documentVersion"), types: types, keyOrders: keyOrders,
                    aliases: aliases))
        }
        var named = document
        if named == nil, documents.count == 1 { named = documents.first?.name }
        return ReleaseManifest(document: named, releases: releases)
    }

    /// `2`, `{"version": 1, "archivedAs": "Rect", "aliases": ["SketchApp.Rect"], "keys": ["x", "y"]}`,
    /// or `"absent"` (also `null`), with the keys and aliases when given.
    private func archivedType(
        _ value: ArchiveValue, at path: ArchivePath
    ) throws -> (AppRelease.ArchivedType, [String]?, [String]?) {
        switch value {
        case .null, .string("absent"):
            return (.absent, nil, nil)
        case .int(let number):
            guard let version = Int(exactly: number), RulesFile.versions.contains(version) else { break }
            return (.version(version), nil, nil)
        case .dictionary:
            let entry = try fields(
                value, at: path, what: "a released type", example: #"{"version": 1, "archivedAs": "Rect"}"#,
                allowed: Self.archivedTypeKeys)
            let name = try entry.string("archivedAs", "the name the release archived the type under")
            if let name, name.isEmpty { throw invalid("'archivedAs' is empty", at: path.appending("archivedAs")) }
            let version = try entry.requiredVersion("version", "the version the release archived")
            let aliases = try entry.names("aliases", "a list of the other names the release archived the type under")
            return (
                .version(version, archivedAs: name), try keys(value["keys"], at: path.appending("keys")), aliases
            )
        default:
            break
        }
        throw invalid(
            "a released type is a version (2), {\"version\": 1, \"archivedAs\": \"Rect\"} or \"absent\"; found "
                + value.kindAndValue, at: path)
    }

    /// A released type's `keys`: an array of strings, or absent.
    private func keys(_ value: ArchiveValue?, at path: ArchivePath) throws -> [String]? {
        guard let value else { return nil }
        guard let items = value.arrayValue else {
            throw invalid(
                "'keys' is the array of keys the release wrote, in order; found " + value.kindAndValue, at: path)
        }
        return try items.enumerated().map { index, item in
            guard let key = item.stringValue else {
                throw invalid("a key is a string; found " + item.kindAndValue, at: path.appending(index))
            }
            return key
        }
    }
}
