public import PasskeyStorage

/// A registration that verified and was stored: the account (new, or the existing one a passkey was added to, as
/// stored) and the passkey. What an app keeps is already stored; this is what it answers and signs with.
public struct CompletedRegistration: Sendable {
    public var user: UserRecord
    public var credential: CredentialRecordEntry
    /// The account's passkeys deleted in the same transaction (a recovery link that replaces them).
    public var replacedCredentialIDs: [[UInt8]]
    /// The passkey was added to an account that existed before (append or link options), not to one this registration
    /// created: such an account may be linked to an app's user, whom its `signedPasskeyData` then names.
    public var addedToExistingAccount: Bool

    public init(user: UserRecord, credential: CredentialRecordEntry, replacedCredentialIDs: [[UInt8]] = [], addedToExistingAccount: Bool = false) {
        self.user = user
        self.credential = credential
        self.replacedCredentialIDs = replacedCredentialIDs
        self.addedToExistingAccount = addedToExistingAccount
    }
}

/// A sign-in that verified and was recorded (counter, backup state, last use).
public struct CompletedSignIn: Sendable {
    /// The account, with this sign-in's time as its last.
    public var user: UserRecord
    /// The passkey as stored after the sign-in.
    public var credential: CredentialRecordEntry
    /// The authenticator verified the person (biometrics or PIN): the `UV` flag.
    public var userVerified: Bool
    /// The app's own user id, when the account was linked through a connect token.
    public var externalUserID: String?
    /// Accepted although the signature counter did not increase (``PasskeyCore/CounterPolicy/reportRegression``): the
    /// authenticator may have been cloned; tell the app, and log it.
    public var counterRegressed: Bool
    /// The IDs of the account's passkeys, oldest first, when storage read them with the sign-in (the Signal API's list;
    /// a sign-in adds or removes none). Nil: ``CeremonyService/signals(after:)`` reads them.
    public var accountCredentialIDs: [[UInt8]]?

    public init(
        user: UserRecord, credential: CredentialRecordEntry, userVerified: Bool, externalUserID: String?, counterRegressed: Bool,
        accountCredentialIDs: [[UInt8]]? = nil
    ) {
        self.user = user
        self.credential = credential
        self.userVerified = userVerified
        self.externalUserID = externalUserID
        self.counterRegressed = counterRegressed
        self.accountCredentialIDs = accountCredentialIDs
    }
}
