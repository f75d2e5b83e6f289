// The Sketch app's own archive-migrate: the same commands, with the app's models and chains.
import ArchiveMigrateKit
import SketchModel

ArchiveMigrate.main(name: "sketch-migrate", registry: SketchRegistry.registry)
