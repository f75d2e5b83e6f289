import Foundation
import ModelVersioning

/// `archive-migrate inspect FILE`
enum InspectCommand: ArchiveCommand {
    static let spec = CommandSpec(
        name: "inspect",
        abstract: "Show an archive's format, every object's type and version, its object graph and upgrade plan.",
        discussion: """
            Lists each object with its path, type, version and identity, counts objects per type and version, \
            summarises the graph (objects referenced from elsewhere, reference cycles) and, given rules (or an \
            app's own models), which migration steps an upgrade would run. Shows whether the archive carries a way \
            down for an older release (to which release, its digest and steps; --readable-by writes one) and \
            which objects keep what an older release could not hold. Archives nested in data values (a keyed \
            archive inside a property list) are listed with their paths and formats.

            With --sqlite FILE --table T --column C, or --ndjson (standard input, or the file given), reads every \
            archive of the store and shows the histogram of formats, document versions and type versions across \
            them, what an upgrade would change, and which fail. With --first-line N, --ndjson input is a part of a \
            larger file starting at line N. With --merge FILE (repeated), prints the census of the parts those \
            JSON censuses describe, merged: the census of the whole.
            """,
        arguments: [ArgumentSpec("file", optional: true, help: "The archive to inspect ('-': standard input).")],
        options: OptionSpec.migration + OptionSpec.stores + [.firstLine, .merge, .format])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments)
        let merging = arguments.all(.merge)
        if !merging.isEmpty {
            guard arguments.positional.isEmpty, !arguments.flag(.ndjson), arguments.value(.sqlite) == nil,
                arguments.all(.rules).isEmpty
            else {
                throw UsageError("'--merge' reads censuses: it goes without an archive, a store or rules")
            }
            return try StoreCensus.merge(merging, format: format, context: context)
        }
        let source = try ArchiveSource(arguments, context: context)
        guard case .files = source else {
            return try StoreCensus.inspect(source, arguments: arguments, format: format, context: context)
        }
        _ = try StoreCensus.firstLine(arguments, source: source)
        let document = try context.readArchive(arguments.positional[0])
        // `-` is standard input, and the report says so.
        let path = arguments.positional[0] == "-" ? InputFile.standardInputName : arguments.positional[0]
        let (tree, archiveFormat) = (document.tree, document.format)
        let envelope = try ArchiveEnvelope(tree: tree)
        var survey = GraphSurvey()
        survey.visit(envelope?.root ?? tree, at: .root)
        let cycles = survey.cycles()
        let registry = try context.registry(rules: arguments.all(.rules))
        var plan: Result<MigrationReport, any Error>?
        if !registry.catalog.isEmpty {
            var copy = tree
            let pass = MigrationPass(catalog: registry.catalog)
            plan = Result { try pass.upgrade(&copy, document: arguments.value(.document)) }
        }
        let nested = NestedListing(document, catalog: registry.catalog.isEmpty ? nil : registry.catalog)
        let wayDown = WayDownFacts(envelope: envelope, tree: tree)
        if format == .json {
            var result = json(
                path: path, format: archiveFormat, envelope: envelope, survey: survey, cycles: cycles, plan: plan)
            if case .dictionary(var entries) = result {
                entries["wayDown"] = wayDown.json
                entries["keptByTheWayDown"] = .array(wayDown.kept.map { .string($0.description) })
                result = .dictionary(entries)
            }
            try context.printJSON(nested.adding(to: result))
        } else {
            var lines = text(
                path: path, format: archiveFormat, envelope: envelope, plainEnvelope: document.usesPlainEnvelope,
                survey: survey, cycles: cycles, plan: plan
            )
            .components(separatedBy: "\n")
            lines.insert(contentsOf: wayDown.lines, at: min(2, lines.count))
            context.console.print(lines.joined(separator: "\n") + nested.text)
        }
        if case .failure(let error) = plan {
            // An archive from a newer app gets its own status, as everywhere: this build is too old.
            return ExitStatus(error: error) == .newerVersion ? .newerVersion : .findings
        }
        return .success
    }

    private static func text(
        path: String, format: ArchiveFormat, envelope: ArchiveEnvelope?, plainEnvelope: Bool, survey: GraphSurvey,
        cycles: [[Int]], plan: Result<MigrationReport, any Error>?
    ) -> String {
        var lines = ["\(path): \(format.rawValue)"]
        if let envelope {
            var line = "envelope: archive format \(envelope.formatVersion)"
            if let document = envelope.document { line += ", document \(document)" }
            if let version = envelope.documentVersion { line += " v\(version)" }
            lines.append(line)
        } else {
            lines.append(
                plainEnvelope
                    ? "no envelope (a plain document, in a plain envelope that keeps its dates and data in JSON)"
                    : "no envelope (a plain document)")
        }
        lines.append("objects: \(survey.objects.count)")
        for object in survey.objects {
            var line = "  \(object.path.isRoot ? "(root)" : object.path.description): \(object.typeName)"
            line += object.version.map { " v\($0)" } ?? " (unversioned)"
            if let id = object.id { line += " #\(id)" }
            lines.append(line)
        }
        if !survey.counts.isEmpty {
            lines.append("types:")
            for (key, count) in survey.counts.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(key): \(count)")
            }
        }
        let shared = survey.referenceCounts.filter { $0.value > 0 }.keys.sorted()
        lines.append(
            "graph: \(survey.referenceCounts.values.reduce(0, +)) references; "
                + (shared.isEmpty
                    ? "no shared objects"
                    : "objects referenced from elsewhere: "
                        + shared.map { "#\($0) \(survey.typeName(of: $0)) (×\(survey.referenceCounts[$0] ?? 0))" }
                        .joined(separator: ", ")))
        if let dangling = survey.danglingReferences.first {
            lines.append("  \(survey.danglingReferences.count) references to no object, first at \(dangling)")
        }
        if cycles.isEmpty {
            lines.append("cycles: none")
        } else {
            for cycle in cycles {
                lines.append(
                    "cycle: "
                        + (cycle + [cycle[0]]).map { "#\($0) \(survey.typeName(of: $0))" }.joined(separator: " → "))
            }
        }
        switch plan {
        case .none:
            lines.append("upgrade: no rules given (--rules <file>)")
        case .success(let report):
            lines.append(
                report.isEmpty ? "upgrade: nothing to migrate" : "upgrade would run: \(report.summary(listing: 50))")
        case .failure(let error):
            lines.append("upgrade would fail: \(error)")
        }
        return lines.joined(separator: "\n")
    }

    private static func json(
        path: String, format: ArchiveFormat, envelope: ArchiveEnvelope?, survey: GraphSurvey, cycles: [[Int]],
        plan: Result<MigrationReport, any Error>?
    ) -> ArchiveValue {
        var result: ArchiveDictionary = ["file": .string(path), "format": .string(format.rawValue)]
        if let envelope {
            result["document"] = envelope.document.map { .string($0) } ?? .null
            result["documentVersion"] = envelope.documentVersion.map { .int(Int64($0)) } ?? .null
        }
        result["objects"] = .array(
            survey.objects.map { object in
                [
                    "path": .string(object.path.description), "type": .string(object.typeName),
                    "version": object.version.map { .int(Int64($0)) } ?? .null,
                    "id": object.id.map { .int(Int64($0)) } ?? .null,
                ]
            })
        result["counts"] = .dictionary(
            ArchiveDictionary(survey.counts.sorted(by: { $0.key < $1.key }).map { ($0.key, .int(Int64($0.value))) }))
        result["shared"] = .array(
            survey.referenceCounts.filter { $0.value > 0 }.keys.sorted().map { .int(Int64($0)) })
        result["cycles"] = .array(cycles.map { .array($0.map { .int(Int64($0)) }) })
        switch plan {
        case .none: break
        case .success(let report):
            result["upgrade"] = .array(
                report.entries.map { entry in
                    [
                        "path": .string(entry.path.description), "type": .string(entry.archivedTypeName),
                        "from": .int(Int64(entry.fromVersion)), "to": .int(Int64(entry.toVersion)),
                        "steps": .array(entry.steps.map { .string($0) }),
                    ]
                })
        case .failure(let error):
            result["upgradeError"] = .string("\(error)")
        }
        return .dictionary(result)
    }
}

