import PasskeyStorage
import PasskeyWire

/// What a ceremony's handler learned that its event should record: the username the request named (also when the step
/// fails, whose answer has none), and on success the account and passkey the step concerned, as values, so the event
/// is made from them rather than read back out of the answer's JSON. One per request, used by that request's task only.
final class CeremonyNote {
    var username: String?
    /// What a successful step did, when its kind does not say it (a backend's `PATCH /users/{id}`: disabled or enabled).
    var detail: String?
    /// The account a successful step concerned: our user id and its username.
    private(set) var userID: String?
    private(set) var accountName: String?
    /// The passkey a successful step concerned.
    private(set) var credentialID: [UInt8]?

    /// Records that the step concerned `user` (and the passkey `credentialID`).
    func concerns(_ user: UserRecord, credentialID: [UInt8]? = nil) {
        concerns(userID: user.id, username: user.username, credentialID: credentialID)
    }

    /// The request body read as its type. When it cannot be, the `username` it names is still noted, so the failure's
    /// event names its user as a well-formed request's would.
    func decoding<Body: JSONRepresentable>(_ type: Body.Type, _ read: () async throws -> JSONValue) async throws -> Body {
        let value = try await read()
        do { return try RequestBody.decode(type, from: value) } catch {
            if let named = value.objectValue?["username"]?.stringValue { username = named }
            throw error
        }
    }

    func concerns(userID: String, username: String?, credentialID: [UInt8]? = nil) {
        self.userID = userID
        accountName = username
        self.credentialID = credentialID
    }
}
