#if PASSKEY_APPLE_ADAPTER
#if canImport(AuthenticationServices)
import AuthenticationServices
#else
import AuthenticationServicesStandIn
#endif
import Foundation
public import PasskeyClient

/// Passkey-first sign-up (`ASAuthorizationAccountCreationProvider`, iOS, macOS and visionOS 26): one system sheet
/// creates the passkey and lets the person pick the contact the new account is named by.
///
/// Gated twice, like the Signal API: `#if compiler(>=6.2)` because the API exists only from the 26.0 SDKs (Xcode 26,
/// Swift 6.2; Xcode 16 has no such symbols), and the plan's OS check for the system the app runs on.
extension AppleAuthenticator {
    public func createAccount(_ request: AccountCreationRequest) async throws(PasskeyError) -> AccountCreationCredential {
        let plan = try AppleRequestPlan.accountCreation(request, on: platform)
        for omission in plan.omissions { log("passkey account creation on \(platform): left out \(omission)") }
        #if compiler(>=6.2)
        guard #available(iOS 26.0, macOS 26.0, visionOS 26.0, *) else {
            throw PasskeyError(.notSupported, stage: .authenticator, "account creation needs iOS, macOS or visionOS 26")
        }
        let result = try await perform(presentation: .modal, ceremony: .registration) { AuthorizationRequests.accountCreation(plan) }
        guard case .accountCreation(let created) = result else {
            throw PasskeyError(.internalError, stage: .authenticator, "an account creation produced another kind of credential")
        }
        return created
        #else
        throw PasskeyError(
            .notSupported, stage: .authenticator, "this app was built with an SDK before the 26 releases (Xcode 16): account creation needs Xcode 26")
        #endif
    }

    /// Whether this build has the account-creation API at all (see ``createAccount(_:)``).
    static var compiledWithAccountCreation: Bool {
        #if compiler(>=6.2)
        return true
        #else
        return false
        #endif
    }
}

#if compiler(>=6.2)
extension AuthorizationRequests {
    @available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
    static func accountCreation(_ plan: AppleAccountCreationPlan) -> [ASAuthorizationRequest] {
        let contacts = plan.acceptedContacts.map { (kind) -> ASContactIdentifierRequest in
            switch kind {
            case .email: .email
            case .phoneNumber: .phoneNumber
            }
        }
        let request = ASAuthorizationAccountCreationProvider().createPlatformPublicKeyCredentialRegistrationRequest(
            acceptedContactIdentifiers: contacts, shouldRequestName: plan.requestsName, relyingPartyIdentifier: plan.relyingPartyID,
            challenge: Data(plan.challenge), userID: Data(plan.userID))
        return [request]
    }
}

/// The sheet's credential as the SDK's values: the registration converted like any platform passkey's, the contact,
/// the name formatted for display.
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
enum AccountCreationConversion {
    static func credential(_ created: ASAuthorizationAccountCreationPlatformPublicKeyCredential) throws(PasskeyError) -> AccountCreationCredential {
        let registration = try AppleCredentialConversion.registrationResponse(created.credentialRegistration)
        let contact: AccountContact
        // An if-case chain rather than a switch: Apple's enum is not frozen, and a case a later SDK adds is refused here.
        if case .email(let email) = created.contactIdentifier {
            contact = AccountContact(.email, email.value)
        } else if case .phoneNumber(let phone) = created.contactIdentifier {
            contact = AccountContact(.phone, phone.value)
        } else {
            throw PasskeyError(.invalidResponse, stage: .authenticator, "the sign-up sheet returned a contact of a kind this SDK does not know")
        }
        guard !contact.value.isEmpty else {
            throw PasskeyError(.invalidResponse, stage: .authenticator, "the sign-up sheet returned an empty \(contact.kind.rawValue)")
        }
        return AccountCreationCredential(registration: registration, contact: contact, name: displayName(created.name))
    }

    static func displayName(_ components: PersonNameComponents?) -> String? {
        guard let components else { return nil }
        #if canImport(Darwin)
        let text = PersonNameComponentsFormatter.localizedString(from: components, style: .default)
        #else
        let text = [components.givenName, components.middleName, components.familyName].compactMap { $0 }.joined(separator: " ")
        #endif
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
#endif
#endif
