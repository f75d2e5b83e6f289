@_exported import ArchiveFormats
@_exported import MigrationRules
