/// A coding key made from a string or an array position: the keys the coders report in
/// `codingPath` and the keys of `[String: T]` dictionaries.
///
/// An array position reads as Foundation's coders spell it (`stringValue` "Index 3", `intValue`
/// 3), and spells that string only when asked: the encoder makes one key per array element, and
/// almost none is ever printed.
struct ArchiveCodingKey: CodingKey, Hashable, Sendable {
    /// The string of a string or integer key; `nil` for an array position.
    private let name: String?
    let intValue: Int?

    var stringValue: String { name ?? "Index \(intValue ?? 0)" }

    init(stringValue: String) {
        self.name = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.name = String(intValue)
        self.intValue = intValue
    }

    init(_ string: String) {
        self.init(stringValue: string)
    }

    init(index: Int) {
        self.name = nil
        self.intValue = index
    }

    /// The key `super` that `superEncoder()`/`superDecoder()` use.
    static let superKey = ArchiveCodingKey(stringValue: "super")
}

extension ArchivePath {
    /// The path of a Codable coding path: integer keys of unkeyed containers become indices.
    init(codingPath: [any CodingKey]) {
        self.init(
            codingPath.map { key in
                if let index = key.intValue,
                    key is ArchiveCodingKey || key.stringValue == String(index) || key.stringValue == "Index \(index)"
                {
                    return .index(index)
                }
                return .key(key.stringValue)
            })
    }
}
