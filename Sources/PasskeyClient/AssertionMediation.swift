/// How a sign-in is presented. Names follow WebAuthn and Android Credential Manager.
///
/// An enum rather than a flag, because on Apple platforms the mere presence of `.preferImmediatelyAvailableCredentials`
/// switches it on: "immediate: false" must be impossible to write.
public enum AssertionMediation: String, Sendable, Hashable, CaseIterable {
    /// A sheet the person must answer (may offer other devices, QR codes, security keys).
    case modal
    /// Only passkeys available right now on this device; if there are none, fail at once with
    /// ``PasskeyError/Code/noCredentials`` without showing anything (Apple `.preferImmediatelyAvailableCredentials`).
    case immediate
    /// AutoFill: passkeys offered in the username field's suggestions; waits until the person picks one
    /// (web `mediation: "conditional"`, Apple `performAutoFillAssistedRequests()`).
    case conditional
}
