import Foundation
import MigrationRules
import ModelVersioning
import SketchModel
import TestSupport
import Testing

@testable import ArchiveCompatibility

// Chains with a planted broken inverse, and their snapshots.

/// v1 `{label, level, reserved}` with `reserved` always 0; v2 drops it but restores the wrong value.
final class Gauge: VersionedModel {
    var label: String
    var level: Double
    static let modelVersion = 2
    static let migrationSteps = [
        MigrationStep(from: 1, to: 2, name: "reserved dropped", rules: [.remove("reserved", restoring: 1)])
    ]

    static let v1 = ModelSchema(
        typeName: "Gauge", version: 1,
        properties: [
            .init(name: "label", type: "String", optional: false, behavior: .unconditional),
            .init(name: "level", type: "Double", optional: false, behavior: .unconditional),
            .init(name: "reserved", type: "Int", optional: false, behavior: .unconditional, values: [0]),
        ])
}

/// v1 counts whole items; v2 counts fractions, and its downgrade truncates: an inverse that loses
/// precision, which only today's objects (`2.5`) expose.
final class Meter: VersionedModel {
    var count: Double
    static let modelVersion = 2
    static let migrationSteps = [
        MigrationStep(
            from: 1, to: 2, name: "fractional counts",
            rules: [
                .convert(
                    "count",
                    .custom(
                        name: "widen", forward: { .double($0.doubleValue ?? 0) },
                        inverse: { value in
                            let whole = (value.doubleValue ?? 0).rounded(.towardZero)
                            return abs(whole) < 9e18 ? .int(Int64(whole)) : .double(whole)
                        }))
            ])
    ]

    static let v1 = ModelSchema(
        typeName: "Meter", version: 1,
        properties: [.init(name: "count", type: "Int32", optional: false, behavior: .unconditional)])
}

/// v1 `{label, reserved}` with `reserved` always 0; v2 drops it and declares the step's inverse
/// as a whole (`inverseRules`), putting back the wrong value.
final class Valve: VersionedModel {
    var label: String
    static let modelVersion = 2
    static let migrationSteps = [
        MigrationStep(
            from: 1, to: 2, name: "reserved dropped", rules: [.remove("reserved")],
            inverseRules: [.add("reserved", default: 1)])
    ]

    static let v1 = ModelSchema(
        typeName: "Valve", version: 1,
        properties: [
            .init(name: "label", type: "String", optional: false, behavior: .unconditional),
            .init(name: "reserved", type: "Int", optional: false, behavior: .unconditional, values: [0]),
        ])
}

/// A chain without an inverse: the round trips are skipped, the upgrade is still checked.
struct Ticket: VersionedModel {
    var title: String
    static let modelVersion = 2
    static let migrationSteps = [MigrationStep(from: 1, to: 2, rules: [.remove("legacy")])]

    static let v1 = ModelSchema(
        typeName: "Ticket", version: 1,
        properties: [
            .init(name: "title", type: "String", optional: false, behavior: .unconditional),
            .init(name: "legacy", type: "Bool", optional: false, behavior: .unconditional),
        ])
}

/// v2 narrowed `level` to a `Float` and forgot the conversion: old archives with numbers beyond
/// `Float`'s range no longer open. Holds a model (`Style`) whose shape shrinking must keep.
struct Dial: VersionedModel {
    var level: Float
    var style: Style
    static let modelVersion = 2
    static let migrationSteps = [MigrationStep(from: 1, to: 2, name: "level narrowed", rules: [])]

    static let v1 = ModelSchema(
        typeName: "Dial", version: 1,
        properties: [
            .init(name: "level", type: "Double", optional: false, behavior: .unconditional),
            .init(name: "style", type: "Style", optional: false, behavior: .unconditional),
        ])
}

@Suite("Migration laws on generated objects")
struct MigrationLawTests {
    static let schemas = SchemaStore(directory: Fixture.url("schemas"))

    /// A scratch snapshot folder with `snapshots` and today's snapshot of each type.
    func store(_ types: [any VersionedModel.Type], _ snapshots: [ModelSchema]) throws -> (ScratchFolder, SchemaStore) {
        let scratch = try ScratchFolder()
        let store = SchemaStore(directory: scratch.url)
        for schema in snapshots { try store.record(schema) }
        for type in types { try store.record(try ModelSchema(of: type)) }
        return (scratch, store)
    }

