/// How readers treat the reserved `$` keys of the archive format (see the article *The archive format* of ModelVersioning).
public enum MarkupMode: Sendable, Hashable {
    /// Read the markup when the top-level value is a dictionary whose first key is `$archive` or
    /// `$type`; read every other document literally.
    case automatic
    /// Always read the markup.
    case archive
    /// Never read the markup: every key is taken literally.
    case plain
}
