import ArchiveCompatibility
import Foundation
import ModelVersioning
import SketchModel
import TestModels
import TestSupport
import Testing

@Suite("Fixtures of every release")
struct FixtureCoverageTests {
    @Test("the Sketch fixtures hold every version each release archived")
    func sketchIsCovered() throws {
        let registry = try SketchRegistry.registry()
        let suite = FixtureSuite(directory: Fixture.url("archives"), registry: registry)
        let coverage = FixtureCoverage(fixtures: try suite.fixtures(), catalog: registry.catalog)
        #expect(coverage.gaps.isEmpty, "\(coverage.gaps)")
        #expect(coverage.required["Rectangle"] == [1, 2])
        #expect(coverage.required["RoundedRectangle"] == [1])
        #expect(coverage.holders["Rectangle"]?[1]?.contains("Sketch/v2/pasted-shapes.json") == true)
    }

    @Test("a gap names the release that archived the version")
    func gapNamesTheRelease() throws {
        let registry = try SketchRegistry.registry()
        let coverage = FixtureCoverage(fixtures: [], catalog: registry.catalog)
        #expect(coverage.gaps.first?.description == "Circle v1 (archived by release 1.0): no fixture")
        #expect(coverage.gaps.count == 15)
    }

    @Test("a recorded fixture is what the release wrote: downgraded to its versions and names")
    func recordedFixtureIsTheRelease() throws {
        let scratch = try ScratchFolder()
        let registry = try SketchRegistry.registry()
        let gap = FixtureCoverage.Gap(typeName: "Rectangle", version: 1, release: "1.0")
        let url = try FixtureCoverage.record(
            gap, into: scratch.url, catalog: registry.catalog, schemas: SchemaStore(directory: Fixture.url("schemas")),
            today: try registry.types.map { try ModelSchema(of: $0) })
        #expect(url.path.hasSuffix("Rectangle/v1/generated.json"))
        let tree = try ArchiveFormat.read(try Data(contentsOf: url)).0
        let object = try #require(tree.objectValue)
        #expect(object.typeName == "Rect")
        #expect(object.version == 1)
        #expect(Set(object.fields.keys) == ["x", "y", "w", "h", "style"])
        #expect(object.fields["style"]?.objectValue?.version == 1)
        // It opens today.
        let suite = FixtureSuite(directory: scratch.url, registry: registry, recordsGoldens: true)
        let report = try suite.run()
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.recorded.count == 1)
    }
}
