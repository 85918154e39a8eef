// TCP sockets on 127.0.0.1 for tests that need them raw: free ports, half requests, a client without a library.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public enum Loopback {
    /// A new TCP socket (not yet bound or connected), or -1 with `errno` set.
    public static func tcpSocket() -> Int32 {
        #if canImport(Darwin)
        socket(AF_INET, SOCK_STREAM, 0)
        #else
        socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
    }

    /// Calls `body` with the address 127.0.0.1:`port` as `bind` and `connect` take it.
    private static func withAddress<T>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// `connect` to 127.0.0.1:`port`: 0, or -1 with `errno` set.
    public static func connect(_ fd: Int32, port: Int) -> Int32 {
        #if canImport(Darwin)
        withAddress(port: port) { Darwin.connect(fd, $0, $1) }
        #elseif canImport(Musl)
        withAddress(port: port) { Musl.connect(fd, $0, $1) }
        #else
        withAddress(port: port) { Glibc.connect(fd, $0, $1) }
        #endif
    }

    /// `bind` to 127.0.0.1:`port` (0: the kernel chooses): 0, or -1 with `errno` set.
    public static func bind(_ fd: Int32, port: Int) -> Int32 {
        #if canImport(Darwin)
        withAddress(port: port) { Darwin.bind(fd, $0, $1) }
        #elseif canImport(Musl)
        withAddress(port: port) { Musl.bind(fd, $0, $1) }
        #else
        withAddress(port: port) { Glibc.bind(fd, $0, $1) }
        #endif
    }
}
