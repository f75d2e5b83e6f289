#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Exclusive `flock(2)` locks on the directories a run writes into, held from before it reads
/// its inputs until its last file is in place.
///
/// Every run of the tool that writes takes them, so two runs never write into one directory at
/// once: the second waits (saying so once per directory), then reads what the first wrote. A
/// temporary file found in a locked directory therefore belongs to no running process and may
/// be removed. Directories are locked in the order of their paths, so two runs that share
/// several never wait for each other in a circle.
///
/// A directory that cannot be opened or locked (a file system without `flock`) is written
/// unlocked, and its stale temporary files are left alone.
final class DirectoryLocks {
    /// The directories held, by path.
    private(set) var held: Set<String> = []
    private var descriptors: [Int32] = []

    /// Locks `directories` (real paths), waiting for other runs as long as it takes;
    /// `waiting` is told of each directory it must wait for.
    init(_ directories: [String], waiting: (String) -> Void) {
        for directory in Set(directories).sorted() {
            let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            if Self.lock(descriptor, blocking: false) || (errno == EWOULDBLOCK && wait(directory, descriptor, waiting))
            {
                descriptors.append(descriptor)
                held.insert(directory)
            } else {
                close(descriptor)
            }
        }
    }

    deinit {
        release()
    }

    /// Releases every lock.
    func release() {
        for descriptor in descriptors {
            close(descriptor)
        }
        descriptors = []
        held = []
    }

    private func wait(_ directory: String, _ descriptor: Int32, _ waiting: (String) -> Void) -> Bool {
        waiting(directory)
        return Self.lock(descriptor, blocking: true)
    }

    private static func lock(_ descriptor: Int32, blocking: Bool) -> Bool {
        while true {
            if flock(descriptor, LOCK_EX | (blocking ? 0 : LOCK_NB)) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}
