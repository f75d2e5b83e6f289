/// How NSKeyedArchiver archives are read and written (``ArchiveFormat/keyedArchive``).
///
/// The defaults read every archive Apple's `NSKeyedArchiver` writes, and write archives that an
/// old NSCoding app reads with `NSKeyedUnarchiver` and this library reads back with every
/// object's version and the envelope's document version. For an app built on Mantle, choose
/// the classes written in Mantle's form with ``mantleModels`` (``mantle`` writes every class
/// so).
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
    /// The objects written as Mantle's `MTLModel` archives itself (its `-encodeWithCoder:`).
    ///
    /// A Mantle model stores its class's version under `MTLModelVersion` and every property
    /// with `encodeObject:forKey:` — numbers and Booleans as `NSNumber` objects — and leaves nil
    /// properties out; its class entry names `MTLModel` as its superclass. An object written in
    /// that form gets exactly this: its version (when it has one) under `MTLModelVersion`,
    /// numbers and Booleans as objects, no key for a null field, and, when the tree records no
    /// superclasses for it, the chain `MTLModel`, `NSObject`.
    public enum MantleModels: Sendable, Hashable {
        /// No object: every object is written as an NSCoding class writes itself (the default).
        case none
        /// Every object of an app's class: every class but Foundation's own, whose names start
        /// with `NS`.
        case all
        /// The objects of these classes, by the name they are archived under (`MTLTestModel`;
        /// after a downgrade to a release, the name that release archived the type under).
        case classes(Set<String>)

        /// Whether objects of the class `name` are written in Mantle's form.
        public func contains(_ name: String) -> Bool {
            switch self {
            case .none: return false
            case .all: return !name.hasPrefix("NS")
            case .classes(let names): return names.contains(name)
            }
        }
    }

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
    /// Objects written in Mantle's form (``mantleModels``) always carry their version.
    public var writesModelVersion: Bool

    /// Whether the writer stores the numbers and Booleans of an object's fields as `NSNumber`
    /// objects (what `encodeObject:forKey:` writes) rather than inline (what
    /// `encodeInteger:forKey:`, `encodeDouble:forKey:` and `encodeBool:forKey:` write, and what
    /// `decodeInteger(forKey:)`, `decodeDouble(forKey:)` and `decodeBool(forKey:)` read).
    /// Elements of arrays and dictionaries are objects either way, and objects written in
    /// Mantle's form (``mantleModels``) hold objects whatever this says. The reader accepts
    /// both. Defaults to `false`.
    public var writesNumbersAsObjects: Bool

    /// Which objects the writer archives in Mantle's form (see ``MantleModels``). Defaults to
    /// ``MantleModels/none``.
    public var mantleModels: MantleModels

    /// Whether the writer keeps an envelope's document name and version (see
    /// the article *The archive format* of ModelVersioning) in the archive: the envelope's root is the archive's root
    /// object either way, and with this on (the default), `$top` also holds `$archive`,
    /// `$document` and `$documentVersion` — keys `NSKeyedArchiver` never writes there and
    /// `NSKeyedUnarchiver` never reads — so that this library reads the archive back as the same
    /// envelope. Turn it off to write exactly the root object, as `NSKeyedArchiver` does; the
    /// archive then reads back as its root alone, without a document version.
    public var writesEnvelope: Bool

    /// The defaults: automatic root, model versions, inline numbers, no Mantle models, the
    /// envelope kept.
    public init(
        rootKey: String? = nil, writesModelVersion: Bool = true, writesNumbersAsObjects: Bool = false,
        mantleModels: MantleModels = .none, writesEnvelope: Bool = true
    ) {
        self.rootKey = rootKey
        self.writesModelVersion = writesModelVersion
        self.writesNumbersAsObjects = writesNumbersAsObjects
        self.mantleModels = mantleModels
        self.writesEnvelope = writesEnvelope
    }

    /// The defaults.
    public static let `default` = KeyedArchiveOptions()

    /// Archives as Mantle's `MTLModel` writes them: every object of an app's class in Mantle's
    /// form (``MantleModels/all``).
    public static let mantle = KeyedArchiveOptions(mantleModels: .all)

    /// The key Mantle stores a model's version under.
    static let modelVersionKey = "MTLModelVersion"
}
