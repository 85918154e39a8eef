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

    private var pending: [String: Pending] = [:]
    /// At most this many ceremonies wait at once; the oldest are dropped past it.
    private let capacity = 10_000

    func put(_ key: String, _ value: Pending, now: Date) {
        pending = pending.filter { $0.value.expiresAt > now }
        if pending.count >= capacity, let oldest = pending.min(by: { $0.value.expiresAt < $1.value.expiresAt })?.key {
            pending[oldest] = nil
        }
        pending[key] = value
    }

    /// Removes and returns the unexpired ceremony under `key`: single use.
    func take(_ key: String, now: Date) -> Pending? {
        guard let value = pending.removeValue(forKey: key), value.expiresAt > now else { return nil }
        return value
    }
}
