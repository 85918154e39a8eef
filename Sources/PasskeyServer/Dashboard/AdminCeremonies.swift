import Foundation
import PasskeyStorage

/// Admin ceremonies in progress (setup, sign-in, re-check), kept in this process for the challenge lifetime.
///
/// Separate from the users' challenges on purpose: an admin challenge can never complete a user ceremony, nor the other
/// way round. An admin ceremony must finish on the instance that started it (one instance, or sticky sessions).
actor AdminCeremonies {
    enum Purpose: Sendable {
        /// Registering a new admin with the invite whose hash this is.
        case setup(inviteHash: [UInt8], admin: AdminRecord)
        /// Signing in with any admin passkey.
        case signIn
        /// A fresh passkey check by the admin of the session with this hash.
        case recheck(adminID: String, sessionHash: [UInt8])
    }

    struct Pending: Sendable {
        let challenge: String
        let purpose: Purpose
        let expiresAt: Date
    }

    /// The ceremonies anyone may start (sign-in), and those that need an invite or a session (setup, re-check), kept
    /// apart: a flood of sign-in options from many addresses can push out only other sign-in ceremonies, never an
    /// admin's setup or passkey check.
    private var open = Pool(capacity: 10_000)
    private var authorized = Pool(capacity: 1_000)

    func put(_ key: String, _ value: Pending, now: Date) {
        switch value.purpose {
        case .signIn: open.put(key, value, now: now)
        case .setup, .recheck: authorized.put(key, value, now: now)
        }
    }

    /// Removes and returns the unexpired ceremony under `key`: single use.
    func take(_ key: String, now: Date) -> Pending? {
        guard let value = open.take(key) ?? authorized.take(key), value.expiresAt > now else { return nil }
        return value
    }

    /// Ceremonies in the order they started, which is also the order they expire (one lifetime for all): expired ones
    /// are dropped from the front, and past the capacity the oldest goes, without scanning the rest.
    struct Pool {
        let capacity: Int
        private var pending: [String: Pending] = [:]
        /// Keys in start order; a key whose ceremony was taken stays until it reaches the front.
        private var order: [String] = []
        private var front = 0

        init(capacity: Int) { self.capacity = capacity }

        mutating func put(_ key: String, _ value: Pending, now: Date) {
            while front < order.count {
                let oldest = order[front]
                guard let ceremony = pending[oldest] else {
                    front += 1  // already taken
                    continue
                }
                guard ceremony.expiresAt <= now || pending.count >= capacity else { break }
                pending[oldest] = nil
                front += 1
            }
            if front > 1_024, front * 2 > order.count {
                order.removeFirst(front)
                front = 0
            }
            pending[key] = value
            order.append(key)
        }

        mutating func take(_ key: String) -> Pending? { pending.removeValue(forKey: key) }
    }
}
