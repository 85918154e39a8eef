import Foundation
import PasskeyCore
import PasskeyAttestation
import PasskeyCBOR
import PasskeyWire
import Crypto
import X509

/// A registration fixture from `Fixtures/registration`, reduced to what attestation verification needs.
struct AttestationFixture: Sendable, CustomStringConvertible {
    let id: String
    let attestationObject: AttestationObject
    let clientDataHash: [UInt8]
    /// PEM text of the roots the fixture names, for its own format.
    let rootPEMs: [String]
    /// `attestationTrust.currentTime`; `nil` when the fixture has no certificate chain.
    let currentTime: Date?
    let expectedResult: String
    let expectedFailure: String?
    let expectedFormat: String
    let expectedAttestationType: String?
    let expectedStatementAlgorithm: Int?
    /// `expected.safetynet.timestampMs`, for SafetyNet fixtures.
    let safetyNetTimestamp: Date?

    var description: String { id }

    var credential: AttestedCredentialData {
        get throws {
            guard let data = attestationObject.authenticatorData.attestedCredentialData else {
                throw AttestationFixtureError("\(id): no attested credential data")
            }
            return data
        }
    }

    var trustAnchors: TrustAnchors {
        get throws {
            var anchors = TrustAnchors.empty
            for pem in rootPEMs { anchors = try anchors.adding(pem: pem, for: attestationObject.format) }
            return anchors
        }
    }

    /// A time for fixtures without certificates (none and self attestation do not read it).
    static let timeWithoutCertificates = Date(timeIntervalSince1970: 1_700_000_000)

    func input(
        statement: CBORValue? = nil, clientDataHash: [UInt8]? = nil, validationTime: Date? = nil
    ) throws -> AttestationVerificationInput {
        AttestationVerificationInput(
            format: attestationObject.format, statement: statement ?? attestationObject.statement,
            authenticatorData: attestationObject.authenticatorData, credential: try credential,
            clientDataHash: clientDataHash ?? self.clientDataHash,
            validationTime: validationTime ?? currentTime ?? Self.timeWithoutCertificates)
    }

    var statementMap: CBORMap {
        get throws {
            guard case .map(let map) = attestationObject.statement else { throw AttestationFixtureError("\(id): attStmt is not a map") }
            return map
        }
    }
}

struct AttestationFixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum AttestationFixtures {
    /// The same files and folder as ``Fixtures`` (FixtureTests.swift), read at the attestation-format level.
    static let registrationIDs = Fixtures.names("registration")

    static func text(_ relativePath: String) throws -> String {
        let url = try Fixtures.directory.appendingPathComponent(relativePath)
        return try String(contentsOf: url, encoding: .utf8)
    }

    static func json(_ relativePath: String) throws -> JSONObject {
        let value = try JSONValue.parse(Array(try text(relativePath).utf8))
        guard let object = value.objectValue else { throw AttestationFixtureError("\(relativePath) is not a JSON object") }
        return object
    }

    static func bytes(_ value: JSONValue?, _ what: String) throws -> [UInt8] {
        guard let text = value?.stringValue, let bytes = Base64URL.decode(text) else { throw AttestationFixtureError("\(what) is not base64url") }
        return bytes
    }

    static func registration(_ id: String) throws -> AttestationFixture {
        let file = try json("registration/\(id).json")
        guard let response = file["credential"]?.objectValue?["response"]?.objectValue,
            let trust = file["attestationTrust"]?.objectValue, let expected = file["expected"]?.objectValue
        else { throw AttestationFixtureError("\(id): missing credential.response, attestationTrust or expected") }
        let attestationObject = try AttestationObject(bytes: try bytes(response["attestationObject"], "\(id) attestationObject"))
        let clientDataJSON = try bytes(response["clientDataJSON"], "\(id) clientDataJSON")
        let roots = try (trust["roots"]?.arrayValue ?? []).map { entry -> String in
            guard let path = entry.stringValue else { throw AttestationFixtureError("\(id): root path is not a string") }
            return try text(path)
        }
        let formatter = ISO8601DateFormatter()
        let currentTime = trust["currentTime"]?.stringValue.flatMap { formatter.date(from: $0) }
        let safetyNetTimestamp = expected["safetynet"]?.objectValue?["timestampMs"]?.numberValue.map {
            Date(timeIntervalSince1970: $0 / 1000)
        }
        return AttestationFixture(
            id: id, attestationObject: attestationObject, clientDataHash: Array(SHA256.hash(data: clientDataJSON)),
            rootPEMs: roots, currentTime: currentTime, expectedResult: expected["result"]?.stringValue ?? "",
            expectedFailure: expected["failure"]?.stringValue, expectedFormat: expected["fmt"]?.stringValue ?? "",
            expectedAttestationType: expected["attestationType"]?.stringValue,
            expectedStatementAlgorithm: expected["attestationStatementAlgorithm"]?.intValue,
            safetyNetTimestamp: safetyNetTimestamp)
    }
}
