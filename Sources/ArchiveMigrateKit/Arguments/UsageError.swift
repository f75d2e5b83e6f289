/// A usage error: wrong option, missing argument, bad value. Printed with the command's usage
/// line; the process exits with status 2.
struct UsageError: Error, Sendable, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}
