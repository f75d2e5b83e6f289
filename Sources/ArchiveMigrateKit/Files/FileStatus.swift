#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `stat(2)` says about a file, in the words the tool's messages use.
struct FileStatus: Sendable {
    /// The kind of file.
    enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, other

        /// `a directory`, `a FIFO`, … for "X is a FIFO, not a file".
        var phrase: String {
            switch self {
            case .regular: return "a file"
            case .directory: return "a directory"
            case .symbolicLink: return "a symbolic link"
            case .fifo: return "a FIFO"
            case .characterDevice, .blockDevice: return "a device"
            case .socket: return "a socket"
            case .other: return "not a regular file"
            }
        }
    }

    var kind: Kind
    /// The permission bits, setuid, setgid and sticky included.
    var permissions: mode_t
    var owner: uid_t
    var group: gid_t
    /// How many names (hard links) the file has.
    var linkCount: Int
    var size: Int
    /// The device and inode: the file's identity.
    var identity: FileIdentity

    init(_ raw: stat) {
        switch raw.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        case S_IFSOCK: kind = .socket
        default: kind = .other
        }
        permissions = raw.st_mode & 0o7777
        owner = raw.st_uid
        group = raw.st_gid
        linkCount = Int(truncatingIfNeeded: raw.st_nlink)
        size = Int(truncatingIfNeeded: raw.st_size)
        identity = FileIdentity(
            device: UInt64(truncatingIfNeeded: raw.st_dev), inode: UInt64(truncatingIfNeeded: raw.st_ino))
    }

    /// The status of the file at `path`; of a symbolic link itself unless `followingLinks`.
    static func of(_ path: String, followingLinks: Bool = true) throws(SystemError) -> FileStatus {
        var raw = stat()
        let result = followingLinks ? stat(path, &raw) : lstat(path, &raw)
        guard result == 0 else { throw SystemError.last }
        return FileStatus(raw)
    }

    /// The status of an open file.
    static func of(descriptor: Int32) throws(SystemError) -> FileStatus {
        var raw = stat()
        guard fstat(descriptor, &raw) == 0 else { throw SystemError.last }
        return FileStatus(raw)
    }
}

/// A file's device and inode numbers.
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
}
