/// Object identity during one encoding run: which model class instances were written, which
/// are referenced again or conditionally, and the clean-up that gives the archive its final
/// identities.
///
/// Every model class instance is written with a provisional identity. When the run ends,
/// ``finalize(_:)`` keeps an identity only on objects that some reference points to, numbers
/// the kept ones densely in document order, and drops conditional references to objects that
/// were never written unconditionally (Mantle and NSKeyedArchiver semantics: such a reference
/// reads back as `nil`).
struct EncodingGraph {
    enum State {
        /// Only conditional references so far: not (yet) part of the archive.
        case conditionalOnly
        /// Being written: its `encode(to:)` is on the stack.
        case inProgress
        /// Written unconditionally.
        case written
    }

    struct Entry {
        let id: Int
        var state: State
        var isReferenced: Bool
        /// Retained so that its `ObjectIdentifier` cannot be reused by another object during
        /// the run.
        let object: AnyObject
    }

    /// What to do with an instance about to be written unconditionally.
    enum Decision {
        /// Write it inline with this provisional identity.
        case write(Int)
        /// It is already written: write a reference.
        case reference(Int)
        /// It is being written: a strong reference cycle.
        case cycle
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    private var nextID = 1

    /// Whether any model class instance took part, so ``finalize(_:)`` has work to do.
    var isEmpty: Bool { entries.isEmpty }

    mutating func beginUnconditional(_ object: AnyObject) -> Decision {
        let key = ObjectIdentifier(object)
        if var entry = entries[key] {
            switch entry.state {
            case .written:
                entry.isReferenced = true
                entries[key] = entry
                return .reference(entry.id)
            case .inProgress:
                return .cycle
            case .conditionalOnly:
                entry.state = .inProgress
                entries[key] = entry
                return .write(entry.id)
            }
        }
        let id = nextID
        nextID += 1
        entries[key] = Entry(id: id, state: .inProgress, isReferenced: false, object: object)
        return .write(id)
    }

    mutating func endUnconditional(_ object: AnyObject) {
        entries[ObjectIdentifier(object)]?.state = .written
    }

    /// The identity a conditional reference to `object` points to.
    mutating func conditionalReference(to object: AnyObject) -> Int {
        let key = ObjectIdentifier(object)
        if var entry = entries[key] {
            entry.isReferenced = true
            entries[key] = entry
            return entry.id
        }
        let id = nextID
        nextID += 1
        entries[key] = Entry(id: id, state: .conditionalOnly, isReferenced: true, object: object)
        return id
    }

    /// Gives the tree its final identities; see the type's discussion.
    func finalize(_ tree: inout ArchiveValue) {
        var kept = Set<Int>()
        var dropped = Set<Int>()
        for entry in entries.values {
            switch entry.state {
            case .written where entry.isReferenced:
                kept.insert(entry.id)
            case .conditionalOnly:
                dropped.insert(entry.id)
            default:
                break
            }
        }
        var renumbering = Renumbering(kept: kept, dropped: dropped)
        if renumbering.rewrite(&tree) == .drop {
            tree = .null
        }
    }
}

/// The walk of ``EncodingGraph/finalize(_:)``.
private struct Renumbering {
    enum Outcome { case keep, drop }

    let kept: Set<Int>
    let dropped: Set<Int>
    var numbers: [Int: Int] = [:]

    init(kept: Set<Int>, dropped: Set<Int>) {
        self.kept = kept
        self.dropped = dropped
    }

    mutating func number(for id: Int) -> ArchiveObjectID {
        if let number = numbers[id] { return ArchiveObjectID(number) }
        let number = numbers.count + 1
        numbers[id] = number
        return ArchiveObjectID(number)
    }

    mutating func rewrite(_ value: inout ArchiveValue) -> Outcome {
        switch value {
        case .reference(let id):
            if dropped.contains(id.rawValue) { return .drop }
            if kept.contains(id.rawValue) { value = .reference(number(for: id.rawValue)) }
            return .keep
        case .object(var object):
            value = .null
            if let id = object.id {
                object.id = kept.contains(id.rawValue) ? number(for: id.rawValue) : nil
            }
            rewrite(&object.fields)
            value = .object(object)
            return .keep
        case .dictionary(var dictionary):
            value = .null
            rewrite(&dictionary)
            value = .dictionary(dictionary)
            return .keep
        case .array(var elements):
            value = .null
            for index in elements.indices where rewrite(&elements[index]) == .drop {
                elements[index] = .null
            }
            value = .array(elements)
            return .keep
        default:
            return .keep
        }
    }

    mutating func rewrite(_ dictionary: inout ArchiveDictionary) {
        var droppedKeys: [String] = []
        for index in dictionary.indices {
            let outcome = dictionary.withValue(at: index) { rewrite(&$0) }
            if outcome == .drop { droppedKeys.append(dictionary[index].key) }
        }
        for key in droppedKeys {
            dictionary.removeValue(forKey: key)
        }
    }
}
