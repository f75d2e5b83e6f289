import ArchiveMigrateKit
import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Archives where apps keep them: `archive-migrate upgrade --sqlite` on a table of small Shape
/// archives, side by side with a straightforward Python script (`sqlite_migrate.py`: sqlite3 and
/// json) doing the same migration, each on a fresh copy of one database, alternating; and the
/// peak memory of upgrading many files and many NDJSON lines next to the largest one alone.
///
/// Each contender runs as a process of its own (ours: this executable in `--run-tool` mode, which
/// runs ArchiveMigrateKit in process), timed from start to exit, its peak resident set taken
/// from `wait4`.
enum StoreBenchmark {
    struct Results {
        var rows = 0
        /// Median rows per second, by contender.
        var rowsPerSecond: [String: Double] = [:]
        var peakBytes: [String: Int] = [:]
        /// For files and NDJSON lines: the count, the batch's peak and the largest archive's alone.
        var batches: [(name: String, count: Int, peak: Int, single: Int)] = []
        var pythonSkipped: String?
        /// Why the C floor did not run (no C compiler, or no SQLite headers), when it did not.
        var ceilingSkipped: String?

        var ratio: Double? {
            guard let ours = rowsPerSecond["ModelVersioning"], let theirs = rowsPerSecond[StoreBenchmark.python],
                theirs > 0
            else { return nil }
            return ours / theirs
        }

        /// Our rows per second as a fraction of the C program's, which does only SQLite's part.
        var ofCeiling: Double? {
            guard let ours = rowsPerSecond["ModelVersioning"], let floor = rowsPerSecond[StoreBenchmark.ceiling],
                floor > 0
            else { return nil }
            return ours / floor
        }

        /// The results as lines of the benchmark's table.
        func tableLines() -> [String] {
            func pad(_ text: String) -> String {
                text.padding(toLength: max(40, text.count), withPad: " ", startingAt: 0)
            }
            var lines = [
                "archives in stores: upgrade --sqlite on \(rows) rows of small archives, each run on a fresh copy"
            ]
            for (name, rate) in rowsPerSecond.sorted(by: { $0.value > $1.value }) {
                lines.append(
                    "  " + pad(name) + String(format: "%.0f rows/s", rate)
                        + String(format: ", peak %.1f MB", Double(peakBytes[name] ?? 0) / 1e6))
            }
            if let ratio { lines.append("  " + pad("ModelVersioning vs Python") + String(format: "%.2f×", ratio)) }
            if let ofCeiling {
                lines.append("  " + pad("ModelVersioning of the C floor") + String(format: "%.2f", ofCeiling))
            }
            if let pythonSkipped { lines.append("  Python skipped: \(pythonSkipped)") }
            if let ceilingSkipped { lines.append("  C floor skipped: \(ceilingSkipped)") }
            for batch in batches {
                lines.append(
                    "  " + pad("peak memory, \(batch.count) \(batch.name)")
                        + String(
                            format: "%.1f MB (the largest alone: %.1f MB)", Double(batch.peak) / 1e6,
                            Double(batch.single) / 1e6))
            }
            return lines
        }

