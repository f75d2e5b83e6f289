/// One shipped version of an app and exactly what it wrote: its document version and, for every
/// type the app has today, the version (and name) it archived it at — or that it did not have
/// the type yet.
///
/// An app declares its releases once, oldest first, in Swift (``ReleaseManifest``) or in its
/// rules file (`"releases"`), and a downgrade to a release takes every object to that release's
/// versions in one step:
///
/// ```swift
/// let releases = ReleaseManifest(document: "Sketch", releases: [
///     AppRelease("1.0", documentVersion: 1, types: [
///         "Drawing": 1, "Circle": 1, "Rectangle": .version(1, archivedAs: "Rect"), "RoundedRectangle": .absent,
///     ]),
///     AppRelease("2.0", documentVersion: 2, types: ["Drawing": 2, "Circle": 3, "Rectangle": 2, "RoundedRectangle": 1]),
/// ])
/// ```
///
/// Type names are today's names (the chains' ``TypeMigrations/typeName``).
public struct AppRelease: Sendable, Hashable {
    /// How a release archived one type.
    public enum ArchivedType: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        /// The release did not have the type: its archives hold no such object.
        case absent
        /// The release archived the type at `version`, under the name `archivedAs` (`nil`: the
        /// name the type's chain gives it at that version, following its
        /// ``MigrationRule/renameType(from:to:)`` rules).
        case version(Int, archivedAs: String? = nil)

        /// `"Circle": 2` in a release's type table.
        public init(integerLiteral version: Int) {
            self = .version(version)
        }

        /// The version, or `nil` for ``absent``.
        public var version: Int? {
            if case .version(let version, _) = self { return version }
            return nil
        }

        /// The name the release archived the type under, when declared.
        public var archivedName: String? {
            if case .version(_, let name) = self { return name }
            return nil
        }

        /// `v2`, `v1 as Rect`, `absent`.
        public var description: String {
            switch self {
            case .absent: return "absent"
            case .version(let version, let name): return "v\(version)" + (name.map { " as \($0)" } ?? "")
            }
        }
    }

    /// The release's name as users know it (`"1.0"`).
    public var name: String
    /// The document version it wrote; `nil` when the app has no document chain.
    public var documentVersion: Int?
    /// How it archived each of today's types, by today's type name.
    public var types: [String: ArchivedType]
    /// The keys the release wrote each type's objects with, in the order it wrote them, by
    /// today's type name; a dotted name orders the keys of a nested dictionary (`meta.author`).
    ///
    /// A downgrade to the release writes each object's keys in this order, so that an archive
    /// the release wrote, upgraded and taken back down, is the very file it wrote. Types without
    /// an order keep the order their inverse rules leave (the same values, not always the same
    /// bytes). Keys an object holds that the order does not list follow the listed ones, as
    /// they were.
    ///
    /// ```swift
    /// AppRelease("1.0", documentVersion: 1, types: ["Rectangle": .version(1, archivedAs: "Rect")],
    ///            keyOrders: ["Rectangle": ["x", "y", "w", "h", "style"]])
    /// ```
    public var keyOrders: [String: [String]]
    /// Other names the release archived some objects of a type under, by today's type name:
    /// aliases its models read (a type's ``TypeMigrations/aliases``), such as the Objective-C
    /// class name release 1.1 of the sample app wrote for pasted rectangles and not for others.
    ///
    /// An upgrade keeps the name each such object was archived under (in its `$archivedAs`
    /// field), and a downgrade to a release that lists the name writes it again, so that the
    /// release's own archive comes back byte for byte. A release that does not list it gets the
    /// type's own name (its models may not read the alias).
    ///
    /// ```swift
    /// AppRelease("1.1", documentVersion: 2, types: ["Rectangle": .version(1, archivedAs: "Rect")],
    ///            aliases: ["Rectangle": ["SketchApp.Rect"]])
    /// ```
    public var aliases: [String: [String]]

    /// Creates a release.
    public init(
        _ name: String, documentVersion: Int? = nil, types: [String: ArchivedType], keyOrders: [String: [String]] = [:],
        aliases: [String: [String]] = [:]
    ) {
        self.name = name
        self.documentVersion = documentVersion
        self.types = types
        self.keyOrders = keyOrders
        self.aliases = aliases
    }
}

/// An app's shipped releases, oldest first: what each one wrote, so that a downgrade writes
/// exactly what a named release reads (``MigrationPass/downgrade(_:to:document:)``, with
/// ``DowngradeTarget/init(release:droppingAbsentTypes:)``).
///
/// The catalog validates the manifest against its chains when it is built: every type of the
/// catalog is listed in every release, every version exists in its chain, versions never go
/// down from one release to the next (a type may appear, never disappear), and the last release
/// is today: the document's and every type's current version.
public struct ReleaseManifest: Sendable, Hashable {
    /// The document chain the releases' document versions belong to; `nil` when the app has
    /// none.
    public var document: String?
    /// The releases, oldest first.
    public var releases: [AppRelease]

    /// Creates a manifest.
    public init(document: String? = nil, releases: [AppRelease]) {
        self.document = document
        self.releases = releases
    }

    /// The release named `name` (`"1.1"`).
    public func release(named name: String) -> AppRelease? {
        releases.first { $0.name == name }
    }

    /// The release that wrote document version `version`; the newest when several share it.
    public func release(documentVersion version: Int) -> AppRelease? {
        releases.last { $0.documentVersion == version }
    }

    /// The release `text` names: a release name, or a document version (`"1"`).
    public func release(matching text: String) -> AppRelease? {
        if let release = release(named: text) { return release }
        return Int(text).flatMap { release(documentVersion: $0) }
    }
}
