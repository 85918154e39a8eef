import Crypto
import Foundation

/// The checks and cryptography of a sign-in, written as a minimal server would write them with Foundation's Codable
/// JSON and swift-crypto: a challenge sealed with an HMAC (so the options need no write), the client data's type,
/// challenge and origin, the RP ID hash, user presence and verification, the signature, the counter, and an ES256
/// token for the app's backend.
struct MinimalSignIn: Sendable {
    struct Refusal: Error {
        let code: String
    }

    /// What a verification checked, for the durable write and the answer.
    struct Checked: Sendable {
        let nonce: [UInt8]
        let expiresAt: Int64
        let credentialID: [UInt8]
        let signCount: UInt32
    }

    struct Credential: Decodable {
        struct Response: Decodable {
            let clientDataJSON: String
            let authenticatorData: String
            let signature: String
            let userHandle: String?
        }
        let id: String
        let rawId: String
        let type: String
        let response: Response
    }

    struct VerifyRequest: Decodable {
        let cred: Credential
    }

    struct ClientData: Decodable {
        let type: String
        let challenge: String
        let origin: String
    }

    struct Options: Encodable {
        struct Descriptor: Encodable {
            let type = "public-key"
            let id: String
        }
        let challenge: String
        let challengeKey: String
        let rpId: String
        let timeout = 60_000
        let userVerification = "required"
        let allowCredentials: [Descriptor]
    }

    struct Verified: Encodable {
        let verified = true
        let credentialId: String
        let signedPasskeyData: String
    }

    struct TokenClaims: Encodable {
        let iss: String
        let sub: String
        let iat: Int64
        let exp: Int64
    }

    let sealKey = SymmetricKey(size: .bits256)
    let tokenKey = P256.Signing.PrivateKey()
    let origin: String
    let rpID: String
    let rpIDHash: [UInt8]

    init(origin: String, rpID: String) {
        self.origin = origin
        self.rpID = rpID
        rpIDHash = Array(SHA256.hash(data: Data(rpID.utf8)))
    }

    /// A challenge: 16 random bytes, its expiry (ms, big-endian) and the first 16 bytes of an HMAC over both.
    func challenge(now: Int64) -> [UInt8] {
        var body = (0..<16).map { _ in UInt8.random(in: 0...255) }
        withUnsafeBytes(of: (now + 60_000).bigEndian) { body += $0 }
        return body + HMAC<SHA256>.authenticationCode(for: body, using: sealKey).prefix(16)
    }

    func options(credentialIDs: [[UInt8]], now: Int64) throws -> Data {
        let sealed = Self.base64URL(challenge(now: now))
        return try JSONEncoder().encode(
            Options(challenge: sealed, challengeKey: sealed, rpId: rpID, allowCredentials: credentialIDs.map { .init(id: Self.base64URL($0)) }))
    }

    /// Everything but storage: returns the parsed credential and its checked parts; the signature is checked by
    /// `verifySignature` once the passkey has been read.
    func check(_ body: Data, now: Int64) throws -> (request: VerifyRequest, authenticatorData: [UInt8], clientData: [UInt8], checked: Checked) {
        guard let request = try? JSONDecoder().decode(VerifyRequest.self, from: body) else { throw Refusal(code: "invalid_json") }
        let credential = request.cred
        guard credential.type == "public-key", credential.id == credential.rawId, let credentialID = Self.bytes(credential.rawId),
            let clientDataBytes = Self.bytes(credential.response.clientDataJSON),
            let authenticatorData = Self.bytes(credential.response.authenticatorData)
        else { throw Refusal(code: "invalid_credential") }
        guard let clientData = try? JSONDecoder().decode(ClientData.self, from: Data(clientDataBytes)) else { throw Refusal(code: "invalid_client_data") }
        guard clientData.type == "webauthn.get" else { throw Refusal(code: "type_mismatch") }
        guard clientData.origin == origin else { throw Refusal(code: "origin_mismatch") }
        guard let challenge = Self.bytes(clientData.challenge), challenge.count == 40 else { throw Refusal(code: "challenge_invalid") }
        let mac = Array(HMAC<SHA256>.authenticationCode(for: challenge[0..<24], using: sealKey).prefix(16))
        var difference: UInt8 = 0
        for (a, b) in zip(mac, challenge[24...]) { difference |= a ^ b }
        guard difference == 0 else { throw Refusal(code: "challenge_invalid") }
        let expiresAt = challenge[16..<24].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard expiresAt > now else { throw Refusal(code: "challenge_expired") }
        guard authenticatorData.count >= 37, Array(authenticatorData[0..<32]) == rpIDHash else { throw Refusal(code: "rp_id_mismatch") }
        guard authenticatorData[32] & 0x01 != 0, authenticatorData[32] & 0x04 != 0 else { throw Refusal(code: "user_verification_required") }
        let signCount = authenticatorData[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return (
            request, authenticatorData, clientDataBytes,
            Checked(nonce: Array(challenge[0..<16]), expiresAt: expiresAt, credentialID: credentialID, signCount: signCount)
        )
    }

    /// The assertion signature over authenticator data and the client data's hash, and the counter rule.
    func verifySignature(_ request: VerifyRequest, authenticatorData: [UInt8], clientData: [UInt8], checked: Checked, passkey: FloorDatabase.Passkey) throws {
        guard let signatureBytes = Self.bytes(request.cred.response.signature),
            let key = try? P256.Signing.PublicKey(x963Representation: passkey.publicKey),
            let signature = try? P256.Signing.ECDSASignature(derRepresentation: signatureBytes),
            key.isValidSignature(signature, for: authenticatorData + Array(SHA256.hash(data: clientData)))
        else { throw Refusal(code: "signature_invalid") }
        guard checked.signCount == 0 && passkey.signCount == 0 || checked.signCount > passkey.signCount else { throw Refusal(code: "counter_regressed") }
    }

    /// The answer, with an ES256 token naming the passkey.
    func answer(_ checked: Checked, now: Int64) throws -> Data {
        let header = Self.base64URL(Array(#"{"alg":"ES256","typ":"JWT"}"#.utf8))
        let claims = Self.base64URL(
            Array(try JSONEncoder().encode(TokenClaims(iss: origin, sub: Self.base64URL(checked.credentialID), iat: now / 1000, exp: now / 1000 + 300))))
        let input = header + "." + claims
        let signature = try tokenKey.signature(for: Data(input.utf8)).rawRepresentation
        return try JSONEncoder().encode(
            Verified(credentialId: Self.base64URL(checked.credentialID), signedPasskeyData: input + "." + Self.base64URL(Array(signature))))
    }

    // base64url over bytes: Foundation's base64 with `replacingOccurrences` for the URL alphabet went through NSString
    // (about 30 µs a sign-in in a profile), which would have put a cost of this program's own in the floor.
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    static func base64URL(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let word = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0...chunk.count { out.append(alphabet[Int(word >> (18 - 6 * UInt32(position)) & 0x3f)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytes(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 3 / 4)
        var word: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = values[Int(byte)]
            guard value != 0xff else { return nil }
            word = word << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: word >> UInt32(bits)))
            }
        }
        return out
    }
}
