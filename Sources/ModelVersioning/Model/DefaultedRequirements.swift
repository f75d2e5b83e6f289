import Foundation

/// Which of a model type's static requirements it takes from ``VersionedModel``'s default
/// implementations instead of declaring them: what the registry asks of a class whose superclass
/// is a model too.
///
/// Swift reads a class's static requirements through the conformance of the class that declared
/// it, so a subclass's `static let archiveTypeAliases` is never read unless that class declares
/// the requirement itself (as a `class var` the subclass overrides). The defaults note that they
/// answered while ``requirements(takenBy:)`` asks; nothing else pays more than one task-local read.
enum DefaultedRequirements {
    /// The static requirements, as their declarations spell them.
    static let all = [
        "archiveTypeName", "archiveTypeAliases", "modelVersion", "migrationSteps", "unversionedVersion",
        "encodingBehaviors", "allowedTypes", "downgradeFallback",
    ]

    /// What a base class declares for each requirement when it has no value of its own.
    static let declarations = [
        "archiveTypeName": "class var archiveTypeName: String { String(describing: self) }",
        "archiveTypeAliases": "class var archiveTypeAliases: [String] { [] }",
        "modelVersion": "class var modelVersion: Int { 1 }",
        "migrationSteps": "class var migrationSteps: [MigrationStep] { [] }",
        "unversionedVersion": "class var unversionedVersion: Int? { nil }",
        "encodingBehaviors": "class var encodingBehaviors: [String: EncodingBehavior] { [:] }",
        "allowedTypes": "class var allowedTypes: [String: [any VersionedModel.Type]] { [:] }",
        "downgradeFallback": "class var downgradeFallback: DowngradeFallback? { nil }",
    ]

    /// Collects the names of the defaults that answered.
    final class Recorder: @unchecked Sendable {
        // @unchecked Sendable: `names`, its only state, is read and written under `lock`.
        private let lock = NSLock()
        private var names: [String] = []

        func note(_ name: String) {
            lock.lock()
            defer { lock.unlock() }
            if !names.contains(name) { names.append(name) }
        }

        var noted: [String] {
            lock.lock()
            defer { lock.unlock() }
            return names
        }
    }

    @TaskLocal static var recorder: Recorder?

    /// Called by each default implementation.
    @inline(__always)
    static func note(_ name: String) {
        recorder?.note(name)
    }

    /// The static requirements `type` takes from the defaults, in the order of ``all``.
    static func requirements(takenBy type: any VersionedModel.Type) -> [String] {
        let recorder = Recorder()
        $recorder.withValue(recorder) {
            _ = type.archiveTypeName
            _ = type.archiveTypeAliases
            _ = type.modelVersion
            _ = type.migrationSteps
            _ = type.unversionedVersion
            _ = type.encodingBehaviors
            _ = type.allowedTypes
            _ = type.downgradeFallback
        }
        let noted = recorder.noted
        return all.filter(noted.contains)
    }

    /// The superclass of `type` that is a model too, if `type` is such a subclass.
    static func modelSuperclass(of type: any VersionedModel.Type) -> (any VersionedModel.Type)? {
        guard let someClass = type as? AnyClass, let superclass = _getSuperclass(someClass) else { return nil }
        return superclass as? any VersionedModel.Type
    }

    /// The class whose conformance `type` inherits: its topmost superclass that is a model.
    static func conformingClass(of type: any VersionedModel.Type) -> any VersionedModel.Type {
        var current = type
        while let superclass = modelSuperclass(of: current) { current = superclass }
        return current
    }
}
