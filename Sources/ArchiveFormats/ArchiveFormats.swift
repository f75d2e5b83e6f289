// The formats' values are the archive tree's: a reader gives an `ArchiveValue`, a writer takes one.
@_exported import MigrationRules
