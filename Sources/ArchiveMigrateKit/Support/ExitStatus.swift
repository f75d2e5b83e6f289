/// How a run ended.
enum ExitStatus: Int32 {
    case success = 0
    /// A check failed or a difference was found.
    case findings = 1
    /// A usage or input error.
    case failure = 2
}
