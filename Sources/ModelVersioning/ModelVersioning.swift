@_exported import MigrationRules
