#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: its `errno` and the C library's sentence for it (`No space left on
/// device`), for messages that name the file the user knows, never a temporary.
struct SystemError: Error, Sendable, CustomStringConvertible {
    var code: Int32

    /// The error of the system call that just failed.
    static var last: SystemError { SystemError(code: errno) }

    var description: String { String(cString: strerror(code)) }
}
