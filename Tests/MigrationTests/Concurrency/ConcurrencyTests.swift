import ArchiveCompatibility
import Foundation
import SketchModel
import TestModels
import TestSupport
import Testing

@testable import ModelVersioning

/// One registry and one set of coders (encoder, decoder, migration pass, fixture suite), shared
/// by many tasks at once: the registry is an immutable `Sendable` value and every coder is a
/// struct that starts a session of its own per call, so concurrent use must give exactly what
/// one task alone gives. `.ci/tsan.sh` runs this suite under ThreadSanitizer.
@Suite("Concurrency")
struct ConcurrencyTests {
    /// One unit of work and the bytes it must produce.
    struct Job: Sendable {
        var name: String
        var work: @Sendable () throws -> Data
    }

    /// Everything the tasks share.
    struct Shared: Sendable {
        let sketchRegistry: ModelRegistry
        let decoder: ArchiveDecoder
        let encoders: [ArchiveEncoder]
        let pass: MigrationPass
        let shapesDecoder: ArchiveDecoder
        let suite: FixtureSuite
    }

    static func makeShared() throws -> Shared {
        let registry = try SketchRegistry.registry()
        return Shared(
            sketchRegistry: registry,
            decoder: ArchiveDecoder(registry: registry),
            encoders: ArchiveFormat.allCases.map { ArchiveEncoder(format: $0, registry: registry) },
            pass: MigrationPass(catalog: registry.catalog),
            shapesDecoder: ArchiveDecoder(registry: shapesRegistry),
            suite: FixtureSuite(directory: Fixture.url("archives"), registry: registry, recordsGoldens: false))
    }

    /// The Sketch fixtures of every app version: decoded into today's Drawing and encoded again
    /// in every format; upgraded by the migration pass alone; checked by the fixture suite. And
    /// the polymorphic shapes encoded and decoded in every format.
    static func jobs(_ shared: Shared) throws -> [Job] {
        var jobs: [Job] = []
        let json = ArchiveEncoder(format: .json, registry: shared.sketchRegistry)
        for fixture in try shared.suite.fixtures() {
            let data = try Data(contentsOf: fixture.url)
            for encoder in shared.encoders {
                jobs.append(
                    Job(name: "\(fixture.path) → Drawing → \(encoder.format)") {
                        try encoder.encode(try shared.decoder.decode(SketchModel.Drawing.self, from: data))
                    })
            }
            jobs.append(
                Job(name: "\(fixture.path) upgraded") {
                    var tree = try ArchiveFormat.read(data).0
                    try shared.pass.upgrade(&tree)
                    return try ArchiveFormat.json.write(tree)
                })
            jobs.append(
                Job(name: "\(fixture.path) checked") {
                    let result = shared.suite.check(fixture)
                    return Data("\(result.outcome)".utf8)
                })
            jobs.append(
                Job(name: "\(fixture.path) report") {
                    let (drawing, report) = try shared.decoder.decodeWithReport(SketchModel.Drawing.self, from: data)
                    return try json.encode(drawing) + Data(report.description.utf8)
                })
        }
        // Model instances are not Sendable: each job builds its own.
        @Sendable func contents() -> Contents {
            Contents(shapes: [
                Circle(center: Point(x: 1, y: 2), radius: 3),
                RoundedRectangle(origin: Point(x: 4, y: 5), size: Size(width: 6, height: 7), cornerRadius: 8),
                Rectangle(origin: Point(x: -1, y: 0), size: Size(width: 2.5, height: 1e-3)),
            ])
        }
        for format in ArchiveFormat.allCases {
            let encoder = ArchiveEncoder(format: format, registry: shapesRegistry)
            jobs.append(
                Job(name: "polymorphic shapes in \(format)") {
                    let decoded = try shared.shapesDecoder.decode(Contents.self, from: try encoder.encode(contents()))
                    return try ArchiveFormat.json.write(try ArchiveEncoder().encodeTree(decoded))
                })
        }
        return jobs
    }

    @Test("32 tasks sharing one registry and one set of coders get exactly what one task gets")
    func sharedCoders() async throws {
        let shared = try Self.makeShared()
        let jobs = try Self.jobs(shared)
        #expect(jobs.count > 60)
        // What one task alone gets.
        let expected = try jobs.map { try $0.work() }
        let mismatches = await withTaskGroup(of: [String].self) { group in
            for task in 0..<32 {
                group.addTask {
                    var mismatches: [String] = []
                    // Each task runs every job, starting at a different one, so different jobs
                    // overlap in time.
                    for offset in jobs.indices {
                        let index = (offset + task * 7) % jobs.count
                        do {
                            let result = try jobs[index].work()
                            if result != expected[index] { mismatches.append("task \(task): \(jobs[index].name)") }
                        } catch {
                            mismatches.append("task \(task): \(jobs[index].name) threw \(error)")
                        }
                    }
                    return mismatches
                }
            }
            var all: [String] = []
            for await found in group { all += found }
            return all
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("registries built by many tasks at once are all the same")
    func registriesBuiltConcurrently() async throws {
        let names = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let registry = try SketchRegistry.registry()
                    return registry.types.map { "\($0)" } + registry.catalog.types.map(\.typeName)
                }
            }
            var all: [[String]] = []
            for try await found in group { all.append(found) }
            return all
        }
        #expect(Set(names.map { $0.joined(separator: ",") }).count == 1)
    }
}
