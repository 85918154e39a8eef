/// Why a storage operation failed. One error type for the storage layer; the server maps codes to HTTP answers.
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The credential ID is already registered (to this or another user): §7.1 step 26.
        public static let credentialExists = Code(rawValue: "credential_exists")
        /// The username belongs to another account.
        public static let usernameTaken = Code(rawValue: "username_taken")
        /// The record does not exist.
        public static let notFound = Code(rawValue: "not_found")
        /// A record with the same key is stored already (an import never replaces one).
        public static let recordExists = Code(rawValue: "record_exists")
        /// The account was disabled before this write (a passkey being added to it).
        public static let accountDisabled = Code(rawValue: "account_disabled")
        /// The signature counter was changed by a concurrent sign-in (compare-and-set lost).
        public static let counterConflict = Code(rawValue: "counter_conflict")
        /// The ceremony's challenge was consumed (or expired) before this write: another request used it first.
        public static let challengeConsumed = Code(rawValue: "challenge_consumed")
        /// As many records of a kind as allowed exist already (webhook endpoints).
        public static let limitReached = Code(rawValue: "limit_reached")
        /// The database cannot be reached or answered with an error.
        public static let unavailable = Code(rawValue: "storage_unavailable")
        /// Stored data does not decode (corruption or an unknown schema).
        public static let corrupt = Code(rawValue: "storage_corrupt")
    }

    public let code: Code
    /// For logs only: never sent to clients.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
    public static func == (lhs: StorageError, rhs: StorageError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
