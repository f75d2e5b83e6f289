import Foundation

extension ArchiveDocument {
    /// The archives nested in the document's data values, at any depth of its tree, in tree
    /// order; each lists the archives nested in it in turn.
    ///
    /// ```swift
    /// let profile = try ArchiveDocument(data: Data(contentsOf: terminalProfileURL))
    /// for nested in try profile.nestedArchives() {
    ///     print(nested.path, nested.document.format)    // BackgroundColor keyed-archive
    /// }
    /// ```
    ///
    /// See ``NestedArchive`` for which data values are archives.
    ///
    /// - Throws: `ArchiveError` at the path of a data value that starts like a property list or
    ///   keyed archive but does not read (with the reader's error as its underlying error), or
    ///   code `limitExceeded` when archives nested in archives go past `ArchiveLimits.maxDepth`, or
    ///   when the document holds more than `ArchiveLimits.maxNestedArchives` of them.
    public func nestedArchives(options: ArchiveReadingOptions = .init()) throws -> [NestedArchive] {
        var scan = NestedArchiveScanner.Scan(options.limits)
        return try NestedArchiveScanner.archives(
            in: tree, options: options, depthLeft: options.limits.maxDepth, scan: &scan)
    }

    /// Migrates every archive nested in the document's data values with `migrate` and writes each
    /// one it changed back into its data value, in its own format, markup and layout; the rest of
    /// the document is left as it is.
    ///
    /// ```swift
    /// var defaults = try ArchiveDocument(data: Data(contentsOf: preferencesURL))
    /// let pass = MigrationPass(catalog: registry.catalog)
    /// let nested = try defaults.migrateNestedArchives { tree in try pass.upgrade(&tree) }
    /// if nested.contains(where: \.changed) {
    ///     try defaults.data().write(to: preferencesURL, options: .atomic)
    /// }
    /// ```
    ///
    /// Archives nested in a nested archive are migrated first, so an archive is written back
    /// once, with its own nested archives already upgraded. The document's own tree is not
    /// migrated: do that with the same pass before or after, as the document needs.
    ///
    /// - Returns: One record per nested archive, outer ones before the ones nested in them.
    /// - Throws: what ``nestedArchives(options:)`` throws, and an `ArchiveError` at the data
    ///   value's path, with the code of the error `migrate` or the nested archive's writer threw
    ///   (which is its underlying error). The document is then unchanged.
    public mutating func migrateNestedArchives(
        options: ArchiveReadingOptions = .init(), _ migrate: (inout ArchiveValue) throws -> MigrationReport
    ) throws -> [NestedArchiveMigration] {
        var records: [NestedArchiveMigration] = []
        var copy = tree
        var scan = NestedArchiveScanner.Scan(options.limits)
        try NestedArchiveScanner.migrate(
            &copy, location: [], depthLeft: options.limits.maxDepth, options: options, scan: &scan,
            records: &records, migrate)
        tree = copy
        return records
    }
}

/// Finds, reads and rewrites the archives nested in a tree's data values.
enum NestedArchiveScanner {
    /// A data value that may hold an archive.
    struct Candidate {
        var path: ArchivePath
        var bytes: Data
        /// Whether its first bytes say it is a property list (an error if it does not read), or
        /// only that it might be JSON (left alone if it does not read).
        var isCertain: Bool
    }

    /// One document's scan: how many more archives it may read
    /// (``ArchiveLimits/maxNestedArchives``), and what it has read already.
    ///
    /// A data value shared from many places (a binary property list or a keyed archive refers
    /// to one value as often as it likes) is read, and migrated, once per level of nesting left:
    /// each further use takes the result again and counts it, with every archive nested in it,
    /// against the limit. Ten references per level to one value six levels deep are then six
    /// reads and a refusal, not a million reads.
    struct Scan {
        private(set) var left: Int
        let limit: Int
        /// Read before, by bytes and nesting left: the archive (`nil` when the bytes are none,
        /// for migrations too) and how many archives it counts for, itself included.
        var listed: [Key: (archive: NestedArchive?, count: Int)] = [:]
        /// Migrated before, by bytes and nesting left.
        var migrated: [Key: Migrated] = [:]

        struct Key: Hashable {
            var bytes: Data
            var depthLeft: Int

            /// Every byte, where `Data`'s own hash reads only the first 80: values that share
            /// their first bytes (every binary property list does) would all collide, and each
            /// look-up compare against all of them.
            func hash(into hasher: inout Hasher) {
                hasher.combine(depthLeft)
                bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            }
        }

