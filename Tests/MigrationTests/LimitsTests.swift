import Foundation
import Testing

@testable import ModelVersioning

/// Every `ArchiveLimits` member, enforced everywhere it applies: each test feeds one path (a
/// reader, the migration pass, the decoder, the encoder, a writer) an input just past one limit
/// and expects `ArchiveError.Code.limitExceeded` naming that limit and where it was hit.
@Suite("Limits")
struct LimitsTests {
    static func limits(_ change: (inout ArchiveLimits) -> Void) -> ArchiveLimits {
        var limits = ArchiveLimits.default
        change(&limits)
        return limits
    }

    /// The error `body` throws; records an issue when it throws none or another type.
    static func limitError(_ body: () throws -> Void) -> ArchiveError? {
        do {
            try body()
            Issue.record("no error")
        } catch let error as ArchiveError {
            return error
        } catch {
            Issue.record("not an ArchiveError: \(error)")
        }
        return nil
    }

    static func expect(
        _ error: ArchiveError?, _ limit: ArchiveLimits.Limit, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error?.code == .limitExceeded, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.limit == limit, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    // MARK: - Depth and stack

    /// Runs `path` with `depth` levels of input under `limits`: the input is built on a large
    /// stack, the work runs on a 512 KiB one.
    static func run(_ path: DeepPath, depth: Int, limits: ArchiveLimits) throws {
        let input = try SmallStack.runOnLargeStack { try path.make(depth) }
        try SmallStack.run { try path.run(input, limits) }
    }

    /// Whether `path` accepts an input of `depth` levels under `limits` (on a large stack);
    /// rethrows anything but a depth error.
    static func accepts(_ path: DeepPath, depth: Int, limits: ArchiveLimits) throws -> Bool {
        let input = try SmallStack.runOnLargeStack { try path.make(depth) }
        do {
            try SmallStack.runOnLargeStack { try path.run(input, limits) }
            return true
        } catch let error as ArchiveError where error.code == .limitExceeded && error.limit == .depth {
            return false
        }
    }

    @Test(
        "at exactly the default depth limit every recursive path runs on a 512 KiB stack; one level more is refused",
        arguments: DeepPath.all)
    func depthAtTheLimit(_ path: DeepPath) throws {
        let limit = ArchiveLimits.default.maxDepth
        // The deepest input the path accepts. Paths count levels their own way (the encoder
        // counts the levels of Codable containers, a polymorphic element is one more), so find
        // it: between a quarter of the limit and a little over it.
        var accepted = limit / 4
        var refused = limit + 4
        #expect(try Self.accepts(path, depth: accepted, limits: .default))
        if path.name != "dropping a tree" {
            #expect(try !Self.accepts(path, depth: refused, limits: .default))
        } else {
            accepted = limit  // no limit of its own: trees as deep as the readers make
            refused = limit
        }
        while refused - accepted > path.step {
            let middle = (accepted + refused) / 2
            if try Self.accepts(path, depth: middle, limits: .default) { accepted = middle } else { refused = middle }
        }
        // The deepest accepted input, on the stack of a secondary thread.
        try Self.run(path, depth: accepted, limits: .default)
        print("depth limit: \(path.name) accepts \(accepted) levels at maxDepth \(limit)")
        guard path.name != "dropping a tree" else { return }
        let error = Self.limitError { try Self.run(path, depth: accepted + path.step, limits: .default) }
        Self.expect(error, .depth)
    }

    /// `MV_STACK_PROBE="<path name>=<depth>"` runs one path at that depth (with no depth limit)
    /// on a 512 KiB stack: `.ci/stack-depth.sh` bisects the depth at which each path
    /// overflows. Skipped otherwise.
    @Test(
        "stack probe (MV_STACK_PROBE)", .enabled(if: ProcessInfo.processInfo.environment["MV_STACK_PROBE"] != nil))
    func stackProbe() throws {
        let request = ProcessInfo.processInfo.environment["MV_STACK_PROBE"] ?? ""
        let parts = request.split(separator: "=", maxSplits: 1).map(String.init)
        let path = try #require(DeepPath.all.first { $0.name == parts.first }, "no path named \(request)")
        let depth = try #require(parts.count == 2 ? Int(parts[1]) : nil, "no depth in \(request)")
        do {
            try Self.run(path, depth: depth, limits: DeepPath.unlimited)
            print("STACK-PROBE OK \(path.name)=\(depth)")
        } catch {
            print("STACK-PROBE ERROR \(path.name)=\(depth): \(error)")
        }
    }
}
