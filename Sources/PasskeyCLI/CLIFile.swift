import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file the CLI cannot use, as one sentence a person can act on ("/tmp is a directory, not a file").
struct CLIFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reading and preparing files for every subcommand, so each failure is said the same way: "is a directory",
/// "no such file", "no such directory", "permission denied". Foundation's own errors ("NSCocoaErrorDomain error
/// 256", a dumped NSError) and the credential store's generic checks ("has mode 755 … chmod 600" for a directory)
/// do not say what is wrong.
enum CLIFile {
    private static let typeMask: mode_t = 0o170000
    private static let directoryType: mode_t = 0o040000
    private static let regularType: mode_t = 0o100000

    /// The whole file.
    static func read(_ path: String) throws(CLIFileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIFileError("cannot read \(path): \(problem(path, errno))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw CLIFileError("cannot read \(path): \(reason(errno))") }
        guard info.st_mode & typeMask != directoryType else { throw CLIFileError("cannot read \(path): it is a directory, not a file") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIFileError("cannot read \(path): \(reason(errno))")
            }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }

    /// Makes sure `path` can be written as a private file before anything is sent to a server: an existing `path` must
    /// be a regular file its owner can read and write, and a missing one's directory is created (mode 0700, as the
    /// credential store would) and must be writable. Found now, the problem costs nothing; found after the server
    /// registered a passkey, that passkey would be lost.
    static func prepareForWriting(_ path: String) throws(CLIFileError) {
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & typeMask {
            case directoryType: throw CLIFileError("\(path) is a directory, not a file")
            case regularType: break
            default: throw CLIFileError("\(path) is not a regular file")
            }
            guard access(path, R_OK | W_OK) == 0 else { throw CLIFileError("cannot write \(path): \(reason(errno))") }
        } else if errno != ENOENT, errno != ENOTDIR {
            throw CLIFileError("cannot use \(path): \(reason(errno))")
        }
        let directory = (path as NSString).deletingLastPathComponent
        try createDirectory(directory.isEmpty ? "." : directory)
        guard access(directory.isEmpty ? "." : directory, W_OK | X_OK) == 0 else {
            throw CLIFileError("cannot write in \(directory): \(reason(errno))")
        }
    }

    /// Checks a file that may be missing (an empty credential file) before it is read: if it exists, it must be a
    /// regular file its owner can read.
    static func checkIfPresent(_ path: String) throws(CLIFileError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return }
            throw CLIFileError("cannot read \(path): \(reason(errno))")
        }
        guard info.st_mode & typeMask != directoryType else { throw CLIFileError("\(path) is a directory, not a file") }
        guard access(path, R_OK) == 0 else { throw CLIFileError("cannot read \(path): \(reason(errno))") }
    }

    /// `mkdir -p` with mode 0700 for the parts that are missing, saying which part could not be made.
    private static func createDirectory(_ path: String) throws(CLIFileError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & typeMask == directoryType else { throw CLIFileError("\(path) is not a directory") }
            return
        }
        guard errno == ENOENT || errno == ENOTDIR else { throw CLIFileError("cannot use the directory \(path): \(reason(errno))") }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try createDirectory(parent) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            let code = errno
            if code == ENOENT { throw CLIFileError("no such directory \(path), and it cannot be created") }
            throw CLIFileError("cannot create the directory \(path): \(reason(code))")
        }
    }

    /// Why opening `path` failed; for a missing file, whether it is the file or its directory that is missing.
    private static func problem(_ path: String, _ code: Int32) -> String {
        guard code == ENOENT || code == ENOTDIR else { return reason(code) }
        let directory = (path as NSString).deletingLastPathComponent
        var info = stat()
        if !directory.isEmpty, stat(directory, &info) != 0 { return "no such directory \(directory)" }
        if !directory.isEmpty, info.st_mode & typeMask != directoryType { return "\(directory) is not a directory" }
        return "no such file"
    }

    /// An errno as the words people use.
    static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file or directory"
        case EACCES, EPERM: "permission denied"
        case EISDIR: "it is a directory, not a file"
        case ENOTDIR: "a part of the path is not a directory"
        case EROFS: "read-only file system"
        case ENOSPC: "no space left on the device"
        case ELOOP: "too many symbolic links"
        case ENAMETOOLONG: "the name is too long"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}

/// `read(2)`, named apart from ``CLIFile/read(_:)``.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.read(fd, buffer, count)
    #elseif canImport(Musl)
    Musl.read(fd, buffer, count)
    #else
    Glibc.read(fd, buffer, count)
    #endif
}
