#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One extended attribute: `user.origin`, `security.selinux`, `system.posix_acl_access` (an
/// ACL) on Linux; `com.apple.quarantine`, `com.apple.FinderInfo` on Apple platforms.
struct ExtendedAttribute: Sendable, Hashable {
    var name: String
    var value: [UInt8]
}

/// The extended attributes of open files, where the platform and the file system have them.
///
/// Linux: `flistxattr`, `fgetxattr`, `fsetxattr` from the C library. Swift's Glibc module does
/// not import `<sys/xattr.h>`, so the three functions are looked up once with `dlsym` and
/// called through their C signatures. Apple platforms: the same functions with their extra
/// `position` and `options` arguments. Elsewhere files have none.
enum ExtendedAttributes {
    /// Every attribute of the open file `descriptor`; empty when the file system keeps none.
    static func read(from descriptor: Int32) -> [ExtendedAttribute] {
        guard let names = listNames(descriptor) else { return [] }
        var attributes: [ExtendedAttribute] = []
        for name in names {
            if let value = value(of: name, descriptor: descriptor) {
                attributes.append(ExtendedAttribute(name: name, value: value))
            }
        }
        return attributes
    }

    /// Sets every attribute on the open file `descriptor`; returns the names it could not set
    /// (a `security.` or `trusted.` attribute an ordinary user may not set, a file system
    /// without attributes).
    @discardableResult
    static func write(_ attributes: [ExtendedAttribute], to descriptor: Int32) -> [String] {
        attributes.filter { !set($0.name, $0.value, descriptor: descriptor) }.map(\.name)
    }

    /// The value of one attribute of the file at `path` (symbolic links followed); `nil` when
    /// it has none.
    static func value(of name: String, atPath path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return value(of: name, descriptor: descriptor)
    }

    /// Sets one attribute of the file at `path` (symbolic links followed); whether it could.
    @discardableResult
    static func set(_ name: String, _ value: [UInt8], atPath path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return set(name, value, descriptor: descriptor)
    }

    // MARK: The three calls

    private static func listNames(_ descriptor: Int32) -> [String]? {
        guard let bytes = readGrowing({ buffer, size in list(descriptor, buffer, size) }) else { return nil }
        return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func value(of name: String, descriptor: Int32) -> [UInt8]? {
        readGrowing { buffer, size in get(descriptor, name, buffer, size) }
    }

    /// Calls `call` with no buffer for the size, then with a buffer of that size, again when the
    /// attribute grew in between (`ERANGE`).
    private static func readGrowing(_ call: (UnsafeMutableRawPointer?, Int) -> Int) -> [UInt8]? {
        for _ in 0..<4 {
            let size = call(nil, 0)
            guard size >= 0 else { return nil }
            if size == 0 { return [] }
            var buffer = [UInt8](repeating: 0, count: size)
            let read = buffer.withUnsafeMutableBytes { call($0.baseAddress, size) }
            if read >= 0 { return Array(buffer.prefix(read)) }
            guard errno == ERANGE else { return nil }
        }
        return nil
    }

    #if os(Linux)
        private typealias ListFunction = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int
        private typealias GetFunction =
            @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
        private typealias SetFunction =
            @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32

        /// The addresses of the C library's functions (0 when absent), found once.
        private static let addresses: (list: UInt, get: UInt, set: UInt) = {
            let library = dlopen(nil, RTLD_NOW)
            func address(_ name: String) -> UInt { UInt(bitPattern: dlsym(library, name)) }
            return (address("flistxattr"), address("fgetxattr"), address("fsetxattr"))
        }()

        private static func list(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int {
            guard let function = UnsafeRawPointer(bitPattern: addresses.list) else { return -1 }
            return unsafeBitCast(function, to: ListFunction.self)(
                descriptor, buffer?.assumingMemoryBound(to: CChar.self), size)
        }

        private static func get(
            _ descriptor: Int32, _ name: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int
        ) -> Int {
            guard let function = UnsafeRawPointer(bitPattern: addresses.get) else { return -1 }
            return unsafeBitCast(function, to: GetFunction.self)(descriptor, name, buffer, size)
        }

        private static func set(_ name: String, _ value: [UInt8], descriptor: Int32) -> Bool {
            guard let function = UnsafeRawPointer(bitPattern: addresses.set) else { return false }
            return value.withUnsafeBytes { bytes in
                unsafeBitCast(function, to: SetFunction.self)(descriptor, name, bytes.baseAddress, bytes.count, 0) == 0
            }
        }
    #elseif canImport(Darwin)
        private static func list(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int {
            flistxattr(descriptor, buffer?.assumingMemoryBound(to: CChar.self), size, 0)
        }

        private static func get(
            _ descriptor: Int32, _ name: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int
        ) -> Int {
            fgetxattr(descriptor, name, buffer, size, 0, 0)
        }

        private static func set(_ name: String, _ value: [UInt8], descriptor: Int32) -> Bool {
            value.withUnsafeBytes { bytes in fsetxattr(descriptor, name, bytes.baseAddress, bytes.count, 0, 0) == 0 }
        }
    #else
        private static func list(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int { -1 }

        private static func get(
            _ descriptor: Int32, _ name: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int
        ) -> Int { -1 }

        private static func set(_ name: String, _ value: [UInt8], descriptor: Int32) -> Bool { false }
    #endif
}
