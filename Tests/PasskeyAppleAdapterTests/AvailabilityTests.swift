import PasskeyClient
import Testing

@Suite("Apple support check: why passkeys are unavailable")
struct AvailabilityTests {
    @Test("a passcode set on a supported OS: available, no reason")
    func available() {
        for platform: ApplePlatform in [.iOS(16), .iOS(26), .macOS(13), .visionOS(1)] {
            #expect(platform.passkeyUnavailability(owner: .available) == nil, "\(platform)")
        }
    }

    @Test("each reason from exactly one cause: OS version, no passcode, LocalAuthentication's other refusals, no support")
    func reasons() {
        #expect(ApplePlatform.iOS(14, 8).passkeyUnavailability(owner: .available) == .osTooOld)
        #expect(ApplePlatform.macOS(11).passkeyUnavailability(owner: .available) == .osTooOld)
        // The OS comes first: updating it is the first thing to do, a passcode the second.
        #expect(ApplePlatform.iOS(14, 8).passkeyUnavailability(owner: .passcodeNotSet) == .osTooOld)
        #expect(ApplePlatform.iOS(17).passkeyUnavailability(owner: .passcodeNotSet) == .passcodeNotSet)
        #expect(ApplePlatform.macOS(15).passkeyUnavailability(owner: .unavailable) == .platformAuthenticatorUnavailable)
        #expect(ApplePlatform(.watchOS, .init(11)).passkeyUnavailability(owner: .available) == .platformNotSupported)
        #expect(PasskeyUnavailability.passcodeNotSet.rawValue == "passcode_not_set")
    }
}