    @Test("the Sketch app's chains keep every law, with its Swift types and with its rules file alone")
    func sketchKeepsTheLaws() throws {
        let options = LawOptions(objectsPerVersion: 60)
        let app = MigrationLaws(registry: try SketchRegistry.registry(), schemas: Self.schemas, options: options).run()
        #expect(app.failures.isEmpty, "\(app)")
        #expect(app.results.map(\.subject).contains("Model v1 → v3"))
        #expect(
            app.results.allSatisfy { if case .skipped = $0.outcome { return false } else { return true } }, "\(app)")
        // 6 types today, 9 older versions: 60 objects each.
        #expect(app.objectCount == 15 * 60)
        #expect(app.runCount == 6 * 60 + 9 * 120)
        let rules = MigrationLaws(
            catalog: try Fixture.rules("archives/rules.json"), schemas: Self.schemas, options: options
        ).run()
        #expect(rules.failures.isEmpty, "\(rules)")
        #expect(
            rules.summary.hasPrefix("laws: 6 types, 15 versions, 60 generated objects per type and version (900 in all")
        )
    }

    @Test("a wrong restore value is found, shrunk, and named with its step and rule")
    func wrongRestoreValue() throws {
        let (scratch, store) = try store([Gauge.self], [Gauge.v1])
        _ = scratch
        let report = MigrationLaws(registry: try ModelRegistry([Gauge.self]), schemas: store).run()
        let failure = try #require(report.failures.first)
        guard case .failed(let violation) = failure.outcome else { return }
        #expect(failure.subject == "Gauge v1 → v2")
        #expect(violation.law == .upgradeThenDowngrade)
        #expect(violation.step == "Gauge v1 → v2 (reserved dropped)")
        #expect(violation.rule == "remove(reserved, restoring 1)")
        #expect(violation.details == ["~ reserved: 0 → 1"])
        // Shrunk: the smallest object there is.
        #expect(
            violation.counterexample
                == .object(
                    ArchiveObject(typeName: "Gauge", version: 1, fields: ["label": "", "level": 0.0, "reserved": 0])))
        let lines = violation.lines(replay: "app-migrate check")
        #expect(
            lines.first
                == "upgrading then downgrading does not give the original for Gauge v1, at Gauge v1 → v2 (reserved dropped), rule remove(reserved, restoring 1):"
        )
        #expect(lines.contains(#"  {"$type":"Gauge","$version":1,"label":"","level":0.0,"reserved":0}"#))
        #expect(lines.last == "replay: app-migrate check --seed 1")
    }

    @Test("a number shrinks to the edge of the range that breaks the law, and models inside keep their shape")
    func shrinksToTheEdge() throws {
        let (scratch, store) = try store([Dial.self, Style.self], [Dial.v1])
        _ = scratch
        let report = MigrationLaws(registry: try ModelRegistry([Dial.self, Style.self]), schemas: store).run()
        let failure = try #require(report.failures.first, "\(report)")
        guard case .failed(let violation) = failure.outcome else { return }
        #expect(failure.subject == "Dial v1 → v2")
        #expect(violation.law == .decodesToday)
        #expect(violation.details.count == 1 && violation.details[0].contains("does not fit in Float at level"))
        // The smallest power of two beyond Float's range, found in a few steps from ~1e300.
        let level = try #require(violation.counterexample["level"]?.doubleValue)
        #expect(level == Double(sign: .plus, exponent: 128, significand: 1) || level == -0x1p128)
        // The Style inside is still a whole Style v2: shrinking never drops a key its snapshot requires.
        let style = try #require(violation.counterexample["style"]?.objectValue)
        #expect(Set(style.fields.keys) == ["stroke", "width"])
    }

    @Test("a step's declared inverse is checked as a whole, and a wrong one names the step")
    func declaredInverse() throws {
        let (scratch, store) = try store([Valve.self], [Valve.v1])
        _ = scratch
        let report = MigrationLaws(registry: try ModelRegistry([Valve.self]), schemas: store).run()
        let failure = try #require(report.failures.first, "\(report)")
        guard case .failed(let violation) = failure.outcome else { return }
        #expect(failure.subject == "Valve v1 → v2")
        #expect(violation.law == .upgradeThenDowngrade)
        #expect(violation.step == "Valve v1 → v2 (reserved dropped)")
        #expect(violation.rule == nil)
        #expect(violation.details == ["~ reserved: 0 → 1"])
    }

    @Test("the same seed replays the same counterexample; another seed finds the break too")
    func replayFromSeed() throws {
        let (scratch, store) = try store([Meter.self], [Meter.v1])
        _ = scratch
        let registry = try ModelRegistry([Meter.self])
        func violation(seed: UInt64) throws -> LawViolation {
            let report = MigrationLaws(registry: registry, schemas: store, options: LawOptions(seed: seed)).run()
            let failure = try #require(report.failures.first, "\(report)")
            guard case .failed(let violation) = failure.outcome else { throw CancellationError() }
            return violation
        }
        let first = try violation(seed: 7)
        let again = try violation(seed: 7)
        #expect(first == again)
        #expect(first.seed == 7)
        // An inverse that loses precision: only today's objects (fractions) show it.
        #expect(first.law == .downgradeThenUpgrade)
        #expect(first.rule == "convert(count: widen)")
        #expect(first.details.count == 1 && first.details[0].hasPrefix("~ count: "))
        // Shrunk to a fraction alone: the digits before the point play no part.
        let count = try #require(first.counterexample["count"]?.doubleValue)
        #expect(abs(count) < 1 && count != 0, "\(first.counterexample)")
        let other = try violation(seed: 8)
        #expect(other.rule == first.rule)
    }

    @Test("a broken inverse in a rules file is found without any Swift type")
    func brokenRulesFile() throws {
        let text = String(decoding: try Fixture.data("archives/rules.json"), as: UTF8.self)
        let broken = text.replacingOccurrences(
            of: #""remove": "para", "restoring": 0"#, with: #""remove": "para", "restoring": 1"#)
        #expect(broken != text)
        let catalog = try MigrationCatalog(
            rulesFile: try ArchiveFormat.json.read(Data(broken.utf8), options: ArchiveReadingOptions(markup: .plain)),
            fileName: "rules.json")
        let report = MigrationLaws(catalog: catalog, schemas: Self.schemas, options: LawOptions(objectsPerVersion: 40))
            .run()
        #expect(report.failures.map(\.subject) == ["Model v1 → v3", "Model v2 → v3"])
        guard case .failed(let violation) = report.failures.first?.outcome else { return }
        #expect(violation.rule == "remove(para, restoring 1)")
        #expect(violation.details == ["~ para: 0 → 1"])
        #expect(violation.step == "Model v2 → v3 (app 2.0: tags, kind by name)")
    }

    @Test("a step without an inverse skips the round trips and still checks the upgrade")
    func irreversibleStep() throws {
        let (scratch, store) = try store([Ticket.self], [Ticket.v1])
        _ = scratch
        let report = MigrationLaws(registry: try ModelRegistry([Ticket.self]), schemas: store).run()
        #expect(report.failures.isEmpty, "\(report)")
        let older = try #require(report.results.first { $0.version == 1 })
        guard case .passed(let text) = older.outcome else {
            Issue.record("\(report)")
            return
        }
        #expect(text.hasSuffix("round trips skipped: Ticket v1 → v2 has no inverse (rule remove(legacy))"))
    }

    @Test("a version without a snapshot is skipped, saying so")
    func missingSnapshot() throws {
        let (scratch, store) = try store([Ticket.self], [])
        _ = scratch
        let report = MigrationLaws(registry: try ModelRegistry([Ticket.self]), schemas: store).run()
        #expect(
            report.results.last?.outcome
                == .skipped("no snapshot of Ticket v1 to generate objects from (record or write one)"))
    }

    @Test("generated objects hold edge values: empty and non-ASCII strings, integer limits, empty collections")
    func edgeValues() throws {
        let catalog = try Fixture.rules("archives/rules.json")
        let set = SchemaSet(catalog: catalog, store: Self.schemas, today: [])
        var seen: Set<ArchiveValue> = []
        var emptyTags = false
        let chain = try #require(catalog.migrations(forTypeName: "Model"))
        let schema = try #require(set.schema(chain, version: 3))
        for index in 0..<300 {
            var generator = ArchiveGenerator(seed: UInt64(index), schemas: set)
            let object = try generator.object(schema, archivedAs: "Model")
            for key in ["name", "flag"] { if let value = object[key] { seen.insert(value) } }
            if object["tags"] == .array([]) { emptyTags = true }
        }
        #expect(seen.contains(""))
        #expect(seen.contains("東京"))
        #expect(seen.contains(ArchiveValue(UInt64(UInt.max))))
        #expect(seen.contains(0))
        #expect(emptyTags)
    }

    @Test("the fixture suite runs the laws from a test target")
    func fixtureSuiteRunsTheLaws() throws {
        let suite = FixtureSuite(directory: Fixture.url("archives"), registry: try SketchRegistry.registry())
        let laws = suite.checkLaws(schemas: Self.schemas, options: LawOptions(objectsPerVersion: 20))
        #expect(laws.failures.isEmpty, "\(laws)")
        #expect(laws.objectsPerVersion == 20)
    }
}
