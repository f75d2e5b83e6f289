import Foundation
import ModelVersioning

/// The report of `upgrade` and `downgrade`, always on standard error (standard output carries
/// only archive data), written as the batch goes — one entry per archive, never all of them
/// held until the end — and the exit status it ends with.
///
/// Files are listed one by one; rows and lines, which come by the hundred thousand, only when
/// they fail or are skipped (`--format json` lists every one). The status: 2 when any archive
/// failed for another reason than a newer version, else 3 when any was written by a newer
/// version, else — for a dry run — 1 when any would change, else 0.
final class BatchReport {
    /// What the batch's archives are, for the report's words and keys.
    enum Items: String {
        case files, rows, lines

        /// The JSON key of one entry's name.
        var key: String {
            switch self {
            case .files: return "file"
            case .rows: return "row"
            case .lines: return "line"
            }
        }
    }

    /// One archive's outcome, as a source hands it to the report (without its bytes).
    struct Entry: Sendable {
        /// The archive as messages name it (`a.json`, `rowid 42`, `line 17`).
        var name: String
        /// What the engine did to it, when it did not fail.
        var result: MigrationEngine.Outcome?
        /// How its document chain was chosen, when the report should say.
        var note: String?
        var error: ArchiveError? {
            get { errorBox?.error }
            set { errorBox = newValue.map(ErrorBox.init) }
        }
        /// The error, out of line (as ``MigrationEngine/Outcome/report``): entries of archives
        /// that did not fail, nearly all of them, stay small to copy.
        private var errorBox: ErrorBox?
        /// Where the new bytes go, as shown to the user (`out/a.json`), when they are written.
        var writtenTo: String?
        /// Whether the source skipped it (`--skip-failed`).
        var skipped = false
        /// Its name in the JSON report, when not ``name`` (a line's number).
        var jsonName: ArchiveValue?

        init(name: String) {
            self.name = name
        }

        var changed: Bool { result?.changed ?? false }

        /// Records what the engine did, with the note on how the chain was chosen for
        /// `shownAs`.
        mutating func record(_ outcome: consuming MigrationEngine.Outcome, shownAs: @autoclosure () -> String) {
            if let choice = outcome.documentChoice, choice.reason == .onlyDocumentChain {
                note = choice.note(for: shownAs())
            }
            // Moved, not copied: an outcome is large (its report, choice and data).
            result = consume outcome
        }

        private final class ErrorBox: Sendable {
            let error: ArchiveError
            init(_ error: ArchiveError) { self.error = error }
        }
    }

    let verb: String
    let format: OutputFormat
    let dryRun: Bool
    let items: Items
    private let context: ToolContext
    private(set) var status = ExitStatus.success
    private(set) var count = 0
    private(set) var changed = 0
    private(set) var failed = 0
    private(set) var skipped = 0
    private var openedJSON = false

    init(verb: String, format: OutputFormat, dryRun: Bool, items: Items, context: ToolContext) {
        self.verb = verb
        self.format = format
        self.dryRun = dryRun
        self.items = items
        self.context = context
    }

    /// Reports one archive.
    func add(_ entry: Entry) {
        count += 1
        if let error = entry.error {
            if entry.skipped {
                // Skipped on request, and still a finding: not everything was migrated.
                skipped += 1
                status = status.combined(with: .findings)
            } else {
                failed += 1
                status = status.combined(with: ExitStatus(error: error))
            }
        } else if entry.changed {
            changed += 1
            if dryRun { status = status.combined(with: .findings) }
        }
        if format == .json {
            openJSON()
            let text = (try? Self.jsonText(json(entry))) ?? "{}"
            context.console.error((count > 1 ? "," : "") + text)
            return
        }
        if let note = entry.note {
            // Rows and lines come by the thousand: their first note stands for the others.
            if items == .files || firstNote == nil { context.console.error("note: \(note)") }
            firstNote = firstNote ?? note
            noteCount += 1
        }
        if let error = entry.error {
            context.console.error((entry.skipped ? "skipped: " : "error: ") + "\(error)")
        } else if items == .files, let result = entry.result {
            let summary = Self.summary(of: result)
            if dryRun {
                context.console.error("\(entry.name) would \(result.changed ? "" : "not ")change: \(summary)")
            } else {
                context.console.error("\(verb) \(entry.name): \(summary)")
            }
        }
    }

    /// Reports an error found after an archive's entry was written (moving a file into place).
    func fail(_ error: ArchiveError) {
        failed += 1
        status = status.combined(with: ExitStatus(error: error))
        if format != .json { context.console.error("error: \(error)") }
        lateErrors.append(error)
    }

    private var lateErrors: [ArchiveError] = []
    private var firstNote: String?
    private var noteCount = 0

