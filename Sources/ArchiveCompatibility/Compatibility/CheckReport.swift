import Foundation
import ModelVersioning

/// The findings of a ``CompatibilityCheck``: one item per schema, migration path, fixture
/// coverage, fixture and migration law, printable as text, JSON, JUnit XML or GitHub workflow
/// annotations; with the migration steps proposed for models that changed without a version
/// bump (``proposals``).
public struct CheckReport: Sendable, Hashable, CustomStringConvertible {
    /// What an item checks.
    public enum Category: String, Sendable, Hashable, CaseIterable {
        /// A model's current schema against its committed snapshot.
        case schema
        /// That an archived version has a migration path to today's.
        case migrationPath
        /// That some fixture holds every version a release archived.
        case fixtureCoverage
        /// That an archived fixture upgrades, decodes and matches its golden.
        case fixture
        /// That a chain keeps the migration laws on generated objects (``MigrationLaws``).
        case law
    }

    /// How an item ended.
    public enum Outcome: Sendable, Hashable {
        /// Checked, and nothing was wrong.
        case passed
        /// A snapshot or golden was written (recording was asked for).
        case recorded
        /// Not checked, with the reason.
        case skipped(String)
        /// Failed, with the reasons (one per line).
        case failed([String])
    }

    /// One check.
    public struct Item: Sendable, Hashable {
        /// What kind of check it is.
        public var category: Category
        /// What was checked: `Circle v3`, `Sketch/v1/drawing.json`.
        public var subject: String
        /// How it ended.
        public var outcome: Outcome
        /// The file the finding is about, relative to the working directory when possible.
        public var file: String?
        /// What was checked, for items that passed (`100 generated v1 objects upgrade and open today, …`).
        public var detail: String?

        /// An item of `category` about `subject`.
        public init(category: Category, subject: String, outcome: Outcome, file: String? = nil, detail: String? = nil) {
            self.category = category
            self.subject = subject
            self.outcome = outcome
            self.file = file
            self.detail = detail
        }

        /// Whether the check failed (its outcome is `.failed`).
        public var isFailure: Bool {
            if case .failed = outcome { return true }
            return false
        }
    }

    /// Every item, schemas first, then migration paths, fixture coverage, fixtures and laws.
    public var items: [Item]
    /// The migration steps proposed for the models that changed without a version bump.
    public var proposals: [MigrationProposal]
    /// Lines printed after the items: what the law check generated and how long it took.
    public var notes: [String]

    /// A report of `items`, with the steps proposed for unbumped changes and the lines printed after the items.
    public init(items: [Item], proposals: [MigrationProposal] = [], notes: [String] = []) {
        self.items = items
        self.proposals = proposals
        self.notes = notes
    }

    /// The failed items.
    public var failures: [Item] { items.filter(\.isFailure) }

    /// Whether nothing failed.
    public var passed: Bool { failures.isEmpty }

    /// A line per item, failures with their reasons, and a summary line.
    public var description: String {
        var lines: [String] = []
        for item in items {
            let subject = "\(item.category.rawValue): \(item.subject)"
            switch item.outcome {
            case .passed:
                lines.append("ok        \(subject)" + (item.detail.map { " — \($0)" } ?? ""))
            case .recorded:
                lines.append("recorded  \(subject)" + (item.detail.map { " — \($0)" } ?? ""))
            case .skipped(let reason):
                lines.append("skipped   \(subject) — \(reason)")
            case .failed(let reasons):
                lines.append("FAILED    \(subject)" + (item.file.map { " (\($0))" } ?? ""))
                lines.append(contentsOf: reasons.map { "          " + $0 })
            }
        }
        lines += notes
        let recorded = items.filter { $0.outcome == .recorded }.count
        lines.append(
            "\(items.count) checks: \(failures.count) failed"
                + (recorded > 0 ? ", \(recorded) recorded" : "") + (passed ? " — compatible" : " — NOT compatible"))
        return lines.joined(separator: "\n")
    }

