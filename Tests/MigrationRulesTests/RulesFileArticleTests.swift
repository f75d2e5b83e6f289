import Foundation
import MigrationRules
import Testing

/// The rules-file format is described in one place, the DocC article; these tests keep it in step
/// with the reader's vocabulary.
@Suite("Rules-file article")
struct RulesFileArticleTests {
    static let article = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // MigrationRulesTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Sources/MigrationRules/MigrationRules.docc/RulesFileFormat.md")

    /// The lines of the article's section titled `heading`, up to the next heading.
    static func section(_ heading: String) throws -> [Substring] {
        let lines = try String(contentsOf: article, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("#") && $0.hasSuffix(" " + heading) }) else {
            Issue.record("the article has no section '\(heading)'")
            return []
        }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("#") } ?? rest.endIndex
        return Array(rest[..<end])
    }

    @Test("the article's rules table lists exactly the rule keywords the reader accepts, each with its spelling")
    func everyRuleKeyword() throws {
        let rows = try Self.section("Rules").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| Rule") }
        let listed = rows.compactMap { row -> String? in
            row.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(listed == RulesFile.RuleKeyword.allCases.map(\.rawValue))
        for (row, keyword) in zip(rows, RulesFile.RuleKeyword.allCases) {
            #expect(row.contains("{\"\(keyword.rawValue)\":"), "the spelling of \(keyword) in \(row)")
        }
    }

    @Test("the article's converters section names every converter the reader accepts")
    func everyConverter() throws {
        let text = try Self.section("Converters").joined(separator: "\n")
        for converter in RulesFile.ConverterName.allCases {
            #expect(text.contains("\"\(converter.rawValue)\""), "\(converter) is not in the article")
        }
    }
}
