public import PasskeyWire
public import PasskeyCBOR

/// The result of a successful sign-in: what to update in the credential record.
///
/// Persist ``newSignCount`` and ``backupState`` (and last-used time) in the same transaction that consumes the challenge.
public struct VerifiedAuthentication: Sendable, Hashable {
    public let credentialID: [UInt8]
    /// Store as the credential's sign count; it is compared at the next sign-in.
    public let newSignCount: UInt32
    /// UV flag: whether the authenticator verified the user (biometrics, PIN).
    public let userVerified: Bool
    public let backupEligible: Bool
    /// Store: BS may change over a credential's life (a passkey becomes synced).
    public let backupState: Bool
    /// `true` only under ``CounterPolicy/reportRegression`` when the counter did not increase.
    public let counterRegressed: Bool
    /// The user handle the authenticator returned, if any.
    public let userHandle: [UInt8]?
    public let rpID: String
    public let origin: String
    public let authenticatorAttachment: AuthenticatorAttachment?
    public let authenticatorExtensions: CBORMap?
    public let clientExtensionResults: JSONObject

    /// The record with the new counter and backup state applied.
    public func updating(_ record: CredentialRecord) -> CredentialRecord {
        var updated = record
        updated.signCount = newSignCount
        updated.backupState = backupState
        return updated
    }
}

/// How the user was identified before the sign-in (§7.2 step 6).
public enum ExpectedUser: Sendable, Hashable {
    /// The user was identified first (username, session): `userHandle` is theirs, or `nil` when the relying party
    /// stores no handle. The credential record passed in must be one of theirs.
    case identified(userHandle: [UInt8]?)
    /// Discoverable sign-in (no username, AutoFill): the response must carry a user handle, and it must be the
    /// handle of the credential's owner.
    case discoverable
}

extension AuthenticationResponseJSON {
    /// The credential ID bytes, to look the credential record up before verifying.
    ///
    /// `id` must name the same credential (WebAuthn L3 §5.1: `id` is `rawId` base64url-encoded), checked here, before a
    /// server looks the credential up: a response whose `rawId` was changed is reported as what it is, not as a
    /// passkey the server does not know.
    public func credentialID() throws(WebAuthnError) -> [UInt8] {
        let raw = try decodeBase64URL(rawId, field: "rawId")
        guard id == rawId || Base64URL.decode(id) == raw else {
            throw WebAuthnError(.credentialIDMismatch, "id and rawId name different credentials", expected: rawId, received: id)
        }
        return raw
    }

    /// The user handle bytes, if the authenticator returned one (discoverable credentials do).
    public func userHandleBytes() throws(WebAuthnError) -> [UInt8]? {
        guard let userHandle = response.userHandle else { return nil }
        return try decodeBase64URL(userHandle, field: "response.userHandle")
    }

    /// The challenge the client signed, to find the ceremony when the client did not say which one it answers.
    /// Only a lookup key: verification still compares it with the stored challenge.
    public func signedChallenge() throws(WebAuthnError) -> String {
        try CollectedClientData(bytes: try decodeBase64URL(response.clientDataJSON, field: "response.clientDataJSON")).challenge
    }
}

extension RegistrationResponseJSON {
    /// The challenge the client signed (see ``AuthenticationResponseJSON/signedChallenge()``).
    public func signedChallenge() throws(WebAuthnError) -> String {
        try CollectedClientData(bytes: try decodeBase64URL(response.clientDataJSON, field: "response.clientDataJSON")).challenge
    }
}
