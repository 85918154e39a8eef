import Foundation

/// The system's resolver (`getaddrinfo`: `/etc/hosts`, then DNS, as every program on the machine resolves), on a
/// thread of its own, given up after a time limit or when the task is cancelled. A lookup that never answers holds its
/// thread, not a delivery; at most ``maximumLookups`` threads wait on lookups at once (copies of a resolver share the
/// count), so names whose servers never answer cannot pile up blocked threads.
public struct SystemHostResolver: WebhookHostResolver {
    public var timeout: Duration
    public var maximumLookups: Int { lookups.maximum }
    private let lookups: LookupCount

    public init(timeout: Duration = .seconds(5), maximumLookups: Int = 8) {
        self.timeout = timeout
        self.lookups = LookupCount(maximum: maximumLookups)
    }

    public func addresses(of name: String) async throws(WebhookHostResolutionError) -> [IPAddress] {
        guard lookups.start() else {
            throw WebhookHostResolutionError("\(lookups.maximum) lookups are waiting for an answer already")
        }
        let timeout = timeout
        let lookups = lookups
        let first = FirstAnswer<Result<[IPAddress], WebhookHostResolutionError>>()
        first.answer(.failure(WebhookHostResolutionError("the name did not resolve within \(timeout)")), after: timeout)
        DispatchQueue.global().async {
            let answer = Self.lookUp(name)
            lookups.finish()
            first.answer(answer)
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { first.wait($0) }
        } onCancel: {
            first.answer(.failure(WebhookHostResolutionError("the lookup was cancelled")))
        }
        return try result.get()
    }

    public func localAddresses() async -> Set<IPAddress> { Self.interfaceAddresses() }

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

/// Resumes a lookup's continuation once, with whichever comes first: the lookup's answer, its time limit, or the
/// task's cancellation. An answer that comes before the continuation is set is kept for it.
final class FirstAnswer<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, Never>?
    private var answered: Value?
    private var done = false
    private var timer: Task<Void, Never>?

    func wait(_ continuation: CheckedContinuation<Value, Never>) {
        lock.lock()
        let early = answered
        if early == nil { self.continuation = continuation }
        lock.unlock()
        if let early { continuation.resume(returning: early) }
    }

    /// Answers `value` after `delay` unless something answered before.
    func answer(_ value: Value, after delay: Duration) {
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            self?.answer(value)
        }
        lock.lock()
        let finished = done
        if !finished { self.timer = timer }
        lock.unlock()
        if finished { timer.cancel() }
    }

    func answer(_ value: Value) {
        lock.lock()
        guard !done else {
            lock.unlock()
            return
        }
        done = true
        let waiting = continuation
        continuation = nil
        if waiting == nil { answered = value }
        let timer = self.timer
        self.timer = nil
        lock.unlock()
        timer?.cancel()
        waiting?.resume(returning: value)
    }
}

/// How many lookups hold a thread now, shared by every copy of a ``SystemHostResolver``.
final class LookupCount: @unchecked Sendable {
    let maximum: Int
    private let lock = NSLock()
    private var running = 0

    init(maximum: Int) { self.maximum = max(1, maximum) }

    func start() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard running < maximum else { return false }
        running += 1
        return true
    }

    func finish() {
        lock.lock()
        running -= 1
        lock.unlock()
    }
}
