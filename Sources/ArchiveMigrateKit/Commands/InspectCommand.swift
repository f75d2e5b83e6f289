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
            app's own models), which migration steps an upgrade would run.
            """,
        arguments: [ArgumentSpec("file", help: "The archive to inspect.")],
        options: CommonOptions.migration + [CommonOptions.format])

    static func run(_ arguments: ParsedArguments, context: ToolContext) throws -> ExitStatus {
        let format = try context.outputFormat(arguments)
        let path = arguments.positional[0]
        let (tree, archiveFormat) = try context.readArchive(path)
        let envelope = try ArchiveEnvelope(tree: tree)
        var survey = GraphSurvey()
        survey.visit(envelope?.root ?? tree, at: .root)
        let cycles = survey.cycles()
        let registry = try context.registry(rules: arguments.all("rules"))
        var plan: Result<MigrationReport, any Error>?
        if !registry.catalog.isEmpty {
            var copy = tree
            let pass = MigrationPass(catalog: registry.catalog)
            plan = Result { try pass.upgrade(&copy, document: arguments.value("document")) }
        }
        if format == "json" {
            try context.printJSON(
                json(
                    path: path, format: archiveFormat, envelope: envelope, survey: survey, cycles: cycles, plan: plan))
        } else {
            context.console.print(
                text(path: path, format: archiveFormat, envelope: envelope, survey: survey, cycles: cycles, plan: plan))
        }
        if case .failure = plan { return .findings }
        return .success
    }

    private static func text(
        path: String, format: ArchiveFormat, envelope: ArchiveEnvelope?, survey: GraphSurvey, cycles: [[Int]],
        plan: Result<MigrationReport, any Error>?
    ) -> String {
        var lines = ["\(path): \(format.rawValue)"]
        if let envelope {
            var line = "envelope: archive format \(envelope.formatVersion)"
            if let document = envelope.document { line += ", document \(document)" }
            if let version = envelope.documentVersion { line += " v\(version)" }
            lines.append(line)
        } else {
            lines.append("no envelope (a plain document)")
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

/// One walk over a tree: its objects, their identities and the references between them.
struct GraphSurvey {
    struct Object {
        var path: ArchivePath
        var typeName: String
        var version: Int?
        var id: Int?
    }

    var objects: [Object] = []
    /// `Type vN` → count.
    var counts: [String: Int] = [:]
    /// Identity → how many references point to it.
    var referenceCounts: [Int: Int] = [:]
    var danglingReferences: [ArchivePath] = []
    /// Identity → identities it refers to or contains.
    private var edges: [Int: Set<Int>] = [:]
    private var references: [(from: Int?, to: Int, path: ArchivePath)] = []

    mutating func visit(_ value: ArchiveValue, at path: ArchivePath, owner: Int? = nil) {
        switch value {
        case .object(let object):
            let id = object.id?.rawValue
            objects.append(Object(path: path, typeName: object.typeName, version: object.version, id: id))
            counts["\(object.typeName) " + (object.version.map { "v\($0)" } ?? "unversioned"), default: 0] += 1
            if let id {
                referenceCounts[id, default: 0] += 0
                if let owner { edges[owner, default: []].insert(id) }
            }
            for (key, field) in object.fields {
                visit(field, at: path.appending(key), owner: id ?? owner)
            }
        case .reference(let id):
            references.append((owner, id.rawValue, path))
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                visit(element, at: path.appending(index), owner: owner)
            }
        case .dictionary(let entries):
            for (key, entry) in entries {
                visit(entry, at: path.appending(key), owner: owner)
            }
        default:
            break
        }
        if path.isRoot {
            for reference in references {
                if referenceCounts[reference.to] == nil {
                    danglingReferences.append(reference.path)
                    continue
                }
                referenceCounts[reference.to, default: 0] += 1
                if let from = reference.from { edges[from, default: []].insert(reference.to) }
            }
        }
    }

    func typeName(of id: Int) -> String {
        objects.first { $0.id == id }?.typeName ?? "?"
    }

    /// The reference cycles between identified objects, each as its identities in order.
    func cycles() -> [[Int]] {
        var cycles: [[Int]] = []
        var state: [Int: Int] = [:]  // 1 on the stack, 2 done
        var stack: [Int] = []
        func visit(_ node: Int) {
            state[node] = 1
            stack.append(node)
            for next in (edges[node] ?? []).sorted() {
                if state[next] == 1, let start = stack.firstIndex(of: next) {
                    cycles.append(Array(stack[start...]))
                } else if state[next] == nil {
                    visit(next)
                }
            }
            stack.removeLast()
            state[node] = 2
        }
        for node in edges.keys.sorted() where state[node] == nil {
            visit(node)
        }
        return cycles
    }
}
