import PasskeyClient
import PasskeyWire
import Testing

@Suite("Account creation request plan (ASAuthorizationAccountCreationProvider) per OS version")
struct AccountCreationPlanTests {
    func plan(_ request: AccountCreationRequest, on platform: ApplePlatform) -> Result<AppleAccountCreationPlan, PasskeyError> {
        capture { () throws(PasskeyError) in try AppleRequestPlan.accountCreation(request, on: platform) }
    }

    @Test("from iOS, macOS and visionOS 26 only; before, not_supported before any sheet")
    func versions() throws {
        let request = AccountCreationRequest(options: Options.creation(), acceptedContacts: [.email])
        for platform: ApplePlatform in [.iOS(18, 6), .macOS(15, 5), .visionOS(2, 4)] {
            #expect(plan(request, on: platform).error?.code == .notSupported, "\(platform)")
        }
        for platform: ApplePlatform in [.iOS(26), .macOS(26), .visionOS(26)] {
            let made = try plan(request, on: platform).get()
            #expect(made.relyingPartyID == "example.com" && made.challenge == [UInt8](repeating: 7, count: 32))
            #expect(made.userID == [UInt8](repeating: 1, count: 16) && made.acceptedContacts == [.email] && made.requestsName)
        }
        #expect(!ApplePlatform.iOS(18).supports(.accountCreation) && ApplePlatform.iOS(26).supports(.accountCreation))
    }

    @Test("contacts keep the server's order without repeats; kinds the sheet does not know are left out, and none left is invalid_options")
    func contacts() throws {
        let both = AccountCreationRequest(options: Options.creation(), acceptedContacts: [.phone, .email, .phone], requestsName: false)
        let made = try plan(both, on: .iOS(26)).get()
        #expect(made.acceptedContacts == [.phoneNumber, .email] && !made.requestsName)
        let unknown = AccountCreationRequest(options: Options.creation(), acceptedContacts: [ContactKind(rawValue: "fax")])
        #expect(plan(unknown, on: .iOS(26)).error?.code == .invalidOptions)
        #expect(plan(AccountCreationRequest(options: Options.creation(), acceptedContacts: []), on: .iOS(26)).error?.code == .invalidOptions)
    }

    @Test("excludeCredentials and extensions are left out and said; options without ES256 are not_supported; bad options invalid")
    func options() throws {
        let request = AccountCreationRequest(
            options: Options.creation(exclude: Options.exclusions, extensions: ["credProps": true]), acceptedContacts: [.email])
        #expect(try plan(request, on: .iOS(26)).get().omissions.map(\.member) == ["excludeCredentials", "extensions"])
        let attested = AccountCreationRequest(
            options: Options.creation(selection: AuthenticatorSelectionCriteria(userVerification: .discouraged), attestation: .direct),
            acceptedContacts: [.email])
        #expect(try plan(attested, on: .iOS(26)).get().omissions.map(\.member) == ["attestation", "authenticatorSelection.userVerification"])
        let rsaOnly = AccountCreationRequest(options: Options.creation(algorithms: [.rs256]), acceptedContacts: [.email])
        #expect(plan(rsaOnly, on: .iOS(26)).error?.code == .notSupported)
        let noRP = AccountCreationRequest(options: Options.creation(rpID: nil), acceptedContacts: [.email])
        #expect(plan(noRP, on: .iOS(26)).error?.code == .invalidOptions)
        let badChallenge = AccountCreationRequest(options: Options.creation(challenge: "***"), acceptedContacts: [.email])
        #expect(plan(badChallenge, on: .iOS(26)).error != nil)
    }
}
