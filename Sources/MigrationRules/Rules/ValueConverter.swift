import Foundation

/// A reversible change of one value: the payload of a ``MigrationRule/convert(_:_:)`` rule.
///
/// Built-ins cover the common changes of a field's representation: numbers and Booleans stored
/// as strings, integers that became doubles, dates in their many encodings, enumerations whose
/// raw values were renamed, and arrays of identifiers that became arrays of dictionaries.
///
/// ```swift
/// MigrationRule.convert("count", .stringToInt)                    // "42" → 42
/// MigrationRule.convert("created", .date(format: .iso8601))      // "2026-11-30T05:14:25Z" → date
/// MigrationRule.convert("status", .map(["open": "todo", "closed": "done"]))
/// MigrationRule.convert("boundElementIds", .wrapElements(inKey: "id", with: ["type": "arrow"]))
/// ```
///
/// Every converter passes `null` through unchanged (a ``map(_:default:)`` whose mapping has a
/// `null` key maps it instead). A value of the wrong kind, or one that cannot be converted, is an
/// ``ArchiveError`` with code ``ArchiveError/Code/migrationFailed`` that names the value and
/// what was expected.
///
/// ``inverse`` undoes the conversion when that is possible; downgrades use it.
public struct ValueConverter: Sendable, CustomStringConvertible {
    /// One direction of a converter.
    struct Direction: Sendable {
        /// The name shown in descriptions (`stringToInt`).
        let name: String
        /// Whether `body` receives `null` (otherwise `null` passes through).
        let handlesNull: Bool
        /// How a rules file spells this direction; `nil` for closures (``custom(name:forward:inverse:)``).
        var spelling: Spelling? = nil
        let body: @Sendable (ArchiveValue) throws -> ArchiveValue
    }

    /// How a rules file spells a built-in converter (`RulesFileWriter` writes it): data, where
    /// ``Direction/body`` is a closure.
    enum Spelling: Sendable {
        /// `{"using": "stringToInt"}` and the other converters without operands.
        case named(RulesFile.ConverterName)
        /// `{"using": "date", "from": format, "to": "date"}`
        case date(DateFormat)
        /// `{"using": "date", "from": "date", "to": format}`
        case dateToString(DateFormat)
        /// `{"map": [[old, new], …], "default": value}`
        case map([ArchiveValue: ArchiveValue], default: ArchiveValue?)
        /// `{"using": "wrapElements", "inKey": key, "with": template}`
        case wrapElements(key: String, template: ArchiveDictionary)
        /// `{"using": "unwrapElements", "key": key, "with": template}`
        case unwrapElements(key: String, template: ArchiveDictionary?)
    }

    let forward: Direction
    let backward: Direction?

    init(_ forward: Direction, _ backward: Direction?) {
        self.forward = forward
        self.backward = backward
    }

    init(
        name: String, inverseName: String?, handlesNull: Bool = false, spelling: Spelling? = nil,
        inverseSpelling: Spelling? = nil,
        forward: @escaping @Sendable (ArchiveValue) throws -> ArchiveValue,
        inverse: (@Sendable (ArchiveValue) throws -> ArchiveValue)?
    ) {
        self.forward = Direction(name: name, handlesNull: handlesNull, spelling: spelling, body: forward)
        self.backward = inverse.map {
            Direction(
                name: inverseName ?? "inverse(\(name))", handlesNull: false, spelling: inverseSpelling, body: $0)
        }
    }

    /// How a rules file spells the converter; `nil` when it is made of closures.
    var spelling: Spelling? { forward.spelling }

    /// The converter that undoes this one, or `nil` when the conversion loses information.
    public var inverse: ValueConverter? {
        backward.map { ValueConverter($0, forward) }
    }

    /// The converter's name: `stringToInt`, `date(iso8601)`, `map("open" → "todo", …)`.
    public var description: String { forward.name }

