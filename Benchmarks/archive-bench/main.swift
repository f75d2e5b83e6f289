// archive-bench: ModelVersioning side by side with Foundation, in one process.
//
//   swift run -c release archive-bench            # full run: 10k, 100k, 1M objects; 100k SQLite rows
//   swift run -c release archive-bench --quick    # small sizes only (what CI runs)
//   swift run -c release archive-bench --json     # machine-readable ratios
//   swift run -c release archive-bench --without-front-doors   # the full run less its longest part
//   swift run -c release archive-bench --stores   # the store cases alone (with --quick, --json)
//   swift run -c release archive-bench --text-upgrade   # one small JSON archive upgraded, text vs tree
//   swift run -c release archive-bench --front-doors [--only sqlite|files]   # the Swift API and archive-migrate
//   swift run -c release archive-bench --hostile-inputs [--keep-inputs DIR]   # files made to take time or memory
//   swift run -c release archive-bench --many-keys   # only objects with 10k, 100k, 1M keys
//   swift run -c release archive-bench --many-keys --sizes 1000000 --case "add rules"   # one of them
//   swift run -c release archive-bench --write-archive current|version1|sqlite 10000 FILE   # an input to profile
//
// Contenders alternate within each run; every figure is the median of at least five runs.
// Ratios above 1 mean ModelVersioning is faster. Peak memory is measured in a child process per
// case (the high-water mark of its resident set, minus the input it was handed). The store cases
// run archive-migrate (this executable with --run-tool) and a Python script as processes of their
// own: SQLite rows per second of both, and the peak memory of batches of files and NDJSON lines
// next to their largest archive alone.

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

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "--run-tool" {
    // Child mode for the store cases: the archive-migrate tool, in this process.
    exit(ArchiveMigrate().run(Array(arguments.dropFirst())))
}

if arguments.first == "--run-api" {
    // Child mode for the front-door case: an app's own code on the public Swift API.
    exit(FrontDoorBenchmark.runAPI(Array(arguments.dropFirst())))
}

if let index = arguments.firstIndex(of: "--measure-memory"), index + 2 < arguments.count {
    // Child mode: run one case once on the input file and print the peak resident set growth.
    exit(MemoryProbe.run(case: arguments[index + 1], inputPath: arguments[index + 2]))
}

