/// What LocalAuthentication says about verifying the device's owner, which a platform authenticator needs.
public enum DeviceOwnerAuthentication: Sendable, Hashable {
    /// A passcode (or Mac password) is set: the owner can be verified.
    case available
    /// No passcode is set (`LAError.passcodeNotSet`).
    case passcodeNotSet
    /// Not possible for another reason LocalAuthentication gave.
    case unavailable
}
