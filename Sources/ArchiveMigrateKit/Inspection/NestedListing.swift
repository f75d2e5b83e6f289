import Foundation
import ModelVersioning

/// The archives nested in an inspected archive's data values (``NestedArchive``), as `inspect`
/// lists them: path, format, the objects' types and versions, and what an upgrade would run.
struct NestedListing {
    struct Item {
        /// Nesting level: 0 for an archive in the inspected one's data values.
        var level: Int
        var path: ArchivePath
        var format: ArchiveFormat
        var types: [String: Int]
        var plan: Result<MigrationReport, any Error>?
    }

    private(set) var items: [Item] = []
    private(set) var error: (any Error)?

    init(_ document: ArchiveDocument, catalog: MigrationCatalog?) {
        do {
            add(try document.nestedArchives(), level: 0, pass: catalog.map { MigrationPass(catalog: $0) })
        } catch {
            self.error = error
        }
    }

    private mutating func add(_ archives: [NestedArchive], level: Int, pass: MigrationPass?) {
        for archive in archives {
            var plan: Result<MigrationReport, any Error>?
            if let pass {
                var tree = archive.document.tree
                plan = Result { try pass.upgrade(&tree) }
            }
            items.append(
                Item(
                    level: level, path: archive.path, format: archive.document.format,
                    types: StoreCensus.typeCounts(archive.document.tree), plan: plan))
            add(archive.nested, level: level + 1, pass: pass)
        }
    }

    /// Lines to append to the text report (empty when there are none).
    var text: String {
        if let error { return "\nnested archives: \(error)" }
        guard !items.isEmpty else { return "" }
        var lines = ["nested archives: \(items.count)"]
        for item in items {
            let indent = String(repeating: "  ", count: item.level + 1)
            let types = item.types.sorted { $0.key < $1.key }.map {
                "\($0.key)" + ($0.value > 1 ? " ×\($0.value)" : "")
            }
            lines.append(
                indent + "\(item.path.isRoot ? "(root)" : item.path.description): \(item.format)"
                    + (types.isEmpty ? "" : " (" + types.joined(separator: ", ") + ")"))
            switch item.plan {
            case .none: break
            case .success(let report):
                let counts = report.counts.map { "\($0.typeName) v\($0.fromVersion) → v\($0.toVersion)" }
                lines.append(
                    indent + "  upgrade --nested "
                        + (report.changedTree
                            ? "would run: " + counts.joined(separator: ", ") : "has nothing to migrate"))
            case .failure(let error):
                lines.append(indent + "  upgrade would fail: \(error)")
            }
        }
        return "\n" + lines.joined(separator: "\n")
    }

    /// The inspected archive's JSON with a `nested` list added.
    func adding(to value: ArchiveValue) -> ArchiveValue {
        guard case .dictionary(var result) = value else { return value }
        if let error {
            result["nestedError"] = .string("\(error)")
        }
        result["nested"] = .array(
            items.map { item in
                var entry: ArchiveDictionary = [
                    "path": .string(item.path.description), "level": .int(Int64(item.level)),
                    "format": .string(item.format.rawValue),
                    "counts": .dictionary(
                        ArchiveDictionary(item.types.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) })
                    ),
                ]
                switch item.plan {
                case .none: break
                case .success(let report):
                    entry["wouldChange"] = .bool(report.changedTree)
                    entry["upgrade"] = .array(
                        report.counts.map {
                            .string("\($0.typeName) v\($0.fromVersion) → v\($0.toVersion): \($0.count)")
                        })
                case .failure(let error):
                    entry["upgradeError"] = .string("\(error)")
                }
                return .dictionary(entry)
            })
        return .dictionary(result)
    }
}
