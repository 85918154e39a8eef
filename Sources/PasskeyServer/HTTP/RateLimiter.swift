public import Foundation

/// A per-client token bucket for the options endpoints, so nobody can fill challenge storage.
/// Bounded: at most `maximumClients` buckets are kept; the oldest are dropped first.
public actor RateLimiter {
    let perMinute: Int
    let maximumClients: Int
    let now: @Sendable () -> Date
    private var buckets: [String: (tokens: Double, updated: Date)] = [:]

    public init(perMinute: Int, maximumClients: Int = 100_000, now: @escaping @Sendable () -> Date = Date.init) {
        self.perMinute = max(1, perMinute)
        self.maximumClients = maximumClients
        self.now = now
    }

    /// Takes a token for `client`, or throws 429 `rate_limited` with the seconds until it has one again.
    public func enforce(_ client: String) throws(APIError) {
        if let wait = admit(client) { throw APIError.rateLimited(retryAfter: wait) }
    }

    /// Takes a token for `client`: nil when it had one, otherwise the whole seconds until it has one again (at least
    /// 1), for the 429's `Retry-After`.
    public func admit(_ client: String) -> Int? {
        let time = now()
        let capacity = Double(perMinute)
        var bucket = buckets[client] ?? (capacity, time)
        bucket.tokens = min(capacity, bucket.tokens + time.timeIntervalSince(bucket.updated) * capacity / 60)
        bucket.updated = time
        guard bucket.tokens >= 1 else {
            buckets[client] = bucket
            // Tokens come back at `capacity` per minute.
            return max(1, Int(((1 - bucket.tokens) * 60 / capacity).rounded(.up)))
        }
        bucket.tokens -= 1
        if buckets[client] == nil, buckets.count >= maximumClients,
            let oldest = buckets.min(by: { $0.value.updated < $1.value.updated })?.key
        {
            buckets[oldest] = nil
        }
        buckets[client] = bucket
        return nil
    }
}