if let index = arguments.firstIndex(of: "--write-archive"), index + 3 < arguments.count {
    // Writes the benchmark's own archive of N shapes, the input of `--measure-memory CASE FILE`
    // (where callgrind can count a case's instructions), or the store case's database of N rows
    // with its rules in FILE.rules.json (for `--run-tool upgrade --sqlite FILE --table shapes
    // --column archive --rules FILE.rules.json`).
    let count = Int(arguments[index + 2]) ?? -1
    func shapes() -> [BenchShape] { DocumentGenerator.shapes(count: count, flavor: .short) }
    do {
        switch (arguments[index + 1], count >= 0) {
        case ("current", true):
            try DocumentGenerator.currentArchive(shapes()).write(to: URL(fileURLWithPath: arguments[index + 3]))
        case ("version1", true):
            try DocumentGenerator.version1Archive(shapes()).write(to: URL(fileURLWithPath: arguments[index + 3]))
        case ("sqlite", true):
            // The store case's table of COUNT version-1 rows, and its rules file beside it.
            try StoreBenchmark.makeDatabase(at: URL(fileURLWithPath: arguments[index + 3]), rows: count)
            try Data(StoreBenchmark.rules.utf8).write(to: URL(fileURLWithPath: arguments[index + 3] + ".rules.json"))
        default:
            FileHandle.standardError.write(Data("usage: --write-archive current|version1|sqlite COUNT FILE\n".utf8))
            exit(2)
        }
    } catch {
        FileHandle.standardError.write(Data("archive-bench: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

let quick = arguments.contains("--quick")
let json = arguments.contains("--json")
var options = BenchmarkOptions(quick: quick)
options.skipsFrontDoors = arguments.contains("--without-front-doors")
if let index = arguments.firstIndex(of: "--runs"), index + 1 < arguments.count, let runs = Int(arguments[index + 1]) {
    options.runs = max(5, runs)
}

if let index = arguments.firstIndex(of: "--sizes"), index + 1 < arguments.count {
    let sizes = arguments[index + 1].split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
    if !sizes.isEmpty { options.dictionarySizes = sizes }
}

if arguments.contains("--stores") {
    // The store cases alone (SQLite rows next to Python, batch peak memory), in the same rows.
    do {
        let stores = try StoreBenchmark.run(
            rows: options.storeRows, runs: options.runs, batchFiles: options.batchFiles, batchLines: options.batchLines,
            progress: { line in if !json { FileHandle.standardError.write(Data((line + "\n").utf8)) } })
        if json {
            let tree = ArchiveValue.dictionary(ArchiveDictionary(stores.jsonEntries()))
            FileHandle.standardOutput.write(
                try ArchiveFormat.json.write(tree, options: ArchiveWritingOptions(markup: .plain)))
        } else {
            print(stores.tableLines().joined(separator: "\n"))
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("archive-bench: \(error)\n".utf8))
        exit(2)
    }
}

do {
    if arguments.contains("--text-upgrade") {
        let (text, tree) = try StoreBenchmark.textUpgrade(rows: options.storeRows, runs: options.runs)
        print(
            String(
                format: "small JSON archive upgraded on one thread: text rewrite %.2f us, tree path %.2f us", text, tree
            ))
        exit(0)
    }
    if arguments.contains("--front-doors") {
        let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        let doors = try FrontDoorBenchmark.run(
            count: options.storeRows, runs: options.runs, stores: only.map { [$0] } ?? ["sqlite", "files"],
            progress: { line in if !json { FileHandle.standardError.write(Data((line + "\n").utf8)) } })
        if json {
            FileHandle.standardOutput.write(
                try ArchiveFormat.json.write(
                    .dictionary(ArchiveDictionary(doors.jsonEntries())), options: ArchiveWritingOptions(markup: .plain))
            )
        } else {
            print(doors.tableLines().joined(separator: "\n"))
        }
        exit(0)
    }
    if arguments.contains("--hostile-inputs") {
        let keeping = arguments.firstIndex(of: "--keep-inputs").flatMap {
            $0 + 1 < arguments.count ? arguments[$0 + 1] : nil
        }
        let (baseline, rows) = try HostileInputBenchmark.run(
            keeping: keeping,
            progress: { line in
                FileHandle.standardError.write(Data((line + "\n").utf8))
            })
        print(HostileInputBenchmark.tableLines(baseline: baseline, rows: rows).joined(separator: "\n"))
        exit(0)
    }
    if arguments.contains("--many-keys") {
        let only = arguments.firstIndex(of: "--case").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        let cases = LargeDictionaryBenchmark.cases.filter { only == nil || $0 == only }
        let perKey = try LargeDictionaryBenchmark.run(
            sizes: options.dictionarySizes, cases: cases, runs: options.runs, progress: { _ in })
        for name in cases {
            let figures = options.dictionarySizes.map { size in
                "\(size) keys: " + (perKey[name]?[size].map { String(format: "%.1f ns", $0) } ?? "n/a")
            }
            let measured = options.dictionarySizes.compactMap { perKey[name]?[$0] }
            let spread = (measured.max() ?? 0) / max(measured.min() ?? 1, 1e-9)
            print(
                "\(name), per key — " + figures.joined(separator: ", ")
                    + String(format: "; slowest vs fastest %.2f×", spread))
        }
        exit(0)
    }
    let results = try BenchmarkSuite(options: options).run(progress: { line in
        if !json { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    })
    if json {
        FileHandle.standardOutput.write(try results.json())
    } else {
        print(results.table())
    }
} catch {
    FileHandle.standardError.write(Data("archive-bench: \(error)\n".utf8))
    exit(2)
}