        /// What migrating one data value's archive gave.
        struct Migrated {
            /// The archive written back, when it changed.
            var bytes: Data?
            /// Its record and its nested archives' records, their locations below the value.
            var records: [NestedArchiveMigration]
        }

        init(_ limits: ArchiveLimits) {
            left = limits.maxNestedArchives
            limit = limits.maxNestedArchives
        }

        /// Counts `count` more archives read at `path` (inside `location`, the archives around
        /// it): one, or a value read before with the archives nested in it.
        mutating func take(_ count: Int = 1, at path: ArchivePath, location: [ArchivePath]) throws {
            left -= count
            guard left < 0 else { return }
            let place = (location + [path]).map(\.description).joined(separator: " → ")
            throw ArchiveError.limitExceeded(
                .nestedArchives,
                "the document holds more than \(limit) archives nested in its data values (counting each level, and "
                    + "a shared data value each time it is referenced); "
                    + (count == 1
                        ? "the one past the limit is at \(place)"
                        : "the limit is passed at \(place), a shared data value counted again with the \(count - 1) "
                            + "archives nested in it"),
                path: path)
        }
    }

    static func archives(
        in tree: ArchiveValue, options: ArchiveReadingOptions, depthLeft: Int, location: [ArchivePath] = [],
        scan: inout Scan
    ) throws -> [NestedArchive] {
        var found: [NestedArchive] = []
        for candidate in candidates(in: tree) {
            let inner = depthLeft - candidate.path.count - 1
            let key = Scan.Key(bytes: candidate.bytes, depthLeft: inner)
            if let (known, count) = scan.listed[key] {
                guard var known else { continue }
                try scan.take(count, at: candidate.path, location: location)
                known.path = candidate.path
                found.append(known)
                continue
            }
            guard let document = try read(candidate, options: options, depthLeft: inner) else {
                scan.listed[key] = (nil, 0)
                continue
            }
            try scan.take(at: candidate.path, location: location)
            let before = scan.left
            let nested = try archives(
                in: document.tree, options: options, depthLeft: inner, location: location + [candidate.path],
                scan: &scan)
            let archive = NestedArchive(path: candidate.path, document: document, nested: nested)
            scan.listed[key] = (archive, 1 + before - scan.left)
            found.append(archive)
        }
        return found
    }

    /// Migrates the archives nested in `tree`, innermost first; returns whether any changed.
    @discardableResult
    static func migrate(
        _ tree: inout ArchiveValue, location: [ArchivePath], depthLeft: Int, options: ArchiveReadingOptions,
        scan: inout Scan, records: inout [NestedArchiveMigration],
        _ migrate: (inout ArchiveValue) throws -> MigrationReport
    ) throws -> Bool {
        var changedAny = false
        for candidate in candidates(in: tree) {
            let inner = depthLeft - candidate.path.count - 1
            let here = location + [candidate.path]
            let key = Scan.Key(bytes: candidate.bytes, depthLeft: inner)
            if let known = scan.migrated[key] {
                try scan.take(known.records.count, at: candidate.path, location: location)
                if let bytes = known.bytes {
                    tree.replaceNestedValue(at: candidate.path.components[...], with: .data(bytes))
                    changedAny = true
                }
                records.append(
                    contentsOf: known.records.map { record in
                        var placed = record
                        placed.location = here + record.location
                        return placed
                    })
                continue
            }
            if let (known, _) = scan.listed[key], known == nil { continue }
            guard var document = try read(candidate, options: options, depthLeft: inner) else {
                scan.listed[key] = (nil, 0)
                continue
            }
            try scan.take(at: candidate.path, location: location)
            var innerRecords: [NestedArchiveMigration] = []
            let innerChanged = try self.migrate(
                &document.tree, location: here, depthLeft: inner, options: options, scan: &scan,
                records: &innerRecords, migrate)
            let report: MigrationReport
            do {
                report = try migrate(&document.tree)
            } catch {
                throw located(error, "the \(document.format) nested here failed to migrate", at: candidate.path)
            }
            let changed = innerChanged || report.changedTree
            var written: Data?
            if changed {
                let bytes: Data
                do {
                    bytes = try document.data()
                } catch {
                    throw located(
                        error, "the \(document.format) nested here cannot be written back", at: candidate.path)
                }
                tree.replaceNestedValue(at: candidate.path.components[...], with: .data(bytes))
                changedAny = true
                written = bytes
            }
            let record = NestedArchiveMigration(
                location: here, format: document.format, report: report, changed: changed)
            records.append(record)
            records.append(contentsOf: innerRecords)
            // For the other places that share these bytes: the records, located below the value.
            scan.migrated[key] = Scan.Migrated(
                bytes: written,
                records: ([record] + innerRecords).map { record in
                    var relative = record
                    relative.location = Array(record.location.dropFirst(here.count))
                    return relative
                })
        }
        return changedAny
    }

