import Foundation

/// State shared by every decoder of one decoding run.
final class TreeDecodingSession {
    let registry: ModelRegistry
    let options: DecodingOptions
    let root: ArchiveValue
    /// How the plain document being decoded spells dates and data (its chain's), or `nil` for
    /// an archive and for documents without a plain chain (then a string date is ISO 8601 and a
    /// number is seconds since 2001).
    let conventions: DocumentConventions?
    // Touched on every model object; never accessed overlappingly (see TreeDecoder).
    @exclusivity(unchecked) var infos: ModelInfoCache
    @exclusivity(unchecked) var graph = DecodingGraph()
    /// The makers of the keyed containers, by key type.
    let keyedContainerMakers = KeyedContainerMakers()
    var expandedReferences = 0

    init(
        registry: ModelRegistry, options: DecodingOptions, root: ArchiveValue, conventions: DocumentConventions? = nil
    ) {
        self.registry = registry
        self.options = options
        self.root = root
        self.conventions = conventions
        self.infos = ModelInfoCache(registry: registry)
    }
}
