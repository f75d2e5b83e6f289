/// The name an object was archived under when it was an alias a release declared it archived the
/// type under (``AppRelease/aliases``) rather than the name the chain gives objects of that
/// version (such as the Objective-C class name `SketchApp.Rect` an old release wrote for some of
/// its rectangles and not for others), kept by the upgrade so that a downgrade to that release
/// writes the very name again. Aliases no release declares (a module-qualified class name an app
/// reads from old archives, say) are not kept: the upgrade writes today's name alone.
///
/// It is a field of the upgraded object (part of the stable archive format, spelled
/// `$$archivedAs` in JSON, like every model key that starts with `$`):
///
/// ```json
/// { "$type": "Rectangle", "$version": 4, "origin": { … }, "size": { … },
///   "$$archivedAs": { "type": "SketchApp.Rect", "version": 1 } }
/// ```
///
/// Decoders ignore it, as they ignore any key a model does not declare (a model that keeps
/// unknown fields writes it back). A downgrade that takes the object to `version` gives it
/// `type` and removes the field; one that stops at another version leaves it. A `type` that is
/// not a name of the object's own chain is ignored, so the field can name nothing else.
struct ArchivedAlias: Sendable, Equatable {
    /// The reserved field.
    static let key = "$archivedAs"

    /// The name the object was archived under.
    var typeName: String
    /// The version it was archived at.
    var version: Int

    /// The field's value.
    var tree: ArchiveValue {
        var entries = ArchiveDictionary()
        entries.appendUnchecked(.string(typeName), forKey: "type")
        entries.appendUnchecked(.int(Int64(version)), forKey: "version")
        return .dictionary(entries)
    }

    /// The alias `value` holds; `nil` when it is not a dictionary of exactly a `type` string and
    /// a `version` integer (the field is then left as any other field).
    init?(_ value: ArchiveValue) {
        guard case .dictionary(let entries) = value, entries.count == 2,
            case .string(let typeName)? = entries["type"], !typeName.isEmpty,
            case .int(let version)? = entries["version"], let version = Int(exactly: version)
        else { return nil }
        self.typeName = typeName
        self.version = version
    }

    init(typeName: String, version: Int) {
        self.typeName = typeName
        self.version = version
    }
}
