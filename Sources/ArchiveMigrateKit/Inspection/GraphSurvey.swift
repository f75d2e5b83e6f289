import Foundation
import ModelVersioning

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
