import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sets and reads one extended attribute of a file by path, for tests that check the tool keeps
/// them; independent of the tool's own code. Linux: `setxattr`/`getxattr` looked up with
/// `dlsym` (Swift's Glibc module does not import `<sys/xattr.h>`); Apple platforms: the same
/// functions with their extra arguments.
package enum ExtendedAttributeProbe {
    /// Sets `name` to `value` on the file at `path`; whether the file system allowed it.
    package static func set(_ name: String, _ value: String, atPath path: String) -> Bool {
        let bytes = Array(value.utf8)
        #if os(Linux)
            typealias SetFunction =
                @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32)
                -> Int32
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "setxattr") else { return false }
            return bytes.withUnsafeBytes {
                unsafeBitCast(symbol, to: SetFunction.self)(path, name, $0.baseAddress, $0.count, 0) == 0
            }
        #elseif canImport(Darwin)
            return bytes.withUnsafeBytes { setxattr(path, name, $0.baseAddress, $0.count, 0, 0) == 0 }
        #else
            return false
        #endif
    }

    /// The value of `name` on the file at `path` (links followed); `nil` when it has none.
    package static func value(_ name: String, atPath path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        #if os(Linux)
            typealias GetFunction =
                @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int)
                -> Int
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "getxattr") else { return nil }
            let count = buffer.withUnsafeMutableBytes {
                unsafeBitCast(symbol, to: GetFunction.self)(path, name, $0.baseAddress, $0.count)
            }
        #elseif canImport(Darwin)
            let count = buffer.withUnsafeMutableBytes { getxattr(path, name, $0.baseAddress, $0.count, 0, 0) }
        #else
            let count = -1
        #endif
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// The process's umask, which the tool inherits: from `/proc` on Linux (setting it, even
    /// back at once, would race with tests creating files in parallel).
    package static var umaskValue: Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let mask = Int(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        {
            return mask
        }
        let mask = umask(0o022)
        umask(mask)
        return Int(mask)
    }
}
