/// What the rules of one migration pass have done, against what they may do
/// (``ArchiveLimits/maxRuleWork``): each time a rule runs it counts the bytes of what it names
/// (``MigrationRule/work``), each step run counts ``stepBytes``, each object the pass renames
/// the bytes of its new type name.
///
/// Counting what a rule *names* bounds what it can make and what it can cost: an `add` makes at
/// most its key and its default, a `nest` of many keys looks up each of them, and neither can
/// do more per run however the archive is shaped. What a rule makes out of the archive's own
/// values (a `split` of a string, a converted number) is counted as it runs. A small archive
/// whose rules run on many objects (an `add` of a large default copied into every one, carried
/// in the archive's way down) runs out of its allowance before it makes more than a multiple of
/// its size.
///
/// The pass carries it through every target it makes (``MigrationTarget/work``); a target
/// made outside a pass counts nothing against no limit.
struct RuleWork: Sendable {
    /// What any archive may do, however small: a few objects through a long chain.
    static let floor = 1 << 20
    /// What one step run counts, besides its rules.
    static let stepBytes = 9

    /// Bytes counted so far.
    private(set) var done = 0
    /// The most bytes the pass may count; `Int.max` outside a pass, ``floor`` until measured.
    private(set) var allowance: Int
    /// ``ArchiveLimits/maxRuleWork``.
    private let ratio: Int
    /// The work of every rule of the catalog once (``MigrationCatalog/ruleWork``).
    private let ruleBytes: Int
    /// The depth to which the archive is measured (``ArchiveLimits/maxDepth``: deeper trees are
    /// refused by the walk).
    private let depth: Int
    /// Whether the archive has been measured.
    private(set) var isMeasured: Bool

    /// Counts without a limit: a target made outside a migration pass.
    static let unlimited = RuleWork()

    private init() {
        allowance = .max
        ratio = 0
        ruleBytes = 0
        depth = 0
        isMeasured = true
    }

    /// Work for a pass with `limits` over a catalog whose rules weigh `ruleBytes`, to be
    /// ``measure(_:)``d before the first rule runs.
    init(limits: ArchiveLimits, ruleBytes: Int) {
        allowance = Self.floor
        ratio = Swift.max(0, limits.maxRuleWork)
        self.ruleBytes = ruleBytes
        depth = limits.maxDepth
        isMeasured = false
    }

    /// Sets the allowance from the tree the pass is about to migrate (once: later calls do
    /// nothing): ``floor`` plus the ratio times the tree's and the rules' bytes.
    mutating func measure(_ tree: ArchiveValue) {
        guard !isMeasured else { return }
        isMeasured = true
        let (base, overflow) = tree.workBytes(depth: depth).addingReportingOverflow(ruleBytes)
        let (scaled, scaledOverflow) = base.multipliedReportingOverflow(by: ratio)
        let (total, totalOverflow) = scaled.addingReportingOverflow(Self.floor)
        allowance = overflow || scaledOverflow || totalOverflow ? .max : total
    }

    /// Counts `bytes` of work done at `path`.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/limitExceeded`` and limit
    ///   ``ArchiveLimits/Limit/ruleWork`` when the count passes the allowance.
    @inline(__always)
    mutating func charge(_ bytes: Int, at path: @autoclosure () -> ArchivePath) throws {
        done = done.addingReportingOverflow(bytes).overflow ? .max : done + bytes
        if done > allowance { throw exceeded(at: path()) }
    }

    private func exceeded(at path: ArchivePath) -> ArchiveError {
        ArchiveError.limitExceeded(
            .ruleWork,
            "the migration's rules would write or look up more than \(allowance) bytes, 1 MiB and \(ratio) times what "
                + "the archive and its rules hold (ArchiveLimits.maxRuleWork): an archive that makes its rules run that "
                + "often or copy that much is refused", path: path)
    }
}

extension ArchiveValue {
    /// The bytes a rule's work counts for this value: its canonical bytes as a way down's digest
    /// spells them, about (9 per value, key and name, and the bytes of every string, key, name
    /// and data value). Values nested deeper than `depth` count 9 bytes each, unread.
    ///
    /// Linear in the value's size, and without recursion (the limits may allow a tree deeper
    /// than a thread's stack would recurse); a string's or key's UTF-8 count is constant time
    /// for the native strings the readers make.
    func workBytes(depth: Int = .max) -> Int {
        var total = 0
        // The containers being read, each with the position of its next child: a stack as deep
        // as the tree, where a stack of every child not yet read would be as wide as it.
        var stack: [(children: WorkChildren, next: Int, depth: Int)] = []
        func visit(_ value: ArchiveValue, level: Int) {
            total &+= 9
            switch value {
            case .null, .bool, .int, .uint, .double, .date, .reference:
                return
            case .string(let text):
                total &+= text.utf8.count
            case .data(let data):
                total &+= data.count
            case .array(let elements):
                if level < depth && !elements.isEmpty { stack.append((.elements(elements), 0, level)) }
            case .dictionary(let entries):
                if level < depth && !entries.isEmpty { stack.append((.entries(entries.entries), 0, level)) }
            case .object(let object):
                total &+= 27 &+ object.typeName.utf8.count
                if level < depth && !object.fields.isEmpty {
                    stack.append((.entries(object.fields.entries), 0, level))
                }
            }
        }
        visit(self, level: 0)
        while let top = stack.indices.last {
            let position = stack[top].next
            let level = stack[top].depth + 1
            let child: ArchiveValue
            switch stack[top].children {
            case .elements(let elements):
                guard position < elements.count else {
                    stack.removeLast()
                    continue
                }
                child = elements[position]
            case .entries(let entries):
                guard position < entries.count else {
                    stack.removeLast()
                    continue
                }
                total &+= entries[position].key.workBytes
                child = entries[position].value
            }
            stack[top].next = position + 1
            if child.isContainer {
                visit(child, level: level)
            } else {
                total &+= child.scalarWorkBytes
            }
        }
        return total
    }

    /// ``workBytes(depth:)`` of a value that is not a container: 9, and a string's or data
    /// value's bytes.
    private var scalarWorkBytes: Int {
        switch self {
        case .string(let text): return 9 &+ text.utf8.count
        case .data(let data): return 9 &+ data.count
        default: return 9
        }
    }
}

extension String {
    /// The bytes a rule's work counts for a key or name it holds: 9 and its UTF-8 bytes.
    var workBytes: Int { 9 &+ utf8.count }
}

/// The children of a container ``ArchiveValue/workBytes(depth:)`` is reading.
private enum WorkChildren {
    case elements([ArchiveValue])
    case entries([ArchiveDictionary.Entry])
}
