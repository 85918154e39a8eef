import Foundation

/// Turns a receiver's host name into the addresses a delivery may connect to, so that ``WebhookReceiverPolicy`` is
/// checked on the very addresses used (the transport connects to one of them, never resolving the name again).
public protocol WebhookHostResolver: Sendable {
    /// The name's addresses now, in the order to try them.
    /// - Throws: why there are none (the name does not exist, no answer): for the server's log, never the caller's.
    func addresses(of name: String) async throws(WebhookHostResolutionError) -> [IPAddress]
}

public struct WebhookHostResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The system's resolver (`getaddrinfo`: `/etc/hosts`, then DNS, as every program on the machine resolves), on a
/// thread of its own, given up after a time limit (a lookup that never answers holds that thread, not a delivery).
public struct SystemHostResolver: WebhookHostResolver {
    public var timeout: Duration

    public init(timeout: Duration = .seconds(5)) { self.timeout = timeout }

    public func addresses(of name: String) async throws(WebhookHostResolutionError) -> [IPAddress] {
        let timeout = timeout
        let result = await withCheckedContinuation { continuation in
            let first = FirstAnswer<Result<[IPAddress], WebhookHostResolutionError>>(continuation)
            first.answer(.failure(WebhookHostResolutionError("the name did not resolve within \(timeout)")), after: timeout)
            DispatchQueue.global().async { first.answer(Self.lookUp(name)) }
        }
        return try result.get()
    }

    /// `getaddrinfo` for TCP, both families, addresses in the order it gives (RFC 6724's), each once.
    static func lookUp(_ name: String) -> Result<[IPAddress], WebhookHostResolutionError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0 else { return .failure(WebhookHostResolutionError(String(cString: gai_strerror(status)))) }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr.flatMap(Self.address), !addresses.contains(address) { addresses.append(address) }
            entry = current.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(WebhookHostResolutionError("the name has no address")) : .success(addresses)
    }

    static func address(_ socket: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(socket.pointee.sa_family) {
        case AF_INET:
            return socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                withUnsafeBytes(of: v4.pointee.sin_addr) { IPAddress(bytes: Array($0)) }
            }
        case AF_INET6:
            return socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                withUnsafeBytes(of: v6.pointee.sin6_addr) { IPAddress(bytes: Array($0)) }
            }
        default:
            return nil
        }
    }

    /// The addresses of this machine's network interfaces (`getifaddrs`), for ``WebhookReceiverPolicy/ownAddresses``.
    public static func interfaceAddresses() -> Set<IPAddress> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: Set<IPAddress> = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ifa_addr.flatMap(Self.address) { found.insert(address) }
            entry = current.pointee.ifa_next
        }
        return found
    }
}

/// Resumes a lookup's continuation once, with whichever comes first: the lookup's answer or its time limit.
final class FirstAnswer<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, Never>?
    private var timer: Task<Void, Never>?

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = continuation }

    /// Answers `value` after `delay` unless something answered before.
    func answer(_ value: Value, after delay: Duration) {
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            self?.answer(value)
        }
        lock.lock()
        let answered = continuation == nil
        if !answered { self.timer = timer }
        lock.unlock()
        if answered { timer.cancel() }
    }

    func answer(_ value: Value) {
        lock.lock()
        let waiting = continuation
        continuation = nil
        let timer = self.timer
        self.timer = nil
        lock.unlock()
        timer?.cancel()
        waiting?.resume(returning: value)
    }
}
