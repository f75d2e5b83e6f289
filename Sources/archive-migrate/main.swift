// The stand-alone tool: works from rules files, without an app's models.
// An app builds the same tool with its own models in three lines (see ArchiveMigrateKit).
import ArchiveMigrateKit

ArchiveMigrate.main()
