import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a built executable of this package as a separate process.
package struct ToolProcess {
    package struct Run {
        package var status: Int32
        package var standardOutput: Data
        package var standardError: String

        package var output: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// The folder with the package's built products (beside the test bundle).
    package static let productsDirectory: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var candidates = [testBinary.deletingLastPathComponent()]
        // `…/debug/X.xctest/Contents/MacOS/X` on Apple platforms.
        candidates.append(
            testBinary.deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent())
        candidates.append(Fixture.root.deletingLastPathComponent().appendingPathComponent(".build/debug"))
        return candidates.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("archive-migrate").path)
        }
            ?? candidates[0]
    }()

    /// Runs `tool` with `arguments` in `directory` and waits for it. With `fileSizeLimit`, the
    /// tool runs under `ulimit -f` (in KiB) with SIGXFSZ ignored, so that writing past the limit
    /// fails with EFBIG, as a full disk fails with ENOSPC.
    @discardableResult
    package static func run(
        _ arguments: [String], tool: String = "archive-migrate", in directory: URL? = nil,
        environment: [String: String] = [:], fileSizeLimit: Int? = nil, standardInput: Data? = nil
    ) throws -> Run {
        try start(
            arguments, tool: tool, in: directory, environment: environment, fileSizeLimit: fileSizeLimit,
            standardInput: standardInput
        ).wait()
    }

    /// What ``measure(_:in:standardInput:)`` saw.
    package struct Measured {
        package var status: Int32
        /// The high-water mark of the tool's resident set, in bytes.
        package var peakBytes: Int
        package var standardError: String
    }

    /// Whether ``measure(_:in:standardInput:)`` can measure a process's own peak: on Linux it
    /// needs `/usr/bin/time` (see there).
    package static var canMeasurePeakMemory: Bool {
        #if os(Linux)
            return FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        #else
            return true
        #endif
    }

    /// Runs the tool with its standard input read from the file `standardInput` (if any) and its
    /// standard output discarded, and measures its peak resident set.
    ///
    /// On Linux the peak comes from `/usr/bin/time`, which forks the tool from its own small
    /// process: `posix_spawn` starts a child in its parent's address space, and Linux carries that
    /// space's high-water mark across `exec` into the child's `ru_maxrss`, so `wait4` on a child
    /// of the test process reports the test process's own peak. Elsewhere `wait4`'s `ru_maxrss`
    /// is the child's.
    package static func measure(_ arguments: [String], in directory: URL, standardInput: URL? = nil) throws -> Measured
    {
        let executable = productsDirectory.appendingPathComponent("archive-migrate").path
        let errors = directory.appendingPathComponent(".measure-\(UUID().uuidString).err")
        let peakFile = directory.appendingPathComponent(".measure-\(UUID().uuidString).peak")
        defer {
            try? FileManager.default.removeItem(at: errors)
            try? FileManager.default.removeItem(at: peakFile)
        }
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        #if os(Linux)
            let timer = "/usr/bin/time -f %M -o \(quoted(peakFile.path)) "
        #else
            let timer = ""
        #endif
        let script =
            "cd \(quoted(directory.path)) && exec \(timer)\(quoted(executable)) "
            + arguments.map(quoted).joined(separator: " ")
            + " < \(quoted(standardInput?.path ?? "/dev/null")) > /dev/null 2> \(quoted(errors.path))"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(script), nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables["ARCHIVE_MIGRATE_RECORD"] = nil
        let environment = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environment.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environment)
        guard spawned == 0 else { throw CocoaError(.fileReadUnknown) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
        #if os(Linux)
            // The last line is %M, the tool's peak in KiB (a line before it names a signal).
            let reported = (try? String(contentsOf: peakFile, encoding: .utf8)) ?? ""
            guard let kibibytes = reported.split(separator: "\n").last.flatMap({ Int($0) }) else {
                throw CocoaError(.fileReadCorruptFile)
            }
            let peak = kibibytes * 1024
        #elseif canImport(Darwin)
            let peak = Int(usage.ru_maxrss)
        #else
            let peak = Int(usage.ru_maxrss) * 1024
        #endif
        let exited = (status & 0x7F) == 0
        return Measured(
            status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), peakBytes: peak,
            standardError: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }

    /// Runs a system command (`/bin/mount`) with its output discarded; returns its status.
    package static func runCommand(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A tool started and not yet waited for.
    package final class Started {
        let process: Process
        private let scratch: URL
        private let out: FileHandle
        private let err: FileHandle

        fileprivate init(process: Process, scratch: URL, out: FileHandle, err: FileHandle) {
            self.process = process
            self.scratch = scratch
            self.out = out
            self.err = err
        }

        /// Waits for the tool to end and collects what it printed.
        /// Waits up to `seconds` for the tool to end: what it printed, or `nil` when it was still
        /// running then (it is killed, with SIGKILL: the tool finishes a transaction on SIGTERM).
        package func wait(seconds: Double) throws -> Run? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline {
                usleep(20_000)
            }
            guard !process.isRunning else {
                kill(process.processIdentifier, SIGKILL)
                _ = try wait()
                return nil
            }
            return try wait()
        }

        package func wait() throws -> Run {
            process.waitUntilExit()
            defer { try? FileManager.default.removeItem(at: scratch) }
            try out.close()
            try err.close()
            return Run(
                status: process.terminationStatus,
                standardOutput: try Data(contentsOf: scratch.appendingPathComponent("out")),
                standardError: String(
                    decoding: try Data(contentsOf: scratch.appendingPathComponent("err")), as: UTF8.self))
        }
    }

    /// Starts `tool` with `arguments` in `directory` (see ``run(_:tool:in:environment:fileSizeLimit:)``).
    package static func start(
        _ arguments: [String], tool: String = "archive-migrate", in directory: URL? = nil,
        environment: [String: String] = [:], fileSizeLimit: Int? = nil, standardInput: Data? = nil
    ) throws -> Started {
        let process = Process()
        let executable = productsDirectory.appendingPathComponent(tool)
        if let fileSizeLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments =
                ["-c", "trap '' XFSZ; ulimit -f \(fileSizeLimit); exec \"$0\" \"$@\"", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        var fullEnvironment = ProcessInfo.processInfo.environment
        fullEnvironment["ARCHIVE_MIGRATE_RECORD"] = nil
        for (key, value) in environment { fullEnvironment[key] = value }
        process.environment = fullEnvironment
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        if let standardInput {
            let inURL = scratch.appendingPathComponent("in")
            try standardInput.write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        return Started(process: process, scratch: scratch, out: out, err: err)
    }
}

/// A scratch folder removed when the test ends.
package final class ScratchFolder {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Copies a file from `Fixtures/` into the scratch folder (writable, whatever the original's mode).
    @discardableResult
    package func copy(fixture path: String, to name: String? = nil) throws -> URL {
        let destination = url.appendingPathComponent(name ?? URL(fileURLWithPath: path).lastPathComponent)
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Fixture.data(path).write(to: destination)
        return destination
    }

    /// Copies a folder from `Fixtures/` (recursively, writable) into the scratch folder.
    package func copy(fixtureFolder path: String, to name: String) throws {
        let source = Fixture.url(path)
        guard let enumerator = FileManager.default.enumerator(at: source, includingPropertiesForKeys: nil) else {
            return
        }
        for case let file as URL in enumerator {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory)
            guard !isDirectory.boolValue else { continue }
            let relative = String(file.standardizedFileURL.path.dropFirst(source.standardizedFileURL.path.count + 1))
            try copy(fixture: path + "/" + relative, to: name + "/" + relative)
        }
    }

    package func write(_ text: String, to name: String) throws {
        let destination = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: destination)
    }

    package func data(_ name: String) throws -> Data {
        try Data(contentsOf: url.appendingPathComponent(name))
    }
}