        /// The results as entries of the benchmark's `--json` object: `sqlite` (rows, rows per
        /// second and peak memory by contender, the ratio), `sqlite_vs_python` and
        /// `batch_peak_memory_mb` (each batch's peak next to its largest archive alone).
        func jsonEntries() -> [(String, ArchiveValue)] {
            func megabytes(_ bytes: Int) -> ArchiveValue { .double((Double(bytes) / 1e5).rounded() / 10) }
            var store: ArchiveDictionary = ["rows": .int(Int64(rows))]
            store["rows_per_second"] = .dictionary(
                ArchiveDictionary(
                    rowsPerSecond.sorted { $0.key < $1.key }.map { ($0.key, .double($0.value.rounded())) }))
            store["vs_python"] = ratio.map { .double(($0 * 100).rounded() / 100) } ?? .null
            store["of_ceiling"] = ofCeiling.map { .double(($0 * 100).rounded() / 100) } ?? .null
            store["peak_memory_mb"] = .dictionary(
                ArchiveDictionary(peakBytes.sorted { $0.key < $1.key }.map { ($0.key, megabytes($0.value)) }))
            let batchEntries = batches.map { batch -> (String, ArchiveValue) in
                (
                    batch.name,
                    [
                        "count": .int(Int64(batch.count)), "batch": megabytes(batch.peak),
                        "largest_alone": megabytes(batch.single),
                    ]
                )
            }
            return [
                ("sqlite", .dictionary(store)), ("sqlite_vs_python", store["vs_python"] ?? .null),
                ("sqlite_of_ceiling", store["of_ceiling"] ?? .null),
                ("batch_peak_memory_mb", .dictionary(ArchiveDictionary(batchEntries))),
            ]
        }
    }

    /// The Shape chain of the benchmark's models, as a rules file.
    static let rules = """
        {"formatVersion": 1, "types": {"Shape": {"currentVersion": 4, "steps": [
          {"from": 1, "to": 2, "rules": [{"rename": "name", "to": "title"}]},
          {"from": 2, "to": 3, "rules": [{"nest": ["x", "y"], "into": "center"}]},
          {"from": 3, "to": 4, "rules": [{"add": "visible", "default": true}]}]}}}
        """