/// What `inspect` says about a way down (`WayDown`) and kept values: the release, digest and
/// steps the envelope carries, and the objects that keep a `$wayBack`.
private struct WayDownFacts {
    var wayDown: Result<WayDown, any Error>?
    var kept: [ArchivePath] = []

    init(envelope: ArchiveEnvelope?, tree: ArchiveValue) {
        if let value = envelope?.wayDown { wayDown = Result { try WayDown(tree: value) } }
        Self.findKept(envelope?.root ?? tree, at: .root, depth: 0, into: &kept)
    }

    private static func findKept(
        _ value: ArchiveValue, at path: ArchivePath, depth: Int, into kept: inout [ArchivePath]
    ) {
        guard depth < ArchiveLimits.default.maxDepth else { return }
        switch value {
        case .object(let object):
            if object.fields["$wayBack"] != nil { kept.append(path) }
            for (key, field) in object.fields where key != "$wayBack" {
                findKept(field, at: path.appending(key), depth: depth + 1, into: &kept)
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                findKept(element, at: path.appending(index), depth: depth + 1, into: &kept)
            }
        case .dictionary(let entries):
            for (key, entry) in entries { findKept(entry, at: path.appending(key), depth: depth + 1, into: &kept) }
        default:
            break
        }
    }

    var lines: [String] {
        var lines: [String] = []
        switch wayDown {
        case nil:
            lines.append("way down: none")
        case .success(let wayDown):
            lines.append("way down: \(wayDown.summary)")
            lines.append("  digest: \((try? wayDown.digest) ?? "?") (checked)")
        case .failure(let error):
            lines.append("way down: unreadable: \(error)")
        }
        if !kept.isEmpty {
            lines.append(
                "kept for the way back (what an older release could not hold): \(kept.count) object"
                    + (kept.count == 1 ? "" : "s") + ", "
                    + kept.prefix(10).map { $0.isRoot ? "(root)" : $0.description }.joined(separator: ", ")
                    + (kept.count > 10 ? ", …" : ""))
        }
        return lines
    }

    var json: ArchiveValue {
        switch wayDown {
        case nil:
            return .null
        case .success(let wayDown):
            return [
                "release": .string(wayDown.release), "digest": .string((try? wayDown.digest) ?? ""),
                "steps": .string(wayDown.summary),
            ]
        case .failure(let error):
            return ["error": .string("\(error)")]
        }
    }
}
