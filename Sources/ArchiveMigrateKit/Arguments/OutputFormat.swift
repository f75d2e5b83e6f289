/// What `--format` selects: how a command prints its results.
enum OutputFormat: String, Sendable, CaseIterable {
    /// Lines for people (the default).
    case text
    /// One JSON document for scripts.
    case json
    /// GitHub Actions workflow annotations (`check` only).
    case github
}
