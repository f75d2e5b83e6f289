extension MigrationRule {
    /// Applies the rule to a container.
    ///
    /// ```swift
    /// var target = MigrationTarget(fields: ["name": "Fred Weasley"])
    /// try MigrationRule.split("name", into: ["first_name", "last_name"], separator: " ").apply(to: &target)
    /// // target.fields == ["first_name": "Fred", "last_name": "Weasley"]
    /// ```
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/migrationFailed`` (or the code a
    ///   closure chose) when the data does not have the shape the rule expects. Its ``ArchiveError/rule``
    ///   is the innermost rule that failed and its path is the target's ``MigrationTarget/path``
    ///   followed by the offending value's path inside the container.
    public func apply(to target: inout MigrationTarget) throws {
        do {
            try perform(on: &target)
        } catch let error as ArchiveError {
            throw error.adding(rule: description)
        } catch {
            throw ArchiveError(
                .migrationFailed, "\(error)", path: target.path, rule: description, underlyingError: error)
        }
    }

    /// Applies the rule to a dictionary or object value.
    ///
    /// ```swift
    /// var circle: ArchiveValue = .object(ArchiveObject(typeName: "Circle", version: 1, fields: ["r": 3]))
    /// try MigrationRule.rename("r", to: "radius").apply(to: &circle)
    /// ```
    ///
    /// - Throws: ``ArchiveError`` with code ``ArchiveError/Code/migrationFailed`` when `value` is
    ///   neither a dictionary nor an object, or when the rule fails (see the other `apply(to:)`).
    public func apply(to value: inout ArchiveValue, path: ArchivePath = .root) throws {
        let kind = value.kind
        let applied: Void? = try MigrationTarget.withTarget(for: &value, path: path) { target in
            try apply(to: &target)
        }
        if applied == nil {
            throw ArchiveError(
                .migrationFailed, "a rule applies to a dictionary or object, not to a value of kind \(kind)",
                path: path,
                rule: description)
        }
    }

    private func perform(on target: inout MigrationTarget) throws {
        try target.work.charge(work, at: target.path)
        switch operation {
        case .rename(let key, let newKey, let required):
            guard let index = target.fields.index(forKey: key) else {
                if required { throw failure("key '\(key)' is missing", at: target.path) }
                return
            }
            guard !key.hasSameScalars(as: newKey) else { return }
            if target.fields.index(forKey: newKey) != nil {
                throw failure(
                    "cannot rename '\(key)' to '\(newKey)': the key '\(newKey)' already exists", at: target.path)
            }
            target.fields.setKey(newKey, at: index)

        case .add(let key, let value):
            target.fields.appendIfAbsent(value, forKey: key)

        case .remove(let key, _):
            target.fields.removeValue(forKey: key)

        case .convert(let key, let converter):
            guard let index = target.fields.index(forKey: key) else { return }
            let value = target.fields.entries[index].value
            try target.work.charge(converter.work(reading: value), at: target.path.appending(key))
            target.fields.entries[index].value = .null
            do {
                target.fields.entries[index].value = try converter.convert(value)
            } catch let error as ArchiveError {
                target.fields.entries[index].value = value
                throw error.prefixingPath(target.path.appending(key))
            }

        case .move(let source, let destination, let keys):
            guard let keys else {
                throw failure(
                    "move paths must be non-empty and name keys only (no indices or wildcards): '\(source)' → "
                        + "'\(destination)'", at: target.path)
            }
            try Self.move(keys.from, to: keys.to, in: &target)

        case .nest(let keys, let container):
            try Self.nest(keys, into: container, in: &target)

        case .hoist(let keys, let container):
            try Self.hoist(keys, from: container, in: &target)

        case .wrapInArray(let key):
            guard let index = target.fields.index(forKey: key), !target.fields.entries[index].value.isNull else {
                return
            }
            let value = target.fields.entries[index].value
            target.fields.entries[index].value = .array([value])

        case .takeFirst(let key):
            guard let index = target.fields.index(forKey: key) else { return }
            switch target.fields.entries[index].value {
            case .null:
                return
            case .array(let elements):
                if let first = elements.first {
                    target.fields.entries[index].value = first
                } else {
                    target.fields.removeEntry(at: index)
                }
            case let other:
                throw failure("expected an array, found \(other.kindAndValue)", at: target.path.appending(key))
            }

        case .split(let key, let parts, let division):
            try Self.split(key, into: parts, division: division, in: &target)

        case .merge(let parts, let key, let division):
            try Self.merge(parts, into: key, division: division, in: &target)

        case .renameType(_, let newName):
            guard target.isObject else {
                throw failure(
                    "renameType applies to objects, and this container is a plain dictionary", at: target.path)
            }
            try target.renameType(to: newName)

        case .scoped(let path, let rules):
            var stack = target.path.components
            try Self.applyScoped(rules, along: path.components, from: 0, to: &target, stack: &stack)

        case .transform(_, let forward, _, _):
            do {
                try forward(&target)
            } catch let error as ArchiveError {
                throw error.prefixingPath(target.path)
            }
        }
    }

    private func failure(_ message: String, at path: ArchivePath) -> ArchiveError {
        ArchiveError(.migrationFailed, message, path: path)
    }

    // MARK: Move

    private static func move(_ from: [String], to: [String], in target: inout MigrationTarget) throws {
        guard !from.elementsEqual(to, by: { $0.hasSameScalars(as: $1) }), target.fields.value(atKeys: from) != nil
        else { return }
        if target.fields.value(atKeys: to) != nil {
            throw ArchiveError(
                .migrationFailed, "the key '\(ArchiveDictionary.path(of: to[...]))' already exists", path: target.path)
        }
        guard let (value, position) = try target.fields.takeValue(atKeys: from, base: target.path) else { return }
        try target.fields.storeValue(value, atKeys: to, position: position, replacing: false, base: target.path)
    }

    /// Moves `keys` into the dictionary (or object) under `container`, created where the first
    /// moved key was when absent or `null`.
    ///
    /// In one pass over the container, whatever the number of keys: the keys are found first
    /// (a key given twice moves once), then the container gets them and the others close up,
    /// where moving them one at a time moved every entry after each of them.
    private static func nest(_ keys: [String], into container: String, in target: inout MigrationTarget) throws {
        var containerIndex = target.fields.index(forKey: container)
        var nullContainer: Int?
        if let index = containerIndex {
            switch target.fields.entries[index].value {
            case .null:
                containerIndex = nil
                nullContainer = index
            case .dictionary, .object:
                break
            case let other:
                throw ArchiveError(
                    .migrationFailed, "expected a dictionary or object, found \(other.kindAndValue)",
                    path: target.path.appending(container))
            }
        }
        // The positions of the keys to move, in the order given.
        var moved: [Int] = []
        var isMoved = [Bool](repeating: false, count: target.fields.count)
        for (key, index) in zip(keys, target.fields.positions(ofKeys: keys))
        where index >= 0 && !isMoved[index] && !key.hasSameScalars(as: container) {
            isMoved[index] = true
            moved.append(index)
        }
        guard let first = moved.first else { return }
        if let existing = containerIndex {
            // An existing container takes them at its end; none of them may be there already.
            if let inner = target.fields.entries[existing].value.keyedEntries {
                let movedKeys = moved.map { target.fields.entries[$0].key }
                if let clash = zip(movedKeys, inner.positions(ofKeys: movedKeys)).first(where: { $0.1 >= 0 }) {
                    throw ArchiveError(
                        .migrationFailed, "the key '\(container).\(clash.0)' already exists", path: target.path)
                }
            }
            let entries = moved.map { target.fields.entries[$0] }
            target.fields.entries[existing].value.modifyKeyedEntries { inner in
                inner.appendUnchecked(contentsOf: entries)
            }
            target.fields.removeEntries(at: moved)
            return
        }
        // A new container takes the first moved key's place (a null one is replaced).
        // Read, not taken: taking a value out writes to the entries, which copies them all when
        // another value shares them (the object a way down keeps to compare with).
        let inner = ArchiveDictionary(uniqueStoredEntries: moved.map { target.fields.entries[$0] })
        let removed = Array(moved.dropFirst()) + (nullContainer.map { [$0] } ?? [])
        let place = first - removed.lazy.filter { $0 < first }.count
        target.fields.removeEntries(at: removed)
        target.fields.setKey(container, at: place)
        target.fields.entries[place].value = .dictionary(inner)
    }

    /// Moves `keys` out of the dictionary (or object) under `container`, in front of it; removes
    /// a dictionary that this empties.
    ///
    /// In one pass over both containers, whatever the number of keys (see ``nest(_:into:in:)``).
    private static func hoist(_ keys: [String], from container: String, in target: inout MigrationTarget) throws {
        guard let containerIndex = target.fields.index(forKey: container) else { return }
        switch target.fields.entries[containerIndex].value {
        case .null:
            return
        case .dictionary, .object:
            break
        case let other:
            throw ArchiveError(
                .migrationFailed, "expected a dictionary or object, found \(other.kindAndValue)",
                path: target.path.appending(container))
        }
        guard let inner = target.fields.entries[containerIndex].value.keyedEntries else { return }
        // The positions of the keys to move inside the container, in the order given.
        var moved: [Int] = []
        var isMoved = [Bool](repeating: false, count: inner.count)
        let outside = target.fields.positions(ofKeys: keys)
        for (offset, index) in inner.positions(ofKeys: keys).enumerated() where index >= 0 && !isMoved[index] {
            if outside[offset] >= 0 {
                throw ArchiveError(.migrationFailed, "the key '\(keys[offset])' already exists", path: target.path)
            }
            isMoved[index] = true
            moved.append(index)
        }
        guard !moved.isEmpty else { return }
        // Read from the container as they are inserted (no array of them in between), then
        // taken out of it.
        target.fields.replaceEntries(containerIndex..<containerIndex, with: moved.lazy.map { inner.entries[$0] })
        let emptied = containerIndex + moved.count
        target.fields.entries[emptied].value.modifyKeyedEntries { $0.removeEntries(at: moved) }
        if case .dictionary(let rest) = target.fields.entries[emptied].value, rest.isEmpty {
            target.fields.removeEntry(at: emptied)
        }
    }

    // MARK: Split and merge

    private static func split(
        _ key: String, into parts: [String], division: Division, in target: inout MigrationTarget
    ) throws {
        guard let index = target.fields.index(forKey: key) else { return }
        for part in parts where !part.hasSameScalars(as: key) && target.fields.index(forKey: part) != nil {
            throw ArchiveError(
                .migrationFailed, "cannot split '\(key)': the key '\(part)' already exists", path: target.path)
        }
        let value = target.fields.entries[index].value
        if case .string(let text) = value { try target.work.charge(text.utf8.count, at: target.path.appending(key)) }
        let pieces: [ArchiveValue]
        switch division {
        case .separator(let separator):
            pieces = try splitString(value, separator: separator, count: parts.count, path: target.path.appending(key))
        case .closures(let splitter, _):
            pieces = try splitter(value)
        case .closuresFromJoin(_, let splitter):
            guard let splitter else { return }
            pieces = try splitter(value)
        }
        guard pieces.count == parts.count else {
            throw ArchiveError(
                .migrationFailed, "the split gave \(pieces.count) values for \(parts.count) keys",
                path: target.path.appending(key))
        }
        target.fields.replaceEntries(
            index..<index + 1, with: zip(parts, pieces).map { ArchiveDictionary.Entry(key: $0, value: $1) })
    }

    private static func splitString(
        _ value: ArchiveValue, separator: String, count: Int, path: ArchivePath
    ) throws -> [ArchiveValue] {
        guard !separator.isEmpty else {
            throw ArchiveError(.migrationFailed, "the separator of a split is empty", path: path)
        }
        if value.isNull { return Array(repeating: .null, count: count) }
        guard case .string(let text) = value else {
            throw ArchiveError(.migrationFailed, "expected a string, found \(value.kindAndValue)", path: path)
        }
        var pieces: [ArchiveValue] = []
        pieces.reserveCapacity(count)
        var rest = text[...]
        while pieces.count < count - 1, let range = rest.firstRange(of: separator) {
            pieces.append(.string(String(rest[..<range.lowerBound])))
            rest = rest[range.upperBound...]
        }
        if count > 0 { pieces.append(.string(String(rest))) }
        while pieces.count < count { pieces.append("") }
        return pieces
    }

    private static func merge(
        _ parts: [String], into key: String, division: Division, in target: inout MigrationTarget
    ) throws {
        var indices: [Int] = []
        var values: [ArchiveValue] = []
        indices.reserveCapacity(parts.count)
        values.reserveCapacity(parts.count)
        for index in target.fields.positions(ofKeys: parts) {
            if index >= 0 {
                indices.append(index)
                values.append(target.fields.entries[index].value)
            } else {
                values.append(.null)
            }
        }
        guard let position = indices.min() else { return }
        if !parts.contains(where: { $0.hasSameScalars(as: key) }), target.fields.index(forKey: key) != nil {
            throw ArchiveError(
                .migrationFailed, "cannot merge into '\(key)': the key already exists", path: target.path)
        }
        let merged: ArchiveValue
        switch division {
        case .separator(let separator):
            var texts: [String] = []
            texts.reserveCapacity(values.count)
            var sawString = false
            for (part, value) in zip(parts, values) {
                switch value {
                case .null: continue
                case .string(let text):
                    sawString = true
                    if !text.isEmpty { texts.append(text) }
                default:
                    throw ArchiveError(
                        .migrationFailed, "expected a string, found \(value.kindAndValue)",
                        path: target.path.appending(part))
                }
            }
            try target.work.charge(texts.reduce(0) { $0 &+ $1.utf8.count }, at: target.path.appending(key))
            merged = sawString ? .string(texts.joined(separator: separator)) : .null
        case .closuresFromJoin(let joiner, _):
            merged = try joiner(values)
        case .closures(_, let joiner):
            guard let joiner else { return }
            merged = try joiner(values)
        }
        // In one pass, whatever the number of parts (a part named twice is removed once).
        target.fields.removeEntries(at: indices)
        target.fields.insertEntry(merged, forKey: key, at: position)
    }

    // MARK: Scoped

    /// Applies `rules` to the containers matched by `components[offset...]` inside `target`.
    ///
    /// `stack` holds the path of the current container; child targets get it as their path
    /// (sharing its storage, so no path is built per match).
    private static func applyScoped(
        _ rules: [MigrationRule], along components: [ArchivePath.Component], from offset: Int,
        to target: inout MigrationTarget, stack: inout [ArchivePath.Component]
    ) throws {
        if offset == components.count {
            for rule in rules {
                try rule.apply(to: &target)
            }
            return
        }
        try visitEntries(&target.fields, rules, components, offset, &stack, &target.work)
    }

    /// The scoped walk carries the target's ``MigrationTarget/work`` into every container it
    /// matches: the rules count there as they do at the top.
    private static func visitEntries(
        _ entries: inout ArchiveDictionary, _ rules: [MigrationRule], _ components: [ArchivePath.Component],
        _ offset: Int, _ stack: inout [ArchivePath.Component], _ work: inout RuleWork
    ) throws {
        switch components[offset] {
        case .key(let key):
            guard let index = entries.index(forKey: key) else { return }
            stack.append(.key(key))
            defer { stack.removeLast() }
            try visit(&entries.entries[index].value, rules, components, offset + 1, &stack, &work)
        case .anyKey:
            for index in entries.indices {
                stack.append(.key(entries.entries[index].key))
                defer { stack.removeLast() }
                try visit(&entries.entries[index].value, rules, components, offset + 1, &stack, &work)
            }
        case .index, .anyIndex:
            return
        }
    }

    private static func visit(
        _ value: inout ArchiveValue, _ rules: [MigrationRule], _ components: [ArchivePath.Component],
        _ offset: Int, _ stack: inout [ArchivePath.Component], _ work: inout RuleWork
    ) throws {
        if offset == components.count {
            _ = try MigrationTarget.withTarget(for: &value, path: ArchivePath(stack), work: &work) { target in
                for rule in rules {
                    try rule.apply(to: &target)
                }
            }
            return
        }
        switch components[offset] {
        case .key, .anyKey:
            _ = try value.modifyKeyedEntries { entries in
                try visitEntries(&entries, rules, components, offset, &stack, &work)
            }
        case .index(let position):
            guard var elements = value.takeArray() else { return }
            defer { value = .array(elements) }
            guard elements.indices.contains(position) else { return }
            stack.append(.index(position))
            defer { stack.removeLast() }
            try visit(&elements[position], rules, components, offset + 1, &stack, &work)
        case .anyIndex:
            guard var elements = value.takeArray() else { return }
            defer { value = .array(elements) }
            for position in elements.indices {
                stack.append(.index(position))
                defer { stack.removeLast() }
                try visit(&elements[position], rules, components, offset + 1, &stack, &work)
            }
        }
    }
}
