/// The version of this project's executables, as `passkey-server --version` and `passkey --version` print it:
/// `0.1.0 (abc1234)` for a release built by `scripts/release.sh`, which writes the commit into ``commit`` for its build
/// (``BuildCommit.swift``) and puts it back after; `0.1.0 (development build)` otherwise.
public enum PasskeyVersion {
    /// The release's version (semantic versioning). Raised by the release that changes it.
    public static let version = "0.1.0"

    /// `version (commit)`.
    public static var description: String { "\(version) (\(buildCommit ?? "development build"))" }
}
