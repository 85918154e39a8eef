// passkey-core-bench: throughput of the protocol core, printed as figures (never asserted by tests).
//
//   swift run -c release passkey-core-bench [--seconds S] [--rounds R]
//
// For each case it runs R rounds of S seconds and prints the median rate. The ES256 assertion path goes from the
// request body bytes (AuthenticationResponseJSON text) to a VerifiedAuthentication, exactly as a server does, and is
// compared with bare swift-crypto P-256 verification of the same signature over the same message.
import Crypto
import Foundation
import PasskeyAttestation
import PasskeyCBOR
import PasskeyCore
import PasskeyWire

var seconds = 2.0
var rounds = 5
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seconds": seconds = arguments.next().flatMap(Double.init) ?? seconds
    case "--rounds": rounds = arguments.next().flatMap(Int.init) ?? rounds
    default:
        print("usage: passkey-core-bench [--seconds S] [--rounds R]")
        exit(2)
    }
}

/// Runs `body` repeatedly for `seconds`, returns operations per second.
@MainActor func rate(_ body: () -> Bool) -> Double {
    let clock = ContinuousClock()
    var operations = 0
    var failures = 0
    let start = clock.now
    let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
    while clock.now < deadline {
        for _ in 0..<64 {
            if !body() { failures += 1 }
            operations += 1
        }
    }
    let elapsed = clock.now - start
    if failures > 0 { print("  !! \(failures) operations failed") }
    return Double(operations) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

// MARK: - Inputs

let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
let challenge = Base64URL.encode([UInt8](repeating: 7, count: 32))
let key = P256.Signing.PrivateKey()
let x963 = Array(key.publicKey.x963Representation)
let coseKey = COSEKey(
    keyType: .ec2, algorithm: .es256, parameters: .ec2(curve: .p256, x: Array(x963[1...32]), y: Array(x963[33...64]))
).encoded
let credentialID = [UInt8](repeating: 0xc1, count: 32)
let userHandle = [UInt8](repeating: 0x75, count: 64)

func authenticatorData(flags: UInt8, attested: Bool) -> [UInt8] {
    var out = Array(SHA256.hash(data: Array("example.com".utf8)))
    out.append(flags)
    out += [0, 0, 0, 0]
    if attested {
        out += [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialID.count)] + credentialID + coseKey
    }
    return out
}

func clientData(_ type: String) -> [UInt8] {
    Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"https://example.com","crossOrigin":false}"#.utf8)
}

// Assertion request body.
let assertionAuthData = authenticatorData(flags: 0x05, attested: false)
let assertionClientData = clientData("webauthn.get")
let signedMessage = assertionAuthData + Array(SHA256.hash(data: assertionClientData))
let signatureDER = Array(try key.signature(for: signedMessage).derRepresentation)
let assertionBody = Array(
    AuthenticationResponseJSON(
        id: Base64URL.encode(credentialID), rawId: Base64URL.encode(credentialID),
        response: AuthenticatorAssertionResponseJSON(
            clientDataJSON: Base64URL.encode(assertionClientData), authenticatorData: Base64URL.encode(assertionAuthData),
            signature: Base64URL.encode(signatureDER), userHandle: Base64URL.encode(userHandle))
    ).jsonString.utf8)
let record = CredentialRecord(id: credentialID, publicKey: coseKey, signCount: 0, userHandle: userHandle)

// Registration request bodies: none, and packed self attestation.
let registrationAuthData = authenticatorData(flags: 0x45, attested: true)
let registrationClientData = clientData("webauthn.create")
func registrationBody(fmt: String, statement: CBORValue) -> [UInt8] {
    let object = CBOREncoder().encode(.map(["fmt": .text(fmt), "attStmt": statement, "authData": .bytes(registrationAuthData)]))
    return Array(
        RegistrationResponseJSON(
            id: Base64URL.encode(credentialID), rawId: Base64URL.encode(credentialID),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(registrationClientData), attestationObject: Base64URL.encode(object),
                transports: [.internal])
        ).jsonString.utf8)
}
let packedSignature = Array(try key.signature(for: registrationAuthData + Array(SHA256.hash(data: registrationClientData))).derRepresentation)
let noneBody = registrationBody(fmt: "none", statement: .map([:]))
let packedBody = registrationBody(fmt: "packed", statement: .map(["alg": .int(-7), "sig": .bytes(packedSignature)]))
let registrationRP = RelyingParty(
    id: "example.com", origins: ["https://example.com"], attestationVerifiers: .standard())

// MARK: - Cases

func rawP256() -> Bool {
    guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signatureDER) else { return false }
    return key.publicKey.isValidSignature(signature, for: signedMessage)
}

func fullAssertion() -> Bool {
    do {
        let response = try AuthenticationResponseJSON(jsonBytes: assertionBody)
        let verified = try rp.verifyAuthentication(response, expectedChallenge: challenge, credential: record, expectedUser: .discoverable)
        return verified.userVerified
    } catch {
        return false
    }
}

func registration(_ body: [UInt8]) -> Bool {
    do {
        let response = try RegistrationResponseJSON(jsonBytes: body)
        return try registrationRP.verifyRegistration(response, expectedChallenge: challenge).signCount == 0
    } catch {
        print(error)
        return false
    }
}

guard rawP256(), fullAssertion(), registration(noneBody), registration(packedBody) else {
    print("benchmark inputs do not verify")
    exit(1)
}

print("passkey-core-bench: \(rounds) rounds × \(seconds) s per case, median shown")
var raw: [Double] = []
var full: [Double] = []
var none: [Double] = []
var packed: [Double] = []
for round in 1...rounds {
    raw.append(rate(rawP256))
    full.append(rate(fullAssertion))
    none.append(rate { registration(noneBody) })
    packed.append(rate { registration(packedBody) })
    print("  round \(round): raw \(Int(raw.last ?? 0))/s, assertion \(Int(full.last ?? 0))/s, none \(Int(none.last ?? 0))/s, packed \(Int(packed.last ?? 0))/s")
}
let rawRate = median(raw)
let fullRate = median(full)
func format(_ value: Double) -> String { String(Int(value.rounded())).padding(toLength: 10, withPad: " ", startingAt: 0) }
print("")
print("case                                              ops/s")
print("raw swift-crypto P-256 verify (DER sig)           \(format(rawRate))")
print("ES256 assertion, request JSON → verified result   \(format(fullRate))  (\(String(format: "%.3f", fullRate / rawRate))× raw)")
print("registration, none attestation                    \(format(median(none)))")
print("registration, packed self attestation (ES256)     \(format(median(packed)))")
