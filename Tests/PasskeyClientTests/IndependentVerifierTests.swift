import Foundation
import PasskeyClient
import PasskeyCore
import PasskeySoftwareAuthenticator
import PasskeyTestSupport
import PasskeyWire
import Testing

/// A verifier we did not write accepts the software authenticator's responses: py_webauthn 3.x (Duo Labs), run with
/// `python3`. This guards against the software authenticator and our verifier sharing a misreading of the spec.
///
/// Without `python3 -m pip install 'webauthn==3.0.1'` the test is skipped locally; on CI (`CI=true`) it runs anyway
/// and fails, so a missing dependency can never turn it off silently.
@Suite("Independent verifier (py_webauthn)")
struct IndependentVerifierTests {
    typealias RP = TestRelyingParty

    static let available: Bool = PythonWebAuthn.isAvailable
    static let required: Bool = ProcessInfo.processInfo.environment["CI"] == "true"

    /// A configuration with a short name for test output.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let configuration: SoftwareAuthenticatorConfiguration
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "ES256, none, incrementing, Apple app", configuration: SoftwareAuthenticatorConfiguration(origin: .appleApp)),
        Case(
            name: "Ed25519, packed self, web",
            configuration: SoftwareAuthenticatorConfiguration(origin: .web(RP.webOrigin), algorithms: [.ed25519], attestation: .packedSelf)),
        Case(
            name: "ES256, packed self, synced, Android",
            configuration: {
                var c = SoftwareAuthenticatorConfiguration.syncedPasskey(
                    origin: .android(apkKeyHash: RP.apkKeyHash, packageName: RP.androidPackage))
                c.attestation = .packedSelf
                return c
            }()),
    ]

    @Test(
        "py_webauthn verifies registration and sign-in", .enabled(if: available || required, "python3 with webauthn 3.x is not installed"),
        arguments: cases)
    func pyWebAuthnAccepts(_ testCase: Case) async throws {
        let configuration = testCase.configuration
        try #require(Self.available, "CI=true but `python3 -c 'import webauthn'` fails: run .ci/run's install step")
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let rp = RP.relyingParty()
        let authenticator = SoftwareAuthenticator(configuration: configuration)
        let origin = configuration.origin.origin(rpID: RP.rpID)

        let registration = RP.registrationRequest(rp)
        let registered = try await authenticator.makeCredential(registration)
        let firstSignIn = RP.assertionRequest(rp)
        let first = try await authenticator.getAssertion(firstSignIn)
        let secondSignIn = RP.assertionRequest(rp)
        let second = try await authenticator.getAssertion(secondSignIn)

        let input: JSONValue = .object([
            "rpId": .string(RP.rpID), "origin": .string(origin), "requireUserVerification": true,
            "registration": .object(["options": registration.options.json, "credential": registered.json]),
            "authentications": .array([
                .object(["challenge": .string(firstSignIn.options.challenge), "credential": first.json]),
                .object(["challenge": .string(secondSignIn.options.challenge), "credential": second.json]),
            ]),
        ])
        let inputFile = directory.file("input.json")
        try Data(input.serialized().utf8).write(to: inputFile)
        let output = try PythonWebAuthn.run(input: inputFile, in: directory)

        let lines = output.split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "py_webauthn output:\n\(output)")
        let expectedCount = configuration.counter == .incrementing ? [1, 2] : [0, 0]
        #expect(lines[0] == "registration ok credential_id=\(registered.rawId) sign_count=0 fmt=\(configuration.attestation == .none ? "none" : "packed") user_verified=True")
        #expect(lines[1] == "authentication ok credential_id=\(registered.rawId) new_sign_count=\(expectedCount[0]) backed_up=\(configuration.backup == .synced ? "True" : "False")")
        #expect(lines[2] == "authentication ok credential_id=\(registered.rawId) new_sign_count=\(expectedCount[1]) backed_up=\(configuration.backup == .synced ? "True" : "False")")
    }
}

/// Runs py_webauthn on a JSON input file describing one registration and its sign-ins.
enum PythonWebAuthn {
    static var isAvailable: Bool {
        (try? run(["python3", "-c", "import webauthn, sys; sys.exit(0 if webauthn.__version__.startswith('3.') else 1)"]).status) == 0
    }

    /// The script: verifies the registration, then each sign-in with the public key and count py_webauthn itself
    /// extracted (nothing from our verifier), printing one line per ceremony. Any failure exits non-zero.
    static let script = #"""
    import json, sys
    import webauthn
    from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

    data = json.load(open(sys.argv[1]))
    reg = webauthn.verify_registration_response(
        credential=data["registration"]["credential"],
        expected_challenge=base64url_to_bytes(data["registration"]["options"]["challenge"]),
        expected_origin=data["origin"],
        expected_rp_id=data["rpId"],
        require_user_verification=data["requireUserVerification"],
    )
    fmt = getattr(reg.fmt, "value", reg.fmt)  # a plain string in 3.0.1, an enum in some releases
    print(f"registration ok credential_id={bytes_to_base64url(reg.credential_id)} sign_count={reg.sign_count} fmt={fmt} user_verified={reg.user_verified}")
    count = reg.sign_count
    for auth in data["authentications"]:
        result = webauthn.verify_authentication_response(
            credential=auth["credential"],
            expected_challenge=base64url_to_bytes(auth["challenge"]),
            expected_origin=data["origin"],
            expected_rp_id=data["rpId"],
            credential_public_key=reg.credential_public_key,
            credential_current_sign_count=count,
            require_user_verification=data["requireUserVerification"],
        )
        count = result.new_sign_count
        print(f"authentication ok credential_id={bytes_to_base64url(result.credential_id)} new_sign_count={result.new_sign_count} backed_up={result.credential_backed_up}")
    """#

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(input: URL, in directory: TemporaryDirectory) throws -> String {
        let scriptFile = directory.file("verify.py")
        try Data(script.utf8).write(to: scriptFile)
        let result = try run(["python3", scriptFile.path, input.path])
        guard result.status == 0 else {
            throw Failure(description: "py_webauthn refused (exit \(result.status)):\n\(result.output)")
        }
        return result.output
    }

    /// Runs a command through `/usr/bin/env`, stdout and stderr together.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runProgram(URL(fileURLWithPath: "/usr/bin/env"), arguments)
    }
}