    /// Converts one value.
    ///
    /// ```swift
    /// try ValueConverter.stringToInt.convert("42")     // .int(42)
    /// ```
    ///
    /// - Throws: ``ArchiveError`` (``ArchiveError/Code/migrationFailed``) for a value of the
    ///   wrong kind or one that cannot be converted; its path is relative to the value
    ///   (`[2]` for the third element of a converted array).
    public func convert(_ value: ArchiveValue) throws -> ArchiveValue {
        if !forward.handlesNull, case .null = value { return .null }
        do {
            return try forward.body(value)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(
                .migrationFailed, "\(forward.name) failed on \(value.briefDescription): \(error)",
                underlyingError: error)
        }
    }

    /// A converter made of closures: the escape hatch for conversions the built-ins do not cover.
    ///
    /// ```swift
    /// let cents = ValueConverter.custom(
    ///     name: "dollarsToCents",
    ///     forward: { value in
    ///         guard let dollars = value.doubleValue else {
    ///             throw ArchiveError(.migrationFailed, "expected a number, found \(value)")
    ///         }
    ///         return .int(Int64((dollars * 100).rounded()))
    ///     },
    ///     inverse: { value in .double(Double(value.int64Value ?? 0) / 100) })
    /// ```
    ///
    /// `null` passes through without calling the closures. Errors the closures throw are wrapped
    /// in an ``ArchiveError`` with code ``ArchiveError/Code/migrationFailed`` (an ``ArchiveError``
    /// is kept as it is).
    ///
    /// - Parameters:
    ///   - name: The name shown in rule descriptions and errors.
    ///   - forward: Converts an archived value to its new representation.
    ///   - inverse: Converts back, for downgrades; `nil` makes the converter irreversible.
    public static func custom(
        name: String, forward: @escaping @Sendable (ArchiveValue) throws -> ArchiveValue,
        inverse: (@Sendable (ArchiveValue) throws -> ArchiveValue)? = nil
    ) -> ValueConverter {
        ValueConverter(name: name, inverseName: nil, forward: forward, inverse: inverse)
    }

    /// The error for a value of the wrong kind: `expected a string, found int 42`.
    ///
    /// Use it in ``custom(name:forward:inverse:)`` closures to report like the built-ins.
    package static func kindError(_ value: ArchiveValue, expected: String) -> ArchiveError {
        ArchiveError(.migrationFailed, "expected \(expected), found \(value.kindAndValue)")
    }

    /// The error for a value of the right kind that cannot be converted.
    static func valueError(_ value: ArchiveValue, _ problem: String) -> ArchiveError {
        ArchiveError(.migrationFailed, "cannot convert \(value.briefDescription): \(problem)")
    }
}

// MARK: - Numbers, Booleans and strings

extension ValueConverter {
    /// `"42"` → `42`. The string must be a decimal integer that fits in 64 bits (an optional
    /// sign, digits, nothing else); the inverse is ``intToString``.
    public static let stringToInt = ValueConverter(
        name: "stringToInt", inverseName: "intToString", spelling: .named(.stringToInt),
        inverseSpelling: .named(.intToString), forward: parseInt, inverse: formatInt)

    /// `42` → `"42"`; the inverse is ``stringToInt``.
    public static let intToString = ValueConverter(
        name: "intToString", inverseName: "stringToInt", spelling: .named(.intToString),
        inverseSpelling: .named(.stringToInt), forward: formatInt, inverse: parseInt)

    /// `"2.5"` → `2.5`; accepts what `Double(String)` accepts. The inverse is ``doubleToString``.
    public static let stringToDouble = ValueConverter(
        name: "stringToDouble", inverseName: "doubleToString", spelling: .named(.stringToDouble),
        inverseSpelling: .named(.doubleToString), forward: parseDouble, inverse: formatDouble)

    /// `2.5` → `"2.5"` (the shortest text that reads back to the same double; integers are
    /// accepted too: `30` → `"30"`). The inverse is ``stringToDouble``.
    public static let doubleToString = ValueConverter(
        name: "doubleToString", inverseName: "stringToDouble", spelling: .named(.doubleToString),
        inverseSpelling: .named(.stringToDouble), forward: formatDouble, inverse: parseDouble)

