import Foundation

/// State shared by every decoder of one decoding run.
final class TreeDecodingSession {
    let registry: ModelRegistry
    let options: DecodingOptions
    let root: ArchiveValue
    // Touched on every model object; never accessed overlappingly (see TreeDecoder).
    @exclusivity(unchecked) var infos: ModelInfoCache
    @exclusivity(unchecked) var graph = DecodingGraph()
    /// The makers of the keyed containers, by key type.
    @exclusivity(unchecked) var keyedContainerMakers = KeyedContainerMakers()
    var expandedReferences = 0

    init(registry: ModelRegistry, options: DecodingOptions, root: ArchiveValue) {
        self.registry = registry
        self.options = options
        self.root = root
        self.infos = ModelInfoCache(registry: registry)
    }
}
