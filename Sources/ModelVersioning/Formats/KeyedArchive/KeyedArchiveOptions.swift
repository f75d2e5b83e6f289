/// How NSKeyedArchiver archives are read and written (``ArchiveFormat/keyedArchive``).
///
/// The defaults read every archive Apple's `NSKeyedArchiver` writes, and write archives that an
/// old NSCoding app reads with `NSKeyedUnarchiver` and this library reads back with every
/// object's version and the envelope's document version. For an app built on Mantle, use
/// ``mantle``: numbers are archived as `NSNumber` objects too, as Mantle's `-encodeWithCoder:`
/// does.
///
/// ```swift
/// var options = ArchiveWritingOptions()
/// options.keyedArchive = .mantle
/// let data = try ArchiveFormat.keyedArchive.write(tree, options: options)
///
/// var reading = ArchiveReadingOptions()
/// reading.keyedArchive.rootKey = "foundItems"    // an archive that stored its object under that key
/// let root = try ArchiveFormat.keyedArchive.read(data, options: reading)
/// ```
public struct KeyedArchiveOptions: Sendable, Hashable {
    /// The `$top` key of the root object.
    ///
    /// Reading: `nil` (the default) reads the object under `root` (what
    /// `archivedData(withRootObject:)` writes), or, for keys `$0`, `$1`, … (what unkeyed
    /// `encode(_:)` calls write), an array of them; any other archive fails with
    /// `ArchiveError.Code.malformedInput` naming its top-level keys, as `NSKeyedUnarchiver`'s
    /// top-level decoding would. A key reads that top-level object instead (an archive that
    /// stored `foundItems`). Writing: the key the root is stored under, `root` when `nil` —
    /// the key an app's `decodeObject(forKey:)` asks for (`unarchivedObject(ofClass:from:)`
    /// asks for `root`).
    public var rootKey: String?

    /// Reading: take every top-level object, as a dictionary keyed by its `$top` key, when the
    /// archive has neither `root` nor `$0`, `$1`, … keys (for tools that show any archive).
    /// Defaults to `false`.
    public var readsAllTopLevelObjects = false

    /// Whether the writer stores each object's `ArchiveObject.version` under `MTLModelVersion`
    /// as an `NSNumber` object, as Mantle's `MTLModel` does. The reader always takes
    /// `MTLModelVersion` as the object's version. Defaults to `true`, so that archives this
    /// library writes decode again at the versions they were written at (an NSCoding app that
    /// does not know the key ignores it); turn it off to write exactly the keys of each object.
    public var writesModelVersion: Bool

    /// Whether the writer stores the numbers and Booleans of an object's fields as `NSNumber`
    /// objects (what `encodeObject:forKey:` writes, and what Mantle writes for every property)
    /// rather than inline (what `encodeInteger:forKey:`, `encodeDouble:forKey:` and
    /// `encodeBool:forKey:` write). Elements of arrays and dictionaries are objects either
    /// way. The reader accepts both. Defaults to `false`.
    public var writesNumbersAsObjects: Bool

    /// Whether the writer keeps an envelope's document name and version (see
    /// <doc:OnDiskArchiveFormat>) in the archive: the envelope's root is the archive's root
    /// object either way, and with this on (the default), `$top` also holds `$archive`,
    /// `$document` and `$documentVersion` — keys `NSKeyedArchiver` never writes there and
    /// `NSKeyedUnarchiver` never reads — so that this library reads the archive back as the same
    /// envelope. Turn it off to write exactly the root object, as `NSKeyedArchiver` does; the
    /// archive then reads back as its root alone, without a document version.
    public var writesEnvelope: Bool

    /// The defaults: automatic root, model versions, inline numbers, the envelope kept.
    public init(
        rootKey: String? = nil, writesModelVersion: Bool = true, writesNumbersAsObjects: Bool = false,
        writesEnvelope: Bool = true
    ) {
        self.rootKey = rootKey
        self.writesModelVersion = writesModelVersion
        self.writesNumbersAsObjects = writesNumbersAsObjects
        self.writesEnvelope = writesEnvelope
    }

    /// The defaults.
    public static let `default` = KeyedArchiveOptions()

    /// Archives as Mantle's `MTLModel` writes them: versions under `MTLModelVersion` and numbers
    /// as `NSNumber` objects.
    public static let mantle = KeyedArchiveOptions(writesModelVersion: true, writesNumbersAsObjects: true)

    /// The key Mantle stores a model's version under.
    static let modelVersionKey = "MTLModelVersion"
}
