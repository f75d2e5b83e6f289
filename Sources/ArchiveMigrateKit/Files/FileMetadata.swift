#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a file the tool writes carries besides its bytes: its permission bits (setuid, setgid
/// and sticky included), its owner and group, and its extended attributes (ACLs among them on
/// Linux).
///
/// A replaced file keeps its own; a backup gets the original's; a new file gets the permission
/// bits of the input it was made from, less the umask, as `cp` gives them, and belongs to
/// whoever runs the tool.
struct FileMetadata: Sendable {
    var permissions: mode_t
    /// The owner and group to give the file; `nil` for whoever runs the tool.
    var owner: (user: uid_t, group: gid_t)?
    var extendedAttributes: [ExtendedAttribute]

    /// The metadata of the file at `path` (symbolic links followed).
    static func of(fileAt path: String) throws(SystemError) -> FileMetadata {
        let status = try FileStatus.of(path)
        var attributes: [ExtendedAttribute] = []
        // O_NONBLOCK: never wait on a FIFO that took the file's place.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if descriptor >= 0 {
            attributes = ExtendedAttributes.read(from: descriptor)
            close(descriptor)
        }
        return FileMetadata(
            permissions: status.permissions, owner: (status.owner, status.group), extendedAttributes: attributes)
    }

    /// A new file's: `permissions` less setuid, setgid, sticky and the umask.
    static func newFile(permissions: mode_t) -> FileMetadata {
        FileMetadata(permissions: permissions & 0o777 & ~processUmask, owner: nil, extendedAttributes: [])
    }

    /// The process's umask, read once (setting it back at once) before any file is written.
    static let processUmask: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }()

    /// Gives the open file `descriptor` this metadata, as far as the user may: the owner and
    /// group (when only the group may be set, the group; otherwise neither), the extended
    /// attributes the user may set, then the permission bits — last, because changing the owner
    /// clears setuid and setgid. Call it after the contents are written (writing clears them
    /// too).
    func apply(to descriptor: Int32) throws(SystemError) {
        if let owner, owner.user != geteuid() || owner.group != getegid() {
            if fchown(descriptor, owner.user, owner.group) != 0 {
                if errno == EPERM { _ = fchown(descriptor, uid_t.max, owner.group) }
            }
        }
        ExtendedAttributes.write(extendedAttributes, to: descriptor)
        guard fchmod(descriptor, permissions) == 0 else { throw SystemError.last }
    }
}
