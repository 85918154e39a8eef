import Foundation
import Observation
import PasskeyAuthenticationServices
import PasskeyClient

/// The screen's state and its three passkey actions: create an account, sign in from a button, sign in from the
/// username field's AutoFill suggestions.
@MainActor
@Observable
final class PasskeyModel {
    enum State: Equatable {
        case signedOut
        case signedIn(username: String?, userId: String)
    }

    var state = State.signedOut
    var username = ""
    var isBusy = false
    /// One sentence for the person (from PasskeyError.userMessage and recoveryMessage), or nil.
    var message: String?

    private let client: PasskeyAuthClient
    private var autoFill: Task<Void, Never>?
    /// Tells the current AutoFill task from one that was stopped and is still winding down.
    private var autoFillGeneration = 0

    /// `serverURL` defaults to `Configuration.serverURL`, read here rather than as a default argument: with Xcode 26's
    /// main-actor default isolation that constant belongs to the main actor, which a default argument is not on.
    init(serverURL: URL? = nil) {
        let serverURL = serverURL ?? Configuration.serverURL
        let authenticator = AppleAuthenticator(
            presentationAnchor: { AppleAuthenticator.activeWindow() },
            log: { print("passkeys:", $0) })
        client = PasskeyAuthClient(serverURL: serverURL, authenticator: authenticator)
    }

    /// Creates an account with a passkey: for the typed username; with the field empty, on iOS 26, in the system's
    /// sign-up sheet, where the person picks the email address or phone number the account is named by.
    func createAccount() async {
        let name = username.trimmingCharacters(in: .whitespaces)
        if name.isEmpty, await client.capabilities().supportsAccountCreation {
            await run { () throws(PasskeyError) in
                let result = try await self.client.createAccount(acceptedContacts: [.email, .phone])
                self.state = .signedIn(username: result.username, userId: result.userId)
            }
            return
        }
        guard !name.isEmpty else {
            message = "Choose a username first."
            return
        }
        await run { () throws(PasskeyError) in
            let result = try await self.client.register(username: name, displayName: name)
            self.state = .signedIn(username: result.username, userId: result.userId)
        }
    }

    /// Signs in from the button: with the typed username, or with any passkey for the server when the field is empty.
    func signIn() async {
        let name = username.trimmingCharacters(in: .whitespaces)
        await run { () throws(PasskeyError) in
            let result = try await self.client.authenticate(username: name.isEmpty ? nil : name)
            self.state = .signedIn(username: result.username, userId: result.userId)
        }
    }

    /// Offers passkeys in the username field's QuickType bar until the person picks one, the screen goes away, or a
    /// button starts another request. Errors are logged, never shown: the person did not ask for anything.
    func startAutoFill() {
        guard state == .signedOut, autoFill == nil else { return }
        autoFillGeneration += 1
        let generation = autoFillGeneration
        autoFill = Task { [weak self] in
            while let self, !Task.isCancelled, self.state == .signedOut {
                // Swift infers `any Error` for a `do` inside a closure: say which errors this one throws.
                do throws(PasskeyError) {
                    let result = try await self.client.authenticate(mediation: .conditional)
                    self.state = .signedIn(username: result.username, userId: result.userId)
                } catch where error.code == .invalidChallenge {
                    continue  // the options expired anyway (a server with a shorter lifetime, a slow network): fetch fresh ones
                } catch where error.stage == .authenticator && error.recovery == .retry {
                    try? await Task.sleep(for: .seconds(1))  // no window yet (the app is still launching): try again
                    continue
                } catch {
                    print("passkeys: AutoFill ended: \(error.code) \(error.reason)")
                    break
                }
            }
            if let self, self.autoFillGeneration == generation { self.autoFill = nil }
        }
    }

    func stopAutoFill() {
        autoFill?.cancel()
        autoFill = nil
    }

    func signOut() {
        state = .signedOut
        message = nil
        startAutoFill()
    }

    /// Runs a button's ceremony: AutoFill stopped (one request at a time; the SDK would end it anyway), busy while it
    /// runs, the outcome in words, AutoFill again afterwards if still signed out.
    private func run(_ ceremony: @escaping @MainActor () async throws(PasskeyError) -> Void) async {
        stopAutoFill()
        isBusy = true
        message = nil
        defer {
            isBusy = false
            startAutoFill()
        }
        do {
            try await ceremony()
        } catch where error.code == .cancelled {
            // The person closed the sheet: say nothing.
        } catch where error.code == .server && error.server?.code == .usernameTaken {
            message = "That username is taken. Sign in instead."
        } catch {
            message = [error.userMessage, error.recoveryMessage].compactMap { $0 }.joined(separator: " ")
            print("passkeys: \(error)")
        }
    }
}
