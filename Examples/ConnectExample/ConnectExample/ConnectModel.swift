import Foundation
import Observation
import PasskeyAuthenticationServices
import PasskeyClient

/// The screens' state and every connect flow: the login decision (one-tap, AutoFill in the identifier field, or the
/// password form), the passkey prompt after a password sign-in, and the passkey list. The flows never throw; each
/// outcome says what the screen does next.
@MainActor
@Observable
final class ConnectModel {
    /// What the login screen shows, from the server's decision.
    enum LoginScreen: Equatable {
        case deciding
        /// "Continue as …", with a way to use another account.
        case oneTap(identifier: String)
        /// The identifier field; with `autoFill`, passkeys are offered in its QuickType bar.
        case identifier(autoFill: Bool)
        /// The app's password form, with the last name filled in.
        case password
    }

    /// The app's session from its own backend; nil when signed out.
    private(set) var session: String?
    var loginScreen = LoginScreen.deciding
    var identifier = ""
    var password = ""
    /// After a password sign-in, when the server says to offer a passkey.
    var offersPasskey = false
    /// The passkey list and whether "Add a passkey" is offered there.
    private(set) var passkeys: [PasskeyInfo] = []
    private(set) var canAddPasskey = false
    /// Flows running now: the screen waits while any does (a sign-in's passkey prompt and the list can overlap).
    private var running = 0
    var isBusy: Bool { running > 0 }
    /// One sentence for the person, or nil.
    var message: String?
    /// Bumped after a button's sign-in, which ended the pending AutoFill request: the identifier field starts it again.
    private(set) var autoFillRound = 0

    private let connect: PasskeyConnect
    private let backend: AppBackend

    /// The URLs default to `Configuration`'s, read here rather than as default arguments: with Xcode 26's main-actor
    /// default isolation those constants belong to the main actor, which a default argument is not on.
    init(passkeyServerURL: URL? = nil, backendURL: URL? = nil) {
        connect = PasskeyConnect(
            transport: URLSessionRelyingPartyTransport(baseURL: passkeyServerURL ?? Configuration.passkeyServerURL),
            authenticator: AppleAuthenticator(presentationAnchor: { AppleAuthenticator.activeWindow() }, log: { print("passkeys:", $0) }),
            stateStore: KeychainConnectStateStore())
        backend = AppBackend(baseURL: backendURL ?? Configuration.backendURL)
    }

    /// The token provider of the signed-in session: each flow asks it once, for the one kind it needs.
    private var tokens: ConnectTokenProvider {
        let backend = backend
        let session = session
        return { kind in
            guard let session else { throw AppBackend.Failure(message: "Sign in first.") }
            return try await backend.connectToken(kind, session: session)
        }
    }

    // MARK: Login screen

    /// Asks the server how to show the login screen on this device.
    func decideLogin() async {
        loginScreen = .deciding
        switch await connect.isLoginAllowed() {
        case .initOneTap(let name):
            identifier = name
            loginScreen = .oneTap(identifier: name)
        case .initTextField(let challenge):
            loginScreen = .identifier(autoFill: challenge != nil)
        case .initFallback(_, let name):
            identifier = name ?? identifier
            loginScreen = .password
        }
    }

    func loginWithOneTap() async {
        await busy { await self.finishLogin(await self.connect.loginWithOneTap()) }
    }

    /// The identifier field's button: the account's passkeys, or the password form when it has none here.
    func loginWithIdentifier() async {
        message = nil
        let name = identifier.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else {
            message = "Enter your email address."
            return
        }
        await busy { await self.finishLogin(await self.connect.loginWithIdentifier(name)) }
        // The button's request replaced AutoFill's: offer the passkeys in the field again.
        autoFillRound += 1
    }

    /// AutoFill in the identifier field: waits until the person picks a passkey in the QuickType bar. Runs in the
    /// view's `.task`, so it ends when the screen goes away.
    func loginWithAutoFill() async {
        await finishLogin(await connect.loginWithoutIdentifier(conditionalUI: true))
    }

    /// "Use another account": forgets the one-tap account on this device.
    func useAnotherAccount() async {
        await connect.signOut()
        identifier = ""
        await decideLogin()
    }

