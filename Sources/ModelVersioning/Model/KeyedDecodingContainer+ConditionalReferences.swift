import Foundation

extension KeyedDecodingContainer {
    /// Decodes a conditional reference, assigning it as soon as its object exists: now, or, when
    /// the reference closes a cycle (a child pointing back at the parent being decoded), right
    /// after the parent's initializer returns.
    ///
    /// ```swift
    /// init(from decoder: any Decoder) throws {
    ///     let container = try decoder.container(keyedBy: CodingKeys.self)
    ///     name = try container.decode(String.self, forKey: .name)
    ///     children = try container.decode([Node].self, forKey: .children)
    ///     try container.decodeConditional(Node.self, forKey: .parent) { [weak self] in self?.parent = $0 }
    /// }
    /// ```
    ///
    /// An absent key, a null value, or a reference to an object that was never archived
    /// unconditionally assigns `nil`. With decoders other than ``ArchiveDecoder`` it falls back to
    /// `decodeIfPresent`.
    public func decodeConditional<T: AnyObject & Decodable>(
        _ type: T.Type, forKey key: Key, assign: @escaping (T?) -> Void
    ) throws {
        guard contains(key) else {
            assign(nil)
            return
        }
        let nested = try superDecoder(forKey: key)
        guard let treeDecoder = nested as? TreeDecoder else {
            assign(try decodeIfPresent(T.self, forKey: key))
            return
        }
        try treeDecoder.decodeConditionalReference(T.self, assign: assign)
    }
}
