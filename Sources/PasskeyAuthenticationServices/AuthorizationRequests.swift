#if PASSKEY_APPLE_ADAPTER
#if canImport(AuthenticationServices)
import AuthenticationServices
#else
import AuthenticationServicesStandIn
#endif
import Foundation
import PasskeyClient
import PasskeyWire

/// A plan (``AppleRegistrationPlan``, ``AppleAssertionPlan``) turned into `ASAuthorization…Request` objects. No
/// decisions here: the plan already made them for this OS version; the `#available` checks only satisfy the compiler.
@MainActor
enum AuthorizationRequests {
    static func registration(_ plan: AppleRegistrationPlan) -> [ASAuthorizationRequest] {
        var requests: [ASAuthorizationRequest] = []
        let challenge = Data(plan.challenge)
        let userID = Data(plan.userID)
        if let platform = plan.platform {
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: plan.relyingPartyID)
            let request = provider.createCredentialRegistrationRequest(challenge: challenge, name: plan.userName, userID: userID)
            request.displayName = plan.userDisplayName
            request.userVerificationPreference = userVerification(plan.userVerification)
            request.attestationPreference = attestation(plan.attestation)
            #if !os(visionOS)
            // Mac Catalyst is named on its own: `#available` there checks the iOS version unless told otherwise, and
            // iOS 17.4 would mean macOS 14.4 instead of the plan's macOS 13.5 (Catalyst 16.6).
            if let excluded = platform.excludedCredentials, #available(iOS 17.4, macCatalyst 16.6, macOS 13.5, *) {
                request.excludedCredentials = excluded.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: Data($0)) }
            }
            #endif
            if let largeBlob = platform.largeBlob, #available(iOS 17.0, macOS 14.0, *) {
                request.largeBlob = largeBlob == .required ? .supportRequired : .supportPreferred
            }
            if #available(iOS 18.0, macOS 15.0, visionOS 2.0, *) {
                switch platform.prf {
                case .checkForSupport?: request.prf = .checkForSupport
                case .evaluate(let values)?: request.prf = .inputValues(prfValues(values))
                case nil: break
                }
                if plan.presentation == .conditionalRegistration { request.requestStyle = .conditional }
            }
            requests.append(request)
        }
        #if !os(visionOS)  // security keys: iOS and macOS only (the plan never asks for them on visionOS)
        if let key = plan.securityKey {
            let provider = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: plan.relyingPartyID)
            let request = provider.createCredentialRegistrationRequest(
                challenge: challenge, displayName: plan.userDisplayName, name: plan.userName, userID: userID)
            request.userVerificationPreference = userVerification(plan.userVerification)
            request.attestationPreference = attestation(plan.attestation)
            request.credentialParameters = key.algorithms.map {
                ASAuthorizationPublicKeyCredentialParameters(algorithm: ASCOSEAlgorithmIdentifier(rawValue: $0.rawValue))
            }
            request.excludedCredentials = key.excludedCredentials.map(securityKeyDescriptor)
            request.residentKeyPreference = residentKey(key.residentKey)
            requests.append(request)
        }
        #endif
        return requests
    }

    static func assertion(_ plan: AppleAssertionPlan) -> [ASAuthorizationRequest] {
        var requests: [ASAuthorizationRequest] = []
        let challenge = Data(plan.challenge)
        if let platform = plan.platform {
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: plan.relyingPartyID)
            let request = provider.createCredentialAssertionRequest(challenge: challenge)
            request.userVerificationPreference = userVerification(plan.userVerification)
            request.allowedCredentials = platform.allowedCredentials.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: Data($0))
            }
            if let largeBlob = platform.largeBlob, #available(iOS 17.0, macOS 14.0, *) {
                switch largeBlob {
                case .read: request.largeBlob = .read
                case .write(let bytes): request.largeBlob = .write(Data(bytes))
                }
            }
            if let prf = platform.prf, #available(iOS 18.0, macOS 15.0, visionOS 2.0, *) {
                var perCredential: [Data: ASAuthorizationPublicKeyCredentialPRFAssertionInput.InputValues] = [:]
                for (id, values) in prf.perCredential { perCredential[Data(id)] = prfValues(values) }
                if let values = prf.values {
                    request.prf = .inputValues(prfValues(values), perCredentialInputValues: perCredential.isEmpty ? nil : perCredential)
                } else {
                    request.prf = .perCredentialInputValues(perCredential)
                }
            }
            requests.append(request)
        }
        #if !os(visionOS)
        if let key = plan.securityKey {
            let provider = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: plan.relyingPartyID)
            let request = provider.createCredentialAssertionRequest(challenge: challenge)
            request.userVerificationPreference = userVerification(plan.userVerification)
            request.allowedCredentials = key.allowedCredentials.map(securityKeyDescriptor)
            requests.append(request)
        }
        #endif
        // Apple's combined sheet: saved passwords and Sign in with Apple beside the passkeys.
        if plan.password {
            requests.append(ASAuthorizationPasswordProvider().createRequest())
        }
        if let appleID = plan.appleID {
            let request = ASAuthorizationAppleIDProvider().createRequest()
            if !appleID.scopes.isEmpty { request.requestedScopes = appleID.scopes.map { ASAuthorization.Scope(rawValue: $0.rawValue) } }
            request.nonce = appleID.nonce
            request.state = appleID.state
            request.user = appleID.user
            requests.append(request)
        }
        return requests
    }

    static func userVerification(_ value: UserVerificationRequirement) -> ASAuthorizationPublicKeyCredentialUserVerificationPreference {
        switch value {
        case .required: .required
        case .discouraged: .discouraged
        default: .preferred
        }
    }

    static func attestation(_ value: AttestationConveyancePreference) -> ASAuthorizationPublicKeyCredentialAttestationKind {
        switch value {
        case .direct: .direct
        case .indirect: .indirect
        case .enterprise: .enterprise
        default: .none
        }
    }

    static func residentKey(_ value: ResidentKeyRequirement) -> ASAuthorizationPublicKeyCredentialResidentKeyPreference {
        switch value {
        case .required: .required
        case .preferred: .preferred
        default: .discouraged
        }
    }

    #if !os(visionOS)
    static func securityKeyDescriptor(_ descriptor: AppleSecurityKeyDescriptor) -> ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor {
        let transports = descriptor.transports.map { (transport) -> ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport in
            switch transport {
            case .usb: .usb
            case .nfc: .nfc
            case .bluetooth: .bluetooth
            }
        }
        return ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor(credentialID: Data(descriptor.credentialID), transports: transports)
    }
    #endif

    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    static func prfValues(_ values: PRFValues) -> ASAuthorizationPublicKeyCredentialPRFAssertionInput.InputValues {
        ASAuthorizationPublicKeyCredentialPRFAssertionInput.InputValues(saltInput1: Data(values.first), saltInput2: values.second.map { Data($0) })
    }
}
#endif
