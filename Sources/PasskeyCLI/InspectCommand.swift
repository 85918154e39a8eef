import ArgumentParser
import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyWire
import PasskeyAttestation
import PasskeyAuthenticatorNames
import X509

/// `passkey inspect FILE|-`: decodes a registration or sign-in response (the credential JSON a browser or app posts)
/// without verifying it.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode a registration or sign-in response JSON: client data, flags, AAGUID, COSE key, attestation.",
        discussion: """
            Reads the credential JSON (also wrapped as {"cred": …}, {"credential": …} or {"assertion": …}) from FILE, \
            or from standard input with -. Nothing is verified: use `passkey verify` for that. Exit status: 0 decoded, \
            2 unreadable or undecodable input.
            """)

    @Argument(help: "The response JSON file, or - for standard input.") var file: String
    @Flag(name: .long, help: "Print one JSON object instead of text.") var json = false
    @Option(help: "A FIDO Metadata Service BLOB (downloaded from https://mds3.fidoalliance.org/) to name the authenticator model from, with its certification level, compromise reports and icon. It is verified first.")
    var metadata: String?
    @Option(help: "PEM file of the root the --metadata BLOB must chain to (default: the FIDO Alliance's).") var metadataRoot: String?
    @Option(help: "Verify the --metadata BLOB as of this time (ISO 8601, default now), for an archived BLOB.") var metadataTime: String?

    func run() throws {
        let report: JSONObject
        do throws(Problem) {
            var time = Date()
            if let metadataTime {
                guard let parsed = ISO8601DateFormatter().date(from: metadataTime) else {
                    throw Problem(message: "--metadata-time \(metadataTime) is not an ISO 8601 time such as 2024-12-20T00:00:00Z")
                }
                time = parsed
            }
            var blob: MetadataBLOB?
            if let metadata { blob = try Self.metadataBLOB(metadata, rootPath: metadataRoot, at: time) }
            report = try Self.inspect(try readInput(), metadata: blob.map { ($0, time) })
        } catch {
            if json {
                let body = CeremonyFailure.failureJSON(
                    error: "unreadable_response", stage: "input", message: error.message, detail: error.message)
                print(body.prettyPrinted())
            } else {
                FileHandle.printError("passkey inspect: \(shown(error.message))")
            }
            throw ExitCode(CLIExit.usage.rawValue)
        }
        if json {
            var answer: JSONObject = ["ok": true]
            for (name, value) in report { answer[name] = value }
            print(JSONValue.object(answer).prettyPrinted())
        } else {
            print(Self.text(report))
        }
    }

    struct Problem: Error {
        let message: String
    }

    func readInput() throws(Problem) -> [UInt8] {
        if file == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        do { return try CLIFile.read(file) } catch { throw Problem(message: error.description) }
    }

    static func inspect(_ bytes: [UInt8], metadata: (blob: MetadataBLOB, time: Date)? = nil) throws(Problem) -> JSONObject {
        var value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw Problem(message: "not JSON: \(error.description)") }
        for wrapper in ["cred", "credential", "assertion"] {
            if let object = value.objectValue, object["response"] == nil, let inner = object[wrapper] { value = inner }
        }
        guard let response = value.objectValue?["response"]?.objectValue else {
            throw Problem(message: "not a WebAuthn credential: no \"response\" object")
        }
        var out = JSONObject()
        out["id"] = value.objectValue?["id"] ?? .null
        out["authenticatorAttachment"] = value.objectValue?["authenticatorAttachment"] ?? .null
        out["ceremony"] = .string(response["attestationObject"] != nil ? "registration" : "authentication")
        out["clientData"] = try clientData(response)
        if let attestation = response["attestationObject"]?.stringValue {
            guard let raw = Base64URL.decode(attestation) else { throw Problem(message: "response.attestationObject is not base64url") }
            let object: AttestationObject
            do { object = try AttestationObject(bytes: raw) } catch { throw Problem(message: "attestationObject: \(error.description)") }
            out["authenticatorData"] = authenticatorData(object.authenticatorData, metadata: metadata)
            out["attestation"] = attestationReport(object)
        } else {
            guard let encoded = response["authenticatorData"]?.stringValue, let raw = Base64URL.decode(encoded) else {
                throw Problem(message: "response.authenticatorData is missing or not base64url")
            }
            let data: AuthenticatorData
            do { data = try AuthenticatorData(bytes: raw) } catch { throw Problem(message: "authenticatorData: \(error.description)") }
            out["authenticatorData"] = authenticatorData(data)
            out["signatureBytes"] = .number(Double(response["signature"]?.stringValue.flatMap(Base64URL.decode)?.count ?? 0))
            out["userHandle"] = response["userHandle"] ?? .null
        }
        return out
    }

    static func clientData(_ response: JSONObject) throws(Problem) -> JSONValue {
        guard let encoded = response["clientDataJSON"]?.stringValue, let raw = Base64URL.decode(encoded) else {
            throw Problem(message: "response.clientDataJSON is missing or not base64url")
        }
        let data: CollectedClientData
        do { data = try CollectedClientData(bytes: raw) } catch { throw Problem(message: "clientDataJSON: \(error.description)") }
        var out = JSONObject()
        out["type"] = .string(data.type.rawValue)
        out["challenge"] = .string(data.challenge)
        out["origin"] = .string(data.origin)
        out["crossOrigin"] = data.crossOrigin.map(JSONValue.bool) ?? .null
        out["topOrigin"] = .optional(data.topOrigin)
        if let package = data.members["androidPackageName"] { out["androidPackageName"] = package }
        return .object(out)
    }

    static func authenticatorData(_ data: AuthenticatorData, metadata: (blob: MetadataBLOB, time: Date)? = nil) -> JSONValue {
        var flags = JSONObject()
        flags["UP"] = .bool(data.userPresent)
        flags["UV"] = .bool(data.userVerified)
        flags["BE"] = .bool(data.backupEligible)
        flags["BS"] = .bool(data.backupState)
        flags["AT"] = .bool(data.flags.contains(.attestedCredentialData))
        flags["ED"] = .bool(data.flags.contains(.extensionData))
        var out = JSONObject()
        out["rpIdHash"] = .string(hex(data.rpIDHash))
        out["flags"] = .object(flags)
        out["signCount"] = .number(Double(data.signCount))
        if let attested = data.attestedCredentialData {
            out["aaguid"] = .string(attested.aaguid.description)
            let model = metadata.map { metadataReport($0.blob, aaguid: attested.aaguid, at: $0.time) }
            // The verified metadata's name first; the bundled community list names synced-passkey providers.
            let name = model?.objectValue?["description"]?.stringValue ?? AuthenticatorNames.bundled.name(for: attested.aaguid.description)
            out["authenticator"] = name.map(JSONValue.string) ?? .null
            if let model { out["metadata"] = model }
            out["credentialId"] = .string(Base64URL.encode(attested.credentialID))
            out["credentialPublicKey"] = coseKey(attested.credentialPublicKey)
        }
        if !data.extensionIdentifiers.isEmpty { out["extensions"] = .array(data.extensionIdentifiers.map(JSONValue.string)) }
        return .object(out)
    }

    static func coseKey(_ key: COSEKey) -> JSONValue {
        var out = JSONObject()
        out["kty"] = .string(key.keyType.description)
        out["alg"] = .string(algorithmName(key.algorithm.rawValue))
        switch key.parameters {
        case .ec2(let curve, let x, _):
            out["crv"] = .string(curve.description)
            out["x"] = .string(Base64URL.encode(x))
        case .okp(let curve, let x):
            out["crv"] = .string(curve.description)
            out["x"] = .string(Base64URL.encode(x))
        case .rsa(let n, _):
            out["bits"] = .number(Double((n.drop { $0 == 0 }).count * 8))
        case .akp(let publicKey):
            out["publicKeyBytes"] = .number(Double(publicKey.count))
        case .unknown:
            break
        }
        return .object(out)
    }

    static func attestationReport(_ object: AttestationObject) -> JSONValue {
        var out = JSONObject()
        out["fmt"] = .string(object.format.rawValue)
        if case .map(let statement) = object.statement {
            if let alg = statement[text: "alg"]?.intValue { out["alg"] = .string(algorithmName(Int(alg))) }
            let chain = statement[text: "x5c"]?.arrayValue ?? []
            out["certificates"] = .array(
                chain.compactMap(\.bytesValue).map { der -> JSONValue in
                    guard let certificate = try? Certificate(derEncoded: der) else { return .object(["error": "not a valid X.509 certificate"]) }
                    return .object([
                        "subject": .string(certificate.subject.description), "issuer": .string(certificate.issuer.description),
                        "notAfter": .string(iso8601(certificate.notValidAfter)),
                    ])
                })
            out["selfAttestation"] = .bool(chain.isEmpty && statement[text: "sig"] != nil)
        }
        return .object(out)
    }

    static func algorithmName(_ value: Int) -> String {
        let names = [-7: "ES256", -8: "EdDSA", -35: "ES384", -36: "ES512", -37: "PS256", -38: "PS384", -39: "PS512", -257: "RS256",
                     -258: "RS384", -259: "RS512", -65535: "RS1", -48: "ML-DSA-44", -49: "ML-DSA-65", -50: "ML-DSA-87"]
        return names[value].map { "\($0) (\(value))" } ?? "\(value)"
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The human rendering: one line per fact.
    static func text(_ report: JSONObject) -> String {
        var lines: [String] = []
        func render(_ value: JSONValue, indent: String) {
            guard case .object(let object) = value else { return }
            for (name, member) in object {
                // Names and values can come from the response (an `id` that is an object): escaped like every value.
                let name = DisplayEscaping.escape(name)
                switch member {
                case .object: lines.append("\(indent)\(name):"); render(member, indent: indent + "  ")
                case .array(let items):
                    lines.append("\(indent)\(name):\(items.isEmpty ? " none" : "")")
                    for item in items {
                        if case .object = item { lines.append("\(indent)  -"); render(item, indent: indent + "    ") } else {
                            lines.append("\(indent)  - \(plain(item))")
                        }
                    }
                default: lines.append("\(indent)\(name): \(plain(member))")
                }
            }
        }
        render(.object(report), indent: "")
        return lines.joined(separator: "\n")
    }

    /// A value as one line: strings come from the response (an origin, an extension's name) and are escaped
    /// (``DisplayEscaping``), so a crafted response cannot forge lines or drive the terminal.
    static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): DisplayEscaping.escape(s)
        case .null: "—"
        default: DisplayEscaping.escape(value.serialized())
        }
    }
}
