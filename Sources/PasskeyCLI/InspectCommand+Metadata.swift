import Foundation
import PasskeyAttestation
import PasskeyCore
import PasskeyWire

/// `passkey inspect --metadata BLOB`: what a FIDO Metadata Service BLOB says of the response's authenticator model.
extension InspectCommand {
    /// The BLOB in `path`, verified at `time` against the FIDO root or the PEM file `rootPath`.
    static func metadataBLOB(_ path: String, rootPath: String?, at time: Date) throws(Problem) -> MetadataBLOB {
        let bytes: [UInt8]
        do { bytes = try CLIFile.read(path) } catch { throw Problem(message: error.description) }
        do {
            let verifier: MetadataBLOBVerifier
            if let rootPath {
                let pem: String
                do { pem = try String(decoding: CLIFile.read(rootPath), as: UTF8.self) } catch { throw Problem(message: error.description) }
                verifier = try MetadataBLOBVerifier(rootPEM: pem)
            } else {
                verifier = try MetadataBLOBVerifier.fido()
            }
            return try verifier.verify(bytes, at: time)
        } catch let error as Problem {
            throw error
        } catch {
            throw Problem(message: "--metadata \(path): \(error)")
        }
    }

    /// The BLOB's entry for `aaguid` as the report shows it: the model's name, certification level, the compromise
    /// reports in force at `time`, the attestation types its statement lists, its icon; `null` when the BLOB does not
    /// list the model.
    static func metadataReport(_ blob: MetadataBLOB, aaguid: AAGUID, at time: Date) -> JSONValue {
        guard let entry = blob.entry(aaguid: aaguid.description) else { return .null }
        var out = JSONObject()
        out["blob"] = .number(Double(blob.number))
        out["description"] = .optional(entry.metadataStatement?.description)
        out["certification"] = .optional(entry.certificationLevel(at: time)?.status.rawValue)
        out["compromise"] = .array(entry.compromises(at: time).map { .string($0.status.rawValue) })
        out["attestationTypes"] = .array((entry.metadataStatement?.attestationTypes ?? []).map(JSONValue.string))
        out["icon"] = .optional(entry.metadataStatement?.icon)
        return .object(out)
    }
}
