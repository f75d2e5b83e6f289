import Foundation

/// Types whose `init(from:)` reads archived objects and references themselves (property
/// wrappers that resolve types or identities), so the decoder hands them the node as it is.
protocol DecodesArchivedObjectsItself {}
