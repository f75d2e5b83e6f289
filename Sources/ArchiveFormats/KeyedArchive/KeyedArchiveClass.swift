/// A validated class entry of a keyed archive (`{$classname, $classes, $classhints}`) and what
/// the reader makes of objects of that class.
struct KeyedArchiveClass {
    /// How objects of a class are read into the tree.
    enum Kind: UInt8 {
        /// NSArray, NSSet, NSOrderedSet and their mutable forms: `NS.objects` or
        /// `NS.object.0`, `NS.object.1`, … → an array.
        case array
        /// NSCountedSet: `NS.count`, `NS.object<i>`, `NS.count<i>` → an array with each object
        /// repeated as often as it was counted.
        case countedSet
        /// NSDictionary, NSMutableDictionary: `NS.keys` and `NS.objects` → a dictionary.
        case dictionary
        /// NSString, NSMutableString: `NS.string` → a string.
        case string
        /// NSData, NSMutableData: `NS.data` → data.
        case data
        /// NSDate: `NS.time` → a date.
        case date
        /// NSURL: `NS.base` and `NS.relative` → the absolute URL string.
        case url
        /// NSUUID: `NS.uuidbytes` → the uppercase UUID string.
        case uuid
        /// NSNull → null.
        case null
        /// NSValue: ranges, points, sizes, rectangles and edge insets → dictionaries; other
        /// values stay objects.
        case value
        /// Any other class: a typed object with its fields.
        case object

        /// Whether objects of this kind hold other objects without having an identity of their
        /// own in the tree (they are expanded again wherever they are referenced).
        var isCollection: Bool {
            self == .array || self == .countedSet || self == .dictionary
        }
    }

    /// `$classname`.
    let name: String
    /// `$classes` without the class itself; empty when the only superclass is `NSObject`
    /// (implied for every class) or the entry has no `$classes`.
    let superclassNames: [String]
    /// How its objects are read.
    let kind: Kind

    /// The Foundation classes read into natural values.
    static let foundationKinds: [String: Kind] = [
        "NSArray": .array, "NSMutableArray": .array, "NSSet": .array, "NSMutableSet": .array,
        "NSOrderedSet": .array, "NSMutableOrderedSet": .array, "NSCountedSet": .countedSet,
        "NSDictionary": .dictionary, "NSMutableDictionary": .dictionary,
        "NSString": .string, "NSMutableString": .string,
        "NSData": .data, "NSMutableData": .data,
        "NSDate": .date, "NSURL": .url, "NSUUID": .uuid, "NSNull": .null, "NSValue": .value,
    ]

    /// Validates a class entry.
    ///
    /// - Parameters:
    ///   - entry: The `$objects` entry the `$class` UID points to.
    ///   - path: Where the entry is (`$objects[7]`), for errors.
    /// - Throws: `ArchiveError` (`ArchiveError.Code.malformedInput`) when the entry is not a
    ///   dictionary, has no non-empty string `$classname`, or has a `$classes` or `$classhints`
    ///   that is not an array of strings.
    init(entry: ArchiveValue, path: ArchivePath) throws {
        guard case .dictionary(let dictionary) = entry else {
            throw ArchiveError(
                .malformedInput, "a '$class' must refer to a class entry (a dictionary), not a \(entry.kind)",
                path: path)
        }
        var name: String?
        var classes: [String]?
        for (key, value) in dictionary {
            switch key {
            case "$classname":
                guard case .string(let string) = value, !string.isEmpty else {
                    throw ArchiveError(
                        .malformedInput, "'$classname' must be a non-empty string", path: path.appending(key))
                }
                name = string
            case "$classes", "$classhints":
                guard case .array(let elements) = value else {
                    throw ArchiveError(
                        .malformedInput, "'\(key)' must be an array of strings", path: path.appending(key))
                }
                var names: [String] = []
                names.reserveCapacity(elements.count)
                for (index, element) in elements.enumerated() {
                    guard case .string(let string) = element else {
                        throw ArchiveError(
                            .malformedInput, "'\(key)' must be an array of strings",
                            path: path.appending(key).appending(index))
                    }
                    names.append(string)
                }
                if key == "$classes" { classes = names }
            default:
                break
            }
        }
        guard let name else {
            throw ArchiveError(.malformedInput, "the class entry has no '$classname'", path: path)
        }
        var superclasses = classes ?? []
        if superclasses.first == name { superclasses.removeFirst() }
        if superclasses == ["NSObject"] { superclasses = [] }
        self.name = name
        self.superclassNames = superclasses
        self.kind = Self.foundationKinds[name] ?? .object
    }
}
