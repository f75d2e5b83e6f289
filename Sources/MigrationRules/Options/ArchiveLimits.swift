/// Every resource bound applied to an archive, in one place.
///
/// Archives come from disk, from sync and from other apps; some are damaged and some are crafted.
/// Readers, the migration pass and the decoder check these limits as they go and stop with an
/// ``ArchiveError`` of code ``ArchiveError/Code/limitExceeded`` naming the limit (``Limit``) and
/// where it was hit, instead of running away with memory, time or stack.
///
/// | limit | default | ``untrusted`` | bounds |
/// |---|---|---|---|
/// | ``maxDepth`` | 64 | 32 | nesting of arrays, dictionaries and objects (stack use) |
/// | ``maxInputBytes`` | 1 GiB | 64 MiB | size of the bytes handed to a reader |
/// | ``maxObjectCount`` | 10,000,000 | 1,000,000 | values of one document (tree nodes, keyed-archive `$objects`) |
/// | ``maxStringLength`` | 64 MiB | 8 MiB | UTF-8 bytes of one string or key |
/// | ``maxDataLength`` | 256 MiB | 32 MiB | bytes of one data value |
/// | ``maxCollectionCount`` | 16,777,216 | 1,000,000 | elements of one array or entries of one dictionary |
/// | ``maxReferencesExpanded`` | 1,000,000 | 100,000 | values copied when a shared value without identity is used again |
/// | ``maxChainSteps`` | 10,000 | 1,000 | steps of one chain read from a rules file or a carried way down |
/// | ``maxRuleKeys`` | 100,000 | 10,000 | keys one rule of a rules file or a carried way down names; aliases of one type a chain or a release lists |
/// | ``maxRuleCount`` | 100,000 | 10,000 | rules of one rules file or carried way down, scoped rules included |
/// | ``maxRuleWork`` | 16 | 4 | what the rules of one migration pass write and look up, per byte of the archive and of the rules (and 1 MiB in any archive) |
/// | ``maxNestedArchives`` | 10,000 | 1,000 | archives read from the data values of one document, at every level, a shared one each time it is met |
///
/// ```swift
/// var limits = ArchiveLimits()
/// limits.maxInputBytes = 8 << 20     // files from sync: 8 MiB at most
/// limits.maxDepth = 16
/// var options = DecodingOptions()
/// options.limits = limits
/// let decoder = ArchiveDecoder(registry: registry, options: options)
/// ```
///
/// ``untrusted`` is the tighter preset for input from other apps or the network. The article
/// "Handling untrusted archives" of ModelVersioning has the same table (a test keeps the two in
/// step with the values below).
public struct ArchiveLimits: Sendable, Hashable {
    /// The names of the limits, as reported in ``ArchiveError/limit``.
    public enum Limit: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case depth = "maxDepth"
        case inputBytes = "maxInputBytes"
        case objectCount = "maxObjectCount"
        case stringLength = "maxStringLength"
        case dataLength = "maxDataLength"
        case collectionCount = "maxCollectionCount"
        case referencesExpanded = "maxReferencesExpanded"
        case chainSteps = "maxChainSteps"
        case ruleKeys = "maxRuleKeys"
        case ruleCount = "maxRuleCount"
        case ruleWork = "maxRuleWork"
        case nestedArchives = "maxNestedArchives"

