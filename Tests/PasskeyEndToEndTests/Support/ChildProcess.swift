import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program the test starts, with its output going to a log file so a chatty child can never block on a full pipe.
final class ChildProcess: @unchecked Sendable {
    // Written once at launch, then only read; `terminate()` is idempotent.
    let name: String
    let process = Process()
    let logFile: URL

    /// Starts `executable` with `arguments` in `directory`; stdout and stderr go to `<directory>/<name>.log`.
    init(name: String, executable: URL, arguments: [String], directory: URL, environment: [String: String]? = nil) throws {
        self.name = name
        logFile = directory.appendingPathComponent("\(name).log")
        guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logFile.path])
        }
        let log = try FileHandle(forWritingTo: logFile)
        defer { try? log.close() }
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if let environment { process.environment = environment }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// What the program wrote so far (stdout and stderr interleaved), at most the last `limit` characters.
    func output(limit: Int = 6_000) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? "(no output file)"
        return text.count > limit ? "…" + String(text.suffix(limit)) : text
    }

    /// SIGTERM, up to `grace` for it to exit, then SIGKILL. Safe to call more than once and from `defer`.
    func terminate(grace: TimeInterval = 5) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            let hardDeadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < hardDeadline { usleep(20_000) }
        }
    }
}

enum Network {
    /// `count` distinct TCP ports free on 127.0.0.1 right now: the kernel picks each by binding to port 0. The sockets
    /// stay open until all are chosen, so the ports differ; something else could still take one before we use it.
    static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        var ports: [Int] = []
        for _ in 0..<count {
            #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #endif
            guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
                }
            }
            guard bound else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// The first executable called `name` on `PATH`.
    static func which(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
