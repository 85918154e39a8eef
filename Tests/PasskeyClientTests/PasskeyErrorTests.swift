import Foundation
import PasskeyAPI
import PasskeyClient
import Testing

@Suite("PasskeyError")
struct PasskeyErrorTests {
    @Test("codes are stable snake_case strings")
    func stableCodes() {
        let codes: [PasskeyError.Code: String] = [
            .cancelled: "cancelled", .noCredentials: "no_credentials", .excludedCredentialExists: "excluded_credential_exists",
            .notSupported: "not_supported", .invalidChallenge: "invalid_challenge", .invalidOptions: "invalid_options",
            .domainNotAssociated: "domain_not_associated", .invalidResponse: "invalid_response", .timeout: "timeout",
            .ceremonyInProgress: "ceremony_in_progress", .network: "network", .server: "server",
            .storageFailed: "storage_failed", .storageCorrupted: "storage_corrupted", .internalError: "internal_error",
        ]
        for (code, raw) in codes { #expect(code.rawValue == raw) }
        #expect(Set(codes.values).count == codes.count)
        // Open: a code this version does not know still round-trips.
        #expect(PasskeyError.Code(rawValue: "future_code").description == "future_code")
    }

    @Test("cancelled by the person and no passkey on this device are distinct, with distinct advice")
    func cancelledVersusNoCredentials() {
        let cancelled = PasskeyError.cancelled()
        let none = PasskeyError(.noCredentials, stage: .authenticator, "no credential for example.com")
        #expect(cancelled.code != none.code)
        #expect(cancelled.userMessage == "The passkey request was cancelled.")
        #expect(none.userMessage == "There is no passkey for this account on this device.")
        #expect(cancelled.recovery == .none && cancelled.recoveryMessage == nil)
        #expect(none.recovery == .useAnotherDeviceOrMethod)
        #expect(none.recoveryMessage == "Use a passkey from another device, or sign in another way.")
        #expect(!cancelled.isAmbiguousCancellation)
    }

    @Test("LocalizedError gives people the message and the advice, and developers the reason")
    func localizedError() {
        let error = PasskeyError(.excludedCredentialExists, stage: .authenticator, "credential AbC is in excludeCredentials")
        let localized: any LocalizedError = error
        #expect(localized.errorDescription == "You already have a passkey for this account on this device.")
        #expect(localized.recoverySuggestion == "Sign in with the passkey you already have.")
        #expect(localized.failureReason == "credential AbC is in excludeCredentials")
        #expect(error.localizedDescription == "You already have a passkey for this account on this device.")
        #expect(error.description == "excluded_credential_exists at authenticator: credential AbC is in excludeCredentials")
    }

    @Test("server errors carry the server's code and message; people never see the message")
    func serverError() {
        let error = PasskeyError.server(code: .challengeInvalid, message: "challenge older than 60 s", httpStatus: 400)
        #expect(error.code == .server)
        #expect(error.stage == .verification)
        #expect(error.server == PasskeyError.ServerProblem(code: .challengeInvalid, message: "challenge older than 60 s", httpStatus: 400))
        #expect(!error.userMessage.contains("challenge"))
        #expect(error.recovery == .retry)
    }

    @Test("a server's refusal read by an app's own HTTP code maps as the SDK's flows map it")
    func serverAnswer() {
        let taken = PasskeyError(
            serverStatus: 409, body: Data(#"{"error":"username_taken","message":"ann is taken"}"#.utf8), path: "/api/registration-challenge",
            stage: .options)
        #expect(taken.code == .server && taken.stage == .options)
        #expect(taken.server == PasskeyError.ServerProblem(code: .usernameTaken, message: "ann is taken", httpStatus: 409))
        let expired = PasskeyError(serverStatus: 400, body: Data(#"{"error":"challenge_invalid","message":"expired"}"#.utf8), path: "/api/complete-registration")
        #expect(expired.code == .invalidChallenge && expired.recovery == .requestNewOptions && expired.stage == .verification)
        let deleted = PasskeyError(
            serverStatus: 400, body: Data(#"{"error":"passkey_deleted_on_server","message":"gone"}"#.utf8), path: "/api/complete-authentication")
        #expect(deleted.code == .passkeyDeletedOnServer && deleted.recovery == .useAnotherDeviceOrMethod && deleted.server?.message == "gone")
        let proxy = PasskeyError(serverStatus: 502, body: Data("<html><body>Bad Gateway</body></html>".utf8), path: "/api/start-authentication")
        #expect(proxy.code == .server && proxy.server?.code == .httpStatus(502) && !(proxy.server?.message.contains("<html>") ?? true))
        let success = PasskeyError(serverStatus: 200, body: Data("{}".utf8), path: "/api/start-authentication")
        #expect(success.code == .invalidResponse)
    }

    @Test("every code has a message and an explicit recovery can override the default")
    func messagesAndRecovery() {
        let codes: [PasskeyError.Code] = [
            .cancelled, .noCredentials, .excludedCredentialExists, .notSupported, .invalidChallenge, .invalidOptions,
            .domainNotAssociated, .invalidResponse, .timeout, .ceremonyInProgress, .network, .server, .storageFailed,
            .storageCorrupted, .internalError, .connectTokenUnavailable, .connectTokenWrongType, .accountDisabled,
            .passkeyDeletedOnServer, .preferSignInWithApple, PasskeyError.Code(rawValue: "some_future_code"),
        ]
        for code in codes {
            let error = PasskeyError(code, stage: .authenticator, "detail")
            #expect(!error.userMessage.isEmpty)
            #expect(!error.userMessage.contains("detail"))
        }
        let network = PasskeyError(.network, stage: .network, "offline")
        #expect(network.recoveryMessage == "Check your internet connection and try again.")
        let overridden = PasskeyError(.timeout, stage: .authenticator, "slow", recovery: .useAnotherDeviceOrMethod)
        #expect(overridden.recovery == .useAnotherDeviceOrMethod)
    }
}
