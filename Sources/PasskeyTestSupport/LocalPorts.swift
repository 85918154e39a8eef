// Free local TCP ports for tests that start servers as separate processes.
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum LocalPorts {
    /// `count` distinct TCP ports free on 127.0.0.1 right now. The sockets that prove each port free stay open until all
    /// are chosen, so the ports differ.
    ///
    /// The ports come from below the system's ephemeral range (Linux: `ip_local_port_range`, 32768 and up): a port the
    /// kernel hands out for port 0 is handed out again at once, to the next outgoing connection (a test's client, a
    /// PostgreSQL connection) or the next in-process server on port 0, so a server process started on it a moment later
    /// could find it taken. Below that range only another test's choice could collide: between a choice and its server's
    /// bind, another test found the port free too (seen in CI, a server exiting on a taken port). So no port is handed
    /// out twice in one test run (every test target runs in one process).
    public static func free(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        var ports: [Int] = []
        let candidates = Self.candidateRange()
        while ports.count < count {
            var chosen: (fd: Int32, port: Int)?
            for _ in 0..<200 {
                let port = Int.random(in: candidates)
                guard !ports.contains(port), !handedOut.withLock({ $0.contains(port) }) else { continue }
                if let fd = try bound(port) {
                    chosen = (fd, port)
                    break
                }
            }
            // No luck in the range: let the kernel choose, as before.
            if chosen == nil, let fd = try bound(0) { chosen = (fd, try boundPort(fd)) }
            guard let chosen else { throw POSIXError(.EADDRINUSE) }
            sockets.append(chosen.fd)
            ports.append(chosen.port)
        }
        handedOut.withLock { $0.formUnion(ports) }
        return ports
    }

    /// Every port ``free(_:)`` has handed out in this process.
    private static let handedOut = Mutex<Set<Int>>([])

    /// Ports below the ephemeral range (and above the ones services usually take).
    static func candidateRange() -> ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let lowest = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        return lowest > 21_000 ? 20_000...(lowest - 1) : 10_000...19_999
    }

    /// A socket bound to 127.0.0.1:`port`, or nil when the port is taken.
    static func bound(_ port: Int) throws -> Int32? {
        let fd = Loopback.tcpSocket()
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        guard Loopback.bind(fd, port: port) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// The port a bound socket holds.
    static func boundPort(_ fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension LocalPorts {
    /// One free TCP port on 127.0.0.1.
    public static func free() throws -> Int {
        guard let port = try free(1).first else { throw POSIXError(.EIO) }
        return port
    }
}
