import Foundation
import ModelVersioning

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension InputFile {
    /// The files the arguments of `upgrade` and `downgrade` name: a file as it is; a folder
    /// walked for the files whose name matches one of `include` (`fnmatch` patterns such as
    /// `*.json`; a pattern with a `/` matches the path inside the folder), in path order,
    /// without hidden files and folders (the tool's temporaries among them), `.bak` backups, or
    /// folders reached through symbolic links.
    ///
    /// - Throws: `ArchiveError` with code `io` for a folder without `include` ("X is a
    ///   directory (give --include PATTERN to walk it)") or one where nothing matches.
    static func expand(_ arguments: [String], include: [String], context: ToolContext) throws -> [InputFile] {
        var inputs: [InputFile] = []
        for argument in arguments {
            let url = context.url(argument)
            guard (try? FileStatus.of(url.path))?.kind == .directory else {
                inputs.append(InputFile(path: argument, url: url, relativePath: url.lastPathComponent))
                continue
            }
            guard !include.isEmpty else {
                throw ArchiveError(.io, "\(argument) is a directory (give --include PATTERN to walk it)")
            }
            let found = walk(url, shownAs: argument, include: include)
            guard !found.isEmpty else {
                throw ArchiveError(
                    .io,
                    "no file in \(argument) matches " + include.map { "--include '\($0)'" }.joined(separator: " "))
            }
            inputs.append(contentsOf: found)
        }
        return inputs
    }

    private static func walk(_ folder: URL, shownAs: String, include: [String]) -> [InputFile] {
        let prefix = shownAs == "." ? "" : shownAs.hasSuffix("/") ? shownAs : shownAs + "/"
        var found: [InputFile] = []
        var pending = [""]  // paths inside `folder` still to list
        while let relativeFolder = pending.popLast() {
            let directory = relativeFolder.isEmpty ? folder : folder.appendingPathComponent(relativeFolder)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            var subfolders: [String] = []
            for name in names.sorted() where !name.hasPrefix(".") && !name.hasSuffix(".bak") {
                let relative = relativeFolder.isEmpty ? name : relativeFolder + "/" + name
                let url = directory.appendingPathComponent(name)
                guard let status = try? FileStatus.of(url.path, followingLinks: false) else { continue }
                if status.kind == .directory {
                    subfolders.append(relative)
                    continue
                }
                if status.kind == .symbolicLink, (try? FileStatus.of(url.path))?.kind == .directory { continue }
                if matches(include, name: name, relativePath: relative) {
                    found.append(InputFile(path: prefix + relative, url: url, relativePath: relative))
                }
            }
            pending.append(contentsOf: subfolders.reversed())
        }
        return found.sorted { $0.relativePath < $1.relativePath }
    }

    private static func matches(_ patterns: [String], name: String, relativePath: String) -> Bool {
        patterns.contains { pattern in
            pattern.contains("/")
                ? fnmatch(pattern, relativePath, FNM_PATHNAME) == 0 : fnmatch(pattern, name, 0) == 0
        }
    }
}
