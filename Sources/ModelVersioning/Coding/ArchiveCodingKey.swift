/// A coding key made from a string or an array position: the keys the coders report in
/// `codingPath` and the keys of `[String: T]` dictionaries.
struct ArchiveCodingKey: CodingKey, Hashable, Sendable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    init(_ string: String) {
        self.init(stringValue: string)
    }

    init(index: Int) {
        self.init(intValue: index)
    }

    /// The key `super` that `superEncoder()`/`superDecoder()` use.
    static let superKey = ArchiveCodingKey(stringValue: "super")
}

extension ArchivePath {
    /// The path of a Codable coding path: integer keys of unkeyed containers become indices.
    init(codingPath: [any CodingKey]) {
        self.init(
            codingPath.map { key in
                if let index = key.intValue, key is ArchiveCodingKey || key.stringValue == String(index) {
                    return .index(index)
                }
                return .key(key.stringValue)
            })
    }
}
