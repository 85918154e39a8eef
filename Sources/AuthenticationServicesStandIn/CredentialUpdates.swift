// Stand-in for the WebAuthn Signal API of AuthenticationServices: ASCredentialUpdater (iOS, macOS and visionOS 26.0,
// deprecated in 26.2) and ASCredentialDataManager (26.2), which replaces it with the same methods. Declarations only.
public import Foundation

@available(iOS, introduced: 26.0, deprecated: 26.2, message: "Use ASCredentialDataManager")
@available(macOS, introduced: 26.0, deprecated: 26.2, message: "Use ASCredentialDataManager")
@available(visionOS, introduced: 26.0, deprecated: 26.2, message: "Use ASCredentialDataManager")
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public final class ASCredentialUpdater {
    public init() { fatalError() }
    public func reportUnknownPublicKeyCredential(relyingPartyIdentifier: String, credentialID: Data) async throws { fatalError() }
    public func reportAllAcceptedPublicKeyCredentials(relyingPartyIdentifier: String, userHandle: Data, acceptedCredentialIDs: [Data]) async throws {
        fatalError()
    }
    public func reportPublicKeyCredentialUpdate(relyingPartyIdentifier: String, userHandle: Data, newName: String) async throws { fatalError() }
}

@available(iOS 26.2, macOS 26.2, visionOS 26.2, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public final class ASCredentialDataManager {
    public init() { fatalError() }
    public func reportUnknownPublicKeyCredential(relyingPartyIdentifier: String, credentialID: Data) async throws { fatalError() }
    public func reportAllAcceptedPublicKeyCredentials(relyingPartyIdentifier: String, userHandle: Data, acceptedCredentialIDs: [Data]) async throws {
        fatalError()
    }
    public func reportPublicKeyCredentialUpdate(relyingPartyIdentifier: String, userHandle: Data, newName: String) async throws { fatalError() }
}