    /// Ends the report with `notes` (`nothing was written: …`) and returns the exit status.
    func finish(notes: [String], wrote: Bool) -> ExitStatus {
        if format == .json {
            openJSON()
            var tail: ArchiveDictionary = [
                "failed": .int(Int64(failed)), "changed": .int(Int64(changed)), "written": .bool(wrote),
                "notes": .array((notes + lateErrors.map(\.description)).map { .string($0) }),
                "exitStatus": .int(Int64(status.rawValue)),
            ]
            if items != .files {
                tail["count"] = .int(Int64(count))
                tail["skipped"] = .int(Int64(skipped))
            }
            // The entries went out one by one; the rest of the object follows them.
            let text = (try? Self.jsonText(.dictionary(tail))) ?? "{}"
            context.console.error("]," + text.dropFirst())
            return status
        }
        if items != .files, noteCount > 1 {
            context.console.error(
                "note: \(noteCount - 1) more \(items.rawValue) like the first were migrated the same way")
        }
        for note in notes {
            context.console.error(note)
        }
        return status
    }

    private func openJSON() {
        guard !openedJSON else { return }
        openedJSON = true
        context.console.error(#"{"dryRun": \#(dryRun), "\#(items.rawValue)": ["#)
    }

    /// The report's summary of one archive: its own migration, then each nested archive that
    /// changed.
    static func summary(of result: MigrationEngine.Outcome) -> String {
        var lines: [String] = []
        if let report = result.report {
            lines.append(report.summary(listing: 10))
        } else {
            lines.append("a plain document, not migrated itself (--document names its chain); its nested archives:")
        }
        for nested in result.nested where nested.changed {
            lines.append(
                "nested \(nested.format) at \(nested.locationDescription): " + nested.report.summary(listing: 10))
        }
        return lines.joined(separator: "\n")
    }

    /// One archive's entry: what ran (every step of the document and of each object, and of
    /// each nested archive) or the error.
    func json(_ entry: Entry) -> ArchiveValue {
        var object: ArchiveDictionary = [
            items.key: entry.jsonName ?? .string(entry.name), "ok": .bool(entry.error == nil),
            "changed": .bool(entry.changed),
        ]
        if let writtenTo = entry.writtenTo, entry.error == nil { object["output"] = .string(writtenTo) }
        if let note = entry.note { object["note"] = .string(note) }
        if entry.skipped { object["skipped"] = true }
        if let error = entry.error {
            object["error"] = .string(error.description)
            object["code"] = .string(error.code.rawValue)
            if !error.path.isRoot { object["path"] = .string(error.path.description) }
        }
        guard let result = entry.result else { return .dictionary(object) }
        object["format"] = .string(result.format.rawValue)
        if let report = result.report {
            Self.add(report, to: &object)
        }
        if !result.nested.isEmpty {
            object["nested"] = .array(
                result.nested.map { nested in
                    var item: ArchiveDictionary = [
                        "path": .string(nested.locationDescription), "format": .string(nested.format.rawValue),
                        "changed": .bool(nested.changed),
                    ]
                    Self.add(nested.report, to: &item)
                    return .dictionary(item)
                })
        }
        return .dictionary(object)
    }

    private static func add(_ report: MigrationReport, to entry: inout ArchiveDictionary) {
        if let document = report.document {
            entry["document"] = [
                "name": .string(document.name), "from": .int(Int64(document.fromVersion)),
                "to": .int(Int64(document.toVersion)), "unversioned": .bool(document.wasUnversioned),
                "steps": .array(document.steps.map { .string($0) }),
            ]
        }
        entry["migrated"] = .int(Int64(report.migratedObjectCount))
        entry["objects"] = .array(
            report.entries.map { item in
                [
                    "path": .string(item.path.description), "type": .string(item.archivedTypeName),
                    "newType": .string(item.typeName), "from": .int(Int64(item.fromVersion)),
                    "to": .int(Int64(item.toVersion)), "steps": .array(item.steps.map { .string($0) }),
                ]
            })
        if !report.newer.isEmpty {
            entry["newer"] = .array(
                report.newer.map { item in
                    [
                        "path": .string(item.path.description), "name": .string(item.name),
                        "version": .int(Int64(item.version)), "known": .int(Int64(item.knownVersion)),
                    ]
                })
        }
        if let carried = report.wayDownRun {
            entry["wayDownRun"] = [
                "release": .string(carried.release), "digest": .string(carried.digest),
                "migrated": .int(Int64(carried.counts.reduce(0) { $0 + $1.count })),
                "kept": .int(Int64(carried.keptCount)),
            ]
        }
        if let written = report.writtenWayDown {
            entry["wayDownWritten"] = ["release": .string(written.release), "change": .string(written.change.rawValue)]
        }
        if report.restoredCount > 0 { entry["restored"] = .int(Int64(report.restoredCount)) }
        if !report.unknownTypeNames.isEmpty {
            entry["unknownTypes"] = .dictionary(
                ArchiveDictionary(
                    report.unknownTypeNames.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) }))
        }
    }

    private static func jsonText(_ value: ArchiveValue) throws -> String {
        let data = try ArchiveFormat.json.write(
            value, options: ArchiveWritingOptions(prettyPrinted: true, markup: .plain))
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension ArchiveError {
    /// `error` located in `shownAs` (a file, a line, a row): an `ArchiveError` with the input
    /// named, or a `migrationFailed` one around any other error.
    static func located(_ error: any Error, in shownAs: @autoclosure () -> String) -> ArchiveError {
        if let error = error as? ArchiveError { return error.adding(file: shownAs()) }
        return ArchiveError(.migrationFailed, "\(shownAs()) failed", underlyingError: error)
    }
}
