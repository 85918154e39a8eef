import Foundation
import PasskeyClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and atomically replaces a file that must stay private to its owner (mode 0600): it holds private keys.
///
/// A write goes to a new temporary file in the same directory, created with `O_EXCL` and mode 0600 from the start
/// (never briefly world-readable), is flushed with `fsync`, then `rename`d over the old file. Readers see the old
/// file or the new one, never half of either, and a crash mid-write leaves the old file intact.
enum PrivateFile {
    static let mode: mode_t = 0o600

    /// The file's bytes, or `nil` when it does not exist. Refuses a file other users can read or write.
    static func read(_ path: String) throws(PasskeyError) -> [UInt8]? {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT { return nil }
            throw failure("cannot stat \(path)", errno)
        }
        let permissions = info.st_mode & 0o777
        guard permissions & 0o077 == 0 else {
            throw PasskeyError(
                .storageFailed, stage: .storage,
                "\(path) has mode \(String(permissions, radix: 8)); it holds private keys, so only its owner may access it (chmod 600)",
                recovery: .checkConfiguration)
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw failure("cannot read \(path)", errno) }
        return Array(data)
    }

    static func replace(_ path: String, with bytes: [UInt8]) throws(PasskeyError) {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let suffix = RandomBytes.system(6).map { String($0, radix: 16) }.joined()
        let temporary = (directory.isEmpty ? "." : directory) + "/.\(name).\(suffix).tmp"

        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("cannot create \(temporary)", errno) }
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        // The umask can only clear bits; set the mode explicitly anyway so the rule does not depend on it.
        guard fchmod(fd, mode) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure("cannot set mode 0600 on \(temporary)", code)
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                unlink(temporary)
                throw failure("cannot write \(temporary)", code)
            }
            offset += written
        }
        guard fsync(fd) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure("cannot flush \(temporary)", code)
        }
        close(fd)
        closed = true
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure("cannot replace \(path)", code)
        }
    }

    /// Runs `body` while holding an exclusive `flock` on the file at `path` (created with mode 0600 when missing), so
    /// that processes changing the same file take turns. The lock file is never replaced, unlike the file it guards
    /// (a lock on a file that `rename` replaces would guard the old copy). Closing it releases the lock, also when a
    /// process dies holding it. A file system without `flock` (some NFS, SMB and FUSE mounts) runs `body` unlocked,
    /// as before there was a lock: one process at a time is then the user's to keep.
    static func withExclusiveLock<T>(_ path: String, _ body: () throws(PasskeyError) -> T) throws(PasskeyError) -> T {
        // Read-only is enough for flock; O_NOFOLLOW: a symlink planted in place of the lock file is refused.
        let fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("cannot open the lock file \(path)", errno) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == ENOLCK || code == EOPNOTSUPP || code == ENOSYS { break }
            throw failure("cannot lock \(path)", code)
        }
        return try body()
    }

    private static func failure(_ what: String, _ code: Int32) -> PasskeyError {
        PasskeyError(.storageFailed, stage: .storage, "\(what): \(String(cString: strerror(code)))")
    }
}
