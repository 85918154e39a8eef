import Foundation
public import PasskeyCore
public import PasskeyStorage
import PasskeyWire
import Crypto

/// Made-up credentials for names without passkeys: sign-in options look the same whether or not an account exists.
extension CeremonyService {
    /// One to three credential IDs derived from the username with a server secret: stable for a given name, unlinkable
    /// to real ones, so probing usernames learns nothing. They take the shapes real entries take, so that no one shape
    /// marks an answer as fake: IDs of the lengths common authenticators use (iCloud Keychain 20 bytes, Google Password
    /// Manager and many security keys 16 or 32, others 64), transports as browsers report them (`getTransports()`
    /// returns them sorted) or none (passkeys registered by clients that did not report them), and one passkey most
    /// often, sometimes two or three. An account with a shape outside these (more passkeys, an unusual ID length) can
    /// still be told from a fake; with public registration open, `username_taken` tells it anyway.
    public func fakeCredentials(for username: String) async throws(StorageError) -> [CredentialRecord] {
        let key = try await secrets.key(CeremonySecrets.fakeCredentialKey, in: repository)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Array(UsernameKey.of(username).utf8), using: key))
        // One passkey in 4 of 8 names, two in 3, three in 1.
        let count = [1, 1, 1, 1, 2, 2, 2, 3][Int(mac[0] & 7)]
        let lengths = [16, 20, 20, 32, 32, 64]
        let transportSets: [[AuthenticatorTransport]] = [[.hybrid, .internal], [.hybrid, .internal], [.internal], [.nfc, .usb], [.usb], []]
        return (0..<count).map { index in
            let seed = Array(HMAC<SHA256>.authenticationCode(for: mac + [UInt8(index)], using: key))
            let length = lengths[Int(seed[0]) % lengths.count]
            let transports = transportSets[Int(seed[1]) % transportSets.count]
            // The ID: 64 bytes drawn from the seed (two MACs of it), cut to the chosen length, its last bytes a tag.
            let pool = Array(HMAC<SHA256>.authenticationCode(for: seed + [1], using: key)) + Array(HMAC<SHA256>.authenticationCode(for: seed + [2], using: key))
            let body = Array(pool.prefix(length - Self.fakeTagLength))
            return CredentialRecord(id: body + Self.fakeTag(body, key: key), publicKey: [], signCount: 0, transports: transports)
        }
    }

    /// A made-up credential ID ends in a MAC of the rest under the server's secret, so that a sign-in naming one is
    /// recognised (``isFakeCredentialID(_:)``) and answered as a real passkey signed with a wrong key would be. 8 bytes:
    /// a real credential ID ends so by chance once in 2^64.
    static var fakeTagLength: Int { 8 }

    static func fakeTag(_ body: [UInt8], key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array("fake-credential-tag".utf8) + body, using: key).prefix(fakeTagLength))
    }

    /// Whether `id` is one ``fakeCredentials(for:)`` made up.
    public func isFakeCredentialID(_ id: [UInt8]) async -> Bool {
        guard id.count > Self.fakeTagLength, let key = try? await secrets.key(CeremonySecrets.fakeCredentialKey, in: repository) else {
            return false
        }
        let body = Array(id.dropLast(Self.fakeTagLength))
        return constantTimeEqual(Array(id.suffix(Self.fakeTagLength)), Self.fakeTag(body, key: key))
    }
}
