import PasskeyCBOR
import PasskeyClient

/// Builds the attestation object (WebAuthn L3 §6.5.4): the CBOR map {"fmt", "attStmt", "authData"}, canonically
/// encoded.
enum AttestationObjectBuilder {
    static func build(
        mode: AttestationMode, authenticatorData: [UInt8], clientDataHash: [UInt8], key: CredentialKey
    ) throws(PasskeyError) -> [UInt8] {
        let format: String
        let statement: CBORMap
        switch mode {
        case .none:
            // §8.7 None: fmt "none", attStmt an empty map.
            format = "none"
            statement = [:]
        case .packedSelf:
            // §8.2 Packed, self attestation (no x5c): alg is the credential key's algorithm, and sig is a signature
            // by the credential private key over authenticatorData ‖ clientDataHash.
            format = "packed"
            let signature = try key.sign(authenticatorData + clientDataHash)
            statement = [.text("alg"): .int(Int64(key.algorithm.coseAlgorithm.rawValue)), .text("sig"): .bytes(signature)]
        }
        let object: CBORMap = [.text("fmt"): .text(format), .text("attStmt"): .map(statement), .text("authData"): .bytes(authenticatorData)]
        return CBOREncoder(canonical: true).encode(.map(object))
    }
}
