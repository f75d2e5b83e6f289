import Foundation
import ModelVersioning

/// Numbers at the edges of their ranges and keys no ASCII-only format could hold.
package struct Extremes: VersionedModel, Equatable {
    package var unsignedMax: UInt64
    package var signedMin: Int64
    package var signedMax: Int64
    package var tiny: Double
    package var huge: Double
    package var negativeZero: Double
    package var seventeenDigits: Double
    package var text: String
    package var labels: [String: Int]
    package var created: Date
    package var blob: Data

    enum CodingKeys: String, CodingKey {
        case unsignedMax = "größte"
        case signedMin = "最小"
        case signedMax = "max 🚀"
        case tiny, huge, negativeZero = "-0", seventeenDigits, text, labels
        case created = "$created"
        case blob
    }

    package static let sample = Extremes(
        unsignedMax: .max, signedMin: .min, signedMax: .max, tiny: .leastNonzeroMagnitude, huge: 1.7976931348623157e308,
        negativeZero: -0.0, seventeenDigits: 0.10000000000000002, text: "Åbenraa — naïve café, 東京, 👩‍👩‍👧",
        labels: ["Ω": 1, "e\u{301}": 2, "": 3, "$price": 4],
        created: Date(timeIntervalSinceReferenceDate: 509_436_958.684097), blob: Data([0, 1, 2, 253, 254, 255]))
}
