import ModelVersioning

extension ModelSchema {
    /// The archived shape of a non-model type a model's properties reach: a struct or class
    /// archived as a plain dictionary, an enum archived as one of its cases' values, or a type
    /// that archives itself as one value of another type.
    ///
    /// ```swift
    /// let schema = try ModelSchema(of: Model.self)
    /// print(schema.nestedType(named: "Frame")!)    // Frame: x: Double, y: Double, width: Double, height: Double
    /// print(schema.nestedType(named: "ModelKind")!) // ModelKind: enum photo = "photo" | drawing = "drawing" | …
    /// ```
    ///
    /// Nested types have no name or version in archives: a change to one changes the archived
    /// shape of every model that holds it, so each of those models needs a version bump.
    public struct NestedType: Codable, Sendable, Hashable, CustomStringConvertible {
        /// How the type is archived.
        public enum Kind: String, Codable, Sendable, Hashable {
            /// A struct, archived as a dictionary of its ``NestedType/properties``.
            case `struct`
            /// A class, archived as a dictionary of its ``NestedType/properties``.
            case `class`
            /// An enum, archived as the value of one of its ``NestedType/cases``.
            case `enum`
            /// A type that archives itself as one value of ``NestedType/valueType``.
            case value
        }

        /// One case of an enum and the value it is archived as.
        public struct Case: Codable, Sendable, Hashable {
            /// The case's name in Swift (`photo`).
            public var name: String
            /// What the archive holds for it: its raw value (`"photo"`, `2`), or what the
            /// encoder writes for a case without one.
            public var value: ArchiveValue

            /// The case `name`, archived as `value`.
            public init(name: String, value: ArchiveValue) {
                self.name = name
                self.value = value
            }
        }

        /// The Swift type's name, as properties refer to it (`Frame`).
        public var name: String
        /// How the type is archived: as a struct's or class's keys, an enum's case, or a single value.
        public var kind: Kind
        /// The keys of a struct or class, in the order its initializer reads them.
        public var properties: [Property]
        /// The cases of an enum: every case, or only samples (see ``listsEveryCase``).
        public var cases: [Case]
        /// The type of a ``Kind/value`` type's single value; for an enum that does not list every
        /// case, the type of its raw value when it has one (`Int`).
        public var valueType: String?
        /// Whether ``cases`` lists every case of an enum (it is `CaseIterable`). An enum the probe
        /// cannot enumerate lists only its `SchemaSampleProviding` sample, or nothing: then the
        /// values it can hold are unknown, the law check generates only the samples (and asks
        /// for `CaseIterable` when there are none), and a change of its cases goes unnoticed.
        public var listsEveryCase: Bool

        /// The shape of the nested type `name`.
        public init(
            name: String, kind: Kind, properties: [Property] = [], cases: [Case] = [], valueType: String? = nil,
            listsEveryCase: Bool = true
        ) {
            self.name = name
            self.kind = kind
            self.properties = properties
            self.cases = cases
            self.valueType = valueType
            self.listsEveryCase = listsEveryCase
        }

        /// The name and shape: `Frame: x: Double, y: Double`, `ModelKind: enum photo = "photo" | drawing = "drawing"`.
        public var description: String {
            switch kind {
            case .struct, .class:
                return "\(name): " + properties.map(\.description).joined(separator: ", ")
            case .enum where !listsEveryCase:
                return "\(name): enum" + (valueType.map { " of \($0)" } ?? "") + ", cases not listed"
                    + (cases.isEmpty
                        ? ""
                        : " (sample "
                            + cases.map { "\($0.name) = \(SchemaText.literal($0.value))" }
                            .joined(separator: " | ") + ")")
            case .enum:
                return "\(name): enum "
                    + cases.map { "\($0.name) = \(SchemaText.literal($0.value))" }.joined(separator: " | ")
            case .value:
                return "\(name): \(valueType ?? "?")"
            }
        }
    }

    /// The nested type named `name`, if this snapshot defines it.
    public func nestedType(named name: String) -> NestedType? {
        nestedTypes.first { $0.name == name }
    }
}
