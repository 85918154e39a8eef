public import PasskeyWire

/// What to ask AuthenticationServices for, decided from the server's options, the app's request and the OS version.
///
/// Every decision an Apple adapter makes lives here, in plain values: which providers (platform passkeys, security
/// keys), which members each request gets on this OS version, how the controller performs the request, and what had
/// to be left out. The adapter (`PasskeyAuthenticationServices`) only turns a plan into `ASAuthorization…Request`
/// objects, so everything below is tested on Linux, per OS version.
public enum AppleRequestPlan {
    /// A member of the options this OS cannot honour, left out of the request (logged by the adapter, never silent).
    public struct Omission: Sendable, Hashable, CustomStringConvertible {
        /// The option, in WebAuthn terms (`excludeCredentials`, `extensions.prf`, `securityKey`).
        public var member: String
        public var reason: String

        public init(_ member: String, _ reason: String) {
            self.member = member
            self.reason = reason
        }

        public var description: String { "\(member): \(reason)" }
    }
}

/// How the controller runs a request.
public enum ApplePresentation: String, Sendable, Hashable, CaseIterable {
    /// `performRequests()`: the sheet.
    case modal
    /// `performRequests(options: .preferImmediatelyAvailableCredentials)`: only passkeys on this device, no sheet if none.
    case immediate
    /// `performAutoFillAssistedRequests()`: the username field's QuickType bar.
    case autoFill
    /// `performRequests()` with `requestStyle = .conditional`: an automatic passkey upgrade without a sheet.
    case conditionalRegistration
}

/// Transports a security-key descriptor may name (`ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport`).
/// WebAuthn's `internal`, `hybrid` and `smart-card` have no security-key equivalent and are dropped: passing them has
/// been seen to hide the sheet or show a QR code instead.
public enum AppleSecurityKeyTransport: String, Sendable, Hashable, CaseIterable {
    case usb, nfc, bluetooth

    /// The Apple transport for a WebAuthn transport, or `nil` when a security key cannot use it.
    public init?(_ transport: AuthenticatorTransport) {
        switch transport {
        case .usb: self = .usb
        case .nfc: self = .nfc
        case .ble: self = .bluetooth
        default: return nil
        }
    }

    /// The WebAuthn name (`ble` for Bluetooth).
    public var webAuthnTransport: AuthenticatorTransport {
        switch self {
        case .usb: .usb
        case .nfc: .nfc
        case .bluetooth: .ble
        }
    }
}

/// A credential a security-key request allows or excludes, with the transports to try (all three when the server
/// named none a security key can use).
public struct AppleSecurityKeyDescriptor: Sendable, Hashable {
    public var credentialID: [UInt8]
    public var transports: [AppleSecurityKeyTransport]

    public init(credentialID: [UInt8], transports: [AppleSecurityKeyTransport]) {
        self.credentialID = credentialID
        self.transports = transports
    }
}

/// A registration as AuthenticationServices will run it.
public struct AppleRegistrationPlan: Sendable, Hashable {
    public var relyingPartyID: String
    public var challenge: [UInt8]
    public var userID: [UInt8]
    public var userName: String
    public var userDisplayName: String
    /// Always one of `required`, `preferred`, `discouraged`.
    public var userVerification: UserVerificationRequirement
    /// Always one of `none`, `indirect`, `direct`, `enterprise`.
    public var attestation: AttestationConveyancePreference
    /// ``ApplePresentation/modal`` or ``ApplePresentation/conditionalRegistration``.
    public var presentation: ApplePresentation
    /// The platform (passkey) request, if any.
    public var platform: Platform?
    /// The security-key request, if any.
    public var securityKey: SecurityKey?
    /// The options asked for `credProps`; Apple does not compute it, the conversion does (platform passkeys are
    /// always discoverable).
    public var credPropsRequested: Bool
    /// What this OS could not do and was left out.
    public var omissions: [AppleRequestPlan.Omission]

    /// `excludeCredentials` named at least one credential (error mapping uses it).
    public var hasExcludedCredentials: Bool

    public struct Platform: Sendable, Hashable {
        /// `nil` when the OS has no `excludedCredentials` (before iOS 17.4 / macOS 13.5).
        public var excludedCredentials: [[UInt8]]?
        public var largeBlob: LargeBlobRegistrationInput?
        public var prf: PRFRegistrationInput?

        public init(excludedCredentials: [[UInt8]]?, largeBlob: LargeBlobRegistrationInput? = nil, prf: PRFRegistrationInput? = nil) {
            self.excludedCredentials = excludedCredentials
            self.largeBlob = largeBlob
            self.prf = prf
        }
    }

    public struct SecurityKey: Sendable, Hashable {
        /// `credentialParameters`, in the server's order.
        public var algorithms: [COSEAlgorithmIdentifier]
        public var excludedCredentials: [AppleSecurityKeyDescriptor]
        /// Always one of `required`, `preferred`, `discouraged`.
        public var residentKey: ResidentKeyRequirement

        public init(algorithms: [COSEAlgorithmIdentifier], excludedCredentials: [AppleSecurityKeyDescriptor], residentKey: ResidentKeyRequirement) {
            self.algorithms = algorithms
            self.excludedCredentials = excludedCredentials
            self.residentKey = residentKey
        }
    }
}

/// A sign-in as AuthenticationServices will run it.
public struct AppleAssertionPlan: Sendable, Hashable {
    public var relyingPartyID: String
    public var challenge: [UInt8]
    /// Always one of `required`, `preferred`, `discouraged`.
    public var userVerification: UserVerificationRequirement
    /// ``ApplePresentation/modal``, ``ApplePresentation/immediate`` or ``ApplePresentation/autoFill``.
    public var presentation: ApplePresentation
    public var platform: Platform?
    public var securityKey: SecurityKey?
    /// Saved passwords in the same sheet (`ASAuthorizationPasswordRequest`): ``AppleRequestPlan/signIn(_:offering:on:)``.
    public var password = false
    /// Sign in with Apple in the same sheet (`ASAuthorizationAppleIDRequest`): ``AppleRequestPlan/signIn(_:offering:on:)``.
    public var appleID: AppleIDRequest?
    public var omissions: [AppleRequestPlan.Omission]

    public struct Platform: Sendable, Hashable {
        /// Empty: any discoverable passkey for the RP ID.
        public var allowedCredentials: [[UInt8]]
        public var largeBlob: LargeBlobAssertionInput?
        public var prf: PRFAssertionInput?

        public init(allowedCredentials: [[UInt8]], largeBlob: LargeBlobAssertionInput? = nil, prf: PRFAssertionInput? = nil) {
            self.allowedCredentials = allowedCredentials
            self.largeBlob = largeBlob
            self.prf = prf
        }
    }

    public struct SecurityKey: Sendable, Hashable {
        /// Empty: a discoverable credential on the key.
        public var allowedCredentials: [AppleSecurityKeyDescriptor]

        public init(allowedCredentials: [AppleSecurityKeyDescriptor]) { self.allowedCredentials = allowedCredentials }
    }
}
