import Foundation
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Corbado Connect's iOS snippets (`../shared/reference/seeds/002_…`, §4.2, §5.2, §6.2), changed only as
/// docs/migrating/corbado.md says, against a real `passkey-server` process and the example app backend
/// (Examples/connect-backend/backend.py) as "your backend": each token provider is written as the guide writes it,
/// returning the one kind its call needs. The software authenticator stands for the iPhone (origin `https://<RP ID>`).
@Suite("Corbado Connect's app code against passkey-server", .serialized)
struct CorbadoGuideClientTests {
    /// The guide's `AppBackend`, against backend.py's routes (its session is the guide's `accessToken`).
    struct AppBackend {
        let backend: BackendProcess

        func getConnectToken(connectTokenType: ConnectTokenKind, accessToken: String) async throws -> String {
            let answer = try await backend.post("/passkeys/token", ["type": .string(connectTokenType.rawValue)], session: accessToken)
            guard let token = answer.json["token"]?.stringValue else { throw CLITestError("no connect token: \(answer.json)") }
            return token
        }

        func verifySignedPasskeyData(signedPasskeyData: String) async throws -> (Bool, String) {
            let answer = try await backend.post("/passkeys/login", ["signedPasskeyData": .string(signedPasskeyData)])
            return (answer.status == 200, answer.json["session"]?.stringValue ?? "")
        }
    }

    @Test(
        "enrollment, one-tap, identifier and overlay login, the passkey list, adding and deleting: every step's outcome",
        .enabled(if: ConnectCommandsTests.available || ConnectCommandsTests.required, "python3 with joserfc is not installed"))
    func everyStep() async throws {
        try #require(ConnectCommandsTests.available, "CI=true but `python3 -c 'import joserfc'` fails: run .ci/run's install step")
        let folder = try privateDirectory()
        let database = "sqlite:\(folder)/passkey.sqlite"
        let created = try CLIRun.runProgram(CLIRun.serverExecutable, ["api-keys", "create", "--name", "app backend", "--database", database])
        let apiKey = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerProcess(
            arguments: ["--rp-id", "example.com", "--origin", "https://example.com", "--options-per-minute", "1000"], database: database)
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let process = try BackendProcess(
            script: ConnectCommandsTests.backendScript, passkeyServer: server.url, apiKey: apiKey,
            settings: ["PASSKEY_AUDIENCE": "example.com", "PASSKEY_ISSUER": "https://example.com"])
        defer { process.stop() }
        try await process.waitUntilUp()
        let appBackend = AppBackend(backend: process)
        let email = "ann@example.com"
        let accessToken = try #require(
            try await process.post("/login", ["username": .string(email), "password": "correct horse battery staple"]).json["session"]?.stringValue)

        let corbado = PasskeyConnect(
            transport: URLSessionRelyingPartyTransport(baseURL: try #require(URL(string: server.url))),
            authenticator: SoftwareAuthenticator(configuration: SoftwareAuthenticatorConfiguration(origin: .appleApp, backup: .synced)),
            device: DeviceReport(platform: "iOS", osVersion: "18.0"))

        // §4.2.1 Before rendering, then §4.2.2 on button click.
        let nextStep = await corbado.isAppendAllowed { _ in
            try await appBackend.getConnectToken(connectTokenType: .passkeyAppend, accessToken: accessToken)
        }
        guard case .askUserForAppend(let autoAppend) = nextStep else {
            Issue.record("the append was not offered: \(nextStep)")
            return
        }
        #expect(!autoAppend)
        guard case .completed(let passkey) = await corbado.completeAppend() else {
            Issue.record("the passkey was not added")
            return
        }

        // §5.2.1: the last account used here gets one-tap; §5.2.4, §5.2.3, §5.2.2: each login ends in .done, which the
        // backend verifies.
        #expect(await corbado.isLoginAllowed() == .initOneTap(identifier: email))
        for (step, status) in [
            ("one-tap", await corbado.loginWithOneTap()), ("identifier", await corbado.loginWithIdentifier(email)),
            ("overlay", await corbado.loginWithoutIdentifier(conditionalUI: false)),
        ] {
            guard case .done(let signedPasskeyData, let username) = status else {
                Issue.record("\(step) login: \(status)")
                continue
            }
            #expect(username == email, "\(step)")
            let (success, session) = try await appBackend.verifySignedPasskeyData(signedPasskeyData: signedPasskeyData)
            #expect(success && !session.isEmpty, "\(step): the backend verified signedPasskeyData")
        }

        // §6.2.1: the list with a list token; this device holds a passkey already, so adding is not offered.
        let listed = await corbado.isManageAppendAllowed(connectTokenProvider: { _ in
            try await appBackend.getConnectToken(connectTokenType: .passkeyList, accessToken: accessToken)
        })
        #expect(listed == .notAllowed([passkey]) || (listed.passkeys?.map(\.id) == [passkey.id]), "\(listed)")
        // §6.2.3: adding from the list on the same device: its passkey is excluded.
        let again = await corbado.completePasskeyListAppend { _ in
            try await appBackend.getConnectToken(connectTokenType: .passkeyAppend, accessToken: accessToken)
        }
        #expect(again == .excludeCredentialsMatch, "\(again)")
        // A provider that returns another kind than its call needs gets an error that names the kind asked.
        guard case .error(let wrong) = await corbado.isManageAppendAllowed(connectTokenProvider: { _ in
            try await appBackend.getConnectToken(connectTokenType: .passkeyAppend, accessToken: accessToken)
        }) else {
            Issue.record("a wrong kind was not an error")
            return
        }
        #expect(wrong.code == .connectTokenWrongType && wrong.reason.contains("passkey-list"))
        // §6.2.2: deleting answers the passkeys left.
        let afterDelete = await corbado.deletePasskey(id: passkey.id) { _ in
            try await appBackend.getConnectToken(connectTokenType: .passkeyDelete, accessToken: accessToken)
        }
        #expect(afterDelete.passkeys == [], "\(afterDelete)")
        // The account has no passkey now: the identifier login falls back to the password with the name filled in.
        switch await corbado.loginWithIdentifier(email) {
        case .initSilentFallback(let identifier): #expect(identifier == email)
        case .error(_, let triggerFallback, let identifier): #expect(triggerFallback && identifier == email)
        case let other: Issue.record("after deleting the only passkey: \(other)")
        }
    }
}

extension ManageStatus {
    /// The list an outcome carries, if any.
    var passkeys: [PasskeyInfo]? {
        switch self {
        case .allowed(let list), .notAllowed(let list): list
        default: nil
        }
    }
}
