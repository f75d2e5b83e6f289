/// Finding the Foundation collections that contain themselves through other collections only
/// (an NSMutableArray holding itself): they cannot be expanded into the tree and are kept as
/// objects with an identity instead.
extension KeyedArchiveReader {
    /// For each `$objects` entry, whether it is a collection on a cycle of the graph whose
    /// nodes are the collections and whose edges are their element UIDs: Tarjan's strongly
    /// connected components, with an explicit stack (no recursion), in time linear in the
    /// archive. Entries that cannot be classified count as no collection (the walk reports them
    /// where they are used).
    mutating func collectionsOnCycles() throws -> [Bool] {
        let count = objects.count
        var result = [Bool](repeating: false, count: count)
        var order = [Int32](repeating: -1, count: count)
        var low = [Int32](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var stack: [Int] = []
        var frames: [(node: Int, children: [Int], next: Int)] = []
        var counter: Int32 = 0

        for start in 1..<max(count, 1) where order[start] < 0 && isCollection(start) {
            func push(_ node: Int) {
                order[node] = counter
                low[node] = counter
                counter += 1
                stack.append(node)
                onStack[node] = true
                frames.append((node, collectionChildren(of: node), 0))
            }
            push(start)
            while let frame = frames.last {
                let node = frame.node
                if frame.next < frame.children.count {
                    let child = frame.children[frame.next]
                    frames[frames.count - 1].next += 1
                    if order[child] < 0 {
                        push(child)
                    } else if onStack[child] {
                        low[node] = min(low[node], order[child])
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last {
                    low[parent.node] = min(low[parent.node], low[node])
                }
                guard low[node] == order[node] else { continue }
                var members: [Int] = []
                while let member = stack.popLast() {
                    onStack[member] = false
                    members.append(member)
                    if member == node { break }
                }
                if members.count > 1 || frame.children.contains(node) {
                    for member in members { result[member] = true }
                }
            }
        }
        return result
    }

    /// Whether entry `uid` is an object of a Foundation collection class.
    private mutating func isCollection(_ uid: Int) -> Bool {
        guard uid > 0, uid < objects.count, case .dictionary(let entry) = objects[uid],
            let index = try? classIndex(of: uid, entry)
        else { return false }
        return classes[index].kind.isCollection
    }

    /// The collections a collection entry refers to (UIDs among its values and inline arrays).
    private mutating func collectionChildren(of uid: Int) -> [Int] {
        guard case .dictionary(let entry) = objects[uid] else { return [] }
        var children: [Int] = []
        for (key, value) in entry where key != "$class" {
            switch value {
            case .reference(let child):
                if isCollection(child.rawValue) { children.append(child.rawValue) }
            case .array(let elements):
                for case .reference(let child) in elements where isCollection(child.rawValue) {
                    children.append(child.rawValue)
                }
            default:
                break
            }
        }
        return children
    }
}