    /// The contenders' names in the results.
    static let python = "Python sqlite3 + json"
    static let ceiling = "C sqlite3, values computed beforehand"

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("sqlite_migrate.py")
    }

    /// The floor's source: `sqlite_ceiling.c`, compiled when the benchmark runs.
    static var ceilingSource: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("sqlite_ceiling.c")
    }

    static func run(rows: Int, runs: Int, batchFiles: Int, batchLines: Int, progress: (String) -> Void) throws
        -> Results
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("archive-bench-stores-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rulesURL = folder.appendingPathComponent("rules.json")
        try Data(rules.utf8).write(to: rulesURL)
        var results = Results(rows: rows)

        progress("sqlite: \(rows) rows")
        let pristine = folder.appendingPathComponent("pristine.sqlite")
        try makeDatabase(at: pristine, rows: rows)
        let work = folder.appendingPathComponent("work.sqlite")
        var contenders: [(String, [String])] = [
            (
                "ModelVersioning",
                [
                    CommandLine.arguments[0], "--run-tool", "upgrade", "--sqlite", work.path, "--table", "shapes",
                    "--column", "archive", "--rules", rulesURL.path,
                ]
            )
        ]
        if let python = findPython() {
            contenders.append((Self.python, [python, script.path, work.path]))
        } else {
            results.pythonSkipped = "python3 with the sqlite3 module was not found"
        }
        switch compileCeiling(in: folder) {
        case .success(let program):
            let values = folder.appendingPathComponent("values.txt")
            try Data((0..<rows).map { upgradedShapeArchive($0) + "\n" }.joined().utf8).write(to: values)
            contenders.append((Self.ceiling, [program.path, work.path, values.path]))
        case .failure(let reason):
            results.ceilingSkipped = reason.description
        }
        var seconds: [String: [Double]] = [:]
        for round in 0..<(runs + 1) {
            for offset in 0..<contenders.count {
                let (name, command) = contenders[(round + offset) % contenders.count]
                try? FileManager.default.removeItem(at: work)
                try FileManager.default.copyItem(at: pristine, to: work)
                let run = try ChildProcess.run(command)
                guard run.status == 0 else {
                    throw ArchiveError(.io, "\(name) failed with status \(run.status)")
                }
                try checkUpgraded(work, rows: rows, contender: name)
                if round > 0 {  // the first round warms the caches
                    seconds[name, default: []].append(run.seconds)
                    results.peakBytes[name] = max(results.peakBytes[name] ?? 0, run.peakBytes)
                }
            }
        }
        for (name, samples) in seconds {
            results.rowsPerSecond[name] = Double(rows) / samples.sorted()[samples.count / 2]
        }

        if batchFiles > 0 {
            progress("peak memory: \(batchFiles) files")
            results.batches.append(try filesBatch(count: batchFiles, in: folder, rules: rulesURL))
        }
        if batchLines > 0 {
            progress("peak memory: \(batchLines) NDJSON lines")
            results.batches.append(try linesBatch(count: batchLines, in: folder, rules: rulesURL))
        }
        return results
    }

    /// A table of version 1 Shape archives (about 170 bytes of JSON each), with an INTEGER
    /// PRIMARY KEY, as an app keeps them.
    static func makeDatabase(at url: URL, rows: Int) throws {
        var sql = "CREATE TABLE shapes (id INTEGER PRIMARY KEY, archive TEXT);\nBEGIN;\n"
        for index in 0..<rows {
            let archive = shapeArchive(index)
            sql += "INSERT INTO shapes (archive) VALUES ('\(archive.replacingOccurrences(of: "'", with: "''"))');\n"
        }
        sql += "COMMIT;\n"
        try SQLiteScript.run(sql, creating: url.path)
    }

    static func shapeArchive(_ index: Int) -> String {
        let x = Double(index % 1000) / 4
        let y = Double(index % 777) / 8
        return #"{"$type":"Shape","$version":1,"id":\#(index),"name":"shape \#(index)","kind":"circle","x":\#(x),"#
            + #""y":\#(y),"radius":\#(Double(index % 50) + 0.5),"tags":["a","b"]}"#
    }

    /// The version 4 archive the chain makes of `shapeArchive(index)`, as the tool writes it:
    /// the C floor's precomputed value for that row.
    static func upgradedShapeArchive(_ index: Int) -> String {
        let x = Double(index % 1000) / 4
        let y = Double(index % 777) / 8
        return #"{"$type":"Shape","$version":4,"id":\#(index),"title":"shape \#(index)","kind":"circle","#
            + #""center":{"x":\#(x),"y":\#(y)},"radius":\#(Double(index % 50) + 0.5),"tags":["a","b"],"#
            + #""visible":true}"#
    }

    /// Why the floor cannot be built here.
    struct CeilingUnavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// Compiles `sqlite_ceiling.c` with the first C compiler found (`cc`, `clang` or `gcc`).
    static func compileCeiling(in folder: URL) -> Result<URL, CeilingUnavailable> {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard
            let compiler = ["cc", "clang", "gcc"].lazy.compactMap({ name in
                path.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            }).first
        else { return .failure(CeilingUnavailable(description: "no C compiler (cc, clang or gcc) on PATH")) }
        let program = folder.appendingPathComponent("sqlite_ceiling")
        let run = try? ChildProcess.run(
            [compiler, "-O2", "-o", program.path, ceilingSource.path, "-lsqlite3"], captureError: true)
        guard let run, run.status == 0 else {
            return .failure(
                CeilingUnavailable(description: "\(compiler) could not build sqlite_ceiling.c: \(run?.errorLine ?? "")")
            )
        }
        return .success(program)
    }

    /// Every contender must leave every row at version 4.
    static func checkUpgraded(_ url: URL, rows: Int, contender: String) throws {
        let run = try ChildProcess.run(
            [
                CommandLine.arguments[0], "--run-tool", "inspect", "--sqlite", url.path, "--table", "shapes",
                "--column",
                "archive", "--format", "json",
            ], captureOutput: true)
        let census = try ArchiveFormat.json.read(run.output)
        guard census["types"]?["Shape v4"]?["rows"] == .int(Int64(rows)) else {
            throw ArchiveError(.io, "\(contender) did not upgrade every row: \(census["types"] ?? .null)")
        }
    }

    static func findPython() -> String? {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map({ "\($0)/python3" })
        where FileManager.default.isExecutableFile(atPath: candidate) {
            if (try? ChildProcess.run([candidate, "-c", "import sqlite3, json"]))?.status == 0 { return candidate }
        }
        return nil
    }

    /// `count` small files and one of 1 MB, upgraded into a folder; and the large one alone.
    static func filesBatch(count: Int, in folder: URL, rules: URL) throws -> (String, Int, Int, Int) {
        let data = folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let large = largeArchive()
        for index in 0..<count {
            let bytes = index == count / 2 ? large : Data(shapeArchive(index).utf8)
            try bytes.write(to: data.appendingPathComponent(String(format: "s%07d.json", index)))
        }
        let largeName = String(format: "s%07d.json", count / 2)
        let single = try ChildProcess.run(
            [
                CommandLine.arguments[0], "--run-tool", "upgrade", data.appendingPathComponent(largeName).path,
                "--rules",
                rules.path, "-o", folder.appendingPathComponent("single").path,
            ])
        let batch = try ChildProcess.run(
            [
                CommandLine.arguments[0], "--run-tool", "upgrade", data.path, "--include", "*.json", "--rules",
                rules.path, "-o", folder.appendingPathComponent("out").path,
            ])
        guard single.status == 0, batch.status == 0 else { throw ArchiveError(.io, "the files batch failed") }
        try? FileManager.default.removeItem(at: data)
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("out"))
        return ("files", count, batch.peakBytes, single.peakBytes)
    }

    /// `count` NDJSON lines, one of them 1 MB, upgraded from a file to /dev/null; and that line alone.
    static func linesBatch(count: Int, in folder: URL, rules: URL) throws -> (String, Int, Int, Int) {
        let many = folder.appendingPathComponent("many.ndjson")
        let one = folder.appendingPathComponent("one.ndjson")
        let large = largeArchive()
        try (large + Data("\n".utf8)).write(to: one)
        guard
            let handle = FileHandle(forWritingAtPath: many.path)
                ?? {
                    _ = FileManager.default.createFile(atPath: many.path, contents: nil)
                    return FileHandle(forWritingAtPath: many.path)
                }()
        else { throw ArchiveError(.io, "cannot write \(many.path)") }
        var chunk = Data()
        for index in 0..<count {
            chunk.append(index == count / 2 ? large : Data(shapeArchive(index).utf8))
            chunk.append(0x0A)
            if chunk.count > 1 << 20 {
                handle.write(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        handle.write(chunk)
        try handle.close()
        let arguments = [CommandLine.arguments[0], "--run-tool", "upgrade", "--ndjson"]
        let single = try ChildProcess.run(arguments + [one.path, "--rules", rules.path])
        let batch = try ChildProcess.run(arguments + [many.path, "--rules", rules.path])
        guard single.status == 0, batch.status == 0 else { throw ArchiveError(.io, "the NDJSON batch failed") }
        try? FileManager.default.removeItem(at: many)
        return ("ndjson lines", count, batch.peakBytes, single.peakBytes)
    }

    /// A version 1 Shape with a 1 MB title: the largest archive of the batches.
    static func largeArchive() -> Data {
        let title = String(repeating: "a long title ", count: (1 << 20) / 13)
        return Data(
            (#"{"$type":"Shape","$version":1,"id":-1,"name":"\#(title)","kind":"circle","x":1.5,"y":2.5,"#
                + #""radius":3.5,"tags":["a","b"]}"#).utf8)
    }
}

/// A child process, timed and measured: wall-clock seconds from spawn to exit, and the peak of its
/// resident set. Its standard error is discarded; standard output too, unless captured.
///
/// On Linux the peak comes from `/usr/bin/time`, which forks the command from its own small
/// process: `posix_spawn` starts a child in this process's address space, and Linux carries that
/// space's high-water mark across `exec` into the child's `ru_maxrss`, so `wait4` would report
/// the benchmark's own peak. Without `/usr/bin/time` the peak is not measured (0). Elsewhere it
/// is `wait4`'s `ru_maxrss`.
enum ChildProcess {
    struct Run {
        var status: Int32
        var seconds: Double
        var peakBytes: Int
        var output: Data
        /// The first `error:` line of its standard error (or its last line), when captured.
        var errorLine = ""
    }

    static func run(_ arguments: [String], captureOutput: Bool = false, captureError: Bool = false) throws -> Run {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "archive-bench-\(UUID().uuidString)"
        ).path
        let peakPath = outputPath + ".peak"
        let errorPath = outputPath + ".err"
        defer {
            if captureOutput { unlink(outputPath) }
            if captureError { unlink(errorPath) }
            unlink(peakPath)
        }
        #if os(Linux)
            let timer =
                FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
                ? "/usr/bin/time -f %M -o '\(peakPath)' " : ""
        #else
            let timer = ""
        #endif
        // Through `sh -c 'exec …'`: the shell becomes the command (or /usr/bin/time, its parent),
        // and the redirections need no platform's spawn file actions.
        let script =
            "exec \(timer)\"$0\" \"$@\" < /dev/null 2> " + (captureError ? "'\(errorPath)'" : "/dev/null") + " > "
            + (captureOutput ? "'\(outputPath)'" : "/dev/null")
        let argv = (["/bin/sh", "-c", script] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let start = Timing.now()
        let result = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environment)
        guard result == 0 else { throw ArchiveError(.io, "cannot start \(arguments[0]): error \(result)") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
        let seconds = Timing.now() - start
        #if os(Linux)
            // The last line is %M, the command's peak in KiB (a line before it names a signal).
            let reported = (try? String(contentsOfFile: peakPath, encoding: .utf8)) ?? ""
            let peak = (reported.split(separator: "\n").last.flatMap { Int($0) } ?? 0) * 1024
        #elseif canImport(Darwin)
            let peak = Int(usage.ru_maxrss)
        #else
            let peak = Int(usage.ru_maxrss) * 1024
        #endif
        let output = captureOutput ? (FileManager.default.contents(atPath: outputPath) ?? Data()) : Data()
        let errors = captureError ? (FileManager.default.contents(atPath: errorPath) ?? Data()) : Data()
        let exited = (status & 0x7F) == 0
        return Run(
            status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), seconds: seconds, peakBytes: peak,
            output: output,
            errorLine: {
                let lines = String(decoding: errors, as: UTF8.self).split(separator: "\n")
                return String(lines.first { $0.hasPrefix("error:") } ?? lines.last ?? "")
            }())
    }
}

extension StoreBenchmark {
    /// One thread, the benchmark's 100,000 small archives upgraded in memory both ways, in turns:
    /// rewriting the text (`JSONTextRewrite`, what `upgrade --sqlite` and `--ndjson` use
    /// for them) and the tree path (read, migration pass, write). Microseconds per archive, the
    /// median of `runs` turns each.
    static func textUpgrade(rows: Int, runs: Int) throws -> (text: Double, tree: Double) {
        let catalog = try MigrationCatalog(rulesFile: ArchiveFormat.json.read(Data(rules.utf8)), fileName: "rules.json")
        let archives = (0..<rows).map { Data(shapeArchive($0).utf8) }
        let upgrade = JSONTextRewrite(catalog: catalog, limits: .default)
        let pass = MigrationPass(catalog: catalog)
        var text: [Double] = []
        var tree: [Double] = []
        var bytes = 0
        for _ in 0..<runs {
            var start = DispatchTime.now().uptimeNanoseconds
            for archive in archives {
                guard let outcome = upgrade.upgrade(archive), outcome.changed else {
                    throw ArchiveError(.invalidValue, "the text path declined an archive")
                }
                bytes &+= outcome.output.count
            }
            text.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(rows))
            start = DispatchTime.now().uptimeNanoseconds
            for archive in archives {
                var document = try ArchiveDocument(data: archive)
                _ = try pass.upgrade(&document.tree)
                bytes &+= try document.data().count
            }
            tree.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(rows))
        }
        return (text.sorted()[runs / 2], tree.sorted()[runs / 2])
    }
}
