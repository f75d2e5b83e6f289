import Foundation

/// How typed objects, references and values without a native form are spelled in JSON and
/// property-list text: the reserved `$` keys of the archive format. The catalog's article
/// "The archive format" (`OnDiskArchiveFormat.md`) documents the same rules for users; keep the
/// two in step.
///
/// ```json
/// {
///   "$archive": 1,
///   "documentVersion": 3,
///   "root": {
///     "$type": "Contents", "$version": 2,
///     "shapes": [
///       { "$type": "Circle", "$version": 1, "$id": 1, "radius": 30.0 },
///       { "$ref": 1 }
///     ],
///     "created": { "$date": "2026-11-30T05:14:25Z" },
///     "$$price": 3
///   }
/// }
/// ```
///
/// * `$type`, `$version`, `$id`, `$classes` make a dictionary an `ArchiveValue.object(_:)`;
///   every other key is a field.
/// * `{"$ref": n}` is a `ArchiveValue.reference(_:)`.
/// * JSON only: `{"$date": "ISO 8601" | seconds since 2001}`, `{"$data": "base64"}` and
///   `{"$double": "nan" | "inf" | "-inf"}` keep dates, bytes and non-finite doubles exact.
///   Property lists have native forms for these.
/// * Property lists only: `{"$null": true}` stands for `ArchiveValue.null`, which they cannot
///   hold natively.
/// * A key of the model that starts with `$` is written with one more `$` (`$price` → `$$price`).
/// * `$archive` is kept as a plain key in the top-level dictionary: it marks the envelope
///   `ArchiveEnvelope` writes.
///
/// Text is read with this markup when its top-level value is a dictionary whose first key is
/// `$archive` or `$type` (``MarkupMode/automatic``); any other document is plain and its keys
/// are taken literally, so foreign JSON with keys such as `$schema` reads unchanged.
package enum ArchiveMarkup {
    static let archiveKey = ArchiveEnvelope.markerKey
    static let typeKey = "$type"
    static let versionKey = "$version"
    static let idKey = "$id"
    static let classesKey = "$classes"
    package static let referenceKey = "$ref"
    static let dateKey = "$date"
    static let dataKey = "$data"
    static let doubleKey = "$double"
    /// Property lists have no null: `{"$null": true}` stands for `ArchiveValue.null` there.
    static let nullKey = "$null"

    /// Whether `key` must be escaped (or is reserved) because it starts with `$`.
    @inline(__always)
    static func isReservedSpelling(_ key: String) -> Bool {
        key.utf8.first == UInt8(ascii: "$")
    }

    /// The spelling of a model key in archive text: one more `$` in front of a leading `$`.
    @inline(__always)
    static func escape(_ key: String) -> String {
        isReservedSpelling(key) ? "$" + key : key
    }

    /// Whether a top-level dictionary whose first key is `firstKey` switches on the markup.
    static func startsArchiveMarkup(firstKey: String) -> Bool {
        firstKey == archiveKey || firstKey == typeKey
    }

    /// Builds the value a dictionary read in archive mode stands for.
    ///
    /// - Parameters:
    ///   - entries: The dictionary's entries with keys as spelled in the text, in order. Keys must
    ///     be unique (readers check first).
    ///   - isTopLevel: Whether this is the document's top-level dictionary (where `$archive` is a
    ///     plain key).
    ///   - allowsValueTags: Whether `$date`, `$data` and `$double` are recognised (JSON).
    ///   - maxDataLength: The longest data a `$data` value may decode to
    ///     (`ArchiveLimits.maxDataLength`).
    ///   - path: Where the dictionary is, for errors.
    /// - Returns: An object, a reference, a tagged value, or a dictionary with unescaped keys.
    static func interpret(
        _ entries: [ArchiveDictionary.Entry], isTopLevel: Bool, allowsValueTags: Bool, maxDataLength: Int = .max,
        path: ArchivePath
    ) throws -> ArchiveValue {
        guard entries.contains(where: { isReservedSpelling($0.key) }) else {
            return .dictionary(ArchiveDictionary(uniqueStoredEntries: entries))
        }
        var typeName: String?
        var version: Int?
        var id: ArchiveObjectID?
        var superclasses: [String] = []
        var fields = ArchiveDictionary(minimumCapacity: entries.count)
        var metadataKeys: [String] = []
        var unescaped = false
        for entry in entries {
            let key = entry.key
            let value = entry.value
            guard isReservedSpelling(key) else {
                fields.appendUnchecked(value, forKey: key)
                continue
            }
            if key.utf8.dropFirst().first == UInt8(ascii: "$") {
                fields.appendUnchecked(value, forKey: String(key.dropFirst()))
                unescaped = true
                continue
            }
            let fieldPath = path.appending(key)
            switch key {
            case typeKey:
                guard case .string(let name) = value, !name.isEmpty else {
                    throw malformed("'$type' must be a non-empty string", fieldPath)
                }
                typeName = name
            case versionKey:
                guard let number = value.int64Value, number >= 0, let int = Int(exactly: number) else {
                    throw malformed("'$version' must be a non-negative integer", fieldPath)
                }
                version = int
            case idKey:
                id = try identity(value, fieldPath)
            case classesKey:
                guard case .array(let names) = value else {
                    throw malformed("'$classes' must be an array of class names", fieldPath)
                }
                superclasses = try names.map { name in
                    guard case .string(let string) = name else {
                        throw malformed("'$classes' must be an array of class names", fieldPath)
                    }
                    return string
                }
            case archiveKey where isTopLevel:
                fields.appendUnchecked(value, forKey: key)
                continue
            case referenceKey, dateKey, dataKey, doubleKey, nullKey:
                break
            default:
                throw malformed(
                    "unknown reserved key '\(key)' (write a model key that starts with '$' as '$\(key)')", fieldPath)
            }
            metadataKeys.append(key)
        }
        // `$$archive` unescapes to the literal top-level `$archive`: the same key twice.
        if unescaped, let duplicate = fields.firstDuplicateKey() {
            throw malformed("the key '\(duplicate)' appears twice (once escaped as '$\(duplicate)')", path)
        }
        if let typeName {
            if let stray = metadataKeys.first(where: {
                [referenceKey, dateKey, dataKey, doubleKey, nullKey].contains($0)
            }) {
                throw malformed("'\(stray)' cannot appear in an object", path.appending(stray))
            }
            return .object(
                ArchiveObject(
                    typeName: typeName, version: version, id: id, superclassNames: superclasses, fields: fields))
        }
        if metadataKeys.contains(versionKey) || metadataKeys.contains(idKey) || metadataKeys.contains(classesKey) {
            throw malformed("an object needs '$type'", path)
        }
        if metadataKeys.isEmpty {
            return .dictionary(fields)
        }
        guard metadataKeys.count == 1, fields.isEmpty else {
            throw malformed("'\(metadataKeys[0])' must be the only key of its dictionary", path)
        }
        let tagged = entries.first { $0.key == metadataKeys[0] }?.value ?? .null
        switch metadataKeys[0] {
        case referenceKey:
            return .reference(try identity(tagged, path.appending(referenceKey)))
        case dateKey where allowsValueTags:
            return .date(try taggedDate(tagged, path.appending(dateKey)))
        case dataKey where allowsValueTags:
            guard case .string(let base64) = tagged,
                let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters)
            else {
                throw malformed("'$data' must be a base64 string", path.appending(dataKey))
            }
            guard data.count <= maxDataLength else {
                throw ArchiveError.limitExceeded(
                    .dataLength, "a data value has \(data.count) bytes, more than the limit of \(maxDataLength)",
                    path: path)
            }
            return .data(data)
        case nullKey:
            guard tagged == .bool(true) else {
                throw malformed("'$null' must be true", path.appending(nullKey))
            }
            return .null
        case doubleKey where allowsValueTags:
            switch tagged.stringValue {
            case "nan": return .double(.nan)
            case "inf", "+inf": return .double(.infinity)
            case "-inf": return .double(-.infinity)
            default: throw malformed("'$double' must be \"nan\", \"inf\" or \"-inf\"", path.appending(doubleKey))
            }
        default:
            throw malformed("'\(metadataKeys[0])' is not allowed in this format", path.appending(metadataKeys[0]))
        }
    }

    /// The entries a writer emits for an object: metadata first, then escaped fields.
    package static func entries(of object: ArchiveObject) -> [ArchiveDictionary.Element] {
        var result: [ArchiveDictionary.Element] = []
        result.reserveCapacity(object.fields.count + 3)
        result.append((typeKey, .string(object.typeName)))
        if let version = object.version { result.append((versionKey, .int(Int64(version)))) }
        if let id = object.id { result.append((idKey, .int(Int64(id.rawValue)))) }
        if !object.superclassNames.isEmpty {
            result.append((classesKey, .array(object.superclassNames.map { .string($0) })))
        }
        for (key, value) in object.fields {
            result.append((escape(key), value))
        }
        return result
    }

    private static func taggedDate(_ value: ArchiveValue, _ path: ArchivePath) throws -> Date {
        switch value {
        case .string(let text):
            guard let date = ISO8601Date.date(from: text) else {
                throw malformed("'$date' must be an ISO 8601 date such as 2026-11-30T05:14:25Z", path)
            }
            return date
        default:
            guard let seconds = value.doubleValue, seconds.isFinite else {
                throw malformed("'$date' must be an ISO 8601 string or seconds since 2001-01-01", path)
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
    }

    /// The JSON spelling of a date: an ISO 8601 string when one reads back to exactly the same
    /// instant, otherwise the seconds since 2001-01-01.
    static func taggedValue(of date: Date) -> ArchiveValue {
        if let text = ISO8601Date.exactString(from: date) {
            return .string(text)
        }
        return .double(date.timeIntervalSinceReferenceDate)
    }

    private static func identity(_ value: ArchiveValue, _ path: ArchivePath) throws -> ArchiveObjectID {
        guard let number = value.int64Value, number >= 0, let int = Int(exactly: number) else {
            throw malformed("an object identity must be a non-negative integer", path)
        }
        return ArchiveObjectID(int)
    }

    private static func malformed(_ message: String, _ path: ArchivePath) -> ArchiveError {
        ArchiveError(.malformedInput, message, path: path)
    }
}

extension ArchiveMarkup {
    /// Checks that every reference in `tree` points to an object of the tree (one with that
    /// `$id`): a reference to nothing is damage, never a value to pass on.
    ///
    /// - Throws: `ArchiveError.Code.unresolvedReference` at the first dangling reference's path.
    static func checkReferences(in tree: ArchiveValue, limits: ArchiveLimits) throws {
        var identities = Set<ArchiveObjectID>()
        var referenced = Set<ArchiveObjectID>()
        collect(tree, depth: 0, maxDepth: limits.maxDepth, identities: &identities, referenced: &referenced)
        let dangling = referenced.subtracting(identities)
        guard !dangling.isEmpty,
            let (id, path) = firstReference(in: tree, to: dangling, path: .root, depth: 0, maxDepth: limits.maxDepth)
        else { return }
        throw ArchiveError(.unresolvedReference, "the reference \(id) points to no object of the archive", path: path)
    }

    /// Every identity defined and every identity referred to (the readers bound the depth
    /// already; `maxDepth` keeps the walk bounded on its own).
    private static func collect(
        _ value: ArchiveValue, depth: Int, maxDepth: Int, identities: inout Set<ArchiveObjectID>,
        referenced: inout Set<ArchiveObjectID>
    ) {
        guard depth <= maxDepth else { return }
        switch value {
        case .reference(let id):
            referenced.insert(id)
        case .object(let object):
            if let id = object.id { identities.insert(id) }
            for index in object.fields.indices {
                collect(
                    object.fields.value(at: index), depth: depth + 1, maxDepth: maxDepth, identities: &identities,
                    referenced: &referenced)
            }
        case .array(let elements):
            for element in elements {
                collect(element, depth: depth + 1, maxDepth: maxDepth, identities: &identities, referenced: &referenced)
            }
        case .dictionary(let entries):
            for index in entries.indices {
                collect(
                    entries.value(at: index), depth: depth + 1, maxDepth: maxDepth, identities: &identities,
                    referenced: &referenced)
            }
        default:
            break
        }
    }

    /// The first reference (in document order) to one of `ids`, with its path.
    private static func firstReference(
        in value: ArchiveValue, to ids: Set<ArchiveObjectID>, path: ArchivePath, depth: Int, maxDepth: Int
    ) -> (ArchiveObjectID, ArchivePath)? {
        guard depth <= maxDepth else { return nil }
        switch value {
        case .reference(let id):
            return ids.contains(id) ? (id, path) : nil
        case .object(let object):
            for (key, field) in object.fields {
                if let found = firstReference(
                    in: field, to: ids, path: path.appending(key), depth: depth + 1, maxDepth: maxDepth)
                {
                    return found
                }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = firstReference(
                    in: element, to: ids, path: path.appending(index), depth: depth + 1, maxDepth: maxDepth)
                {
                    return found
                }
            }
        case .dictionary(let entries):
            for (key, element) in entries {
                if let found = firstReference(
                    in: element, to: ids, path: path.appending(key), depth: depth + 1, maxDepth: maxDepth)
                {
                    return found
                }
            }
        default:
            break
        }
        return nil
    }
}
