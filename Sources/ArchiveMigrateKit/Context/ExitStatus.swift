import ModelVersioning

/// How a run ended. A CI job branches on these:
///
/// | status | meaning |
/// |---|---|
/// | 0 | success; for `--dry-run`, nothing would change |
/// | 1 | findings: a failed check, a difference; for `--dry-run`, something would change |
/// | 2 | a usage or input error: a damaged file, a failed migration, a file that cannot be written |
/// | 3 | written by a newer version: this build is too old for the file |
///
/// When a batch has several, the most severe wins: 2, then 3, then 1, then 0. A broken file is
/// never reported as merely new, and an archive from a newer app is never hidden behind "would
/// change".
enum ExitStatus: Int32 {
    case success = 0
    /// A check failed or a difference was found; `--dry-run`: something would change.
    case findings = 1
    /// A usage or input error.
    case failure = 2
    /// An archive was written by a newer version of the app than the tool knows
    /// (`ArchiveError.Code.newerVersion`).
    case newerVersion = 3

    /// The status an error ends a run with: 3 for `newerVersion`, 2 for anything else.
    init(error: any Error) {
        self = (error as? ArchiveError)?.code == .newerVersion ? .newerVersion : .failure
    }

    /// How severe the status is: 2 > 3 > 1 > 0.
    private var severity: Int {
        switch self {
        case .success: return 0
        case .findings: return 1
        case .newerVersion: return 2
        case .failure: return 3
        }
    }

    /// The more severe of the two.
    func combined(with other: ExitStatus) -> ExitStatus {
        other.severity > severity ? other : self
    }
}
