/// Types whose `encode(to:)` works with the tree encoder's own state (a `WeakReference` writes a
/// conditional reference), so ``StreamingJSONEncoder`` cannot write them.
protocol EncodesThroughTree {}
