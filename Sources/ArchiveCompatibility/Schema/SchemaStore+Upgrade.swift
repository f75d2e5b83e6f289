import Foundation
import ModelVersioning

extension SchemaStore {
    /// What ``upgradeSnapshots(from:isModel:)`` did to one snapshot.
    public struct SnapshotUpgrade: Sendable, Hashable, CustomStringConvertible {
        /// The snapshot's type.
        public var typeName: String
        /// The snapshot's version.
        public var version: Int
        /// The nested types whose shapes were added, from today's types of the same name.
        public var addedTypes: [String]
        /// Names the snapshot uses that no type of today defines and that are no model: their
        /// shapes must be written into the snapshot by hand.
        public var undefinedTypes: [String]

        /// What was done and what is left to do by hand: `Model v1: format 2, nested types added from today's: Frame`.
        public var description: String {
            var text = "\(typeName) v\(version): format \(ModelSchema.currentFormat)"
            if !addedTypes.isEmpty {
                text += ", nested types added from today's: " + addedTypes.joined(separator: ", ")
            }
            if !undefinedTypes.isEmpty {
                text +=
                    "; no type of today is named " + undefinedTypes.joined(separator: ", ")
                    + ": describe it in the snapshot by hand"
            }
            return text
        }
    }

    /// Upgrades every snapshot written before nested types were recorded (format 1) to today's
    /// format, adding the shape of each nested type it names from `current`, today's schemas.
    ///
    /// ```swift
    /// let current = try registry.types.map { try ModelSchema(of: $0) }
    /// for upgrade in try store.upgradeSnapshots(from: current, isModel: { registry.catalog.migrations(forTypeName: $0) != nil }) {
    ///     print(upgrade)   // Model v1: format 2, nested types added from today's: Frame
    /// }
    /// ```
    ///
    /// An old version's snapshot gets today's shape of a nested type of the same name: right for
    /// types that never changed (review the diff for those that did, and edit the snapshot).
    /// Snapshots already in today's format are left alone.
    ///
    /// - Parameters:
    ///   - current: Today's schemas, whose ``ModelSchema/nestedTypes`` supply the shapes.
    ///   - isModel: Whether a name is a model's (or one of its old names): models are written by
    ///     name and need no shape.
    /// - Returns: One entry per snapshot upgraded.
    /// - Throws: `ArchiveError` when a snapshot cannot be read or written.
    public func upgradeSnapshots(
        from current: [ModelSchema], isModel: (String) -> Bool
    ) throws -> [SnapshotUpgrade] {
        var shapes: [String: ModelSchema.NestedType] = [:]
        for schema in current {
            for type in schema.nestedTypes where shapes[type.name] == nil { shapes[type.name] = type }
        }
        var upgrades: [SnapshotUpgrade] = []
        for (typeName, versions) in inventory() {
            for version in versions {
                guard var snapshot = try snapshot(typeName: typeName, version: version), snapshot.isLegacy else {
                    continue
                }
                var defined = Set(snapshot.nestedTypes.map(\.name))
                var added: [String] = []
                var undefined: [String] = []
                var pending = snapshot.referencedNames
                while let name = pending.first {
                    pending.removeFirst()
                    guard !defined.contains(name), !TypeExpression.isPrimitive(name), !isModel(name) else { continue }
                    defined.insert(name)
                    guard let shape = shapes[name] else {
                        undefined.append(name)
                        continue
                    }
                    snapshot.nestedTypes.append(shape)
                    added.append(name)
                    pending += shape.referencedNames
                }
                snapshot.nestedTypes.sort { $0.name < $1.name }
                snapshot.format = ModelSchema.currentFormat
                // The folder's name, not the snapshot's type: `Rectangle/v1.json` describes `Rect`.
                try write(snapshot, to: url(typeName: typeName, version: version))
                upgrades.append(
                    SnapshotUpgrade(
                        typeName: typeName, version: version, addedTypes: added.sorted(),
                        undefinedTypes: undefined.sorted()))
            }
        }
        return upgrades
    }
}

extension ModelSchema {
    /// The type names the archived properties use, in order (polymorphic keys' protocols
    /// excepted: their allow lists name models; excluded keys too: they are never archived).
    var referencedNames: [String] {
        properties.filter { $0.allowedTypes == nil && $0.behavior != .excluded }.flatMap {
            TypeExpression(parsing: $0.type).names
        }
    }

    /// The names the snapshot uses that are neither primitives, nor defined in it, nor models.
    func undefinedNames(isModel: (String) -> Bool) -> [String] {
        var defined = Set(nestedTypes.map(\.name))
        var undefined: [String] = []
        let names = referencedNames + nestedTypes.flatMap(\.referencedNames)
        for name in names where !defined.contains(name) && !TypeExpression.isPrimitive(name) && !isModel(name) {
            defined.insert(name)
            undefined.append(name)
        }
        return undefined
    }
}

extension ModelSchema.NestedType {
    /// The type names this type's keys or single value use.
    var referencedNames: [String] {
        properties.flatMap { TypeExpression(parsing: $0.type).names }
            + (valueType.map { TypeExpression(parsing: $0).names } ?? [])
    }
}
