/// Marks values that a keyed container leaves out when they encode to nothing: a decision the
/// tree encoder makes after encoding them, so they encode through the tree.
protocol OmittedWhenNull: EncodesThroughTree {}
