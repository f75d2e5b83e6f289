import Foundation
import ModelVersioning

/// Smaller variants of a generated object, simplest first, for shrinking a counterexample: a
/// key left out, a collection emptied or halved, an element dropped, a string emptied or cut,
/// a number brought towards zero (its exponent halved, or itself) — one change at a time, anywhere in the object.
///
/// Variants may not be valid objects of their version; the law check keeps only those that
/// conform to the schema and fail the same way.
enum Shrinker {
    /// Every one-change variant of `value`.
    static func variants(of value: ArchiveValue) -> [ArchiveValue] {
        switch value {
        case .object(let object):
            return fieldVariants(object.fields).map { fields in
                var copy = object
                copy.fields = fields
                return .object(copy)
            }
        case .dictionary(let entries):
            return fieldVariants(entries).map { .dictionary($0) }
        case .array(let items):
            guard !items.isEmpty else { return [] }
            var variants: [ArchiveValue] = [.array([])]
            if items.count > 2 { variants.append(.array(Array(items.prefix(items.count / 2)))) }
            for index in items.indices.prefix(8) {
                var fewer = items
                fewer.remove(at: index)
                variants.append(.array(fewer))
            }
            for (index, item) in items.enumerated() {
                for smaller in self.variants(of: item) {
                    var copy = items
                    copy[index] = smaller
                    variants.append(.array(copy))
                }
            }
            return variants
        case .string(let text):
            guard !text.isEmpty else { return [] }
            var variants: [ArchiveValue] = [.string("")]
            if text.count > 1 { variants.append(.string(String(text.prefix(text.count / 2)))) }
            if text != "a", !text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                variants.append(.string("a"))
            }
            return variants
        case .int(let number):
            guard number != 0 else { return [] }
            var variants: [ArchiveValue] = [.int(0)]
            if number / 2 != 0 { variants.append(.int(number / 2)) }
            if number < 0 { variants.append(.int(number == Int64.min ? Int64.max : -number)) }
            return variants
        case .uint(let number):
            guard number != 0 else { return [] }
            return [.int(0), ArchiveValue(number / 2)]
        case .double(let number):
            guard number != 0, number.isFinite else { return [] }
            var variants: [ArchiveValue] = [.double(0)]
            let whole = number.rounded(.towardZero)
            if whole != number {
                variants.append(.double(whole))
                // The fraction alone: what a rounding inverse gets wrong, without the digits before it.
                if whole != 0 { variants.append(.double(number - whole)) }
            }
            // Halving the exponent first reaches the boundary of a range (what fits in a Float)
            // in a few steps from 1e300; halving the number takes hundreds.
            if number.exponent > 2 {
                variants.append(.double(Double(sign: number.sign, exponent: number.exponent / 2, significand: 1)))
            }
            if abs(number) > 1 { variants.append(.double((number / 2).rounded(.towardZero))) }
            if number < 0 { variants.append(.double(-number)) }
            return variants
        case .bool(true):
            return [.bool(false)]
        case .date(let date):
            let zero = Date(timeIntervalSinceReferenceDate: 0)
            guard date != zero else { return [] }
            let whole = Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.towardZero))
            return whole == date ? [.date(zero)] : [.date(zero), .date(whole)]
        case .data(let data):
            return data.isEmpty ? [] : [.data(Data())]
        default:
            return []
        }
    }

    private static func fieldVariants(_ fields: ArchiveDictionary) -> [ArchiveDictionary] {
        var variants: [ArchiveDictionary] = []
        for (key, _) in fields {
            var fewer = fields
            fewer[key] = nil
            variants.append(fewer)
        }
        for (key, value) in fields {
            for smaller in self.variants(of: value) {
                var copy = fields
                copy[key] = smaller
                variants.append(copy)
            }
        }
        return variants
    }
}
