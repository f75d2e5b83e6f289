/// The limits a rules file is read with: the same ``ArchiveLimits`` as an archive, checked on the
/// whole tree before the reader looks at it, without recursion.
///
/// A tree from a JSON reader already kept them; a tree built in code, or read with other limits,
/// may not, and the reader (a scope rule inside a scope rule), the descriptions of its values
/// and the migration pass recurse as deep as the file nests.
extension RulesFileReader {
    /// The children of a container being checked, and the next one to visit.
    private struct Frame {
        var children: Children
        var next = 0

        enum Children {
            case elements([ArchiveValue])
            case entries(ArchiveDictionary)
        }

        var count: Int {
            switch children {
            case .elements(let elements): return elements.count
            case .entries(let entries): return entries.count
            }
        }
    }

    /// Checks `tree` against ``limits``: nesting (``ArchiveLimits/maxDepth``), values in all
    /// (``ArchiveLimits/maxObjectCount``), elements of one list or entries of one object
    /// (``ArchiveLimits/maxCollectionCount``), UTF-8 bytes of one string or key
    /// (``ArchiveLimits/maxStringLength``) and of one data value (``ArchiveLimits/maxDataLength``);
    /// and that no object has a key twice.
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/limitExceeded`` naming the limit,
    ///   or ``ArchiveError/Code/invalidRules`` for a repeated key; at the path of the value inside
    ///   the file, with the file as location.
    func checkLimits(_ tree: ArchiveValue) throws {
        var stack: [Frame] = []
        // The path of the value being checked: one component per frame below the top one.
        var path: [ArchivePath.Component] = []
        var values = 0

        func exceeded(_ limit: ArchiveLimits.Limit, _ message: String) -> ArchiveError {
            ArchiveError.limitExceeded(
                limit, message, path: ArchivePath(path), location: ArchiveError.InputLocation(file: fileName))
        }

        func check(_ text: String, what: String) throws {
            guard text.utf8.count <= limits.maxStringLength else {
                throw exceeded(
                    .stringLength, "\(what) is longer than \(limits.maxStringLength) bytes (\(text.utf8.count))")
            }
        }

        /// Checks one value; returns the frame of its children when it is a container.
        func visit(_ value: ArchiveValue) throws -> Frame? {
            values += 1
            guard values <= limits.maxObjectCount else {
                throw exceeded(.objectCount, "the rules file has more than \(limits.maxObjectCount) values")
            }
            let frame: Frame
            switch value {
            case .string(let text):
                try check(text, what: "a string")
                return nil
            case .data(let data):
                guard data.count <= limits.maxDataLength else {
                    throw exceeded(
                        .dataLength, "a data value is longer than \(limits.maxDataLength) bytes (\(data.count))")
                }
                return nil
            case .array(let elements):
                frame = Frame(children: .elements(elements))
            case .dictionary(let entries):
                frame = Frame(children: .entries(entries))
            case .object(let object):
                try check(object.typeName, what: "a type name")
                frame = Frame(children: .entries(object.fields))
            case .null, .bool, .int, .uint, .double, .date, .reference:
                return nil
            }
            guard stack.count < limits.maxDepth else {
                throw exceeded(.depth, "the rules file nests deeper than \(limits.maxDepth) levels")
            }
            guard frame.count <= limits.maxCollectionCount else {
                throw exceeded(
                    .collectionCount,
                    "a list or object has more than \(limits.maxCollectionCount) elements (\(frame.count))")
            }
            if case .entries(let entries) = frame.children {
                for key in entries.keys {
                    path.append(.key(key))
                    try check(key, what: "a key")
                    path.removeLast()
                }
                if let key = entries.firstDuplicateKey() {
                    path.append(.key(key))
                    throw invalid("the key '\(key)' appears twice in one object", at: ArchivePath(path))
                }
            }
            return frame
        }

        if let root = try visit(tree) { stack.append(root) }
        while let top = stack.indices.last {
            let index = stack[top].next
            guard index < stack[top].count else {
                stack.removeLast()
                if !path.isEmpty { path.removeLast() }
                continue
            }
            stack[top].next += 1
            let child: ArchiveValue
            switch stack[top].children {
            case .elements(let elements):
                path.append(.index(index))
                child = elements[index]
            case .entries(let entries):
                path.append(.key(entries.entries[index].key))
                child = entries.entries[index].value
            }
            if let frame = try visit(child) {
                stack.append(frame)
            } else {
                path.removeLast()
            }
        }
    }
}

/// The limits on what a rules file or a carried way down asks the migration pass to do:
/// steps per chain, keys per rule, rules in all.
extension RulesFileReader {
    /// Checks a chain's `count` steps, listed at `path`, against ``ArchiveLimits/maxChainSteps``.
    func checkStepCount(_ count: Int, at path: ArchivePath) throws {
        guard count <= limits.maxChainSteps else {
            throw ArchiveError.limitExceeded(
                .chainSteps, "the chain has \(count) steps, more than \(limits.maxChainSteps)", path: path,
                location: ArchiveError.InputLocation(file: fileName))
        }
    }

    /// Checks the `count` keys one rule names at `path` against ``ArchiveLimits/maxRuleKeys``.
    func checkKeyCount(_ count: Int, at path: ArchivePath, of what: String = "the rule names", _ noun: String = "keys")
        throws
    {
        guard count <= limits.maxRuleKeys else {
            throw ArchiveError.limitExceeded(
                .ruleKeys, "\(what) \(count) \(noun), more than \(limits.maxRuleKeys)", path: path,
                location: ArchiveError.InputLocation(file: fileName))
        }
    }

    /// Adds `rules`, and the rules scoped inside them, to `total`.
    ///
    /// - Throws: ``ArchiveError/Code/limitExceeded`` at `path` (the chain that holds them) once
    ///   `total` passes ``ArchiveLimits/maxRuleCount``.
    func countRules(_ rules: [MigrationRule], into total: inout Int, at path: ArchivePath) throws {
        for rule in rules {
            total += rule.ruleCount
            guard total <= limits.maxRuleCount else {
                throw ArchiveError.limitExceeded(
                    .ruleCount, "there are more than \(limits.maxRuleCount) rules", path: path,
                    location: ArchiveError.InputLocation(file: fileName))
            }
        }
    }
}

extension MigrationRule {
    /// This rule and the rules scoped inside it.
    var ruleCount: Int {
        guard case .scoped(_, let rules) = operation else { return 1 }
        return rules.reduce(1) { $0 + $1.ruleCount }
    }
}