    /// `"true"`/`"false"` → Booleans; reading also accepts `"yes"`/`"no"` and `"1"`/`"0"`, in
    /// any letter case. The inverse is ``boolToString``.
    public static let stringToBool = ValueConverter(
        name: "stringToBool", inverseName: "boolToString", spelling: .named(.stringToBool),
        inverseSpelling: .named(.boolToString), forward: parseBool, inverse: formatBool)

    /// `true` → `"true"`, `false` → `"false"`; the inverse is ``stringToBool``.
    public static let boolToString = ValueConverter(
        name: "boolToString", inverseName: "stringToBool", spelling: .named(.boolToString),
        inverseSpelling: .named(.stringToBool), forward: formatBool, inverse: parseBool)

    /// `3` → `3.0`, exactly (an integer beyond 2^53 that a double cannot hold is an error). The
    /// inverse is ``doubleToInt``.
    public static let intToDouble = ValueConverter(
        name: "intToDouble", inverseName: "doubleToInt", spelling: .named(.intToDouble),
        inverseSpelling: .named(.doubleToInt), forward: integerToDouble, inverse: doubleToInteger)

    /// `3.0` → `3`; a double with a fraction (`2.5`) or out of the 64-bit range is an error,
    /// never rounded. Integers pass unchanged. The inverse is ``intToDouble``.
    public static let doubleToInt = ValueConverter(
        name: "doubleToInt", inverseName: "intToDouble", spelling: .named(.doubleToInt),
        inverseSpelling: .named(.intToDouble), forward: doubleToInteger, inverse: integerToDouble)

    /// `0.1` → `0.10000000149011612`: a number rounded to the nearest `Float`, kept as a double
    /// (as archives hold every number a `Float` property writes), for a property that became a
    /// `Float`. Numbers beyond `Float`'s range saturate at `±Float.greatestFiniteMagnitude`
    /// (which a `Float` decodes; a larger number would not). Integers are accepted.
    ///
    /// Irreversible: the digits beyond `Float`'s precision are lost, so a step using it has no
    /// downgrade. (A `Float` that became a `Double` needs no conversion: every `Float` is a
    /// `Double`.)
    public static let doubleToFloat = ValueConverter(
        name: "doubleToFloat", inverseName: nil, spelling: .named(.doubleToFloat), forward: roundToFloat,
        inverse: nil)

    @Sendable
    private static func parseInt(_ value: ArchiveValue) throws -> ArchiveValue {
        guard case .string(let text) = value else { throw kindError(value, expected: "a string") }
        if let number = Int64(text) { return .int(number) }
        if let number = UInt64(text) { return .uint(number) }
        throw valueError(value, "not a decimal integer")
    }

    @Sendable
    private static func formatInt(_ value: ArchiveValue) throws -> ArchiveValue {
        switch value {
        case .int(let number): return .string(String(number))
        case .uint(let number): return .string(String(number))
        default: throw kindError(value, expected: "an integer")
        }
    }

    @Sendable
    private static func parseDouble(_ value: ArchiveValue) throws -> ArchiveValue {
        guard case .string(let text) = value else { throw kindError(value, expected: "a string") }
        guard let number = Double(text) else { throw valueError(value, "not a number") }
        return .double(number)
    }

    @Sendable
    private static func formatDouble(_ value: ArchiveValue) throws -> ArchiveValue {
        switch value {
        case .double(let number): return .string(String(number))
        case .int(let number): return .string(String(number))
        case .uint(let number): return .string(String(number))
        default: throw kindError(value, expected: "a number")
        }
    }

    @Sendable
    private static func parseBool(_ value: ArchiveValue) throws -> ArchiveValue {
        guard case .string(let text) = value else { throw kindError(value, expected: "a string") }
        switch text.lowercased() {
        case "true", "yes", "1": return .bool(true)
        case "false", "no", "0": return .bool(false)
        default: throw valueError(value, "expected \"true\", \"false\", \"yes\", \"no\", \"1\" or \"0\"")
        }
    }

