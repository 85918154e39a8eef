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
var only: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seconds": seconds = arguments.next().flatMap(Double.init) ?? seconds
    case "--rounds": rounds = arguments.next().flatMap(Int.init) ?? rounds
    case "--only": only = arguments.next()  // "assertion", for profiling one case
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

if only == "parts" {
    // Profiling aid: what each piece of the assertion path costs.
    let keyParse = rate { (try? P256.Signing.PublicKey(x963Representation: x963)) != nil }
    let cose = rate { (try? COSEKey(bytes: coseKey)) != nil }
    let makeVerifier = rate { (try? COSEKey(bytes: coseKey).makeVerifier()) != nil }
    let json = rate { (try? AuthenticationResponseJSON(jsonBytes: assertionBody)) != nil }
    let clientDataParse = rate { (try? CollectedClientData(bytes: assertionClientData)) != nil }
    let parsed = try AuthenticationResponseJSON(jsonBytes: assertionBody)
    let b64 = rate {
        Base64URL.decode(parsed.response.authenticatorData) != nil && Base64URL.decode(parsed.response.signature) != nil
            && Base64URL.decode(parsed.response.clientDataJSON) != nil && Base64URL.decode(parsed.rawId) != nil
            && Base64URL.decode(parsed.response.userHandle ?? "") != nil
    }
    let sha = rate { !SHA256.hash(data: assertionClientData).description.isEmpty }
    let authDataParse = rate { (try? AuthenticatorData(bytes: assertionAuthData)) != nil }
    let derParse = rate { (try? P256.Signing.ECDSASignature(derRepresentation: signatureDER)) != nil }
    let total = rate(fullAssertion)
    let rawRate = rate(rawP256)
    for (name, value) in [("P256 key from x963", keyParse), ("COSE key parse", cose), ("COSE key → verifier", makeVerifier),
                          ("request JSON → AuthenticationResponseJSON", json), ("client data parse", clientDataParse),
                          ("5 base64url decodes", b64), ("SHA-256 of client data (+description)", sha), ("authenticator data parse", authDataParse),
                          ("DER signature parse", derParse), ("full assertion", total), ("raw verify", rawRate)] {
        print("\(name): \(String(format: "%.2f", 1e6 / value)) µs")
    }
    exit(0)
}
if only == "assertion" {
    // Profiling aid: run only the full assertion path.
    print("assertion only: \(Int(rate(fullAssertion)))/s")
    exit(0)
}

/// Interleaves cases in slices of `slice` seconds for `total` seconds, so that machine drift (frequency changes,
/// other load) hits every case alike; returns each case's operations per second over its own slices.
@MainActor func interleaved(_ cases: [() -> Bool], total: Double, slice: Double = 0.1) -> [Double] {
    let clock = ContinuousClock()
    var operations = [Int](repeating: 0, count: cases.count)
    var elapsed = [Duration](repeating: .zero, count: cases.count)
    let sliceDuration = Duration.milliseconds(Int(slice * 1000))
    var spent = Duration.zero
    while spent < .milliseconds(Int(total * 1000)) {
        for (index, body) in cases.enumerated() {
            let start = clock.now
            let deadline = start.advanced(by: sliceDuration)
            var count = 0
            while clock.now < deadline {
                for _ in 0..<16 { _ = body() }
                count += 16
            }
            let used = clock.now - start
            operations[index] += count
            elapsed[index] += used
            spent += used
        }
    }
    return zip(operations, elapsed).map { Double($0) / (Double($1.components.seconds) + Double($1.components.attoseconds) * 1e-18) }
}

print("passkey-core-bench: \(rounds) rounds; the assertion and the raw verify alternate in 0.05 s slices (\(seconds) s each per round), registrations run after them; medians of rounds")
var raw: [Double] = []
var full: [Double] = []
var ratios: [Double] = []
var none: [Double] = []
var packed: [Double] = []
for round in 1...rounds {
    let pair = interleaved([rawP256, fullAssertion], total: seconds * 2, slice: 0.05)
    let registrations = interleaved([{ registration(noneBody) }, { registration(packedBody) }], total: seconds * 2, slice: 0.05)
    raw.append(pair[0])
    full.append(pair[1])
    ratios.append(pair[1] / pair[0])
    none.append(registrations[0])
    packed.append(registrations[1])
    print("  round \(round): raw \(Int(pair[0]))/s, assertion \(Int(pair[1]))/s (\(String(format: "%.3f", pair[1] / pair[0]))×), none \(Int(registrations[0]))/s, packed \(Int(registrations[1]))/s")
}
func format(_ value: Double) -> String { String(Int(value.rounded())).padding(toLength: 10, withPad: " ", startingAt: 0) }
print("")
print("case                                              ops/s")
print("raw swift-crypto P-256 verify (DER sig)           \(format(median(raw)))")
print("ES256 assertion, request JSON → verified result   \(format(median(full)))  (median ratio \(String(format: "%.3f", median(ratios)))× raw)")
print("registration, none attestation                    \(format(median(none)))")
print("registration, packed self attestation (ES256)     \(format(median(packed)))")
