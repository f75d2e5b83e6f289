extension MigrationReport {
    /// The way down an archive carried (``WayDown``), as an app older than the archive ran it
    /// before its own upgrade: which release it leads to, its digest, and what its steps did.
    ///
    /// ```
    /// Ran the steps the archive carries down to release 1.1 (sha256:3f0c…):
    ///   document Sketch v4 → v2
    ///   Drawing v4 → v2: 1
    ///   Model v3 → v2: 3
    /// 2 objects keep what release 1.1 cannot hold, for the app that wrote the archive.
    /// ```
    public struct WayDownRun: Sendable, Hashable {
        /// The release the steps lead to.
        public var release: String
        /// The way down's digest (``WayDown/digest``).
        public var digest: String
        /// The document's steps, when its version changed.
        public var document: DocumentEntry?
        /// Objects taken down per type and version pair.
        public var counts: [Count]
        /// Every object taken down, when the report records steps.
        public var entries: [Entry]
        /// Objects of types the release did not have, written as the type their chain's fallback
        /// names.
        public var absentObjects: [AbsentObject]
        /// How many objects keep beside them what the release cannot hold (a `$wayBack` field).
        public var keptCount: Int
        /// Where those objects are, when the report records steps (``MigrationOptions/recordsSteps``); empty otherwise.
        public var keptObjects: [ArchivePath]

        /// The lines ``MigrationReport/summary(listing:)`` shows.
        func summary(listing maxEntries: Int) -> [String] {
            var lines = ["Ran the steps the archive carries down to release \(release) (\(digest.prefix(15))…):"]
            if let document {
                lines.append("  document \(document.name) v\(document.fromVersion) → v\(document.toVersion)")
            }
            for count in counts {
                lines.append("  \(count.typeName) v\(count.fromVersion) → v\(count.toVersion): \(count.count)")
            }
            for object in absentObjects.prefix(maxEntries) {
                lines.append(
                    "  \(MigrationReport.place(object.path)): \(object.typeName) v\(object.version), written as "
                        + (object.writtenAs ?? "nothing"))
            }
            if keptCount > 0 {
                lines.append(
                    "\(keptCount) object\(keptCount == 1 ? " keeps" : "s keep") what release \(release) cannot hold, "
                        + "for the app that wrote the archive"
                        + (keptObjects.isEmpty
                            ? "."
                            : ": " + keptObjects.prefix(maxEntries).map(MigrationReport.place).joined(separator: ", ")
                                + (keptObjects.count > maxEntries ? ", …" : "")))
            }
            return lines
        }
    }
}

extension MigrationReport {
    /// What writing a way down (``MigrationCatalog/writeWayDown(toRelease:into:)``, the
    /// `readableBy` of an upgrade, a downgrade or the encoder) changed in an archive's envelope:
    /// the steps an older release needs to open it, added or replaced, or removed because
    /// nothing in the archive is newer than that release.
    ///
    /// ```
    /// Wrote the way down to release 1.1 into the archive.
    /// ```
    public struct WrittenWayDown: Sendable, Hashable {
        /// How the envelope changed.
        public enum Change: String, Sendable, Hashable {
            /// The archive carried no way down and now carries one.
            case added
            /// The archive carried another way down (older steps, another release).
            case replaced
            /// The archive carried a way down it no longer needs: nothing in it is newer than the
            /// release.
            case removed
        }

        /// The release the way down leads to (its name in the release manifest).
        public var release: String
        /// How the envelope changed.
        public var change: Change

        /// Creates a record.
        public init(release: String, change: Change) {
            self.release = release
            self.change = change
        }

        /// The report's line: `Wrote the way down to release 1.1 into the archive.`
        public var summary: String {
            switch change {
            case .added: return "Wrote the way down to release \(release) into the archive."
            case .replaced: return "Replaced the way down the archive carried with the one to release \(release)."
            case .removed:
                return "Removed the way down the archive carried: nothing in it is newer than release \(release)."
            }
        }
    }
}
