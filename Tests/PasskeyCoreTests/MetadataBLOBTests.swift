import Crypto
import Foundation
import PasskeyAttestation
import PasskeyCBOR
import PasskeyCore
import PasskeyWire
import SwiftASN1
import Testing
import X509

/// The FIDO Metadata Service BLOB: a real one verified with the real root at a pinned time, then one thing wrong at a
/// time, and BLOBs a test root signs for what no real BLOB shows (a compromise report, a malformed statement).
@Suite("FIDO Metadata Service BLOB")
struct MetadataBLOBTests {
    /// Inside every certificate's validity (leaf 2024-06-26 to 2025-07-28), the day the BLOB was copied.
    static let pinnedTime = Date(timeIntervalSince1970: 1_734_652_800)  // 2024-12-20T00:00:00Z

    static var realBLOB: [UInt8] {
        get throws { Array(try Data(contentsOf: try Fixtures.directory.appendingPathComponent("metadata/mds3-blob-no122.jwt"))) }
    }

    static func code(_ body: () throws(MetadataError) -> MetadataBLOB) -> MetadataError.Code? {
        do throws(MetadataError) {
            _ = try body()
            return nil
        } catch {
            return error.code
        }
    }

    // MARK: The real BLOB

    @Test("the real BLOB verifies with the FIDO root at its time, and its models, statements and statuses read")
    func realBLOBVerifies() throws {
        let blob = try MetadataBLOBVerifier.fido().verify(try Self.realBLOB, at: Self.pinnedTime)
        #expect(blob.number == 122)
        #expect(blob.nextUpdate == Date(timeIntervalSince1970: 1_735_689_600))  // 2025-01-01
        #expect(blob.entries.count == 281)
        #expect(blob.entries.filter { $0.aaguid != nil }.count == 189)
        let yubiKey = try #require(blob.entry(aaguid: "FA2B99DC-9E39-4257-8F92-4A30D23C4118"))
        #expect(yubiKey.metadataStatement?.description == "YubiKey 5 Series with NFC")
        #expect(yubiKey.metadataStatement?.attestationTypes == ["basic_full"])
        #expect(yubiKey.metadataStatement?.attestationRootCertificates.count == 1)
        #expect(yubiKey.statusReports.map(\.status) == [.fidoCertifiedL1, .fidoCertified])
        #expect(yubiKey.compromises(at: Self.pinnedTime).isEmpty)
        // Seven vendor roots cannot be represented and are left out: six give their ECDSA algorithm NULL parameters
        // (RFC 5758 §3.2 forbids them), one is signed with ecdsa-with-SHA1 (and expired in 2020). One entry holds two
        // certificates back to back, and both are read.
        let unreadable = blob.entries.compactMap(\.metadataStatement).filter { $0.unreadableRootCertificates > 0 }
        #expect(unreadable.map(\.unreadableRootCertificates).reduce(0, +) == 7)
        #expect(
            Set(unreadable.map(\.description)) == [
                "RSA DS100", "RSA Authenticator 4 for iOS", "RSA Authenticator 4 for Android", "Bluink Key U2F Authenticator",
                "KONAI Secp256R1 FIDO2 Conformance Testing CTAP2 Authenticator", "Samsung Pass",
            ])
        #expect(blob.entry(aaguid: "4c0cf95d-2f40-43b5-ba42-4c83a11c04ba")?.metadataStatement?.attestationRootCertificates.count == 4)
        // The one model the real BLOB reports as revoked.
        let truU = try #require(blob.entry(aaguid: "ba86dc56-635f-4141-aef6-00227b1b9af6"))
        #expect(truU.metadataStatement?.description == "TruU Windows Authenticator")
        #expect(truU.compromises(at: Self.pinnedTime).map(\.status) == [.revoked])
        #expect(truU.compromises(at: Date(timeIntervalSince1970: 1_700_000_000)).isEmpty, "before its effective date, 2023-12-20")
        // U2F models are named by the key identifiers of their attestation certificates.
        #expect(blob.entry(attestationCertificateKeyIdentifier: "1434D2F277FE479C35DDF6AA4D08A07CBCE99DD7")?.metadataStatement?.description
            == "NEOWAVE Winkeo FIDO2")
    }

    @Test("the shipped root is GlobalSign Root CA - R3, pinned by its fingerprint")
    func shippedRoot() throws {
        let root = try #require(try MetadataBLOBVerifier.fido().roots.first)
        var serializer = DER.Serializer()
        try serializer.serialize(root)
        let fingerprint = SHA256.hash(data: serializer.serializedBytes).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(fingerprint == "CB:B5:22:D7:B7:F1:27:AD:6A:01:13:86:5B:DF:1C:D4:10:2E:7D:07:59:AF:63:5A:7C:F4:72:0D:C9:63:C5:3B")
    }

    @Test("the real BLOB, one thing wrong at a time")
    func realBLOBOneThingWrong() throws {
        let bytes = try Self.realBLOB
        let fido = try MetadataBLOBVerifier.fido()
        // The leaf expired on 2025-07-28, and was not valid before 2024-06-26.
        #expect(Self.code { () throws(MetadataError) in try fido.verify(bytes, at: Date(timeIntervalSince1970: 1_754_006_400)) } == .untrusted)
        #expect(Self.code { () throws(MetadataError) in try fido.verify(bytes, at: Date(timeIntervalSince1970: 1_717_200_000)) } == .untrusted)
        // Another root.
        let other = MetadataBLOBVerifier(roots: [try TestCertificateAuthority("Not the FIDO root").certificate])
        #expect(Self.code { () throws(MetadataError) in try other.verify(bytes, at: Self.pinnedTime) } == .untrusted)
        // No newer than the BLOB in force: the same serial, or a later one stored.
        #expect(Self.code { () throws(MetadataError) in try fido.verify(bytes, at: Self.pinnedTime, replacing: 122) } == .rolledBack)
        #expect(Self.code { () throws(MetadataError) in try fido.verify(bytes, at: Self.pinnedTime, replacing: 130) } == .rolledBack)
        #expect(try fido.verify(bytes, at: Self.pinnedTime, replacing: 121).number == 122)
        // The serial raised in the payload, to pass the rollback check: the signature no longer verifies.
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Array.init)
        let payload = try JSONValue.parse(try #require(Base64URL.decode(String(decoding: parts[1], as: UTF8.self))))
        guard case .object(var object) = payload else { throw MetadataTestError("the payload is not an object") }
        object["no"] = .number(999)
        let raised = parts[0] + Array(".".utf8) + Array(Base64URL.encode(JSONValue.object(object).serializedBytes).utf8) + Array(".".utf8) + parts[2]
        #expect(Self.code { () throws(MetadataError) in try fido.verify(raised, at: Self.pinnedTime) } == .signatureInvalid)
        // A signature byte flipped.
        var signature = try #require(Base64URL.decode(String(decoding: parts[2], as: UTF8.self)))
        signature[signature.count / 2] ^= 0x01
        let flipped = parts[0] + Array(".".utf8) + parts[1] + Array(".".utf8) + Array(Base64URL.encode(signature).utf8)
        #expect(Self.code { () throws(MetadataError) in try fido.verify(flipped, at: Self.pinnedTime) } == .signatureInvalid)
        // Truncated: a download cut off inside the payload.
        #expect(Self.code { () throws(MetadataError) in try fido.verify(Array(bytes.prefix(bytes.count / 2)), at: Self.pinnedTime) } == .malformed)
        // 50 MB: refused before anything is parsed.
        #expect(Self.code { () throws(MetadataError) in try fido.verify([UInt8](repeating: 0x41, count: 50_000_000), at: Self.pinnedTime) } == .tooLarge)
    }

    // MARK: BLOBs a test root signs

    /// A BLOB signed by a leaf that `root` issues, as FIDO's chain is built (leaf, intermediate, root).
    struct TestMetadataService {
        let root: TestCertificateAuthority
        let intermediate: TestCertificateAuthority
        let signingKey = P256.Signing.PrivateKey()
        let leaf: [UInt8]

        init(signerName: String = "mds.example") throws {
            root = try TestCertificateAuthority("Test Metadata Root")
            intermediate = try TestCertificateAuthority("Test Metadata CA", issuer: root)
            leaf = try intermediate.issue(
                subject: try DistinguishedName { CommonName(signerName) }, key: signingKey.publicKey, extensions: Certificate.Extensions())
        }

        var verifier: MetadataBLOBVerifier { MetadataBLOBVerifier(roots: [root.certificate]) }

        func sign(_ payload: JSONValue, algorithm: String = "ES256") throws -> [UInt8] {
            let header: JSONValue = [
                "alg": .string(algorithm), "typ": "JWT",
                "x5c": [.string(Base64URL.encodeStandard(leaf)), .string(Base64URL.encodeStandard(try intermediate.der()))],
            ]
            let signingInput = Base64URL.encode(header.serializedBytes) + "." + Base64URL.encode(payload.serializedBytes)
            let signature = try signingKey.signature(for: Array(signingInput.utf8)).rawRepresentation
            return Array((signingInput + "." + Base64URL.encode(Array(signature))).utf8)
        }

        static func payload(number: Int = 7, entries: [JSONValue]) -> JSONValue {
            ["legalHeader": "test", "no": .number(Double(number)), "nextUpdate": "2024-01-01", "entries": .array(entries)]
        }

        static func entry(aaguid: String, statuses: [(String, String)], statement: JSONValue? = nil) -> JSONValue {
            var object: JSONObject = [
                "aaguid": .string(aaguid),
                "statusReports": .array(statuses.map { ["status": .string($0.0), "effectiveDate": .string($0.1)] }),
                "timeOfLastStatusChange": .string(statuses.last?.1 ?? "2023-01-01"),
            ]
            object["metadataStatement"] = statement ?? ["description": "Test key", "aaguid": .string(aaguid), "attestationTypes": ["basic_full"]]
            return .object(object)
        }
    }

    @Test("a compromise report in a later BLOB names the model, from its effective date")
    func compromiseReport() throws {
        let service = try TestMetadataService()
        let yubiKey = "fa2b99dc-9e39-4257-8f92-4a30d23c4118"
        let first = try service.verifier.verify(
            try service.sign(TestMetadataService.payload(number: 7, entries: [TestMetadataService.entry(aaguid: yubiKey, statuses: [("FIDO_CERTIFIED", "2020-05-12")])])),
            at: TestCertificateAuthority.validationTime)
        #expect(first.entry(aaguid: yubiKey)?.compromises(at: TestCertificateAuthority.validationTime).isEmpty == true)
        let second = try service.verifier.verify(
            try service.sign(
                TestMetadataService.payload(
                    number: 8,
                    entries: [
                        TestMetadataService.entry(
                            aaguid: yubiKey, statuses: [("FIDO_CERTIFIED", "2020-05-12"), ("USER_KEY_PHYSICAL_COMPROMISE", "2023-06-01")])
                    ])),
            at: TestCertificateAuthority.validationTime, replacing: first.number)
        let reports = try #require(second.entry(aaguid: yubiKey)).compromises(at: TestCertificateAuthority.validationTime)
        #expect(reports.map(\.status) == [.userKeyPhysicalCompromise])
        #expect(reports.first?.effectiveDate == Date(timeIntervalSince1970: 1_685_577_600))  // 2023-06-01
        #expect(try #require(second.entry(aaguid: yubiKey)).compromises(at: Date(timeIntervalSince1970: 1_680_000_000)).isEmpty)
        // Replaying the first BLOB now would hide the report.
        let replayed = try service.sign(TestMetadataService.payload(number: 7, entries: []))
        #expect(
            Self.code { () throws(MetadataError) in
                try service.verifier.verify(replayed, at: TestCertificateAuthority.validationTime, replacing: second.number)
            } == .rolledBack)
    }

    @Test("a signed BLOB with one malformed part is refused whole", arguments: [
        ("no serial", TestMetadataService.payload(entries: []).removing("no")),
        ("no nextUpdate", TestMetadataService.payload(entries: []).removing("nextUpdate")),
        ("a nextUpdate that is no day", TestMetadataService.payload(entries: []).setting("nextUpdate", "2024-02-30")),
        ("entries not an array", TestMetadataService.payload(entries: []).setting("entries", "none")),
        ("an entry without status reports", TestMetadataService.payload(entries: [["aaguid": "fa2b99dc-9e39-4257-8f92-4a30d23c4118"]])),
        ("an AAGUID that is no UUID", TestMetadataService.payload(entries: [TestMetadataService.entry(aaguid: "yubikey", statuses: [("FIDO_CERTIFIED", "2020-05-12")])])),
        ("a status report without status", TestMetadataService.payload(entries: [TestMetadataService.entry(aaguid: "fa2b99dc-9e39-4257-8f92-4a30d23c4118", statuses: [("", "2020-05-12")])])),
        ("a statement without description", TestMetadataService.payload(entries: [TestMetadataService.entry(aaguid: "fa2b99dc-9e39-4257-8f92-4a30d23c4118", statuses: [("FIDO_CERTIFIED", "2020-05-12")], statement: ["attestationTypes": ["basic_full"]])])),
        ("a root that is not base64", TestMetadataService.payload(entries: [TestMetadataService.entry(aaguid: "fa2b99dc-9e39-4257-8f92-4a30d23c4118", statuses: [("FIDO_CERTIFIED", "2020-05-12")], statement: ["description": "Test key", "attestationRootCertificates": ["not base64!"]])])),
    ])
    func malformedPayload(_ label: String, _ payload: JSONValue) throws {
        let service = try TestMetadataService()
        let signed = try service.sign(payload)
        #expect(Self.code { () throws(MetadataError) in try service.verifier.verify(signed, at: TestCertificateAuthority.validationTime) } == .malformed, "\(label)")
    }

    @Test("a signed BLOB whose algorithm is not RS256 or ES256 is refused")
    func unsupportedAlgorithm() throws {
        let service = try TestMetadataService()
        let signed = try service.sign(TestMetadataService.payload(entries: []), algorithm: "HS256")
        #expect(Self.code { () throws(MetadataError) in try service.verifier.verify(signed, at: TestCertificateAuthority.validationTime) } == .algorithmUnsupported)
        // The same BLOB with its own algorithm verifies: only the algorithm was wrong.
        #expect(try service.verifier.verify(try service.sign(TestMetadataService.payload(entries: [])), at: TestCertificateAuthority.validationTime).number == 7)
    }

    @Test("under a public CA's root only the metadata host signs: a certificate issued to another name is refused")
    func signerName() throws {
        let service = try TestMetadataService()
        let signed = try service.sign(TestMetadataService.payload(entries: []))
        let pinned = MetadataBLOBVerifier(roots: [service.root.certificate], signerNames: MetadataBLOBVerifier.fidoSignerNames)
        #expect(Self.code { () throws(MetadataError) in try pinned.verify(signed, at: TestCertificateAuthority.validationTime) } == .untrusted)
        // The same BLOB signed by a certificate issued to the metadata host verifies.
        let host = try TestMetadataService(signerName: "mds.fidoalliance.org")
        let pinnedHost = MetadataBLOBVerifier(roots: [host.root.certificate], signerNames: MetadataBLOBVerifier.fidoSignerNames)
        #expect(try pinnedHost.verify(try host.sign(TestMetadataService.payload(entries: [])), at: TestCertificateAuthority.validationTime).number == 7)
    }

    @Test("certificates that issue each other in a circle end the path search after a bounded number of signature checks")
    func circularChain() throws {
        let a = P256.Signing.PrivateKey()
        let b = P256.Signing.PrivateKey()
        let x = try DistinguishedName { CommonName("X") }
        let y = try DistinguishedName { CommonName("Y") }
        let extensions = try TestCertificateAuthority.caExtensions()
        func certificate(subject: DistinguishedName, issuer: DistinguishedName, key: P256.Signing.PrivateKey, signer: P256.Signing.PrivateKey) throws -> [UInt8] {
            try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: TestCertificateAuthority.from,
                notValidAfter: TestCertificateAuthority.until, issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: extensions, issuerPrivateKey: .init(signer)
            ).serializeAsPEM().derBytes
        }
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try certificate(subject: try DistinguishedName { CommonName("mds.example") }, issuer: x, key: leafKey, signer: a)
        var chain = [leaf]
        for _ in 0..<20 { chain.append(try certificate(subject: x, issuer: y, key: a, signer: b)) }
        for _ in 0..<20 { chain.append(try certificate(subject: y, issuer: x, key: b, signer: a)) }
        let header: JSONValue = ["alg": "ES256", "x5c": .array(chain.map { .string(Base64URL.encodeStandard($0)) })]
        let input = Base64URL.encode(header.serializedBytes) + "." + Base64URL.encode(TestMetadataService.payload(entries: []).serializedBytes)
        let signature = try leafKey.signature(for: Array(input.utf8)).rawRepresentation
        let blob = Array((input + "." + Base64URL.encode(Array(signature))).utf8)
        let verifier = MetadataBLOBVerifier(roots: [try TestCertificateAuthority("Unrelated root").certificate])
        do throws(MetadataError) {
            _ = try verifier.verify(blob, at: TestCertificateAuthority.validationTime)
            Issue.record("a chain to no root verified")
        } catch {
            #expect(error.code == .untrusted && error.received?.contains("stopped after 64 signature checks") == true, "\(error)")
        }
    }

    // MARK: Attestation through metadata

    /// The formats whose trust anchors a metadata statement gives (SafetyNet is kept for old credentials only).
    static let metadataFormats: Set<String> = ["packed", "tpm", "android-key", "fido-u2f"]

    @Test("the real registrations the BLOB lists verify to their statement's roots, with no root given by hand")
    func fixturesThroughMetadata() throws {
        let blob = try MetadataBLOBVerifier.fido().verify(try Self.realBLOB, at: Self.pinnedTime)
        // Nothing configured per format: every root comes from the BLOB's statements, found by AAGUID or key identifier.
        let verifiers = AttestationVerifiers.standard(trustAnchors: TrustAnchors(roots: [:], models: AuthenticatorModelRoots(blob)))
        var verified: [String] = []
        var unanchored: [String] = []
        var judged: [String] = []
        for id in AttestationFixtures.registrationIDs {
            let fixture = try AttestationFixtures.registration(id)
            let format = fixture.attestationObject.format
            // Verified fixtures, and those refused only for the root they named.
            guard Self.metadataFormats.contains(format.rawValue),
                fixture.expectedFailure == nil || fixture.expectedFailure == "attestation-trust"
            else { continue }
            guard let entry = try Self.entry(for: fixture, in: blob), entry.metadataStatement?.attestationRootCertificates.isEmpty == false
            else { continue }
            let result = try verifiers.verify(try fixture.input())
            // The statement's attestation types admit what the real authenticator made.
            if let aaguid = fixture.attestationObject.authenticatorData.attestedCredentialData?.aaguid, let rules = entry.metadataStatement?.rules {
                #expect(rules.refusal(aaguid, type: result.type) == nil, "\(id): \(rules)")
                if !rules.attestationTypes.isEmpty { judged.append(id) }
            }
            switch result.trust {
            case .trusted: verified.append(id)
            case .noTrustAnchors: unanchored.append(id)
            case .notApplicable: Issue.record("\(id): \(result.trust)")
            }
        }
        // Android phones name their android-key passkeys with the AAGUID of the BLOB's "Android Authenticator with
        // SafetyNet Attestation", whose roots are the TLS roots SafetyNet's signing certificate chains to, not
        // Google's hardware attestation roots: metadata gives android-key no roots (`--attestation-root android-key=…`).
        #expect(unanchored.sorted() == ["py_webauthn-android-key-pixel-8a", "simplewebauthn-android-key-galaxy-s9"])
        #expect(judged.count >= 17, "statements with attestation types this library maps: \(judged.sorted())")
        #expect(
            Set(verified) == [
                "py_webauthn-tpm-ecc-public-area", "py_webauthn-tpm-surface-pro-4-intel", "simplewebauthn-tpm-non-spec-san",
                "simplewebauthn-tpm-spec-compliant-san", "yubico-tpm-windows-hello", "py_webauthn-tpm-lenovo-x1-stmicro",
                "py_webauthn-packed-yubico-security-key-nfc-firefox", "py_webauthn-packed-yubico-wrong-root", "yubico-packed-security-key-rs256",
                "py_webauthn-packed-yubikey-5ci-ed25519", "yubico-packed-yubikey-5-nfc", "yubico-packed-yubikey-5-nfc-fips-ed25519",
                "yubico-packed-yubikey-bio", "fido2_net_lib-packed-atkey", "go_webauthn-fido-u2f-webauthn-io",
                "simplewebauthn-fido-u2f", "yubico-fido-u2f-yubikey-neo",
            ], "\(verified.sorted())")
    }

    /// A FIDO2 model by its AAGUID; a U2F one by the key identifier of its attestation certificate (the hex SHA-1 of
    /// the certificate's public key, FIDO Metadata Statement 3.0 §4).
    static func entry(for fixture: AttestationFixture, in blob: MetadataBLOB) throws -> MetadataBLOBEntry? {
        guard fixture.attestationObject.format == .fidoU2F else { return blob.entry(aaguid: try fixture.credential.aaguid.description) }
        guard case .array(let x5c)? = try fixture.statementMap[.text("x5c")], case .bytes(let der)? = x5c.first,
            let identifier = AuthenticatorModelRoots.keyIdentifier(of: try Certificate(derEncoded: der))
        else { return nil }
        return blob.entry(attestationCertificateKeyIdentifier: identifier)
    }
}

struct MetadataTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    func removing(_ name: String) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object[name] = nil
        return .object(object)
    }

    func setting(_ name: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object[name] = value
        return .object(object)
    }
}