    /// The report as a tree (for `--format json`).
    public var tree: ArchiveValue {
        let entries: [ArchiveValue] = items.map { item in
            var entry: ArchiveDictionary = [
                "category": .string(item.category.rawValue), "subject": .string(item.subject),
            ]
            switch item.outcome {
            case .passed: entry["outcome"] = "passed"
            case .recorded: entry["outcome"] = "recorded"
            case .skipped(let reason):
                entry["outcome"] = "skipped"
                entry["reason"] = .string(reason)
            case .failed(let reasons):
                entry["outcome"] = "failed"
                entry["messages"] = .array(reasons.map { .string($0) })
            }
            if let file = item.file { entry["file"] = .string(file) }
            if let detail = item.detail { entry["detail"] = .string(detail) }
            return .dictionary(entry)
        }
        let proposals: [ArchiveValue] = self.proposals.map { proposal in
            [
                "type": .string(proposal.typeName), "from": .int(Int64(proposal.fromVersion)),
                "to": .int(Int64(proposal.toVersion)),
                "changes": .array(proposal.changes.map { .string($0.description) }),
                "notes": .array(proposal.notes.map { .string($0) }), "swift": .string(proposal.swiftStep),
                "rulesFileStep": .string(proposal.rulesFileStep),
            ]
        }
        return [
            "passed": .bool(passed), "checks": .int(Int64(items.count)), "failures": .int(Int64(failures.count)),
            "items": .array(entries), "proposals": .array(proposals), "notes": .array(notes.map { .string($0) }),
        ]
    }

    /// JUnit XML, one test case per item (for CI systems that show test reports).
    public var junitXML: String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="archive-migrate check" tests="\#(items.count)" failures="\#(failures.count)">"#
        xml += "\n"
        for category in Category.allCases {
            let group = items.filter { $0.category == category }
            guard !group.isEmpty else { continue }
            let failed = group.filter(\.isFailure).count
            let skipped = group.filter { if case .skipped = $0.outcome { return true } else { return false } }.count
            xml +=
                #"  <testsuite name="\#(category.rawValue)" tests="\#(group.count)" failures="\#(failed)" skipped="\#(skipped)">"#
            xml += "\n"
            for item in group {
                let name = Self.escapeXML(item.subject)
                let file = item.file.map { #" file="\#(Self.escapeXML($0))""# } ?? ""
                switch item.outcome {
                case .passed, .recorded:
                    xml += #"    <testcase classname="\#(category.rawValue)" name="\#(name)"\#(file)/>"# + "\n"
                case .skipped(let reason):
                    xml += #"    <testcase classname="\#(category.rawValue)" name="\#(name)"\#(file)>"#
                    xml += #"<skipped message="\#(Self.escapeXML(reason))"/></testcase>"# + "\n"
                case .failed(let reasons):
                    let message = Self.escapeXML(reasons.first ?? "failed")
                    xml += #"    <testcase classname="\#(category.rawValue)" name="\#(name)"\#(file)>"# + "\n"
                    xml +=
                        #"      <failure message="\#(message)">\#(Self.escapeXML(reasons.joined(separator: "\n")))</failure>"#
                    xml += "\n    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        xml += "</testsuites>\n"
        return xml
    }

    /// GitHub Actions workflow commands: an `::error` line per failure, attached to its file.
    public var githubAnnotations: String {
        var lines: [String] = []
        for item in failures {
            guard case .failed(let reasons) = item.outcome else { continue }
            var properties = [
                "title=\(Self.escapeProperty("archive-migrate \(item.category.rawValue): \(item.subject)"))"
            ]
            if let file = item.file { properties.insert("file=\(Self.escapeProperty(file))", at: 0) }
            lines.append(
                "::error \(properties.joined(separator: ","))::\(Self.escapeData(reasons.joined(separator: "\n")))")
        }
        if lines.isEmpty {
            lines.append("::notice title=archive-migrate check::\(items.count) checks passed")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func escapeXML(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\n", "\t", "\r": escaped.unicodeScalars.append(scalar)
            default:
                // XML 1.0 has no other control characters.
                if scalar.value >= 0x20 { escaped.unicodeScalars.append(scalar) } else { escaped += "?" }
            }
        }
        return escaped
    }

    /// Escaping of a workflow command's message.
    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// Escaping of a workflow command's property value.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
