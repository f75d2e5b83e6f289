/// The typed escape hatch: decode the old shape as a frozen Codable struct, map it to the next
/// one in Swift, and encode that back.
extension MigrationRule {
    /// A rule that decodes the container as `Old`, maps it with `transform` and replaces the
    /// container's fields with the encoded result.
    ///
    /// For the hard cases no declarative rule expresses: a value computed from several fields,
    /// a structure reshaped wholesale. Declare `Old` and `New` as plain Codable structs next to
    /// the step, frozen like the step itself — never the app's current model types, which will
    /// change again.
    ///
    /// ```swift
    /// struct PolygonV2: Codable { var points: [[Double]] }
    /// struct PolygonV3: Codable { var xs: [Double]; var ys: [Double] }
    ///
    /// MigrationStep(from: 2, to: 3, rules: [
    ///     .typed("split points", from: PolygonV2.self, to: PolygonV3.self,
    ///            { old in PolygonV3(xs: old.points.map { $0[0] }, ys: old.points.map { $0[1] }) },
    ///            inverse: { new in PolygonV2(points: zip(new.xs, new.ys).map { [$0, $1] }) })
    /// ])
    /// ```
    ///
    /// Keys `Old` does not declare are dropped, so `Old` must list every key worth keeping.
    /// Nested archived objects decode into plain structs by their fields.
    ///
    /// - Parameters:
    ///   - name: How the rule appears in reports and errors.
    ///   - old: The archived shape before the step.
    ///   - new: The shape after it.
    ///   - transform: The mapping.
    ///   - inverse: The mapping back, for downgrades; without it the step is irreversible.
    /// - Throws (when applied): `ArchiveError` when the container does not decode as `Old`
    ///   (with the path inside the container), or whatever `transform` throws.
    public static func typed<Old: Codable & Sendable, New: Codable & Sendable>(
        _ name: String, from old: Old.Type, to new: New.Type, _ transform: @escaping @Sendable (Old) throws -> New,
        inverse: (@Sendable (New) throws -> Old)? = nil
    ) -> MigrationRule {
        let forward: Transform = { (target: inout MigrationTarget) throws in
            try Self.replace(&target, decoding: Old.self, with: transform)
        }
        var backward: Transform?
        if let inverse {
            backward = { (target: inout MigrationTarget) throws in
                try Self.replace(&target, decoding: New.self, with: inverse)
            }
        }
        return .transform(name, forward, inverse: backward)
    }

    private static func replace<Input: Decodable, Output: Encodable>(
        _ target: inout MigrationTarget, decoding input: Input.Type, with transform: (Input) throws -> Output
    ) throws {
        let value = try ArchiveDecoder().decode(Input.self, fromTree: .dictionary(target.fields))
        let output = try ArchiveEncoder().encodeValue(try transform(value))
        guard let fields = output.keyedEntries else {
            throw ArchiveError(
                .invalidValue, "a typed migration must produce a keyed value, not \(output.kind)", path: target.path)
        }
        target.fields = fields
    }
}
