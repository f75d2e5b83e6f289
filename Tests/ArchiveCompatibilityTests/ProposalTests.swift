import ArchiveCompatibility
import Foundation
import MigrationRules
import ModelVersioning
import Testing

@Suite("Migration proposals for changes without a version bump")
struct ProposalTests {
    static func property(_ name: String, _ type: String, optional: Bool = false, values: [ArchiveValue]? = nil)
        -> ModelSchema.Property
    {
        ModelSchema.Property(name: name, type: type, optional: optional, behavior: .unconditional, values: values)
    }

    static let frame = ModelSchema.NestedType(
        name: "Frame", kind: .struct,
        properties: [property("x", "Double"), property("y", "Double"), property("width", "Double")])
    static let kind = ModelSchema.NestedType(
        name: "ModelKind", kind: .enum,
        cases: [.init(name: "photo", value: "photo"), .init(name: "drawing", value: "drawing")])

    /// The snapshot: Model v3 `{name, rect: Frame, kind: ModelKind, para: Int (always 0)}`.
    static let snapshot = ModelSchema(
        typeName: "Model", version: 3,
        properties: [
            property("name", "String"), property("rect", "Frame"), property("kind", "ModelKind"),
            property("para", "Int", values: [0]),
        ], nestedTypes: [frame, kind])

    func proposal(_ edit: (inout ModelSchema) -> Void) -> MigrationProposal {
        var today = Self.snapshot
        edit(&today)
        return MigrationProposal(
            typeName: "Model", version: 3, changes: today.changes(from: Self.snapshot), old: Self.snapshot, new: today)
    }

