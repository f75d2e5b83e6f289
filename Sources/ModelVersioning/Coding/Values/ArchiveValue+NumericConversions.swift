import Foundation

/// The numeric conversions both decoders apply (``TreeDecoder`` to tree nodes,
/// ``DirectJSONDecoder`` to the numbers it reads): exact or not at all.
extension ArchiveValue {
    /// The integer a number node holds exactly as an `I` (an integral double included), or `nil`.
    @inline(__always)
    func exactInteger<I: FixedWidthInteger>(as type: I.Type) -> I? {
        switch self {
        case .int(let number): return I(exactly: number)
        case .uint(let number): return I(exactly: number)
        case .double(let number):
            guard number.isFinite, number.rounded(.towardZero) == number else { return nil }
            return I(exactly: number)
        default: return nil
        }
    }

    /// A number node as a `Double` (integers rounded to the nearest double), or `nil`.
    @inline(__always)
    var numberAsDouble: Double? {
        switch self {
        case .double(let number): return number
        case .int(let number): return Double(number)
        case .uint(let number): return Double(number)
        default: return nil
        }
    }

    /// `number` as a `Float`, unless a finite double overflows it.
    @inline(__always)
    static func float(fitting number: Double) -> Float? {
        let float = Float(number)
        return float.isFinite || !number.isFinite ? float : nil
    }
}