    /// The app's existing password sign-in, then the passkey prompt when the server says to offer one.
    func loginWithPassword() async {
        message = nil
        await busy {
            do throws(AppBackend.Failure) {
                self.session = try await self.backend.login(username: self.identifier, password: self.password)
                self.password = ""
            } catch {
                self.message = error.message
                return
            }
            await self.offerPasskey()
        }
    }

    private func finishLogin(_ status: LoginStatus) async {
        switch status {
        case .done(let signedPasskeyData, _):
            do throws(AppBackend.Failure) {
                session = try await backend.exchange(signedPasskeyData: signedPasskeyData)
            } catch {
                message = error.message
            }
        case .initSilentFallback(let name):
            // No passkey works here: the password form, quietly.
            identifier = name ?? identifier
            loginScreen = .password
        case .error(let error, let triggerFallback, let name):
            // Deleted on another device or by support: say so (the SDK has told the device to forget it).
            message = error.code == .passkeyDeletedOnServer ? "This passkey was removed from your account." : error.userMessage
            if triggerFallback {
                identifier = name ?? identifier
                loginScreen = .password
            }
        case .initRetry, .ignore:
            break
        }
    }

    // MARK: After a password sign-in

    /// Asks the server whether to offer a passkey; when it says `autoAppend`, the OS adds one without a sheet where it
    /// can (conditional create, iOS 18), and the prompt is not shown.
    private func offerPasskey() async {
        guard case .askUserForAppend(let autoAppend) = await connect.isAppendAllowed(connectTokenProvider: tokens) else { return }
        if autoAppend {
            if case .completed = await connect.completeAppend() {
                message = "A passkey was added for your next sign-in."
                await loadPasskeys()
            }
            return
        }
        offersPasskey = true
    }

    /// The prompt's "Add a passkey".
    func addPasskeyFromPrompt() async {
        offersPasskey = false
        message = nil
        await busy {
            switch await self.connect.completeAppend() {
            case .completed(let passkey):
                self.message = "Passkey saved in \(passkey.provider ?? passkey.name)."
                await self.loadPasskeys()
            case .cancelled: break
            case .excludeCredentialsMatch: self.message = "This device already has a passkey for your account."
            case .error(let error): self.message = error.userMessage
            }
        }
    }

    /// The prompt's "Not now": the server does not ask again for a while.
    func declinePasskey() async {
        offersPasskey = false
        await connect.declineAppend()
    }

    // MARK: Passkey list

    func loadPasskeys() async {
        await busy { self.show(await self.connect.isManageAppendAllowed(connectTokenProvider: self.tokens)) }
    }

    func addPasskey() async {
        message = nil
        await busy { self.show(await self.connect.completePasskeyListAppend(connectTokenProvider: self.tokens)) }
    }

    func rename(_ passkey: PasskeyInfo, to name: String) async {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != passkey.name else { return }
        message = nil
        await busy { self.show(await self.connect.renamePasskey(id: passkey.id, name: trimmed, connectTokenProvider: self.tokens)) }
    }

    func delete(_ passkey: PasskeyInfo) async {
        message = nil
        await busy { self.show(await self.connect.deletePasskey(id: passkey.id, connectTokenProvider: self.tokens)) }
    }

    private func show(_ status: ManageStatus) {
        switch status {
        case .allowed(let list):
            passkeys = list
            canAddPasskey = true
        case .notAllowed(let list):
            passkeys = list
            canAddPasskey = false
        case .cancelled:
            break
        case .excludeCredentialsMatch:
            message = "This device already has a passkey for your account."
        case .error(let error):
            message = error.userMessage
        }
    }

    // MARK: Session

    /// Signs out of the app; the one-tap account stays, so the next sign-in is one tap. The login screen asks the server
    /// how to show itself when it appears.
    func signOut() {
        session = nil
        passkeys = []
        canAddPasskey = false
        offersPasskey = false
        message = nil
        loginScreen = .deciding
    }

    private func busy(_ work: @MainActor () async -> Void) async {
        running += 1
        await work()
        running -= 1
    }
}
