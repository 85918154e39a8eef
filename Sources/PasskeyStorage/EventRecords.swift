public import Foundation

/// One thing that happened: a ceremony step or an admin action, as the dashboard's live log shows it.
///
/// Events never hold challenges, tokens, keys or full credential IDs: only the first 8 base64url characters of a
/// credential ID (``credentialIDPrefix``), enough to tell a user's passkeys apart.
public struct EventRecord: Sendable, Hashable, Identifiable {
    public enum Result: String, Sendable, Hashable, CaseIterable {
        case success
        case failure
    }

    /// Kinds the overview counts. Other kinds (admin actions) are `admin.<action>`.
    public static let registrationOptions = "registration.options"
    public static let registrationVerify = "registration.verify"
    public static let authenticationOptions = "authentication.options"
    public static let authenticationVerify = "authentication.verify"
    /// A passkey added through the connect flow (an app's own login): a registration too, in the overview's counts.
    public static let appendOptions = "append.options"
    public static let appendVerify = "append.verify"

    /// Assigned by storage when the event is appended: increasing, the cursor of ``EventRepository/events(matching:before:limit:)``.
    public var id: Int64
    public var time: Date
    /// `registration.options`, `registration.verify`, `authentication.options`, `authentication.verify`, `admin.<action>`.
    public var kind: String
    public var result: Result
    /// The stable error code of a failure.
    public var code: String?
    /// The code's plain explanation.
    public var explanation: String?
    public var userID: String?
    public var username: String?
    /// The first 8 base64url characters of the credential ID, never more.
    public var credentialIDPrefix: String?
    public var origin: String?
    public var rpID: String?
    /// For origin and RP ID failures: what the relying party accepts, and what came.
    public var expected: String?
    public var received: String?
    public var clientIP: String?
    public var userAgent: String?
    public var requestID: String?

    public init(
        id: Int64 = 0, time: Date, kind: String, result: Result, code: String? = nil, explanation: String? = nil,
        userID: String? = nil, username: String? = nil, credentialIDPrefix: String? = nil, origin: String? = nil,
        rpID: String? = nil, expected: String? = nil, received: String? = nil, clientIP: String? = nil, userAgent: String? = nil,
        requestID: String? = nil
    ) {
        self.id = id
        self.time = time
        self.kind = kind
        self.result = result
        self.code = code
        self.explanation = explanation
        self.userID = userID
        self.username = username
        self.credentialIDPrefix = credentialIDPrefix.map { String($0.prefix(Self.credentialIDPrefixLength)) }
        self.origin = origin
        self.rpID = rpID
        self.expected = expected
        self.received = received
        self.clientIP = clientIP
        self.userAgent = userAgent
        self.requestID = requestID
    }

    /// Characters of a base64url credential ID an event keeps.
    public static var credentialIDPrefixLength: Int { 8 }

    /// Whether the overview counts this event as a registration, a sign-in, or a failed ceremony.
    public var isRegistration: Bool { (kind == Self.registrationVerify || kind == Self.appendVerify) && result == .success }
    public var isSignIn: Bool { kind == Self.authenticationVerify && result == .success }
    public var isCeremonyFailure: Bool {
        result == .failure
            && (kind.hasPrefix("registration.") || kind.hasPrefix("authentication.") || kind == Self.appendOptions || kind == Self.appendVerify)
    }
}

/// Which events to list. Every member set must match.
public struct EventFilter: Sendable, Hashable {
    public var result: EventRecord.Result?
    /// A user ID or a username (case-insensitive, exact).
    public var user: String?
    public var code: String?

    public init(result: EventRecord.Result? = nil, user: String? = nil, code: String? = nil) {
        self.result = result
        self.user = user
        self.code = code
    }

    public func matches(_ event: EventRecord) -> Bool {
        if let result, event.result != result { return false }
        if let code, event.code != code { return false }
        if let user, event.userID != user, !UsernameKey.same(event.username, user) { return false }
        return true
    }
}

/// Registrations, sign-ins and failed ceremonies in one hour (UTC, starting at ``hour``).
public struct EventHourCount: Sendable, Hashable {
    public var hour: Date
    public var registrations: Int
    public var signIns: Int
    public var failures: Int

    public init(hour: Date, registrations: Int = 0, signIns: Int = 0, failures: Int = 0) {
        self.hour = hour
        self.registrations = registrations
        self.signIns = signIns
        self.failures = failures
    }

    /// The start of the hour `time` falls in.
    public static func hourStart(_ time: Date) -> Date {
        Date(timeIntervalSince1970: (time.timeIntervalSince1970 / 3600).rounded(.down) * 3600)
    }

    /// One entry per hour from the hour of `from` to the hour of `to`, zero where `counts` has none.
    public static func filled(_ counts: [EventHourCount], from: Date, to: Date) -> [EventHourCount] {
        let byHour = Dictionary(counts.map { ($0.hour, $0) }, uniquingKeysWith: { a, _ in a })
        var result: [EventHourCount] = []
        var hour = hourStart(from)
        let last = hourStart(to)
        while hour <= last {
            result.append(byHour[hour] ?? EventHourCount(hour: hour))
            hour = hour.addingTimeInterval(3600)
        }
        return result
    }
}
