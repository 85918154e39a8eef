#if PASSKEY_APPLE_ADAPTER
#if canImport(AuthenticationServices)
import AuthenticationServices
#else
import AuthenticationServicesStandIn
#endif
import Foundation
import PasskeyClient

/// The WebAuthn Signal API (WebAuthn L3 §5.1.10) on Apple platforms: what the server says about an account's passkeys
/// goes to every passkey manager on the device (iCloud Keychain, third-party managers), which may then remove or hide
/// deleted passkeys and show a renamed account's new name.
///
/// `ASCredentialDataManager` from iOS, macOS and visionOS 26.2; `ASCredentialUpdater`, its same-shaped predecessor, on
/// 26.0 and 26.1; nothing before. The system does not say whether a manager acted, and a failure changes nothing the
/// app can act on, so errors are dropped.
extension AppleAuthenticator {
    /// Needs the RP ID: the system's API has no "any RP ID". The flows give one except after deleting a passkey from
    /// the managed list, which then lists again, and that list's signal covers the deleted passkey.
    public func signalUnknownCredential(rpID: String?, credentialID: [UInt8]) async {
        guard let rpID, !rpID.isEmpty, !credentialID.isEmpty, let reporter = Self.signalReporter() else { return }
        try? await reporter.reportUnknownPublicKeyCredential(relyingPartyIdentifier: rpID, credentialID: Data(credentialID))
    }

    public func signalAllAcceptedCredentials(rpID: String, userHandle: [UInt8], credentialIDs: [[UInt8]]) async {
        guard !rpID.isEmpty, !userHandle.isEmpty, let reporter = Self.signalReporter() else { return }
        try? await reporter.reportAllAcceptedPublicKeyCredentials(
            relyingPartyIdentifier: rpID, userHandle: Data(userHandle), acceptedCredentialIDs: credentialIDs.map { Data($0) })
    }

    /// Apple's API takes the one name passkey pickers show (`user.name`); the display name has no place there.
    public func signalCurrentUserDetails(rpID: String, userHandle: [UInt8], name: String, displayName: String) async {
        guard !rpID.isEmpty, !userHandle.isEmpty, !name.isEmpty, let reporter = Self.signalReporter() else { return }
        try? await reporter.reportPublicKeyCredentialUpdate(relyingPartyIdentifier: rpID, userHandle: Data(userHandle), newName: name)
    }

    /// The system's signal API on this OS, if it has one.
    ///
    /// Gated twice: `#available` for the system the app runs on, and `#if compiler` for the SDK it is built with,
    /// since `#available` is checked at run time and a symbol the SDK lacks does not compile at all. Each Xcode ships
    /// one Swift: Xcode 26.0 brought Swift 6.2 and the iOS/macOS/visionOS 26.0 SDKs (`ASCredentialUpdater`); Xcode 26.2
    /// brought Swift 6.2.3 and the 26.2 SDKs (`ASCredentialDataManager`). Xcode 16 (Swift 6.0 and 6.1) has neither.
    nonisolated static func signalReporter() -> (any CredentialSignalReporting)? {
        #if compiler(>=6.2.3)
        if #available(iOS 26.2, macOS 26.2, visionOS 26.2, *) { return ASCredentialDataManager() }
        #endif
        #if compiler(>=6.2)
        if #available(iOS 26.0, macOS 26.0, visionOS 26.0, *) { return ASCredentialUpdater.forSignals() }
        #endif
        return nil
    }
}

/// What `ASCredentialDataManager` and `ASCredentialUpdater` both do, so the three signals are written once.
protocol CredentialSignalReporting {
    func reportUnknownPublicKeyCredential(relyingPartyIdentifier: String, credentialID: Data) async throws
    func reportAllAcceptedPublicKeyCredentials(relyingPartyIdentifier: String, userHandle: Data, acceptedCredentialIDs: [Data]) async throws
    func reportPublicKeyCredentialUpdate(relyingPartyIdentifier: String, userHandle: Data, newName: String) async throws
}

#if compiler(>=6.2.3)
@available(iOS 26.2, macOS 26.2, visionOS 26.2, *)
extension ASCredentialDataManager: CredentialSignalReporting {}
#endif

#if compiler(>=6.2)
/// Deprecated with the 26.2 SDKs in favour of `ASCredentialDataManager`, and used only on 26.0 and 26.1, where that
/// class does not exist. The extension carries the deprecation so that naming the class here is not itself a warning.
@available(iOS, introduced: 26.0, deprecated: 26.2)
@available(macOS, introduced: 26.0, deprecated: 26.2)
@available(visionOS, introduced: 26.0, deprecated: 26.2)
extension ASCredentialUpdater: CredentialSignalReporting {
    static func forSignals() -> ASCredentialUpdater { ASCredentialUpdater() }
}
#endif
#endif
