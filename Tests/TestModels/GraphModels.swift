import Foundation
import ModelVersioning

// Object graphs: a tree with weak back-references to its parent, and one instance referred to twice.

/// A tree whose children point back at their parent through `@WeakReference`.
package final class Node: VersionedModel {
    package var name: String
    package var children: [Node]
    @WeakReference package var parent: Node?

    package init(name: String, children: [Node] = []) {
        self.name = name
        self.children = children
        for child in children {
            child.parent = self
        }
    }
}

/// Two references to one `Shared` instance.
package final class Shared: VersionedModel {
    package var value: Int
    package init(value: Int) { self.value = value }
}

package struct Holder: VersionedModel {
    package var first: Shared
    package var second: Shared
    package var list: [Shared]

    package init(first: Shared, second: Shared, list: [Shared]) {
        self.first = first
        self.second = second
        self.list = list
    }
}