    @Sendable
    private static func formatBool(_ value: ArchiveValue) throws -> ArchiveValue {
        guard case .bool(let flag) = value else { throw kindError(value, expected: "a Boolean") }
        return .string(flag ? "true" : "false")
    }

    @Sendable
    private static func roundToFloat(_ value: ArchiveValue) throws -> ArchiveValue {
        let number: Double
        switch value {
        case .double(let double): number = double
        case .int(let integer): number = Double(integer)
        case .uint(let integer): number = Double(integer)
        default: throw kindError(value, expected: "a number")
        }
        guard number.isFinite else { return .double(number) }
        let limit = Double(Float.greatestFiniteMagnitude)
        return .double(Double(Float(max(-limit, min(limit, number)))))
    }

    @Sendable
    private static func integerToDouble(_ value: ArchiveValue) throws -> ArchiveValue {
        switch value {
        case .int(let number):
            guard let double = Double(exactly: number) else {
                throw valueError(value, "a double cannot hold it exactly")
            }
            return .double(double)
        case .uint(let number):
            guard let double = Double(exactly: number) else {
                throw valueError(value, "a double cannot hold it exactly")
            }
            return .double(double)
        default:
            throw kindError(value, expected: "an integer")
        }
    }

    @Sendable
    private static func doubleToInteger(_ value: ArchiveValue) throws -> ArchiveValue {
        switch value {
        case .int, .uint:
            return value
        case .double(let number):
            if let integer = Int64(exactly: number) { return .int(integer) }
            if let integer = UInt64(exactly: number) { return .uint(integer) }
            throw valueError(value, "it is not a whole number in the 64-bit range")
        default:
            throw kindError(value, expected: "a number")
        }
    }
}

// MARK: - Value maps

extension ValueConverter {
    /// Replaces values by a table: enumerations whose raw values were renamed.
    ///
    /// ```swift
    /// .map(["open": "todo", "closed": "done"])            // "open" → "todo"
    /// .map(["sharp": nil, "round": ["type": "round"]])    // excalidraw's strokeSharpness
    /// .map([1: "small", 2: "large"], default: "medium")
    /// ```
    ///
    /// A value missing from the table becomes `default`, or is an error when there is none.
    /// `null` passes through unless the table has a `null` key.
    ///
    /// The inverse exists when the table is one-to-one and there is no default: it maps each
    /// new value back to its old one. A table that sends two old values to one new value has no
    /// inverse, never a guessed one: a downgrade through it fails with
    /// ``ArchiveError/Code/irreversibleStep`` naming the rule (``MigrationStep/irreversibleRule``
    /// finds it up front). A rules file rejects such a table without a default as
    /// ``ArchiveError/Code/invalidRules``, naming both old values.
    public static func map(_ mapping: [ArchiveValue: ArchiveValue], default fallback: ArchiveValue? = nil)
        -> ValueConverter
    {
        let name = "map(" + describe(mapping, fallback: fallback) + ")"
        let forward = Direction(
            name: name, handlesNull: mapping[.null] != nil, spelling: .map(mapping, default: fallback)
        ) { value in
            if let mapped = mapping[value] { return mapped }
            if let fallback { return fallback }
            throw ArchiveError(
                .migrationFailed, "no mapping for \(value.briefDescription) and no default in \(name)")
        }
        guard fallback == nil else { return ValueConverter(forward, nil) }
        var reversed: [ArchiveValue: ArchiveValue] = [:]
        reversed.reserveCapacity(mapping.count)
        for (key, value) in mapping {
            guard reversed.updateValue(key, forKey: value) == nil else { return ValueConverter(forward, nil) }
        }
        let inverseMapping = reversed
        let inverseName = "map(" + describe(inverseMapping, fallback: nil) + ")"
        let backward = Direction(
            name: inverseName, handlesNull: inverseMapping[.null] != nil, spelling: .map(inverseMapping, default: nil)
        ) { value in
            if let mapped = inverseMapping[value] { return mapped }
            throw ArchiveError(.migrationFailed, "no mapping for \(value.briefDescription) in \(inverseName)")
        }
        return ValueConverter(forward, backward)
    }

