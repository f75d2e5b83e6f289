import Foundation

/// Optionals seen through a generic `T`, so a conditional `T?` can be unwrapped.
protocol OptionalProtocol {
    var wrappedEncodable: (any Encodable)? { get }
}

extension Optional: OptionalProtocol {
    var wrappedEncodable: (any Encodable)? {
        switch self {
        case .some(let wrapped): return wrapped as? any Encodable
        case .none: return nil
        }
    }
}
