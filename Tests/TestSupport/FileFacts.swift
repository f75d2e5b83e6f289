import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `lstat` says about a path, for tests of what the tool keeps: mode, owner, links.
package struct FileFacts: Equatable {
    /// The permission bits, setuid, setgid and sticky included.
    package var mode: Int
    package var owner: Int
    package var group: Int
    package var linkCount: Int
    package var isSymbolicLink: Bool
    var modification: Date

    package init?(_ url: URL) {
        var raw = stat()
        guard lstat(url.path, &raw) == 0 else { return nil }
        mode = Int(raw.st_mode & 0o7777)
        owner = Int(raw.st_uid)
        group = Int(raw.st_gid)
        linkCount = Int(raw.st_nlink)
        isSymbolicLink = (raw.st_mode & S_IFMT) == S_IFLNK
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        modification = (attributes?[.modificationDate] as? Date) ?? .distantPast
    }

    /// Sets the mode of `url` exactly (setuid, setgid, sticky included).
    package static func setMode(_ mode: Int, of url: URL) throws {
        guard chmod(url.path, mode_t(mode)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM) }
    }

    /// Every file under `folder` (hidden ones included) with its bytes and facts, by relative path,
    /// and — with `folders` — the folders' own facts (their timestamps change when a file is
    /// created and removed in them): a snapshot to compare before and after a run.
    package static func snapshot(_ folder: URL, folders: Bool = true) throws -> [String: String] {
        var result: [String: String] = [:]
        var pending = [""]
        while let relative = pending.popLast() {
            let url = relative.isEmpty ? folder : folder.appendingPathComponent(relative)
            if folders { result[relative.isEmpty ? "." : relative] = "\(String(describing: FileFacts(url)))" }
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
                let child = relative.isEmpty ? name : relative + "/" + name
                let childURL = folder.appendingPathComponent(child)
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: childURL.path, isDirectory: &isDirectory)
                if isDirectory.boolValue, FileFacts(childURL)?.isSymbolicLink == false {
                    pending.append(child)
                } else {
                    let bytes =
                        (try? Data(contentsOf: childURL)).map { "\($0.count) bytes \($0.hashValue)" } ?? "unreadable"
                    result[child] = "\(String(describing: FileFacts(childURL))) \(bytes)"
                }
            }
        }
        return result
    }

    /// The tool's temporary files (`.NAME.UUID.tmp`) under `folder`.
    package static func temporaries(in folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            let name = URL(fileURLWithPath: path).lastPathComponent
            if name.hasPrefix("."), name.hasSuffix(".tmp") { found.append(path) }
        }
        return found
    }
}
