import Foundation

/// Metatypes compared on the hot paths, fetched once (a generic type's metadata is looked up
/// in the runtime's cache every time it is named).
enum KnownTypes {
    static let stringArray = ObjectIdentifier([String].self)
    static let doubleArray = ObjectIdentifier([Double].self)
    static let intArray = ObjectIdentifier([Int].self)
}
