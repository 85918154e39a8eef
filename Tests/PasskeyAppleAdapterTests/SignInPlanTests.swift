import Foundation
import PasskeyClient
import PasskeyWire
import Testing

@Suite("Apple request plan: passkeys, saved passwords and Sign in with Apple in one sheet")
struct SignInPlanTests {
    static let both = SignInAlternatives(
        passwords: true, appleID: AppleIDRequest(scopes: [.fullName, .email], nonce: "n-0S6_WzA2Mj", state: "s-1", user: "001234.abcd"))

    @Test("a modal sheet takes passwords and Sign in with Apple beside the passkey requests, which stay as planned alone")
    func modal() throws {
        let request = AssertionRequest(options: Options.request(allow: [Options.descriptor(Options.credentialB, [.usb])]))
        let alone = try AppleRequestPlan.assertion(request, on: .iOS(18))
        let combined = try AppleRequestPlan.signIn(request, offering: Self.both, on: .iOS(18))
        #expect(combined.password && combined.appleID == Self.both.appleID)
        #expect(combined.platform == alone.platform && combined.securityKey == alone.securityKey && combined.omissions == alone.omissions)
        #expect(combined.presentation == .modal && combined.relyingPartyID == "example.com")
    }

    @Test("each alternative alone, and none: exactly what was offered")
    func eachAlone() throws {
        let request = AssertionRequest(options: Options.request())
        let passwords = try AppleRequestPlan.signIn(request, offering: SignInAlternatives(passwords: true), on: .macOS(15))
        #expect(passwords.password && passwords.appleID == nil)
        let apple = try AppleRequestPlan.signIn(request, offering: SignInAlternatives(appleID: AppleIDRequest()), on: .visionOS(2))
        #expect(!apple.password && apple.appleID == AppleIDRequest())
        let none = try AppleRequestPlan.signIn(request, offering: .passkeysOnly, on: .iOS(16))
        #expect(none == (try AppleRequestPlan.assertion(request, on: .iOS(16))))
    }

    @Test("an immediate request keeps them (immediately available credentials include passwords and Apple IDs)")
    func immediate() throws {
        let plan = try AppleRequestPlan.signIn(AssertionRequest(options: Options.request(), mediation: .immediate), offering: Self.both, on: .iOS(17))
        #expect(plan.presentation == .immediate && plan.password && plan.appleID != nil)
        #expect(plan.omissions.map(\.member) == ["securityKey"], "security keys are never immediately available")
    }

    @Test("AutoFill takes passkeys only: both alternatives left out, each omission recorded")
    func autoFill() throws {
        let plan = try AppleRequestPlan.signIn(AssertionRequest(options: Options.request(), mediation: .conditional), offering: Self.both, on: .iOS(18))
        #expect(plan.presentation == .autoFill && !plan.password && plan.appleID == nil)
        #expect(plan.omissions.map(\.member) == ["securityKey", "passwords", "appleID"])
    }

    @Test("the passkey part's refusals stand: a malformed RP ID is refused before any sheet")
    func refusals() {
        let request = AssertionRequest(options: Options.request(rpID: "https://example.com"))
        var refusal: PasskeyError?
        do { _ = try AppleRequestPlan.signIn(request, offering: Self.both, on: .iOS(18)) } catch { refusal = error }
        #expect(refusal?.code == .invalidOptions && refusal?.stage == .options, "\(String(describing: refusal))")
    }
}
