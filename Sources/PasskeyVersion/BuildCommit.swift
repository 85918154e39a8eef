extension PasskeyVersion {
    /// The commit a release was built from; `scripts/release.sh` writes it here for its build only. nil in a
    /// development build.
    static let buildCommit: String? = nil
}
