import Foundation
import ModelVersioning

extension FixtureSuite {
    /// Runs the migration laws (``MigrationLaws``) on the suite's chains, from objects generated
    /// from the schema snapshots: the fixtures someone remembered to record, and every other
    /// object each version's schema admits.
    ///
    /// ```swift
    /// @Test func everyChainKeepsItsLaws() throws {
    ///     let suite = FixtureSuite(directory: fixturesURL, registry: try AppModels.registry())
    ///     let laws = suite.checkLaws(schemas: SchemaStore(directory: schemasURL))
    ///     #expect(laws.failures.isEmpty, "\(laws)")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - schemas: The snapshots (`Fixtures/schemas`).
    ///   - options: How many objects to generate, and the seed.
    public func checkLaws(schemas: SchemaStore, options: LawOptions = .init()) -> LawReport {
        let laws =
            registry.types.isEmpty
            ? MigrationLaws(catalog: registry.catalog, schemas: schemas, options: options)
            : MigrationLaws(registry: registry, schemas: schemas, options: options)
        return laws.run()
    }
}
