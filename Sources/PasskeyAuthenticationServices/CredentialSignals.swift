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
        guard let rpID, !rpID.isEmpty, !credentialID.isEmpty else { return }
        let id = Data(credentialID)
        if #available(iOS 26.2, macOS 26.2, visionOS 26.2, *) {
            try? await ASCredentialDataManager().reportUnknownPublicKeyCredential(relyingPartyIdentifier: rpID, credentialID: id)
        } else if #available(iOS 26.0, macOS 26.0, visionOS 26.0, *) {
            try? await ASCredentialUpdater().reportUnknownPublicKeyCredential(relyingPartyIdentifier: rpID, credentialID: id)
        }
    }

    public func signalAllAcceptedCredentials(rpID: String, userHandle: [UInt8], credentialIDs: [[UInt8]]) async {
        guard !rpID.isEmpty, !userHandle.isEmpty else { return }
        let handle = Data(userHandle)
        let accepted = credentialIDs.map { Data($0) }
        if #available(iOS 26.2, macOS 26.2, visionOS 26.2, *) {
            try? await ASCredentialDataManager().reportAllAcceptedPublicKeyCredentials(
                relyingPartyIdentifier: rpID, userHandle: handle, acceptedCredentialIDs: accepted)
        } else if #available(iOS 26.0, macOS 26.0, visionOS 26.0, *) {
            try? await ASCredentialUpdater().reportAllAcceptedPublicKeyCredentials(
                relyingPartyIdentifier: rpID, userHandle: handle, acceptedCredentialIDs: accepted)
        }
    }

    /// Apple's API takes the one name passkey pickers show (`user.name`); the display name has no place there.
    public func signalCurrentUserDetails(rpID: String, userHandle: [UInt8], name: String, displayName: String) async {
        guard !rpID.isEmpty, !userHandle.isEmpty, !name.isEmpty else { return }
        let handle = Data(userHandle)
        if #available(iOS 26.2, macOS 26.2, visionOS 26.2, *) {
            try? await ASCredentialDataManager().reportPublicKeyCredentialUpdate(relyingPartyIdentifier: rpID, userHandle: handle, newName: name)
        } else if #available(iOS 26.0, macOS 26.0, visionOS 26.0, *) {
            try? await ASCredentialUpdater().reportPublicKeyCredentialUpdate(relyingPartyIdentifier: rpID, userHandle: handle, newName: name)
        }
    }
}
#endif
