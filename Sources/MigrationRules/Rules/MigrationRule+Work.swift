/// What a rule counts against ``ArchiveLimits/maxRuleWork`` each time it runs (see `RuleWork`):
/// the bytes of everything it names, which bound both what it can put into a container and
/// what it looks up there.
extension MigrationRule {
    /// The work of one run of `operation`, besides what it makes out of the container's own
    /// values (``dynamicWork(of:)``): its keys and names at 9 bytes and their UTF-8 bytes each,
    /// the values it copies in at their canonical bytes, 9 bytes for a container it makes.
    static func work(of operation: Operation) -> Int {
        func keys(_ keys: [String]) -> Int { keys.reduce(0) { $0 &+ $1.workBytes } }
        func path(_ path: ArchivePath) -> Int {
            path.components.reduce(9) { total, component in
                guard case .key(let key) = component else { return total &+ 9 }
                return total &+ key.workBytes
            }
        }
        switch operation {
        case .rename(let key, let newKey, _):
            return key.workBytes &+ newKey.workBytes
        case .add(let key, let value):
            return key.workBytes &+ value.workBytes()
        case .remove(let key, _), .wrapInArray(let key), .takeFirst(let key):
            return key.workBytes &+ 9
        case .convert(let key, let converter):
            return key.workBytes &+ converter.work
        case .move(let source, let destination, _):
            return path(source) &+ path(destination)
        case .nest(let names, let container), .hoist(let names, let container):
            return keys(names) &+ container.workBytes &+ 9
        case .split(let key, let parts, _):
            return key.workBytes &+ keys(parts) &+ 9 &* parts.count
        case .merge(let parts, let key, let division):
            var separator = 0
            if case .separator(let text) = division { separator = text.utf8.count &* parts.count }
            return keys(parts) &+ key.workBytes &+ separator
        case .renameType(let oldName, let newName):
            return oldName.workBytes &+ newName.workBytes
        case .scoped(let scope, _):
            // The scoped rules count each time they run, once per container the path matches.
            return path(scope)
        case .transform(let name, _, _, _):
            // A closure is the app's own code: only its name.
            return name.workBytes
        }
    }

    /// What one run counts for the container's own values it reads and makes anew: the text a
    /// `split` cuts or a `merge` joins, the value a converter reads (a string it parses, the
    /// elements it wraps). Constant time for strings; a converter over an array counts per
    /// element.
    func dynamicWork(of value: ArchiveValue) -> Int {
        switch operation {
        case .split, .merge:
            guard case .string(let text) = value else { return 0 }
            return text.utf8.count
        case .convert(_, let converter):
            return converter.work(reading: value)
        default:
            return 0
        }
    }
}

extension ValueConverter {
    /// What one conversion counts besides what it reads: the largest value a map gives, the
    /// template it puts into each element (counted per element by ``work(reading:)``), or 9 for
    /// the value a built-in makes.
    var work: Int {
        switch forward.spelling {
        case .map(let mapping, let fallback)?:
            let largest = mapping.values.reduce(fallback?.workBytes() ?? 9) { Swift.max($0, $1.workBytes()) }
            return largest
        default:
            return 9
        }
    }

    /// What converting `value` counts for reading it: a string's or data value's bytes (parsed
    /// or mapped), and for the element converters the template and key each element gets.
    func work(reading value: ArchiveValue) -> Int {
        switch value {
        case .string(let text):
            return text.utf8.count
        case .data(let data):
            return data.count
        case .array(let elements):
            switch forward.spelling {
            case .wrapElements(let key, let template)?:
                return elements.count &* (key.workBytes &+ ArchiveValue.dictionary(template).workBytes())
            case .unwrapElements(let key, let template)?:
                return elements.count
                    &* (key.workBytes &+ (template.map { ArchiveValue.dictionary($0).workBytes() } ?? 9))
            default:
                return elements.count &* 9
            }
        default:
            return 0
        }
    }
}
