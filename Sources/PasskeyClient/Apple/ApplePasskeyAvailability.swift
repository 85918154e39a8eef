extension ApplePlatform {
    /// Why passkeys are unavailable here, from the OS version and `owner`; `nil` when they are available. Pure, so the
    /// adapter's support check is tested on Linux.
    public func passkeyUnavailability(owner: DeviceOwnerAuthentication) -> PasskeyUnavailability? {
        guard supports(.platformCredentials) else {
            return AppleFeature.platformCredentials.introduced[system] == nil ? .platformNotSupported : .osTooOld
        }
        switch owner {
        case .available: return nil
        case .passcodeNotSet: return .passcodeNotSet
        case .unavailable: return .platformAuthenticatorUnavailable
        }
    }
}
