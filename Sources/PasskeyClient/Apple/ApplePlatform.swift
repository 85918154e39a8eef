/// An Apple operating system and its version: what decides which AuthenticationServices features a request may use.
///
/// A value rather than `#available` checks, so that the decisions (``AppleRequestPlan``) are pure and tested on Linux for
/// every OS version; the adapter passes ``current`` and only turns the plan into `ASAuthorization…Request` objects.
public struct ApplePlatform: Sendable, Hashable, CustomStringConvertible {
    /// The operating system family. Mac Catalyst apps count as ``macOS`` (they report the macOS version and, like macOS,
    /// have no AutoFill-assisted requests).
    public enum System: String, Sendable, Hashable, CaseIterable {
        case iOS, macOS, visionOS, tvOS, watchOS
    }

    public var system: System
    public var version: Version

    public init(_ system: System, _ version: Version) {
        self.system = system
        self.version = version
    }

    public static func iOS(_ major: Int, _ minor: Int = 0) -> ApplePlatform { ApplePlatform(.iOS, Version(major, minor)) }
    public static func macOS(_ major: Int, _ minor: Int = 0) -> ApplePlatform { ApplePlatform(.macOS, Version(major, minor)) }
    public static func visionOS(_ major: Int, _ minor: Int = 0) -> ApplePlatform { ApplePlatform(.visionOS, Version(major, minor)) }

    public var description: String { "\(system.rawValue) \(version)" }

    /// `major.minor.patch`, compared numerically.
    public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        public var patch: Int

        public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public static func < (a: Version, b: Version) -> Bool {
            (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
        }

        public var description: String { patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)" }
    }

    /// Whether `feature` exists on this system at this version.
    public func supports(_ feature: AppleFeature) -> Bool {
        guard let first = feature.introduced[system] else { return false }
        return version >= first
    }
}

/// The AuthenticationServices features a passkey request depends on, with the first OS versions that have them
/// (Apple's API reference and SDK headers; macOS numbers are the macOS releases of the same year).
public enum AppleFeature: String, Sendable, Hashable, CaseIterable {
    /// `ASAuthorizationPlatformPublicKeyCredentialProvider`: passkeys on this device and via hybrid (QR).
    case platformCredentials
    /// `ASAuthorizationSecurityKeyPublicKeyCredentialProvider`: USB, NFC and Bluetooth security keys (not on visionOS).
    case securityKeys
    /// `ASAuthorizationController.RequestOptions.preferImmediatelyAvailableCredentials`.
    case immediateMediation
    /// `performAutoFillAssistedRequests()`: passkeys in the QuickType bar of a username field (iOS only).
    case autoFillAssistedRequests
    /// `ASAuthorizationController.cancel()`.
    case cancelRequests
    /// `attachment` on platform credentials (tells a local passkey from one used over hybrid).
    case credentialAttachment
    /// `largeBlob` on platform requests and credentials.
    case largeBlob
    /// `excludedCredentials` on platform registration requests (security-key requests always had it).
    case platformExcludedCredentials
    /// `transports` on security-key registrations.
    case securityKeyRegistrationTransports
    /// `requestStyle = .conditional` on platform registrations (automatic passkey upgrade), and error 1006.
    case conditionalRegistration
    /// The `prf` extension on platform requests and credentials.
    case prf
    /// `ASAuthorizationAccountCreationProvider`: one sheet creates a passkey and a new account named by a contact.
    case accountCreation

    /// The first version per system; a system that is absent does not have the feature.
    public var introduced: [ApplePlatform.System: ApplePlatform.Version] {
        typealias V = ApplePlatform.Version
        switch self {
        case .platformCredentials: return [.iOS: V(15), .macOS: V(12), .visionOS: V(1), .tvOS: V(16)]
        case .securityKeys: return [.iOS: V(15), .macOS: V(12)]
        case .immediateMediation: return [.iOS: V(16), .macOS: V(13), .visionOS: V(1)]
        case .autoFillAssistedRequests: return [.iOS: V(16), .visionOS: V(1)]
        case .cancelRequests: return [.iOS: V(16), .macOS: V(13), .visionOS: V(1), .tvOS: V(18)]
        case .credentialAttachment: return [.iOS: V(16, 6), .macOS: V(13, 5), .visionOS: V(1)]
        case .largeBlob: return [.iOS: V(17), .macOS: V(14), .visionOS: V(1)]
        case .platformExcludedCredentials: return [.iOS: V(17, 4), .macOS: V(13, 5)]
        case .securityKeyRegistrationTransports: return [.iOS: V(17, 5), .macOS: V(14, 5)]
        case .conditionalRegistration: return [.iOS: V(18), .macOS: V(15), .visionOS: V(2)]
        case .prf: return [.iOS: V(18), .macOS: V(15), .visionOS: V(2)]
        case .accountCreation: return [.iOS: V(26), .macOS: V(26), .visionOS: V(26)]
        }
    }
}
