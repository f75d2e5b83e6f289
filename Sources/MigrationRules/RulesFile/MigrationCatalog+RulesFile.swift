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
    /// - Parameters:
    ///   - rulesFile: The rules file, as a tree.
    ///   - fileName: The file's name, reported in errors.
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/invalidRules`` for an unknown,
    ///   missing or mistyped key, an unknown rule or converter, or a malformed path; with code
    ///   ``ArchiveError/Code/invalidChain`` for chains that do not fit together. Either names the
    ///   path inside the rules file (`types.Circle.steps[1].rules[0].rename`) and carries
    ///   `fileName` in its ``ArchiveError/location``.
    public init(rulesFile: ArchiveValue, fileName: String? = nil) throws {
        self = try RulesFileReader(fileName: fileName).catalog(from: rulesFile)
    }
}
