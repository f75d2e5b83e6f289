import Foundation

/// One node of the archive tree: the only currency between format readers, migrations, the
/// decoder, the encoder and format writers.
///
/// The tree is format-neutral. A JSON document, a binary or XML property list and an
/// NSKeyedArchiver archive all read into it; migrations edit it; the Codable decoder builds
/// models from it.
///
/// ```swift
/// let circle: ArchiveValue = .object(ArchiveObject(
///     typeName: "Circle", version: 2,
///     fields: ["center": ["x": 10, "y": 20], "radius": 30.5]))
/// ```
///
/// Integers keep their full 64-bit range: ``int(_:)`` holds every signed value and ``uint(_:)``
/// holds the unsigned values above `Int64.max`, so `UInt64.max` and `Int64.min` survive every
/// format that can hold them. Readers produce the canonical form (``int(_:)`` whenever the value
/// fits); equality treats `.int(5)` and `.uint(5)` as the same number, but never an integer and a
/// double (`1` and `1.0` stay distinct, as in the source document).
///
/// Dictionaries keep their key order (``ArchiveDictionary``) so output is deterministic and
/// diffs of fixtures stay small. Typed model objects are ``object(_:)`` nodes carrying their type
/// name, version and, when shared, an identity that ``reference(_:)`` nodes point to.
public enum ArchiveValue: Sendable {
    /// An absent value: JSON `null`, a nil object reference.
    case null
    /// A Boolean.
    case bool(Bool)
    /// A signed integer; every integer that fits in `Int64` is stored here.
    case int(Int64)
    /// An unsigned integer above `Int64.max` (readers never produce smaller values here).
    case uint(UInt64)
    /// A binary floating-point number.
    case double(Double)
    /// A string of Unicode scalars.
    case string(String)
    /// Raw bytes.
    case data(Data)
    /// A point in time.
    case date(Date)
    /// An ordered list of values.
    case array([ArchiveValue])
    /// String-keyed values in their archived order.
    case dictionary(ArchiveDictionary)
    /// A typed model object: type name, version, optional identity and fields.
    case object(ArchiveObject)
    /// A reference to the object with this identity elsewhere in the same archive.
    ///
    /// References express shared instances (the same object reachable twice), conditional
    /// references (NSKeyedArchiver's `encodeConditionalObject`) and cycles through weak
    /// back-references.
    case reference(ArchiveObjectID)
}

extension ArchiveValue {
    /// The kind of a value, without its payload: used in error messages and type checks.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case null, bool, int, uint, double, string, data, date, array, dictionary, object, reference

        /// The kind's name, as `dictionary`.
        public var description: String { rawValue }
    }

    /// The kind of this value.
    @inlinable
    public var kind: Kind {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .int: return .int
        case .uint: return .uint
        case .double: return .double
        case .string: return .string
        case .data: return .data
        case .date: return .date
        case .array: return .array
        case .dictionary: return .dictionary
        case .object: return .object
        case .reference: return .reference
        }
    }

    /// Creates the canonical node for an unsigned integer: ``int(_:)`` when it fits.
    @inlinable
    public init(_ value: UInt64) {
        if value <= UInt64(Int64.max) {
            self = .int(Int64(value))
        } else {
            self = .uint(value)
        }
    }

    /// Creates an ``int(_:)`` node.
    @inlinable
    public init(_ value: Int) {
        self = .int(Int64(value))
    }
}