    /// Reads a candidate with `depthLeft` levels of nesting; `nil` when it is not an archive.
    static func read(_ candidate: Candidate, options: ArchiveReadingOptions, depthLeft: Int) throws
        -> ArchiveDocument?
    {
        guard depthLeft > 0 else {
            guard candidate.isCertain else { return nil }
            throw ArchiveError.limitExceeded(
                .depth,
                "an archive nested in a data value goes past the nesting limit of \(options.limits.maxDepth) levels",
                path: candidate.path)
        }
        var nestedOptions = options
        nestedOptions.limits.maxDepth = depthLeft
        let document: ArchiveDocument
        do {
            document = try ArchiveDocument(data: candidate.bytes, options: nestedOptions)
        } catch {
            guard candidate.isCertain else { return nil }
            let format = ArchiveFormat.detect(candidate.bytes)?.rawValue ?? "property list"
            throw located(error, "the nested \(format) does not read", at: candidate.path)
        }
        switch document.tree {
        case .dictionary, .array, .object: return document
        default: return nil
        }
    }

    /// The data values of `tree` that may hold archives, in tree order (walked without
    /// recursion).
    static func candidates(in tree: ArchiveValue) -> [Candidate] {
        var found: [Candidate] = []
        var pending: [(value: ArchiveValue, path: ArchivePath)] = [(tree, .root)]
        while let (value, path) = pending.popLast() {
            switch value {
            case .data(let bytes):
                if let isCertain = signature(of: bytes) {
                    found.append(Candidate(path: path, bytes: bytes, isCertain: isCertain))
                }
            case .array(let elements):
                for index in elements.indices.reversed() {
                    pending.append((elements[index], path.appending(index)))
                }
            case .dictionary(let entries):
                for position in entries.indices.reversed() {
                    pending.append((entries.value(at: position), path.appending(entries[position].key)))
                }
            case .object(let object):
                let fields = object.fields
                for position in fields.indices.reversed() {
                    pending.append((fields.value(at: position), path.appending(fields[position].key)))
                }
            default:
                break
            }
        }
        return found
    }

    /// `true` for bytes that start like a property list (binary `bplist`, XML), `false` for bytes
    /// that start like a JSON object or array, `nil` for anything else.
    static func signature(of bytes: Data) -> Bool? {
        if bytes.starts(with: Array("bplist".utf8)) { return true }
        var index = bytes.startIndex
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
            index += 1
        }
        guard index < bytes.endIndex else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "<"):
            let head = bytes[index...].prefix(6)
            return head.starts(with: Array("<?xml".utf8)) || head.starts(with: Array("<plist".utf8))
                || head.starts(with: Array("<!DOC".utf8)) ? true : nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return false
        default:
            return nil
        }
    }

    private static func located(_ error: any Error, _ message: String, at path: ArchivePath) -> ArchiveError {
        ArchiveError(
            (error as? ArchiveError)?.code ?? .malformedInput, message, path: path, underlyingError: error)
    }
}

extension ArchiveValue {
    /// Replaces the value at `path` (keys and indexes only) in place; does nothing when the path
    /// leads nowhere.
    mutating func replaceNestedValue(at path: ArraySlice<ArchivePath.Component>, with newValue: ArchiveValue) {
        guard let first = path.first else {
            self = newValue
            return
        }
        let rest = path.dropFirst()
        switch first {
        case .index(let index):
            guard case .array(var elements) = self, elements.indices.contains(index) else { return }
            self = .null
            elements[index].replaceNestedValue(at: rest, with: newValue)
            self = .array(elements)
        case .key(let key):
            if case .dictionary(var entries) = self, let position = entries.index(forKey: key) {
                self = .null
                entries.withValue(at: position) { $0.replaceNestedValue(at: rest, with: newValue) }
                self = .dictionary(entries)
            } else if case .object(var object) = self, let position = object.fields.index(forKey: key) {
                self = .null
                object.fields.withValue(at: position) { $0.replaceNestedValue(at: rest, with: newValue) }
                self = .object(object)
            }
        case .anyIndex, .anyKey:
            return
        }
    }
}
