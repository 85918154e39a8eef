import Crypto
import PasskeyCBOR
import PasskeyCore
import PasskeyWire

/// The credential a sign-in is checked against when it names one of the made-up credential IDs that
/// ``CeremonyService/fakeCredentials(for:)`` lists for a username without an account (WebAuthn L3 §14.6.2).
///
/// Such a response is verified like one for a stored passkey, against a key nobody holds, so it fails at the signature
/// (or earlier, for what the client itself sent) with the answer and the work a real account's passkey signed with a
/// wrong key gets: no answer tells a made-up passkey from a real one.
struct DecoyCredential: Sendable {
    /// A P-256 public key as a COSE_Key, whose private key was dropped when it was made.
    let publicKey: [UInt8]

    init() {
        let xy = Array(P256.Signing.PrivateKey().publicKey.rawRepresentation)
        let map: CBORMap = [
            .int(1): .int(2), .int(3): .int(-7), .int(-1): .int(1), .int(-2): .bytes(Array(xy.prefix(32))), .int(-3): .bytes(Array(xy.suffix(32))),
        ]
        publicKey = CBOREncoder(canonical: true).encode(.map(map))
    }

    /// A record for the credential the response names, owned by the user handle it returned, so that only the
    /// signature can fail.
    func record(for credentialID: [UInt8], userHandle: [UInt8]?) -> CredentialRecord {
        var record = CredentialRecord(id: credentialID, publicKey: publicKey, signCount: 0, transports: [])
        record.userHandle = userHandle
        return record
    }
}