    /// `"closed" → "done", "open" → "todo"`: entries sorted by their text, at most four, then `…`.
    private static func describe(_ mapping: [ArchiveValue: ArchiveValue], fallback: ArchiveValue?) -> String {
        var items = mapping.map { $0.key.literalDescription + " → " + $0.value.literalDescription }.sorted()
        if items.count > 4 {
            items = Array(items.prefix(4)) + ["… \(mapping.count - 4) more"]
        }
        if let fallback { items.append("default → " + fallback.literalDescription) }
        return items.joined(separator: ", ")
    }
}

// MARK: - Array elements

extension ValueConverter {
    /// Wraps each element `e` of an array in a dictionary `{…template, key: e}`.
    ///
    /// ```swift
    /// // excalidraw: boundElementIds ["x"] → boundElements [{"type": "arrow", "id": "x"}]
    /// .wrapElements(inKey: "id", with: ["type": "arrow"])
    /// ```
    ///
    /// The inverse is ``unwrapElements(key:restoring:)`` with the same template.
    public static func wrapElements(inKey key: String, with template: ArchiveDictionary = [:]) -> ValueConverter {
        let name =
            "wrapElements(\(key)"
            + (template.isEmpty ? ")" : " with \(ArchiveValue.dictionary(template).literalDescription))")
        let inverseName = "unwrapElements(\(key))"
        return ValueConverter(
            name: name, inverseName: inverseName, spelling: .wrapElements(key: key, template: template),
            inverseSpelling: .unwrapElements(key: key, template: template),
            forward: { value in try wrap(value, key: key, template: template) },
            inverse: { value in try unwrap(value, key: key) })
    }

    /// Replaces each element of an array, a dictionary or object, by its value under `key`.
    ///
    /// ```swift
    /// // [{"type": "arrow", "id": "x"}] → ["x"]
    /// .unwrapElements(key: "id", restoring: ["type": "arrow"])
    /// ```
    ///
    /// An element without `key` is an error. The other keys of the elements are lost; pass the
    /// template they had as `restoring` to make the converter reversible (its inverse is then
    /// ``wrapElements(inKey:with:)``).
    public static func unwrapElements(key: String, restoring template: ArchiveDictionary? = nil) -> ValueConverter {
        let name = "unwrapElements(\(key))"
        guard let template else {
            return ValueConverter(
                name: name, inverseName: nil, spelling: .unwrapElements(key: key, template: nil),
                forward: { value in try unwrap(value, key: key) }, inverse: nil)
        }
        let wrapName = wrapElements(inKey: key, with: template).description
        return ValueConverter(
            name: name, inverseName: wrapName, spelling: .unwrapElements(key: key, template: template),
            inverseSpelling: .wrapElements(key: key, template: template),
            forward: { value in try unwrap(value, key: key) },
            inverse: { value in try wrap(value, key: key, template: template) })
    }

    @Sendable
    private static func wrap(_ value: ArchiveValue, key: String, template: ArchiveDictionary) throws -> ArchiveValue {
        guard case .array(let elements) = value else { throw kindError(value, expected: "an array") }
        var wrapped: [ArchiveValue] = []
        wrapped.reserveCapacity(elements.count)
        for element in elements {
            var entries = template
            entries.reserveCapacity(template.count + 1)
            entries[key] = element
            wrapped.append(.dictionary(entries))
        }
        return .array(wrapped)
    }

    @Sendable
    private static func unwrap(_ value: ArchiveValue, key: String) throws -> ArchiveValue {
        guard case .array(let elements) = value else { throw kindError(value, expected: "an array") }
        var unwrapped: [ArchiveValue] = []
        unwrapped.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard let entries = element.keyedEntries else {
                var error = kindError(element, expected: "a dictionary or object")
                error.path = ArchivePath([.index(index)])
                throw error
            }
            guard let inner = entries[key] else {
                throw ArchiveError(.migrationFailed, "the element has no key '\(key)'", path: [.index(index)])
            }
            unwrapped.append(inner)
        }
        return .array(unwrapped)
    }
}
