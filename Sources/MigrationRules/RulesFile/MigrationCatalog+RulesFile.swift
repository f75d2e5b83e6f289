extension MigrationCatalog {
    /// Builds a catalog from the tree of a JSON rules file (see ``RulesFile`` for the format),
    /// read with ModelVersioning's JSON reader taking every key literally:
    ///
    /// ```swift
    /// let data = try Data(contentsOf: url)
    /// let tree = try ArchiveFormat.json.read(data, options: ArchiveReadingOptions(markup: .plain))
    /// let catalog = try MigrationCatalog(rulesFile: tree, fileName: "people-rules.json")
    /// ```
    ///
    /// A rules file is input like an archive, and is read with the same limits: a file from
    /// another app or the network is read with ``ArchiveLimits/untrusted`` by both the JSON
    /// reader and this initialiser.
    ///
    /// - Parameters:
    ///   - rulesFile: The rules file, as a tree.
    ///   - fileName: The file's name, reported in errors.
    ///   - limits: The bounds on the tree: nesting, values, collection sizes, string and data
    ///     lengths (``ArchiveLimits``).
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidRules`` for an unknown,
    ///   missing or mistyped key, a key that appears twice, an unknown rule or converter, a
    ///   malformed path, an empty name, a version outside ``RulesFile/versions`` or a value map
    ///   that sends two values to one (without a `default`); with code
    ///   ``ArchiveError/Code/invalidChain`` for chains that do not fit together; with code
    ///   ``ArchiveError/Code/limitExceeded`` when the tree exceeds `limits`. Each names the path
    ///   inside the rules file (`types.Circle.steps[1].rules[0].rename`) and carries `fileName`
    ///   in its ``ArchiveError/location``.
    public init(rulesFile: ArchiveValue, fileName: String? = nil, limits: ArchiveLimits = .default) throws {
        self = try RulesFileReader(fileName: fileName, limits: limits).catalog(from: rulesFile)
    }
}
