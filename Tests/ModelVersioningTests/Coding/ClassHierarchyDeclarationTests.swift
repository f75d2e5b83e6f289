import Foundation
import ModelVersioning
import Testing

// A hierarchy whose base class leaves every requirement to the protocol's defaults: the
// subclass's `static let` compiles and would never be read.

class DefaultedShape: VersionedModel {
    var id = 0
}

final class DefaultedRectangle: DefaultedShape {
    static let archiveTypeAliases = ["Rectangle"]
}

// A base class that declares some requirements as `class var` and leaves the others.

class HalfDeclaredShape: VersionedModel {
    var id = 0
    class var archiveTypeAliases: [String] { [] }
    class var modelVersion: Int { 1 }
    class var migrationSteps: [MigrationStep] { [] }
}

final class HalfDeclaredRectangle: HalfDeclaredShape {
    override class var archiveTypeAliases: [String] { ["Rectangle"] }
}

// The form that works: every static requirement a `class var` of the class that conforms.

class DeclaredShape: VersionedModel {
    var id = 0
    class var archiveTypeName: String { String(describing: self) }
    class var archiveTypeAliases: [String] { [] }
    class var modelVersion: Int { 1 }
    class var migrationSteps: [MigrationStep] { [] }
    class var unversionedVersion: Int? { nil }
    class var encodingBehaviors: [String: EncodingBehavior] { [:] }
    class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }
    class var downgradeFallback: DowngradeFallback? { nil }
}

/// Archived as `Rectangle` v1 by an older app; renamed, and at v2 since.
final class DeclaredBox: DeclaredShape {
    override class var archiveTypeAliases: [String] { ["Rectangle"] }
    override class var modelVersion: Int { 2 }
    override class var migrationSteps: [MigrationStep] {
        [MigrationStep(from: 1, to: 2, rules: [.renameType(from: "Rectangle", to: "DeclaredBox")])]
    }
}

/// A subclass of a subclass: still read through `DeclaredShape`'s conformance.
final class DeclaredSquareBox: DeclaredShape {
    override class var archiveTypeName: String { "Square" }
}

/// A hierarchy's declarations are either read or refused at registration.
@Suite("Class hierarchies cannot be declared wrong silently")
struct ClassHierarchyDeclarationTests {
    @Test("a subclass of a base class that takes the defaults is refused, naming every declaration to add")
    func defaultsRefused() throws {
        for types in [[DefaultedShape.self, DefaultedRectangle.self], [DefaultedRectangle.self]]
            as [[any VersionedModel.Type]]
        {
            let error = try #require(
                throws: ArchiveError.self, "\(types)", performing: { try ModelRegistry(types) })
            #expect(error.code == .invalidChain)
            #expect(error.typeName == "DefaultedRectangle")
            #expect(
                error.message
                    == "DefaultedRectangle is a subclass of DefaultedShape, and DefaultedShape's conformance to "
                    + "VersionedModel takes the default archiveTypeName, archiveTypeAliases, modelVersion, "
                    + "migrationSteps, unversionedVersion, encodingBehaviors, allowedTypes and downgradeFallback: "
                    + "Swift reads DefaultedRectangle's static requirements through that conformance, so a `static let` "
                    + "of them in DefaultedRectangle would never be read. Declare them in DefaultedShape: "
                    + "class var archiveTypeName: String { String(describing: self) }; "
                    + "class var archiveTypeAliases: [String] { [] }; class var modelVersion: Int { 1 }; "
                    + "class var migrationSteps: [MigrationStep] { [] }; class var unversionedVersion: Int? { nil }; "
                    + "class var encodingBehaviors: [String: EncodingBehavior] { [:] }; "
                    + "class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }; "
                    + "class var downgradeFallback: DowngradeFallback? { nil }; and override them in the subclasses "
                    + "that differ (`override class var`)")
        }
        // The base class alone is no hierarchy: nothing can hide under its defaults.
        #expect(try ModelRegistry([DefaultedShape.self]).types.count == 1)
    }

    @Test("a base class that declares some requirements is asked for exactly the others")
    func halfDeclared() throws {
        let error = try #require(throws: ArchiveError.self) {
            try ModelRegistry([HalfDeclaredShape.self, HalfDeclaredRectangle.self])
        }
        #expect(
            error.message.hasPrefix(
                "HalfDeclaredRectangle is a subclass of HalfDeclaredShape, and HalfDeclaredShape's conformance to "
                    + "VersionedModel takes the default archiveTypeName, unversionedVersion, encodingBehaviors, "
                    + "allowedTypes and downgradeFallback: "))
    }

    @Test("declared as class vars, a subclass's alias is read: an archive of the old class name opens")
    func declaredHierarchy() throws {
        let registry = try ModelRegistry([DeclaredShape.self, DeclaredBox.self, DeclaredSquareBox.self])
        #expect(registry.type(named: "Rectangle") == DeclaredBox.self)
        #expect(registry.type(named: "Square") == DeclaredSquareBox.self)
        #expect(registry.type(named: "DeclaredShape") == DeclaredShape.self)
        let old = Data(#"{"$type": "Rectangle", "$version": 1, "id": 7}"#.utf8)
        let box = try ArchiveDecoder(registry: registry).decode(DeclaredShape.self, from: old)
        #expect(box is DeclaredBox && box.id == 7)
        let written = try ArchiveEncoder().encodeValue(box)
        #expect(written.objectValue?.typeName == "DeclaredBox" && written.objectValue?.version == 2)
    }

    @Test("structs and classes without a model superclass are unaffected")
    func plainModels() throws {
        struct Point: VersionedModel { var x = 0.0 }
        final class Note: VersionedModel { var text = "" }
        #expect(try ModelRegistry([Point.self, Note.self]).types.count == 2)
    }
}
