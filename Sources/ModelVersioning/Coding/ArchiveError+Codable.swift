import Foundation

extension ArchiveError {
    /// Wraps an `EncodingError` thrown by a model's own `encode(to:)`.
    init(_ error: EncodingError) {
        switch error {
        case .invalidValue(_, let context):
            self.init(
                .invalidValue, context.debugDescription, path: ArchivePath(codingPath: context.codingPath),
                underlyingError: error)
        @unknown default:
            self.init(.invalidValue, "the value could not be encoded", underlyingError: error)
        }
    }

    /// Wraps a `DecodingError` thrown by a model's own `init(from:)`.
    init(_ error: DecodingError) {
        switch error {
        case .typeMismatch(_, let context):
            self.init(.typeMismatch, context.debugDescription, path: ArchivePath(codingPath: context.codingPath))
        case .valueNotFound(_, let context):
            self.init(.valueNotFound, context.debugDescription, path: ArchivePath(codingPath: context.codingPath))
        case .keyNotFound(let key, let context):
            self.init(
                .keyNotFound, "key '\(key.stringValue)' is missing",
                path: ArchivePath(codingPath: context.codingPath + [key]))
        case .dataCorrupted(let context):
            self.init(.dataCorrupted, context.debugDescription, path: ArchivePath(codingPath: context.codingPath))
        @unknown default:
            self.init(.dataCorrupted, "the value could not be decoded")
        }
        underlyingError = error
    }
}