    @Test("a key added to a nested type: add, scoped to the nested value, with a default to fill in")
    func addedNestedKey() {
        let proposal = proposal { $0.nestedTypes[0].properties.append(Self.property("depth", "Double")) }
        #expect(proposal.fromVersion == 3 && proposal.toVersion == 4)
        #expect(
            proposal.swiftStep == """
                MigrationStep(
                    from: 3, to: 4, name: "Frame.depth added",
                    rules: [
                        .scoped("rect", [.add("depth", default: <#TODO: a Double#>)]),
                    ])
                """)
        #expect(
            proposal.rulesFileStep == """
                { "from": 3, "to": 4, "name": "Frame.depth added",
                  "rules": [
                    { "scope": "rect", "rules": [
                      { "add": "depth", "TODO": "default: a Double" }
                    ] }
                  ] }
                """)
        #expect(proposal.hasPlaceholders)
    }

    @Test("a removed key restores the one value its snapshot allows; an optional key needs none")
    func removedKeys() {
        let proposal = proposal { schema in
            schema.properties.removeLast()
            schema.properties.append(Self.property("note", "String", optional: true))
        }
        #expect(proposal.swiftStep.contains(#".remove("para", restoring: 0),"#))
        #expect(proposal.swiftStep.contains(#".add("note", default: nil),"#))
        #expect(!proposal.hasPlaceholders)
        #expect(proposal.rulesFileStep.contains(#"{ "remove": "para", "restoring": 0 }"#))
        #expect(proposal.rulesFileStep.contains(#"{ "add": "note", "default": null }"#))
    }

    @Test("a key removed and one of the same type added is offered as a choice, never applied as a rename")
    func likelyRename() {
        let proposal = proposal { $0.properties[0].name = "title" }
        let swift = proposal.swiftStep
        #expect(swift.contains("<#TODO: 'name' was removed and 'title' (String) added: a rename?"))
        #expect(swift.contains(#".rename("name", to: "title"),"#))
        #expect(swift.contains(#".remove("name", restoring: <#TODO: a String#>),"#))
        #expect(swift.contains(#".add("title", default: <#TODO: a String#>),"#))
        #expect(proposal.rulesFileStep.contains(#"{ "TODO": "'name' was removed and 'title' (String) added"#))
    }

    @Test("a changed type converts with the matching converter")
    func changedTypes() {
        let float = proposal { $0.nestedTypes[0].properties[0].type = "Float" }
        #expect(float.swiftStep.contains(#".scoped("rect", [.convert("x", .doubleToFloat)]),"#))
        #expect(float.rulesFileStep.contains(#"{ "convert": "x", "using": "doubleToFloat" }"#))
        let double = proposal { $0.properties[3].type = "Double" }
        #expect(double.swiftStep.contains(#".convert("para", .intToDouble),"#))
        let text = proposal { $0.properties[3].type = "String" }
        #expect(text.swiftStep.contains(#".convert("para", .intToString),"#))
        let date = proposal { $0.properties[0].type = "Date" }
        #expect(date.swiftStep.contains(#".convert("name", .date(format: <#TODO"#))
        let other = proposal { $0.properties[0].type = "[Frame]" }
        #expect(other.swiftStep.contains(#".convert("name", <#TODO: a ValueConverter from String to [Frame]"#))
    }

    @Test("a case added to an enum keeps the old cases as they are; a case removed maps its old value to one to choose")
    func enumCases() {
        let added = proposal { $0.nestedTypes[1].cases.append(.init(name: "sketch", value: "sketch")) }
        #expect(added.swiftStep.contains(#".convert("kind", .map(["photo": "photo", "drawing": "drawing"])),"#))
        #expect(added.notes.first?.contains(#"ModelKind gained sketch ("sketch")"#) == true)
        let renamed = proposal { $0.nestedTypes[1].cases[1] = .init(name: "painting", value: "painting") }
        #expect(
            renamed.swiftStep.contains(
                #".convert("kind", .map(["photo": "photo", "drawing": <#TODO: what drawing becomes ("painting"?)#>])),"#
            ))
        #expect(renamed.rulesFileStep.contains(#""map": [["photo", "photo"]], "TODO": "add to the map: "#))
    }

    @Test("a rules-file step with a TODO does not load; filled in, it does and migrates")
    func rulesFileTODORefused() throws {
        let proposal = proposal { $0.nestedTypes[0].properties.append(Self.property("depth", "Double")) }
        func rules(_ step: String) -> String {
            #"{"formatVersion": 1, "types": {"Model": {"currentVersion": 4, "steps": ["# + step + "]}}}"
        }
        let pending = try ArchiveFormat.json.read(
            Data(rules(proposal.rulesFile(command: "app-migrate check")).utf8),
            options: ArchiveReadingOptions(markup: .plain))
        #expect(throws: ArchiveError.self) { try MigrationCatalog(rulesFile: pending, fileName: "rules.json") }
        do {
            _ = try MigrationCatalog(rulesFile: pending, fileName: "rules.json")
        } catch let error as ArchiveError {
            #expect(error.code == .invalidRules)
            #expect("\(error)".contains("unknown key 'TODO'"))
        }
        let filled = proposal.rulesFileStep.replacingOccurrences(
            of: #""TODO": "default: a Double""#, with: #""default": 0.0"#)
        let catalog = try MigrationCatalog(
            rulesFile: try ArchiveFormat.json.read(
                Data(rules(filled).utf8), options: ArchiveReadingOptions(markup: .plain)),
            fileName: "rules.json")
        var tree: ArchiveValue = .object(
            ArchiveObject(typeName: "Model", version: 3, fields: ["rect": ["x": 1.0, "y": 2.0, "width": 3.0]]))
        try MigrationPass(catalog: catalog).upgrade(&tree)
        #expect(tree["rect"]?["depth"] == 0.0)
    }

    @Test("the step for a case added upgrades old archives unchanged and refuses to write a new case for them")
    func enumCaseAddedStepIsHonest() throws {
        let proposal = proposal { $0.nestedTypes[1].cases.append(.init(name: "sketch", value: "sketch")) }
        #expect(!proposal.rulesFileStep.contains("TODO"))
        let rules =
            #"{"formatVersion": 1, "types": {"Model": {"currentVersion": 4, "steps": ["# + proposal.rulesFileStep
            + "]}}}"
        let catalog = try MigrationCatalog(
            rulesFile: try ArchiveFormat.json.read(Data(rules.utf8), options: ArchiveReadingOptions(markup: .plain)),
            fileName: "rules.json")
        let pass = MigrationPass(catalog: catalog)
        var old: ArchiveValue = .object(ArchiveObject(typeName: "Model", version: 3, fields: ["kind": "drawing"]))
        try pass.upgrade(&old)
        #expect(old["kind"] == "drawing")
        var sketch: ArchiveValue = .object(ArchiveObject(typeName: "Model", version: 4, fields: ["kind": "sketch"]))
        #expect {
            try pass.downgrade(&sketch, to: DowngradeTarget(typeVersions: ["Model": 3]))
        } throws: { error in
            (error as? ArchiveError)?.code == .migrationFailed && (error as? ArchiveError)?.path.description == "kind"
        }
    }

    @Test("the written Swift file says what to do around the step")
    func swiftFile() {
        let proposal = proposal { $0.nestedTypes[0].properties.append(Self.property("depth", "Double")) }
        let file = proposal.swiftFile(command: "sketch-migrate check")
        #expect(
            file.hasPrefix(
                "// Proposed by `sketch-migrate check` for Model v3 → v4, because of:\n//   + rect: Frame.depth: Double\n"
            ))
        #expect(file.contains("Raise Model's modelVersion to 4 and append the step to its migrationSteps."))
        #expect(file.contains("let proposedModelV4 = MigrationStep("))
        #expect(proposal.fileName == "Model-v4")
    }
}
