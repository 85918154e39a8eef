// Free local TCP ports for tests that start servers as separate processes.
public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum LocalPorts {
    /// `count` distinct TCP ports free on 127.0.0.1 right now: the kernel picks each by binding to port 0. The sockets
    /// stay open until all are chosen, so the ports differ; something else could still take one before we use it.
    public static func free(_ count: Int) throws -> [Int] {
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
}

extension LocalPorts {
    /// One free TCP port on 127.0.0.1.
    public static func free() throws -> Int {
        guard let port = try free(1).first else { throw POSIXError(.EIO) }
        return port
    }
}
