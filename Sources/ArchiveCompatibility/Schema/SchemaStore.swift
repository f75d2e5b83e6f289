import Foundation
import ModelVersioning

/// The committed schema snapshots: one JSON file per model type and version,
/// `<directory>/<TypeName>/v<N>.json`.
///
/// ```swift
/// let store = SchemaStore(directory: repository.appendingPathComponent("Fixtures/schemas"))
/// if let snapshot = try store.snapshot(typeName: "Circle", version: 3) {
///     print(snapshot)
/// }
/// try store.record(try ModelSchema(of: Circle.self))
/// ```
public struct SchemaStore: Sendable {
    /// The snapshots folder.
    public var directory: URL

    /// The snapshots in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The file of one snapshot.
    public func url(typeName: String, version: Int) -> URL {
        directory.appendingPathComponent(typeName).appendingPathComponent("v\(version).json")
    }

    /// The snapshot of `typeName` at `version`, or `nil` when none is committed.
    ///
    /// - Throws: `ArchiveError` for a snapshot file that cannot be read or parsed.
    public func snapshot(typeName: String, version: Int) throws -> ModelSchema? {
        let url = url(typeName: typeName, version: version)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try ModelSchema(jsonData: try Data(contentsOf: url))
        } catch let error as ArchiveError {
            throw error.adding(file: url.path)
        } catch {
            throw ArchiveError(.io, "cannot read the schema snapshot \(url.path)", underlyingError: error)
        }
    }

    /// Every type with snapshots, and the versions snapshotted, sorted.
    public func inventory() -> [(typeName: String, versions: [Int])] {
        let manager = FileManager.default
        guard let types = try? manager.contentsOfDirectory(atPath: directory.path) else { return [] }
        return types.sorted().compactMap { typeName in
            guard !typeName.hasPrefix("."),
                let files = try? manager.contentsOfDirectory(atPath: directory.appendingPathComponent(typeName).path)
            else { return nil }
            let versions = files.compactMap { file -> Int? in
                guard file.hasPrefix("v"), file.hasSuffix(".json") else { return nil }
                return Int(file.dropFirst().dropLast(5))
            }
            return versions.isEmpty ? nil : (typeName, versions.sorted())
        }
    }

    /// Writes (or overwrites) the snapshot of `schema`'s type and version.
    ///
    /// - Throws: `ArchiveError` with code `io` when the file cannot be written.
    public func record(_ schema: ModelSchema) throws {
        try write(schema, to: url(typeName: schema.typeName, version: schema.version))
    }

    /// Writes `schema` to the file `url`.
    func write(_ schema: ModelSchema, to url: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try schema.jsonData().write(to: url, options: .atomic)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(.io, "cannot write the schema snapshot \(url.path)", underlyingError: error)
        }
    }
}
