import Foundation

extension ArchiveBatch {
    /// How far a batch has got: archives handled, changed and failed, the rate, and — when the
    /// batch knows how many archives there are — the time left.
    ///
    /// ```swift
    /// try await batch.run(rows, data: load) { row, outcome in … } progress: { print($0) }
    /// // 12,000 of 100,000 archives (11,950 changed, 0 failed), 48,000/s, about 2 s left
    /// ```
    public struct Progress: Sendable, Hashable, CustomStringConvertible {
        /// Archives handed to `each` so far.
        public var completed = 0
        /// How many archives the batch has, when known.
        public var total: Int?
        /// Archives whose migration changed them.
        public var changed = 0
        /// Archives that failed.
        public var failed = 0
        /// Seconds since the batch started.
        public var elapsed: TimeInterval = 0

        /// Creates the progress of a batch that has not started.
        public init(total: Int? = nil) {
            self.total = total
        }

        /// Archives per second so far (0 before the first second's worth of work).
        public var archivesPerSecond: Double {
            elapsed > 0 ? Double(completed) / elapsed : 0
        }

        /// The seconds left at the rate so far; `nil` when the total is unknown or nothing is
        /// done yet.
        public var estimatedTimeRemaining: TimeInterval? {
            guard let total, completed > 0, elapsed > 0 else { return nil }
            return Double(max(0, total - completed)) / archivesPerSecond
        }

        /// `12,000 of 100,000 archives (11,950 changed, 0 failed), 48,000/s, about 2 s left`.
        public var description: String {
            var text = Self.grouped(completed)
            if let total { text += " of " + Self.grouped(total) }
            text += " archives (\(Self.grouped(changed)) changed, \(Self.grouped(failed)) failed)"
            if elapsed > 0 { text += ", " + Self.grouped(Int(archivesPerSecond.rounded())) + "/s" }
            if let left = estimatedTimeRemaining, completed < (total ?? 0) {
                text += ", about " + Self.duration(left) + " left"
            }
            return text
        }

        mutating func count(_ outcome: Result<Outcome, ArchiveError>) {
            completed += 1
            switch outcome {
            case .success(let result): if result.changed { changed += 1 }
            case .failure: failed += 1
            }
        }

        /// `1,234,567`.
        package static func grouped(_ number: Int) -> String {
            let digits = String(number.magnitude)
            var result = ""
            for (offset, digit) in digits.enumerated() {
                if offset > 0, (digits.count - offset) % 3 == 0 { result += "," }
                result.append(digit)
            }
            return (number < 0 ? "-" : "") + result
        }

        /// `2 s`, `3 min 5 s`, `1 h 2 min`.
        package static func duration(_ seconds: TimeInterval) -> String {
            let whole = Int(seconds.rounded(.up))
            if whole < 60 { return "\(whole) s" }
            if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
            return "\(whole / 3600) h \(whole % 3600 / 60) min"
        }
    }
}