        /// The limit as the ``ArchiveLimits`` property it names: `ArchiveLimits.maxDepth`.
        public var description: String { "ArchiveLimits.\(rawValue)" }
    }

    /// The deepest nesting of arrays, dictionaries and objects. Bounds stack use: the decoder and
    /// the encoder recurse through the models' own `init(from:)` and `encode(to:)` once per
    /// level, the keyed-archive reader, the migration pass and the property-list writers once per
    /// level of their own.
    ///
    /// The default keeps every path within the 512 KiB stack of a secondary thread on Apple
    /// platforms even in a debug build, with a margin: measured there, the shallowest path (a
    /// recursive polymorphic model through the decoder or the encoder) overflows at 89 levels
    /// (`.ci/stack-depth.sh`). Raise it for deeper documents, and decode those on a thread with
    /// a larger stack (`Thread.stackSize`) or the main thread.
    public var maxDepth: Int = 64
    /// The largest input a reader accepts, in bytes.
    public var maxInputBytes: Int = 1 << 30
    /// The most values one document may hold (tree nodes; `$objects` entries of a keyed archive).
    public var maxObjectCount: Int = 10_000_000
    /// The longest string or key, in UTF-8 bytes.
    public var maxStringLength: Int = 64 << 20
    /// The longest data value, in bytes.
    public var maxDataLength: Int = 256 << 20
    /// The most elements in one array or entries in one dictionary.
    public var maxCollectionCount: Int = 1 << 24
    /// The most values copied in total when a shared value that has no identity of its own (an
    /// array or dictionary referenced from several places of a keyed archive, a struct decoded
    /// from a reference) is used again. A small archive that references one large array a million
    /// times stops here instead of growing without bound.
    public var maxReferencesExpanded: Int = 1_000_000
    /// The most steps one chain of a rules file or of a carried way down (``WayDown``) may have.
    /// Real apps have a step per release that changed a type; a chain of a million steps is a
    /// file made to take time.
    public var maxChainSteps: Int = 10_000
    /// The most keys one rule of a rules file or of a carried way down may name: the keys of a
    /// `nest`, `hoist`, `split` or `merge`, the keys of a path. Paths are also no deeper than
    /// ``maxDepth``: a path deeper than the tree may be cannot name anything in it.
    public var maxRuleKeys: Int = 100_000
    /// The most rules one rules file or carried way down may hold, counting the rules inside
    /// `scope` rules, the inverse rules of steps and the rules of downgrade fallbacks.
    public var maxRuleCount: Int = 100_000
    /// How much the rules of one migration pass may write and look up, per byte of the archive
    /// they run on and of the rules themselves, with 1 MiB allowed in any archive.
    ///
    /// Each time a rule runs it counts the bytes of what it names, as the canonical bytes of a
    /// way down spell them (9 bytes per value, key or name, and the bytes of each string, key,
    /// name and data value): the keys it looks up, moves or renames, the type name it gives,
    /// the values it copies in (an `add`'s default, a converter's mapped value). That bounds both
    /// what it can make (an `add` of a large default copied into every object) and the time it
    /// takes (a rule of many keys run on every object); each step run counts 9 bytes, and every
    /// object the pass renames its type name. The archive is measured the same way, once, when
    /// the pass first has rules to run. The upgrades of the Sketch sample's archives from every
    /// release, and the way down it writes for release 1.1, count at most once their size
    /// besides the first MiB; `untrusted`'s 4 bounds what an archive of another app can make
    /// to a few times its size. Rules written as closures count only their names: they are the
    /// app's own code.
    public var maxRuleWork: Int = 16
    /// The most archives read from the data values of one document (`--nested`, `inspect`,
    /// `ArchiveDocument.nestedArchives(options:)`), counted at every level of nesting and a
    /// data value shared by several references each time it is met. A kilobyte-sized property
    /// list whose data value holds an archive of ten references to one data value holding the
    /// next level, six levels deep, otherwise opens a million archives (18 s and 1.5 GB to list
    /// them, 39 MB written back from 1 KB for five levels).
    public var maxNestedArchives: Int = 10_000

    /// The defaults in the table above.
    public init() {}

    /// The defaults.
    public static let `default` = ArchiveLimits()

    /// A tighter preset for input from other apps or the network: depth 32, 64 MiB of input,
    /// 1,000,000 values, 8 MiB strings, 32 MiB data, 1,000,000 elements per collection,
    /// 100,000 expanded references, 1,000 steps per chain, 10,000 keys per rule, 10,000 rules,
    /// rule work of 4 times the archive and its rules, and 1,000 nested archives.
    public static let untrusted: ArchiveLimits = {
        var limits = ArchiveLimits()
        limits.maxDepth = 32
        limits.maxInputBytes = 64 << 20
        limits.maxObjectCount = 1_000_000
        limits.maxStringLength = 8 << 20
        limits.maxDataLength = 32 << 20
        limits.maxCollectionCount = 1_000_000
        limits.maxReferencesExpanded = 100_000
        limits.maxChainSteps = 1_000
        limits.maxRuleKeys = 10_000
        limits.maxRuleCount = 10_000
        limits.maxRuleWork = 4
        limits.maxNestedArchives = 1_000
        return limits
    }()

    /// The value of one limit.
    public subscript(limit: Limit) -> Int {
        switch limit {
        case .depth: return maxDepth
        case .inputBytes: return maxInputBytes
        case .objectCount: return maxObjectCount
        case .stringLength: return maxStringLength
        case .dataLength: return maxDataLength
        case .collectionCount: return maxCollectionCount
        case .referencesExpanded: return maxReferencesExpanded
        case .chainSteps: return maxChainSteps
        case .ruleKeys: return maxRuleKeys
        case .ruleCount: return maxRuleCount
        case .ruleWork: return maxRuleWork
        case .nestedArchives: return maxNestedArchives
        }
    }
}
