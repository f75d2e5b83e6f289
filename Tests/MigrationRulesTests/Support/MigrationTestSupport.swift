import MigrationRules

/// The ``ArchiveError`` `body` throws, or `nil` when it throws nothing (or something else).
func archiveError(_ body: () throws -> Void) -> ArchiveError? {
    do {
        try body()
        return nil
    } catch let error as ArchiveError {
        return error
    } catch {
        return nil
    }
}

/// Applies `rule` to a copy of `fields` (as a plain dictionary) and returns the result.
func applying(_ rule: MigrationRule, to fields: ArchiveDictionary) throws -> ArchiveDictionary {
    var target = MigrationTarget(fields: fields)
    try rule.apply(to: &target)
    return target.fields
}

/// An object node.
func object(_ typeName: String, _ version: Int?, _ fields: ArchiveDictionary = [:], id: Int? = nil) -> ArchiveValue {
    .object(
        ArchiveObject(
            typeName: typeName, version: version, id: id.map { ArchiveObjectID(rawValue: $0) }, fields: fields))
}
